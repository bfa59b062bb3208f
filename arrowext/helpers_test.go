package arrowext_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/views"
)

// randomPerm returns a random permutation of 0..n-1, or nil (none) one
// time in four.
func randomPerm(r *rand.Rand, n int) []int {
	if r.IntN(4) == 0 {
		return nil
	}
	return r.Perm(n)
}

// logicalBytes returns the bytes of a tensor in logical row-major order,
// from its physical row-major bytes, physical shape and permutation (logical
// axis i is physical axis perm[i]), computed element by element: the
// physical index of logical index idx has idx[i] at position perm[i].
func logicalBytes(phys []byte, physShape []int64, perm []int, w int) []byte {
	n := len(physShape)
	if perm == nil {
		perm = make([]int, n)
		for i := range perm {
			perm[i] = i
		}
	}
	logShape := make([]int64, n)
	for i := range n {
		logShape[i] = physShape[perm[i]]
	}
	size := int64(1)
	for _, d := range physShape {
		size *= d
	}
	out := make([]byte, 0, size*int64(w))
	idx := make([]int64, n)
	pidx := make([]int64, n)
	for range size {
		for i := range n {
			pidx[perm[i]] = idx[i]
		}
		lin := int64(0)
		for k := range n {
			lin = lin*physShape[k] + pidx[k]
		}
		out = append(out, phys[lin*int64(w):(lin+1)*int64(w)]...)
		for k := n - 1; k >= 0; k-- {
			idx[k]++
			if idx[k] < logShape[k] {
				break
			}
			idx[k] = 0
		}
	}
	return out
}

// viewBytes returns the elements of v in row-major order, as bytes.
func viewBytes(t testing.TB, mem memory.Allocator, v *views.View) []byte {
	t.Helper()
	c, err := v.Copy(mem, views.CopyOptions{})
	require.NoError(t, err)
	defer c.Release()
	w := arrowsparse.ByteWidth(v.DataType())
	return append([]byte{}, c.Buffer().Bytes()[:int(c.Len())*w]...)
}

// randomBuffer returns a buffer of n random bytes from mem.
func randomBuffer(r *rand.Rand, mem memory.Allocator, n int) *memory.Buffer {
	b := memory.NewResizableBuffer(mem)
	b.Resize(n)
	for i := range b.Bytes() {
		b.Bytes()[i] = byte(r.Uint32())
	}
	return b
}

// nullBitmap returns a validity bitmap of n slots where slot i is valid
// unless null[i], or nil when nothing is null.
func nullBitmap(mem memory.Allocator, null []bool) (*memory.Buffer, int) {
	nulls := 0
	for _, x := range null {
		if x {
			nulls++
		}
	}
	if nulls == 0 {
		return nil, 0
	}
	b := memory.NewResizableBuffer(mem)
	b.Resize(int(bitutil.BytesForBits(int64(len(null)))))
	clear(b.Bytes())
	for i, x := range null {
		if !x {
			bitutil.SetBit(b.Bytes(), i)
		}
	}
	return b, nulls
}

// fixedColumn builds a fixed_shape_tensor column of n rows over random
// physical values, with the given null rows, and with the storage's child
// starting at element childOffset of its buffer. It returns the column and
// the physical bytes of each row.
func fixedColumn(t testing.TB, r *rand.Rand, mem memory.Allocator, typ arrow.ExtensionType, size int64, n int, null []bool, childOffset int) (arrow.Array, [][]byte) {
	t.Helper()
	st := typ.StorageType().(*arrow.FixedSizeListType)
	w := arrowsparse.ByteWidth(st.Elem())
	buf := randomBuffer(r, mem, (childOffset+n*int(size))*w)
	defer buf.Release()
	child := array.NewData(st.Elem(), n*int(size), []*memory.Buffer{nil, buf}, nil, 0, childOffset)
	defer child.Release()
	valid, nulls := nullBitmap(mem, null)
	if valid != nil {
		defer valid.Release()
	}
	data := array.NewData(st, n, []*memory.Buffer{valid}, []arrow.ArrayData{child}, nulls, 0)
	defer data.Release()
	storage := array.MakeFromData(data)
	defer storage.Release()
	rows := make([][]byte, n)
	for i := range rows {
		lo := (childOffset + i*int(size)) * w
		rows[i] = append([]byte(nil), buf.Bytes()[lo:lo+int(size)*w]...)
	}
	return array.NewExtensionArrayWithStorage(typ, storage), rows
}

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }
