package gcs_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
	"github.com/arrowsparse/arrowsparse/views"
)

// mulRef returns op(A)·x for a row-major dense A.
func mulRef(a []float64, rows, cols int64, trans bool, x []float64) []float64 {
	if trans {
		y := make([]float64, cols)
		for i := range rows {
			for j := range cols {
				y[j] += a[i*cols+j] * x[i]
			}
		}
		return y
	}
	y := make([]float64, rows)
	for i := range rows {
		for j := range cols {
			y[i] += a[i*cols+j] * x[j]
		}
	}
	return y
}

func TestMulVec(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for _, c := range []struct {
		shape []int64
		nnz   int
	}{
		{[]int64{0, 0}, 0}, {[]int64{3, 0}, 0}, {[]int64{1, 1}, 1}, {[]int64{5, 7}, 20},
		{[]int64{600, 500}, 100000}, // past the parallel threshold
	} {
		mem := testutil.Checked(t)
		x, rf := testutil.RandomCOO(t, mem, r, c.shape, c.nnz, coo.ColMajor, i32, f64, 5)
		want := rf.Dense(arrowsparse.SumDuplicates)
		for _, it := range []arrow.DataType{i32, i64, arrow.PrimitiveTypes.Uint16} {
			for _, axis := range []gcs.Axis{gcs.Rows, gcs.Cols} {
				m, err := gcs.MatrixFromCOO(mem, x, axis, gcs.ConvertOptions{IndexType: it})
				require.NoError(t, err)
				for _, trans := range []bool{false, true} {
					n, k := c.shape[1], c.shape[0]
					if trans {
						n, k = k, n
					}
					xv := make([]float64, n)
					for i := range xv {
						xv[i] = float64(r.IntN(9) - 4)
					}
					ref := mulRef(want, c.shape[0], c.shape[1], trans, xv)
					op := m
					if trans {
						op = m.T()
						defer op.Release()
					}
					for _, workers := range []int{1, 2, 0} {
						name := fmt.Sprintf("%v/%s/%s/trans=%v/w=%d", c.shape, it, axis, trans, workers)
						y := make([]float64, k)
						for i := range y {
							y[i] = 99 // overwritten
						}
						require.NoError(t, gcs.MulVec(y, op, xv, gcs.KernelOptions{Workers: workers}), name)
						assert.InDeltaSlice(t, ref, y, 1e-9, name)
					}
					// SpMM against a strided (transposed) B of 3 columns.
					bt, err := views.Alloc(mem, f64, []int64{3, n})
					require.NoError(t, err)
					bd := testutil.ViewValues[float64](t, bt)
					for i := range bd {
						bd[i] = float64(r.IntN(5) - 2)
					}
					b := bt.T()
					for _, workers := range []int{1, 2} {
						cm, err := gcs.MulDense(mem, op, b, gcs.KernelOptions{Workers: workers})
						require.NoError(t, err)
						got := testutil.DenseValues(t, cm)
						for j := range int64(3) {
							col := make([]float64, n)
							for i := range n {
								col[i] = views.At[float64](b, i, j)
							}
							refj := mulRef(want, c.shape[0], c.shape[1], trans, col)
							for i := range k {
								assert.InDelta(t, refj[i], got[i*3+j], 1e-9)
							}
						}
						cm.Release()
					}
					b.Release()
					bt.Release()
				}
				m.Release()
			}
		}
		x.Release()
	}
}

func TestMulVecFloat32AndErrors(t *testing.T) {
	mem := testutil.Checked(t)
	m, err := gcs.FromSlices(mem, gcs.Rows, []int64{2, 3}, []int8{0, 2, 3}, []uint8{0, 2, 1}, []float32{1, 2, 3})
	require.NoError(t, err)
	defer m.Release()
	y := make([]float32, 2)
	require.NoError(t, gcs.MulVec(y, m, []float32{1, 10, 100}, gcs.KernelOptions{}))
	assert.Equal(t, []float32{201, 30}, y)
	yt := make([]float32, 3)
	mT := m.T()
	defer mT.Release()
	require.NoError(t, gcs.MulVec(yt, mT, []float32{1, 10}, gcs.KernelOptions{Workers: 2}))
	assert.Equal(t, []float32{1, 30, 2}, yt)

	err = gcs.MulVec(make([]float64, 2), m, make([]float64, 3), gcs.KernelOptions{Workers: 1})
	require.ErrorIs(t, err, arrow.ErrType)
	err = gcs.MulVec(y, m, make([]float32, 2), gcs.KernelOptions{Workers: 1})
	require.ErrorIs(t, err, arrowsparse.ErrShape)
	err = gcs.MulVec(make([]float32, 3), m, make([]float32, 3), gcs.KernelOptions{Workers: 1})
	require.ErrorIs(t, err, arrowsparse.ErrShape)

	b, err := views.Alloc(mem, arrow.PrimitiveTypes.Float32, []int64{3, 2})
	require.NoError(t, err)
	defer b.Release()
	_, err = gcs.MulDense(mem, mT, b, gcs.KernelOptions{Workers: 1})
	require.ErrorIs(t, err, arrowsparse.ErrShape)
	b64, err := views.Alloc(mem, f64, []int64{3, 2})
	require.NoError(t, err)
	defer b64.Release()
	_, err = gcs.MulDense(mem, m, b64, gcs.KernelOptions{Workers: 1})
	require.ErrorIs(t, err, arrow.ErrType)
	b3, err := views.Alloc(mem, arrow.PrimitiveTypes.Float32, []int64{3, 2, 1})
	require.NoError(t, err)
	defer b3.Release()
	_, err = gcs.MulDense(mem, m, b3, gcs.KernelOptions{Workers: 1})
	require.ErrorIs(t, err, arrowsparse.ErrShape)

	// A Trusted matrix takes the bounds-checked kernels.
	tp, ti, tv := testutil.BufferOf(mem, []int8{0, 2, 3}), testutil.BufferOf(mem, []uint8{0, 2, 1}), testutil.BufferOf(mem, []float32{1, 2, 3})
	defer tp.Release()
	defer ti.Release()
	defer tv.Release()
	tm, err := gcs.NewCSR(arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Uint8, []int64{2, 3}, tp, ti, tv, 3, gcs.WithTrusted())
	require.NoError(t, err)
	defer tm.Release()
	require.NoError(t, gcs.MulVec(y, tm, []float32{1, 10, 100}, gcs.KernelOptions{}))
	assert.Equal(t, []float32{201, 30}, y)
	tmT := tm.T()
	defer tmT.Release()
	require.NoError(t, gcs.MulVec(yt, tmT, []float32{1, 10}, gcs.KernelOptions{Workers: 2}))
	assert.Equal(t, []float32{1, 30, 2}, yt)

	ints, err := gcs.FromSlices(mem, gcs.Rows, []int64{1, 1}, []int32{0, 1}, []int32{0}, []int64{5})
	require.NoError(t, err)
	defer ints.Release()
	_, err = gcs.MulDense(mem, ints, b64, gcs.KernelOptions{Workers: 1})
	require.ErrorIs(t, err, arrowsparse.ErrUnsupportedType)
}
