package arrowext_test

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/arrowext"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
)

// TestVectorsCSR converts CSR matrices of every index type to columns of
// sparse vectors and back, checking values and that no array of size nnz
// is copied.
func TestVectorsCSR(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(41, 42))
	for _, it := range sparseIndexTypes {
		d := randomDense(t, r, mem, arrow.PrimitiveTypes.Float64, []int64{12, 9}, 0.3)
		m, err := gcs.MatrixFromDense(mem, d, gcs.Rows, gcs.ConvertOptions{IndexType: it, IndptrType: it})
		require.NoError(t, err)
		col, err := arrowext.VectorsFromCSR(mem, m)
		require.NoError(t, err, "%s", it)
		typ := col.TensorType()
		assert.Equal(t, arrowsparse.FormatCOO, typ.Format())
		assert.Equal(t, []int64{9}, typ.FixedShape())
		assert.True(t, typ.CanonicalClaim())
		assert.Equal(t, it.ID(), typ.IndexType().ID())
		ch := col.Storage().Data().Children()
		assert.Same(t, ch[0].Buffers()[1], ch[1].Buffers()[1], "one offsets buffer")
		assert.True(t, insideBuffer(ch[1].Children()[0].Buffers()[1].Bytes(), m.ValuesBuffer()), "values shared")
		if it.ID() == arrow.INT32 || it.ID() == arrow.UINT32 {
			assert.True(t, insideBuffer(ch[0].Buffers()[1].Bytes(), m.IndptrBuffer()), "indptr shared")
		}
		// every row is the matrix's row
		want := denseBytes(t, mem, m)
		rowBytes := len(want) / 12
		for i := range col.Len() {
			x, err := col.Row(i)
			require.NoError(t, err)
			assert.Equal(t, want[i*rowBytes:(i+1)*rowBytes], denseBytes(t, mem, x))
			x.Release()
		}
		m.Release()
		back, err := col.ToCSR(mem)
		require.NoError(t, err)
		assert.Equal(t, want, denseBytes(t, mem, back))
		assert.True(t, back.IsCanonical())
		if it.ID() == arrow.INT32 || it.ID() == arrow.UINT32 {
			assert.True(t, insideBuffer(back.IndptrBuffer().Bytes(), ch[1].Buffers()[1]), "indptr is the offsets")
		}
		assert.True(t, back.NNZ() == 0 || insideBuffer(back.ValueBytes(), ch[1].Children()[0].Buffers()[1]), "values shared back")
		back.Release()
		// a slice of the column
		sl := array.NewSlice(col, 3, 10).(*arrowext.SparseTensorArray)
		sm, err := sl.ToCSR(mem, arrowext.WithTrusted())
		require.NoError(t, err)
		assert.Equal(t, want[3*rowBytes:10*rowBytes], denseBytes(t, mem, sm))
		sm.Release()
		sl.Release()
		col.Release()
		d.Release()
	}
}

// TestVectorsToCSRNullsAndShapes: null rows become empty rows, varying
// sizes give the largest, other columns are refused.
func TestVectorsToCSRNullsAndShapes(t *testing.T) {
	mem := testutil.Checked(t)
	a, err := coo.FromSlices(mem, []int64{4}, []int32{1, 3}, coo.RowMajor, []float32{1, 2})
	require.NoError(t, err)
	defer a.Release()
	b, err := coo.FromSlices(mem, []int64{6}, []int32{5}, coo.RowMajor, []float32{3})
	require.NoError(t, err)
	defer b.Release()
	col, err := arrowext.NewSparseTensorArray(mem, arrowext.SparseTensorParams{Format: arrowsparse.FormatCOO}, []arrowsparse.Tensor{a, nil, b})
	require.NoError(t, err)
	defer col.Release()
	m, err := col.ToCSR(mem)
	require.NoError(t, err)
	defer m.Release()
	assert.Equal(t, []int64{3, 6}, m.Shape())
	d, err := m.ToDense(mem)
	require.NoError(t, err)
	defer d.Release()
	assert.Equal(t, []float64{0, 1, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3}, testutil.DenseValues(t, d))
	// a CSR column is not a column of vectors; a CSC matrix is refused
	x, err := gcs.FromSlices(mem, gcs.Cols, []int64{2, 2}, []int32{0, 1, 1}, []int32{0}, []float64{1})
	require.NoError(t, err)
	defer x.Release()
	_, err = arrowext.VectorsFromCSR(mem, x)
	require.ErrorIs(t, err, arrow.ErrInvalid)
	c2, err := arrowext.NewSparseTensorArray(mem, arrowext.SparseTensorParams{Format: arrowsparse.FormatCSC}, []arrowsparse.Tensor{x})
	require.NoError(t, err)
	defer c2.Release()
	_, err = c2.ToCSR(mem)
	require.ErrorIs(t, err, arrow.ErrInvalid)
}
