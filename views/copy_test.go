package views

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
)

// fill sets element p of the view's buffer to a value derived from p.
func fill[T arrowsparse.Value](v *View, conv func(int) T) {
	d := data[T](v)
	for i := range d {
		d[i] = conv(i)
	}
}

// checkCopy compares Copy with element-by-element reads for every layout
// derived from a, for one element type.
func checkCopy[T arrowsparse.Value](t *testing.T, mem memory.Allocator, dt arrow.DataType, conv func(int) T) {
	rng := rand.New(rand.NewPCG(7, uint64(arrowsparse.ByteWidth(dt))))
	for _, shape := range [][]int64{{37, 70}, {130, 129}, {3, 65, 33}, {2, 3, 4, 5}, {1, 300}, {300, 1}, {0, 4}} {
		a, err := Alloc(mem, dt, shape)
		require.NoError(t, err)
		fill(a, conv)
		layouts := map[string]func() (*View, error){
			"contiguous": func() (*View, error) { return a.Slice() },
			"T":          func() (*View, error) { return a.T(), nil },
			"last axis sliced": func() (*View, error) {
				rs := make([]Range, len(shape))
				for k := range rs {
					rs[k] = Full()
				}
				rs[len(rs)-1] = Range{1, -1, 1}
				return a.Slice(rs...)
			},
			"flipped": func() (*View, error) { return a.Flip(-1) },
			"strided": func() (*View, error) {
				rs := make([]Range, len(shape))
				for k := range rs {
					rs[k] = Range{None, None, int64(1 + rng.IntN(3))}
				}
				return a.Slice(rs...)
			},
			"permuted": func() (*View, error) {
				return a.Transpose(rng.Perm(len(shape))...)
			},
			"batched transpose": func() (*View, error) {
				p := make([]int, len(shape))
				for k := range p {
					p[k] = k
				}
				p[len(p)-1], p[0] = p[0], p[len(p)-1]
				return a.Transpose(p...)
			},
			"broadcast": func() (*View, error) {
				return a.BroadcastTo(append([]int64{2}, shape...))
			},
		}
		for name, mk := range layouts {
			v, err := mk()
			require.NoError(t, err, name)
			t.Run(fmt.Sprintf("%s/%v/%s", dt, shape, name), func(t *testing.T) {
				c, err := v.Copy(mem, CopyOptions{})
				require.NoError(t, err)
				defer c.Release()
				assert.True(t, c.IsCContiguous())
				want := slices.Collect(Elements[T](v))
				got := data[T](c)[:len(want)]
				if len(want) > 0 {
					assert.Equal(t, want, got)
				}
				// CopyTo a permuted destination takes the element-wise path
				if len(shape) >= 2 && v.Len() > 0 {
					rev := v.Shape()
					slices.Reverse(rev)
					d, err := Alloc(mem, dt, rev)
					require.NoError(t, err)
					defer d.Release()
					dT := d.T()
					defer dT.Release()
					require.NoError(t, v.CopyTo(mem, dT, CopyOptions{}))
					assert.Equal(t, want, slices.Collect(Elements[T](dT)))
				}
			})
			v.Release()
		}
		a.Release()
	}
}

func TestCopyFastPathsAllWidths(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	checkCopy(t, mem, arrow.PrimitiveTypes.Int8, func(i int) int8 { return int8(i) })
	checkCopy(t, mem, arrow.PrimitiveTypes.Uint16, func(i int) uint16 { return uint16(i) })
	checkCopy(t, mem, arrow.FixedWidthTypes.Float16, func(i int) float16.Num { return float16.New(float32(i % 2048)) })
	checkCopy(t, mem, arrow.PrimitiveTypes.Float32, func(i int) float32 { return float32(i) })
	checkCopy(t, mem, arrow.PrimitiveTypes.Int64, func(i int) int64 { return int64(i) * 3 })
	checkCopy(t, mem, arrow.PrimitiveTypes.Float64, func(i int) float64 { return float64(i) / 2 })
}

func TestCopyToOverlapping(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	a := iota64(t, mem, 8)
	defer a.Release()
	lo, err := a.Slice(Span(0, 7))
	require.NoError(t, err)
	defer lo.Release()
	hi, err := a.Slice(Span(1, 8))
	require.NoError(t, err)
	defer hi.Release()
	// a[1:] = a[:-1], as if the source were copied first (NumPy semantics)
	require.NoError(t, lo.CopyTo(mem, hi, CopyOptions{}))
	assert.Equal(t, []float64{0, 0, 1, 2, 3, 4, 5, 6}, values(a))

	// in-place transpose of a square matrix through an overlapping view
	m := iota64(t, mem, 3, 3)
	defer m.Release()
	mt := m.T()
	defer mt.Release()
	require.NoError(t, mt.CopyTo(mem, m, CopyOptions{}))
	assert.Equal(t, []float64{0, 3, 6, 1, 4, 7, 2, 5, 8}, values(m))

	// copying a view onto itself is a no-op
	require.NoError(t, a.CopyTo(mem, a, CopyOptions{}))
	assert.Equal(t, []float64{0, 0, 1, 2, 3, 4, 5, 6}, values(a))

	// a remapped source into a strided destination
	r, err := m.Rotate(0, 1)
	require.NoError(t, err)
	defer r.Release()
	d, err := Alloc(mem, arrow.PrimitiveTypes.Float64, []int64{3, 3})
	require.NoError(t, err)
	defer d.Release()
	require.NoError(t, r.CopyTo(mem, d, CopyOptions{}))
	assert.Equal(t, []float64{2, 5, 8, 0, 3, 6, 1, 4, 7}, values(d))
}

