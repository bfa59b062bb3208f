package views

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse/internal/core"
)

// FuzzSlice builds a view from arbitrary offset, shape and strides over a
// buffer of arbitrary length, and slices it with arbitrary ranges. Neither
// step may panic; every address a view accepts lies in its buffer; and each
// element of the slice is the parent's element at the index Python's
// slicing gives.
func FuzzSlice(f *testing.F) {
	f.Add(uint16(48), int64(0), []byte{2, 6, 8, 8, 1}, []byte{1, 6, 2, 2, 8, 2})
	f.Add(uint16(6), int64(5), []byte{2, 2, 0xff, 3, 0xfe}, []byte{0x80, 0x80, 0xff})
	f.Add(uint16(10), int64(9), []byte{1, 10, 0xff}, []byte{3, 0x80, 0xfd})
	f.Add(uint16(0), int64(0), []byte{1, 0, 1}, []byte{0, 0, 0})
	f.Fuzz(func(t *testing.T, bufLen uint16, offset int64, dims, ranges []byte) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		if len(dims) == 0 {
			return
		}
		nd := int(dims[0] % 5)
		shape := make([]int64, nd)
		strides := make([]int64, nd)
		for k := range nd {
			if 1+2*k+1 < len(dims) {
				shape[k] = int64(dims[1+2*k] % 11)
				strides[k] = int64(int8(dims[2+2*k]))
			}
		}
		buf := core.NewZeroedBuffer(mem, int64(bufLen)*4)
		defer buf.Release()
		d := core.MustSlice[int32](buf, int64(bufLen))
		for i := range d {
			d[i] = int32(i)
		}
		v, err := New(arrow.PrimitiveTypes.Int32, buf, offset, shape, strides)
		if err != nil {
			require.True(t, errors.Is(err, arrow.ErrInvalid) || errors.Is(err, arrow.ErrIndex), "%v", err)
			return
		}
		defer v.Release()
		for idx, x := range All[int32](v) {
			off := v.Offset(idx...)
			require.True(t, off >= 0 && off < int64(bufLen))
			require.Equal(t, int32(off), x)
		}
		rs := make([]Range, 0, 4)
		bound := func(b byte) int64 {
			if b == 0x80 {
				return None
			}
			return int64(int8(b))
		}
		for j := 0; j+2 < len(ranges) && len(rs) < 5; j += 3 {
			rs = append(rs, Range{bound(ranges[j]), bound(ranges[j+1]), int64(int8(ranges[j+2]))})
		}
		s, err := v.Slice(rs...)
		if err != nil {
			require.True(t, errors.Is(err, arrow.ErrInvalid) || errors.Is(err, arrow.ErrIndex), "%v", err)
			return
		}
		defer s.Release()
		lists := make([][]int64, nd)
		for k := range nd {
			r := Full()
			if k < len(rs) {
				r = rs[k]
			}
			lists[k] = pyRange(shape[k], r)
			require.Equal(t, int64(len(lists[k])), s.Dim(k))
		}
		old := make([]int64, nd)
		for idx, x := range All[int32](s) {
			for k, i := range idx {
				old[k] = lists[k][i]
			}
			require.Equal(t, At[int32](v, old...), x)
			back, ok := s.Locate(int64(x))
			require.True(t, ok)
			require.Equal(t, int64(x), s.Offset(back...))
		}
	})
}

// FuzzChain runs a random chain of operations, seeded by the fuzzer,
// against the naive model of the property test.
func FuzzChain(f *testing.F) {
	f.Add(uint64(1), uint64(2))
	f.Add(uint64(7), uint64(0))
	f.Fuzz(func(t *testing.T, s1, s2 uint64) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		c := &chain{t: t, rng: rand.New(rand.NewPCG(s1, s2)), mem: mem}
		v, r := c.randomBase()
		c.check(v, r)
		for range 1 + c.rng.IntN(8) {
			nv, nr := c.step(v, r)
			if nv == nil {
				continue
			}
			v.Release()
			v, r = nv, nr
			c.check(v, r)
		}
		v.Release()
	})
}
