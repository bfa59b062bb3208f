package gcs_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
)

// randomMatrix returns a random matrix along axis with about nnz entries
// (duplicates included, lanes in random order unless sorted), index type
// it and value type vt, and its dense row-major values as int64 bit
// patterns (exact for every integer type) and float64s.
func randomMatrix(t *testing.T, mem memory.Allocator, r *rand.Rand, axis gcs.Axis, rows, cols int64, nnz int, it, vt arrow.DataType, sorted bool) *gcs.Matrix {
	t.Helper()
	major, minor := rows, cols
	if axis == gcs.Cols {
		major, minor = cols, rows
	}
	if minor == 0 || major == 0 {
		nnz = 0
	}
	lanes := make([][]int64, major)
	for range nnz {
		k := r.Int64N(major)
		lanes[k] = append(lanes[k], r.Int64N(minor))
	}
	ptr := []int64{0}
	var idx []int64
	for _, l := range lanes {
		if sorted {
			slices.Sort(l)
		}
		idx = append(idx, l...)
		ptr = append(ptr, int64(len(idx)))
	}
	n := len(idx)
	ib := memory.NewResizableBuffer(mem)
	defer ib.Release()
	ib.Resize(n * arrowsparse.ByteWidth(it))
	for j, x := range idx {
		testutil.PutInt(ib.Bytes(), it, j, x)
	}
	vb := memory.NewResizableBuffer(mem)
	defer vb.Release()
	vb.Resize(n * arrowsparse.ByteWidth(vt))
	for j := range n {
		if vt.ID() == arrow.FLOAT32 || vt.ID() == arrow.FLOAT64 {
			testutil.PutFloat(vb.Bytes(), vt, j, float64(r.IntN(17)-8)/4)
		} else if r.IntN(3) == 0 {
			testutil.PutInt(vb.Bytes(), vt, j, int64(r.Uint64()))
		} else {
			testutil.PutInt(vb.Bytes(), vt, j, int64(r.IntN(7)-3))
		}
	}
	pb := testutil.BufferOf(mem, ptr)
	defer pb.Release()
	m, err := gcs.New(vt, arrow.PrimitiveTypes.Int64, it, []int64{rows, cols}, axis, pb, ib, vb, int64(n))
	require.NoError(t, err)
	return m
}

// denseBits returns the matrix's elements, row-major: integers as int64
// bit patterns summed with wrapping, floats as float64.
func denseBits(t *testing.T, mem memory.Allocator, m *gcs.Matrix) ([]int64, []float64) {
	d, err := m.ToDense(mem)
	require.NoError(t, err)
	defer d.Release()
	iv, err := arrowsparse.AppendValues[int64](nil, d)
	require.NoError(t, err)
	fv, err := arrowsparse.AppendValues[float64](nil, d)
	require.NoError(t, err)
	return iv, fv
}

// wrapTo truncates an int64 to the width of dt, sign- or zero-extending
// as dt says, as arithmetic in dt would leave it.
func wrapTo(dt arrow.DataType, v int64) int64 {
	b := make([]byte, 8)
	testutil.PutInt(b, dt, 0, v)
	return testutil.GetInt(b, dt, 0)
}

