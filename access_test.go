package arrowsparse_test

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
	"github.com/arrowsparse/arrowsparse/views"
)

// A tensor whose types are known only at run time reads through the
// Sparse interface and AppendValues, exactly where the types allow.
func TestSparseRuntimeAccess(t *testing.T) {
	mem := testutil.Checked(t)
	big := int64(1)<<60 + 3
	x, err := coo.FromSlices(mem, []int64{4, 5}, []uint8{3, 4, 0, 1}, coo.RowMajor, []int64{big, -7})
	require.NoError(t, err)
	defer x.Release()
	var s arrowsparse.Sparse = x
	assert.Equal(t, []int64{9, 3, 4, 0, 1}, s.AppendCoords([]int64{9}))
	ints, err := arrowsparse.AppendValues[int64](nil, s)
	require.NoError(t, err)
	assert.Equal(t, []int64{big, -7}, ints, "int64 values stay exact")
	fl, err := arrowsparse.AppendValues[float64](nil, s)
	require.NoError(t, err)
	assert.Equal(t, []float64{float64(big), -7}, fl)
	h, err := arrowsparse.AppendValues[float16.Num](nil, s)
	require.NoError(t, err)
	assert.Equal(t, float32(-7), arrowsparse.HalfToFloat32(h[1]))
	assert.True(t, math.IsInf(float64(arrowsparse.HalfToFloat32(h[0])), 1), "beyond float16's range rounds to infinity")
}

func TestAppendValuesDense(t *testing.T) {
	mem := testutil.Checked(t)
	v, err := views.Alloc(mem, arrow.PrimitiveTypes.Float32, []int64{2, 3})
	require.NoError(t, err)
	defer v.Release()
	data := testutil.ViewValues[float32](t, v)
	for i := range data {
		data[i] = float32(i) + 0.5
	}
	vt := v.T()
	defer vt.Release()
	got, err := arrowsparse.AppendValues[float64](nil, vt)
	require.NoError(t, err)
	assert.Equal(t, []float64{0.5, 3.5, 1.5, 4.5, 2.5, 5.5}, got, "row-major order of the transposed view")
	u8, err := arrowsparse.AppendValues[uint8](nil, v)
	require.NoError(t, err)
	assert.Equal(t, []uint8{0, 1, 2, 3, 4, 5}, u8, "truncated as Go converts floats to integers")

	// A Dense from elsewhere whose layout leaves its buffer is an error,
	// not a panic.
	bad := lyingDense{buf: memory.NewBufferBytes(make([]byte, 16))}
	_, err = arrowsparse.AppendValues[float64](nil, bad)
	require.ErrorIs(t, err, arrowsparse.ErrOutOfRange)
	require.ErrorIs(t, err, arrow.ErrIndex)
}

// lyingDense claims 10 float64 elements over a 16-byte buffer.
type lyingDense struct{ buf *memory.Buffer }

func (d lyingDense) Format() arrowsparse.Format { return arrowsparse.FormatDense }
func (d lyingDense) DataType() arrow.DataType   { return arrow.PrimitiveTypes.Float64 }
func (d lyingDense) Shape() []int64             { return []int64{10} }
func (d lyingDense) NumDims() int               { return 1 }
func (d lyingDense) DimNames() []string         { return nil }
func (d lyingDense) NNZ() int64                 { return 10 }
func (d lyingDense) ToDense(memory.Allocator) (arrowsparse.Dense, error) {
	return nil, nil
}
func (d lyingDense) Retain()                {}
func (d lyingDense) Release()               {}
func (d lyingDense) Buffer() *memory.Buffer { return d.buf }
func (d lyingDense) ElemOffset() int64      { return 0 }
func (d lyingDense) ElemStrides() []int64   { return []int64{1} }
