package compute_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/compute"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
)

var formatOf = map[compute.Format]arrowsparse.Format{
	compute.Dense: arrowsparse.FormatDense, compute.COO: arrowsparse.FormatCOO, compute.CSR: arrowsparse.FormatCSR,
	compute.CSC: arrowsparse.FormatCSC, compute.GCS: arrowsparse.FormatGCS, compute.CSF: arrowsparse.FormatCSF,
}

// TestBinaryFormats asks for every result format, from operands in other
// formats, and checks the format and the values.
func TestBinaryFormats(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for _, shape := range [][]int64{{6, 5}, {3, 4, 2}} {
		for _, f := range []compute.Format{compute.Dense, compute.COO, compute.CSR, compute.CSC, compute.GCS, compute.CSF} {
			t.Run(fmt.Sprintf("%v/%s", shape, f), func(t *testing.T) {
				mem := testutil.Checked(t)
				ca := randomTensor(t, mem, r, shape, 12, arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Int32)
				defer ca.Release()
				cb := randomTensor(t, mem, r, shape, 9, arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Int64)
				defer cb.Release()
				formats := formatsFor(len(shape))
				a, b := as(t, mem, ca, formats[r.IntN(len(formats))]), as(t, mem, cb, formats[r.IntN(len(formats))])
				defer a.Release()
				defer b.Release()
				res, err := compute.Subtract(mem, a, b, compute.Options{Format: f})
				if len(shape) != 2 && (f == compute.CSR || f == compute.CSC) {
					require.ErrorIs(t, err, arrowsparse.ErrShape)
					return
				}
				require.NoError(t, err)
				defer res.Release()
				assert.Equal(t, formatOf[f], res.Format())
				x, y := denseOf[float32](t, mem, a), denseOf[float32](t, mem, b)
				want := make([]float32, len(x))
				for i := range x {
					want[i] = x[i] - y[i]
				}
				assert.Equal(t, want, denseOf[float32](t, mem, res))
				checkStoredNonzero(t, res)
			})
		}
	}
}

// TestKeepZerosAndIndexTypes keeps the zero results and asks for index
// types.
func TestKeepZerosAndIndexTypes(t *testing.T) {
	mem := testutil.Checked(t)
	a, err := gcs.FromSlices(mem, gcs.Rows, []int64{2, 300}, []int64{0, 2, 3}, []int64{0, 299, 5}, []int16{4, 3, 9})
	require.NoError(t, err)
	defer a.Release()
	b, err := gcs.FromSlices(mem, gcs.Rows, []int64{2, 300}, []int8{0, 1, 2}, []int16{0, 5}, []int16{4, 1})
	require.NoError(t, err)
	defer b.Release()
	r, err := compute.Subtract(mem, a, b, compute.Options{KeepZeros: true, IndexType: arrow.PrimitiveTypes.Uint16, IndptrType: arrow.PrimitiveTypes.Uint8})
	require.NoError(t, err)
	defer r.Release()
	m := r.(*gcs.Matrix)
	assert.Equal(t, int64(3), m.NNZ(), "4-4 is kept")
	assert.True(t, arrow.TypeEqual(arrow.PrimitiveTypes.Uint16, m.IndexType()))
	assert.True(t, arrow.TypeEqual(arrow.PrimitiveTypes.Uint8, m.IndptrType()))
	d, err := compute.Subtract(mem, a, b, compute.Options{})
	require.NoError(t, err)
	defer d.Release()
	assert.Equal(t, int64(2), d.NNZ())
	assert.True(t, arrow.TypeEqual(arrow.PrimitiveTypes.Int64, d.(*gcs.Matrix).IndexType()), "the wider of int64 and int16")

	_, err = compute.Add(mem, a, b, compute.Options{IndexType: arrow.PrimitiveTypes.Int8})
	require.ErrorIs(t, err, arrow.ErrType, "int8 cannot hold column 299")
	_, err = compute.Add(mem, a, b, compute.Options{IndptrType: arrow.PrimitiveTypes.Uint64})
	require.ErrorIs(t, err, arrowsparse.ErrUnsupportedType)
}