// TestMulMatrix checks A·B for every pair of compressed axes, index types
// and value types (integers wrapping), on random matrices with
// duplicates, unsorted lanes, empty rows and zero-size dimensions, against
// the dense product, with 1 to 3 workers.
func TestMulMatrix(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	vts := []arrow.DataType{arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Int32,
		arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Uint64, arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64}
	dims := [][3]int64{{5, 7, 6}, {1, 1, 1}, {0, 3, 4}, {3, 0, 4}, {4, 3, 0}, {30, 20, 25}, {8, 40, 3}}
	for _, vt := range vts {
		for _, d := range dims {
			for _, axes := range [][2]gcs.Axis{{gcs.Rows, gcs.Rows}, {gcs.Rows, gcs.Cols}, {gcs.Cols, gcs.Rows}, {gcs.Cols, gcs.Cols}} {
				t.Run(fmt.Sprintf("%s/%v/%v", vt, d, axes), func(t *testing.T) {
					mem := testutil.Checked(t)
					it := testutil.IndexTypes[r.IntN(len(testutil.IndexTypes))]
					if arrowsparse.IndexMax(it) < 40 {
						it = arrow.PrimitiveTypes.Int16
					}
					n, k, m := d[0], d[1], d[2]
					a := randomMatrix(t, mem, r, axes[0], n, k, int(n*k/2)+1, it, vt, r.IntN(2) == 0)
					defer a.Release()
					b := randomMatrix(t, mem, r, axes[1], k, m, int(k*m/2)+1, testutil.IndexTypes[r.IntN(len(testutil.IndexTypes))], vt, r.IntN(2) == 0)
					defer b.Release()
					ai, af := denseBits(t, mem, a)
					bi, bf := denseBits(t, mem, b)
					isFloat := vt.ID() == arrow.FLOAT32 || vt.ID() == arrow.FLOAT64
					wi, wf := make([]int64, n*m), make([]float64, n*m)
					for i := range n {
						for j := range m {
							for l := range k {
								if isFloat {
									wf[i*m+j] += af[i*k+l] * bf[l*m+j]
								} else {
									wi[i*m+j] = wrapTo(vt, wi[i*m+j]+wrapTo(vt, ai[i*k+l]*bi[l*m+j]))
								}
							}
						}
					}
					for w := 1; w <= 3; w++ {
						c, err := gcs.MulMatrix(mem, a, b, gcs.KernelOptions{Workers: w})
						require.NoError(t, err)
						assert.Equal(t, a.Axis(), c.Axis())
						assert.Equal(t, []int64{n, m}, c.Shape())
						assert.True(t, c.IsCanonical())
						gi, gf := denseBits(t, mem, c)
						if isFloat {
							assert.InDeltaSlice(t, wf, gf, 1e-9)
						} else {
							assert.Equal(t, wi, append([]int64{}, gi...))
						}
						vs, err := arrowsparse.AppendValues[float64](nil, c)
						require.NoError(t, err)
						assert.NotContains(t, vs, 0.0, "explicit zeros are dropped")
						c.Release()
					}
				})
			}
		}
	}
}

// TestMulMatrixWide takes the hash accumulator: B has more columns than
// dense accumulators are made for.
func TestMulMatrixWide(t *testing.T) {
	mem := testutil.Checked(t)
	wide := int64(1) << 40
	a, err := gcs.FromSlices(mem, gcs.Rows, []int64{2, 3}, []int32{0, 2, 3}, []int32{0, 2, 1}, []float64{2, 3, 5})
	require.NoError(t, err)
	defer a.Release()
	b, err := gcs.FromSlices(mem, gcs.Rows, []int64{3, wide}, []int64{0, 2, 3, 5}, []int64{wide - 1, 7, 7, 0, 7}, []float64{1, 10, 100, 1000, -30})
	require.NoError(t, err)
	defer b.Release()
	c, err := gcs.MulMatrix(mem, a, b, gcs.KernelOptions{})
	require.NoError(t, err)
	defer c.Release()
	ptr, err := gcs.Indptr[int32](c)
	require.NoError(t, err)
	idx, err := gcs.Indices[int64](c)
	require.NoError(t, err)
	vals, err := gcs.Values[float64](c)
	require.NoError(t, err)
	// Row 0: 2·(1 at wide-1, 10 at 7) + 3·(1000 at 0, -30 at 7) = 3000 at 0, -70 at 7, 2 at wide-1.
	// Row 1: 5·(100 at 7).
	assert.Equal(t, []int32{0, 3, 4}, ptr)
	assert.Equal(t, []int64{0, 7, wide - 1, 7}, idx)
	assert.Equal(t, []float64{3000, -70, 2, 500}, vals)
}

func TestMulMatrixErrors(t *testing.T) {
	mem := testutil.Checked(t)
	a, err := gcs.FromSlices(mem, gcs.Rows, []int64{2, 3}, []int32{0, 1, 1}, []int32{0}, []float64{1})
	require.NoError(t, err)
	defer a.Release()
	_, err = gcs.MulMatrix(mem, a, a, gcs.KernelOptions{})
	require.ErrorIs(t, err, arrowsparse.ErrShape)
	f, err := gcs.FromSlices(mem, gcs.Rows, []int64{3, 3}, []int32{0, 1, 1, 1}, []int32{0}, []float32{1})
	require.NoError(t, err)
	defer f.Release()
	_, err = gcs.MulMatrix(mem, a, f, gcs.KernelOptions{})
	require.ErrorIs(t, err, arrow.ErrType)
	at := a.T()
	defer at.Release()
	c, err := gcs.MulMatrix(mem, a, at, gcs.KernelOptions{})
	require.NoError(t, err)
	defer c.Release()
	assert.Equal(t, []int64{2, 2}, c.Shape())
	assert.Equal(t, int64(1), c.NNZ())
}

