package arrowsparse_test

import (
	"math"
	"runtime"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
	"github.com/arrowsparse/arrowsparse/views"
)

// Accepted means safe: what a constructor accepts, every later operation
// handles. These are the reproductions of the failures that were found one
// step after a constructor, each now a passing case.

func bufferOf(mem memory.Allocator, n int, fill func(b []byte)) *memory.Buffer {
	b := core.NewZeroedBuffer(mem, int64(n))
	fill(b.Bytes())
	return b
}

// Buffers longer than needed whose length is not a whole number of
// elements: the tail is never seen.
func TestOddLengthBuffersAreSafeLater(t *testing.T) {
	mem := testutil.Checked(t)
	i32, f64 := arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Float64

	// COO with 19 bytes of int32 coordinates for 2 entries of 2 dims.
	coords := bufferOf(mem, 19, func(b []byte) {
		copy(b, core.BytesOf([]int32{0, 1, 2, 3}))
	})
	defer coords.Release()
	values := bufferOf(mem, 16, func(b []byte) { copy(b, core.BytesOf([]float64{1.5, -2})) })
	defer values.Release()
	x, err := coo.New(f64, i32, []int64{3, 4}, coords, coo.RowMajor, values, 2)
	require.NoError(t, err)
	defer x.Release()
	c, err := csf.FromCOO(mem, x, csf.ConvertOptions{})
	require.NoError(t, err)
	defer c.Release()
	assert.Equal(t, -2.0, csf.At[float64](c, 2, 3))

	// CSF with a 19-byte int32 values buffer and a 17-byte level indptr.
	idx0 := bufferOf(mem, 4, func(b []byte) { copy(b, core.BytesOf([]int32{1})) })
	defer idx0.Release()
	ptr0 := bufferOf(mem, 17, func(b []byte) { copy(b, core.BytesOf([]int64{0, 2})) })
	defer ptr0.Release()
	idx1 := bufferOf(mem, 8, func(b []byte) { copy(b, core.BytesOf([]int32{0, 2})) })
	defer idx1.Release()
	vals := bufferOf(mem, 19, func(b []byte) { copy(b, core.BytesOf([]int32{7, 8})) })
	defer vals.Release()
	y, err := csf.New(i32, []int64{2, 3}, []int{0, 1}, []csf.Level{
		{Indices: idx0, IndexType: i32, Indptr: ptr0, IndptrType: arrow.PrimitiveTypes.Int64, Len: 1},
		{Indices: idx1, IndexType: i32, Len: 2},
	}, vals, 2)
	require.NoError(t, err)
	defer y.Release()
	d, err := y.ToDense(mem)
	require.NoError(t, err)
	got, err := arrowsparse.AppendValues[int32](nil, d)
	d.Release()
	require.NoError(t, err)
	assert.Equal(t, []int32{0, 0, 0, 7, 0, 8}, got)
	z, err := y.WithAxisOrder(mem, 1, 0)
	require.NoError(t, err)
	assert.Equal(t, int32(8), csf.At[int32](z, 1, 2))
	z.Release()

	// A 52-byte buffer of int64 viewed as [2 3].
	raw := bufferOf(mem, 52, func(b []byte) { copy(b, core.BytesOf([]int64{0, 1, 0, 2, 0, 3})) })
	defer raw.Release()
	v, err := views.New(arrow.PrimitiveTypes.Int64, raw, 0, []int64{2, 3}, []int64{3, 1})
	require.NoError(t, err)
	defer v.Release()
	cv, err := csf.FromDense(mem, v, csf.ConvertOptions{})
	require.NoError(t, err)
	assert.Equal(t, int64(3), cv.NNZ())
	cv.Release()
}

// A hypersparse CSR matrix of 3 × (2^63-1) is a GCS tensor, and its DM
// works.
func TestHypersparseMatrixDM(t *testing.T) {
	mem := testutil.Checked(t)
	m, err := gcs.FromSlices(mem, gcs.Rows, []int64{3, math.MaxInt64}, []int64{0, 1, 1, 2}, []int64{math.MaxInt64 - 1, 5}, []float64{1, 2})
	require.NoError(t, err)
	defer m.Release()
	g := gcs.FromMatrix(m)
	defer g.Release()
	d := g.DM()
	defer d.Release()
	assert.Equal(t, 2.0, gcs.At[float64](d, 2, 5))
	n := 0
	for range gcs.All[float64](d) {
		n++
	}
	assert.Equal(t, 2, n)
	_, err = d.ToDense(mem)
	require.ErrorIs(t, err, arrowsparse.ErrOverflow, "a dense copy of it is an error, not a crash")
}