func TestCopyScalar(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	a := iota64(t, mem, 2, 3)
	defer a.Release()
	s, err := a.Index(0, 1)
	require.NoError(t, err)
	defer s.Release()
	x, err := s.Index(0, 2)
	require.NoError(t, err)
	defer x.Release()
	assert.Equal(t, 0, x.NumDims())
	assert.Equal(t, 5.0, At[float64](x))
	assert.Equal(t, "5", x.String())
	c, err := x.Copy(mem, CopyOptions{})
	require.NoError(t, err)
	defer c.Release()
	assert.Equal(t, 5.0, At[float64](c))
	idx, ok := x.Locate(5)
	assert.True(t, ok)
	assert.Empty(t, idx)
	for k, v := range All[float64](x) {
		assert.Empty(t, k)
		assert.Equal(t, 5.0, v)
	}
}

func TestCopyToAllocatesNothing(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	a := iota64(t, mem, 64, 48)
	defer a.Release()
	tr := a.T()
	defer tr.Release()
	cols, err := a.Slice(Full(), Span(1, 40))
	require.NoError(t, err)
	defer cols.Release()
	for _, v := range []*View{a, tr, cols} {
		d, err := Alloc(mem, arrow.PrimitiveTypes.Float64, v.Shape())
		require.NoError(t, err)
		n := testing.AllocsPerRun(20, func() { require.NoError(t, v.CopyTo(mem, d, CopyOptions{Workers: 1})) })
		assert.Zero(t, n)
		assert.Equal(t, values(v), values(d))
		d.Release()
	}
}

func TestCopyWithWorkers(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	a := iota64(t, mem, 1024, 1030) // 8 MiB: above the parallel threshold
	defer a.Release()
	tr := a.T()
	defer tr.Release()
	r, err := a.Rotate(1, 7)
	require.NoError(t, err)
	defer r.Release()
	for _, workers := range []int{2, 3, 16} {
		c, err := tr.Copy(mem, CopyOptions{Workers: workers})
		require.NoError(t, err)
		want, err := tr.Copy(mem, CopyOptions{})
		require.NoError(t, err)
		assert.Equal(t, data[float64](want), data[float64](c))
		c.Release()
		want.Release()
		rc, err := r.Copy(mem, CopyOptions{Workers: workers})
		require.NoError(t, err)
		assert.Equal(t, values(r), values(rc))
		rc.Release()
	}
}

// Planes above 1 MiB take the super-tile path (with non-temporal stores for
// 8-byte elements on amd64); check it against element reads, with sizes and
// strides that are not multiples of the 8×8 kernel.
func TestCopyLargeTranspose(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, dt := range []arrow.DataType{arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Int16} {
		a, err := Alloc(mem, dt, []int64{613, 1031})
		require.NoError(t, err)
		switch dt.ID() {
		case arrow.FLOAT64:
			fill(a, func(i int) float64 { return float64(i) })
		case arrow.FLOAT32:
			fill(a, func(i int) float32 { return float32(i) })
		default:
			fill(a, func(i int) int16 { return int16(i) })
		}
		sub, err := a.Slice(Range{3, None, 1}, Range{5, -2, 1}) // odd offset and leading dimension
		require.NoError(t, err)
		v := sub.T()
		for _, workers := range []int{1, 2} {
			c, err := v.Copy(mem, CopyOptions{Workers: workers})
			require.NoError(t, err)
			n := v.Dim(1)
			for i := range v.Dim(0) {
				for _, j := range []int64{0, 1, 7, 8, 9, n / 2, n - 9, n - 1} {
					switch dt.ID() {
					case arrow.FLOAT64:
						require.Equal(t, At[float64](v, i, j), data[float64](c)[i*n+j])
					case arrow.FLOAT32:
						require.Equal(t, At[float32](v, i, j), data[float32](c)[i*n+j])
					default:
						require.Equal(t, At[int16](v, i, j), data[int16](c)[i*n+j])
					}
				}
			}
			if dt.ID() == arrow.FLOAT64 {
				require.Equal(t, slices.Collect(Elements[float64](v)), data[float64](c)[:v.Len()])
			}
			c.Release()
		}
		v.Release()
		sub.Release()
		a.Release()
	}
}