// TestMulMatrixParallel multiplies matrices large enough to be split
// among workers, through both ways of sizing the result (the symbolic
// pass when the multiplications outnumber the inputs four times, the
// multiplications otherwise), with products that cancel, and checks that
// every number of workers gives the same bits as a map-based reference.
func TestMulMatrixParallel(t *testing.T) {
	if testing.Short() {
		t.Skip("large")
	}
	r := rand.New(rand.NewPCG(23, 24))
	for _, c := range []struct {
		n, k, m    int64
		nnzA, nnzB int
	}{
		{3000, 2000, 2500, 30000, 20000},    // about 10 products per entry of A: symbolic pass
		{20000, 20000, 20000, 60000, 60000}, // 3 per entry: sized by the products
		// Rows of C with thousands of columns, sorted by radix: 12-bit
		// columns (two passes) and 17-bit ones (three).
		{200, 2000, 3000, 20000, 60000},
		{200, 2000, 100000, 20000, 60000},
	} {
		mem := testutil.Checked(t)
		a := randomMatrix(t, mem, r, gcs.Rows, c.n, c.k, c.nnzA, i32, f64, true)
		b := randomMatrix(t, mem, r, gcs.Rows, c.k, c.m, c.nnzB, i64, f64, r.IntN(2) == 0)
		type entry struct {
			col int64
			v   float64
		}
		brows := map[int64][]entry{}
		for bc, bv := range gcs.All[float64](b) {
			brows[bc[0]] = append(brows[bc[0]], entry{bc[1], bv})
		}
		ref := map[[2]int64]float64{}
		for ac, av := range gcs.All[float64](a) {
			for _, e := range brows[ac[1]] {
				ref[[2]int64{ac[0], e.col}] += av * e.v
			}
		}
		var first []float64
		for w := 1; w <= 3; w++ {
			p, err := gcs.MulMatrix(mem, a, b, gcs.KernelOptions{Workers: w})
			require.NoError(t, err)
			require.True(t, p.IsCanonical())
			vals, err := arrowsparse.AppendValues[float64](nil, p)
			require.NoError(t, err)
			if first == nil {
				first = vals
				got := map[[2]int64]float64{}
				for pc, pv := range gcs.All[float64](p) {
					got[[2]int64{pc[0], pc[1]}] = pv
				}
				want := map[[2]int64]float64{}
				for k, v := range ref {
					if v != 0 {
						want[k] = v
					}
				}
				require.Equal(t, want, got)
			} else {
				require.Equal(t, first, vals, "%d workers", w)
			}
			p.Release()
		}
		a.Release()
		b.Release()
	}
}

// TestMulMatrixTrustedOutOfShape: an index outside the shape in a matrix
// built with WithTrusted makes MulMatrix panic, as WithTrusted's
// documentation says, and never kill the process: the count of
// multiplications meets it first, and the prefetches of B's rows
// (assembly on amd64, which reads B's pointers unchecked) skip such an
// index too.
func TestMulMatrixTrustedOutOfShape(t *testing.T) {
	mem := memory.NewGoAllocator()
	for _, bad := range []int64{5, 1 << 40, -3} {
		for _, it := range []arrow.DataType{i32, arrow.PrimitiveTypes.Int64} {
			if it.ID() == arrow.INT32 && bad != int64(int32(bad)) {
				continue
			}
			ptr := memory.NewBufferBytes(arrow.Int64Traits.CastToBytes([]int64{0, 0, 0, 0, 0, 1, 1}))
			idx := memory.NewBufferBytes(arrow.Int64Traits.CastToBytes([]int64{bad}))
			if it.ID() == arrow.INT32 {
				idx = memory.NewBufferBytes(arrow.Int32Traits.CastToBytes([]int32{int32(bad)}))
			}
			val := memory.NewBufferBytes(arrow.Float64Traits.CastToBytes([]float64{2}))
			// Six rows, the entry in row 4, which is prefetched ahead.
			a, err := gcs.New(arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Int64, it, []int64{6, 3}, gcs.Rows, ptr, idx, val, 1, gcs.WithTrusted())
			require.NoError(t, err)
			b, err := gcs.FromSlices(mem, gcs.Rows, []int64{3, 3}, []int64{0, 1, 2, 3}, []int64{0, 1, 2}, []float64{1, 1, 1})
			require.NoError(t, err)
			func() {
				defer func() { _ = recover() }()
				c, err := gcs.MulMatrix(mem, a, b, gcs.KernelOptions{Workers: 1})
				if err == nil {
					c.Release()
				}
			}()
			a.Release()
			b.Release()
		}
	}
}