// Scratch follows the data, not the shape: a view of no elements over a
// huge extent converts without allocating per column, and an output that
// cannot exist is an error.
func TestEmptyViewOfHugeExtent(t *testing.T) {
	mem := testutil.Checked(t)
	buf := memory.NewBufferBytes(make([]byte, 8))
	for _, n := range []int64{1 << 36, 1 << 54} {
		v, err := views.New(arrow.PrimitiveTypes.Float64, buf, 0, []int64{0, n}, []int64{n, 1})
		require.NoError(t, err)
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		before := ms.TotalAlloc
		m, err := gcs.MatrixFromDense(mem, v, gcs.Rows, gcs.ConvertOptions{})
		require.NoError(t, err)
		assert.Equal(t, []int64{0, n}, m.Shape())
		m.Release()
		_, err = gcs.MatrixFromDense(mem, v, gcs.Cols, gcs.ConvertOptions{})
		require.ErrorIs(t, err, arrowsparse.ErrOverflow, "2^36+1 column pointers do not fit in memory")
		x, err := coo.FromDense(mem, v, coo.ConvertOptions{})
		require.NoError(t, err)
		x.Release()
		runtime.ReadMemStats(&ms)
		assert.Less(t, ms.TotalAlloc-before, uint64(1<<20))
		v.Release()
	}
}

// A COO tensor of 8,000 unit dimensions iterates without allocating per
// dimension beyond its one entry.
func TestManyDimensionsAllocateByData(t *testing.T) {
	mem := testutil.Checked(t)
	shape := make([]int64, 8000)
	for k := range shape {
		shape[k] = 1
	}
	x, err := coo.FromSlices(mem, shape, make([]int8, 8000), coo.RowMajor, []float64{3})
	require.NoError(t, err)
	defer x.Release()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	n := 0
	for range coo.All[float64](x) {
		n++
	}
	runtime.ReadMemStats(&ms)
	assert.Equal(t, 1, n)
	assert.Less(t, ms.TotalAlloc-before, uint64(256<<10), "All allocates for its one entry, not 8 KiB per dimension")
}

// A dense tensor broadcast from one element to a huge shape (zero strides,
// as a 300-byte IPC message can say) converts at the cost of its one
// element: empty when the element is zero, an error at once when the
// output cannot exist.
func TestBroadcastToHugeShape(t *testing.T) {
	mem := testutil.Checked(t)
	shape := []int64{1 << 20, 1 << 20, 1 << 10}
	for _, x := range []float64{0, 1} {
		buf := memory.NewBufferBytes(core.BytesOf([]float64{x}))
		v, err := views.New(arrow.PrimitiveTypes.Float64, buf, 0, shape, []int64{0, 0, 0})
		require.NoError(t, err)
		c, err := coo.FromDense(mem, v, coo.ConvertOptions{})
		if x == 0 {
			require.NoError(t, err)
			assert.Equal(t, int64(0), c.NNZ())
			c.Release()
		} else {
			require.ErrorIs(t, err, arrowsparse.ErrOverflow)
		}
		f, err := csf.FromDense(mem, v, csf.ConvertOptions{})
		if x == 0 {
			require.NoError(t, err)
			assert.Equal(t, int64(0), f.NNZ())
			f.Release()
		} else {
			require.ErrorIs(t, err, arrowsparse.ErrOverflow)
		}
		sub, err := v.Slice(views.Span(0, 4), views.Full(), views.Span(0, 1))
		require.NoError(t, err)
		sq, err := sub.Squeeze(2)
		require.NoError(t, err)
		m, err := gcs.MatrixFromDense(mem, sq, gcs.Rows, gcs.ConvertOptions{})
		if x == 0 {
			require.NoError(t, err)
			assert.Equal(t, int64(0), m.NNZ())
			m.Release()
		} else {
			require.NoError(t, err, "4 × 2^20 non-zeros fit in memory")
			assert.Equal(t, int64(4<<20), m.NNZ())
			m.Release()
		}
		sq.Release()
		sub.Release()
		v.Release()
	}
}