func TestBinaryErrors(t *testing.T) {
	mem := testutil.Checked(t)
	a, err := gcs.FromSlices(mem, gcs.Rows, []int64{2, 3}, []int32{0, 1, 1}, []int32{0}, []float64{1})
	require.NoError(t, err)
	defer a.Release()
	b, err := gcs.FromSlices(mem, gcs.Rows, []int64{3, 2}, []int32{0, 1, 1, 1}, []int32{0}, []float64{1})
	require.NoError(t, err)
	defer b.Release()
	f, err := gcs.FromSlices(mem, gcs.Rows, []int64{2, 3}, []int32{0, 1, 1}, []int32{0}, []float32{1})
	require.NoError(t, err)
	defer f.Release()
	for _, op := range binaryOps {
		_, err := op.f(mem, a, b, compute.Options{})
		require.ErrorIs(t, err, arrowsparse.ErrShape, op.name)
		_, err = op.f(mem, a, f, compute.Options{})
		require.ErrorIs(t, err, arrow.ErrType, op.name)
		_, err = op.f(mem, a, a, compute.Options{Format: compute.Format(42)})
		require.ErrorIs(t, err, arrow.ErrInvalid, op.name)
	}
	c3 := randomTensor(t, mem, rand.New(rand.NewPCG(1, 1)), []int64{2, 2, 2}, 3, arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Int32)
	defer c3.Release()
	_, err = compute.Add(mem, c3, c3, compute.Options{Format: compute.CSR})
	require.ErrorIs(t, err, arrowsparse.ErrShape)
	v := randomTensor(t, mem, rand.New(rand.NewPCG(1, 1)), []int64{4}, 3, arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Int32)
	defer v.Release()
	_, err = compute.Add(mem, v, v, compute.Options{Format: compute.CSF})
	require.ErrorIs(t, err, arrowsparse.ErrShape)
	_, err = compute.Scale(mem, v, int64(2), compute.Options{})
	require.ErrorIs(t, err, arrowsparse.ErrUnsupportedType)
}

// TestResultsShareIndices checks the ownership the documentation states:
// unary results and same-pattern merges share the operand's indices.
func TestResultsShareIndices(t *testing.T) {
	mem := testutil.Checked(t)
	a, err := gcs.FromSlices(mem, gcs.Cols, []int64{3, 3}, []int32{0, 2, 2, 3}, []int32{0, 2, 1}, []float64{1, 2, 3})
	require.NoError(t, err)
	defer a.Release()
	s, err := compute.Scale(mem, a, 2.0, compute.Options{})
	require.NoError(t, err)
	defer s.Release()
	assert.Same(t, a.IndicesBuffer(), s.(*gcs.Matrix).IndicesBuffer())
	sum, err := compute.Add(mem, a, s, compute.Options{})
	require.NoError(t, err)
	defer sum.Release()
	assert.Same(t, a.IndicesBuffer(), sum.(*gcs.Matrix).IndicesBuffer())
	assert.Equal(t, []float64{3, 0, 0, 0, 0, 9, 6, 0, 0}, denseOf[float64](t, mem, sum))

	x := randomTensor(t, mem, rand.New(rand.NewPCG(2, 2)), []int64{3, 3, 3}, 8, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int8)
	defer x.Release()
	c, err := csf.FromCOO(mem, x, csf.ConvertOptions{})
	require.NoError(t, err)
	defer c.Release()
	n, err := compute.Negate(mem, c, compute.Options{KeepZeros: true})
	require.NoError(t, err)
	defer n.Release()
	assert.Same(t, c.IndicesBuffer(2), n.(*csf.Tensor).IndicesBuffer(2))
}
