package gcs_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
)

// buffers returns the indptr, indices and values of m as int64 and float64.
func buffers(t *testing.T, m *gcs.Matrix) ([]int64, []int64, []float64) {
	t.Helper()
	ptr := make([]int64, m.Lanes()+1)
	idx := make([]int64, 0, m.NNZ())
	for k := range m.Lanes() {
		var ind []int64
		if m.Axis() == gcs.Rows {
			ind, _ = gcs.Row[float64](m, k)
		} else {
			ind, _ = gcs.Col[float64](m, k)
		}
		idx = append(idx, ind...)
		ptr[k+1] = ptr[k] + int64(len(ind))
	}
	vs, err := gcs.Values[float64](m)
	require.NoError(t, err)
	return ptr, idx, vs
}

// gcs4x5 is the 4×5 array of the GCS introduction in COO form (row-major order).
func gcs4x5(t *testing.T, mem memory.Allocator) *coo.Tensor {
	t.Helper()
	rows := []int64{0, 0, 1, 1, 2, 2, 2, 3, 3}
	cols := []int64{2, 4, 0, 3, 0, 2, 3, 3, 4}
	x, err := coo.FromSlices(mem, []int64{4, 5}, append(rows, cols...), coo.ColMajor, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9})
	require.NoError(t, err)
	return x
}

// The GCS introduction: the CRS and CCS forms of the 4×5 array.
func TestCRSAndCCSExample(t *testing.T) {
	mem := testutil.Checked(t)
	x := gcs4x5(t, mem)
	defer x.Release()

	csr, err := gcs.MatrixFromCOO(mem, x, gcs.Rows, gcs.ConvertOptions{})
	require.NoError(t, err)
	defer csr.Release()
	ptr, idx, vs := buffers(t, csr)
	assert.Equal(t, []int64{0, 2, 4, 7, 9}, ptr, "crow_indices")
	assert.Equal(t, []int64{2, 4, 0, 3, 0, 2, 3, 3, 4}, idx, "col_indices")
	assert.Equal(t, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}, vs, "values")
	assert.True(t, csr.IsCanonical())
	assert.Equal(t, "CSR", csr.Format().String())

	csc, err := gcs.MatrixFromCOO(mem, x, gcs.Cols, gcs.ConvertOptions{})
	require.NoError(t, err)
	defer csc.Release()
	ptr, idx, vs = buffers(t, csc)
	assert.Equal(t, []int64{0, 2, 2, 4, 7, 9}, ptr, "ccol_indices")
	assert.Equal(t, []int64{1, 2, 0, 2, 1, 2, 3, 0, 3}, idx, "row_indices")
	assert.Equal(t, []float64{3, 5, 1, 6, 4, 7, 8, 2, 9}, vs, "values")
	assert.True(t, csc.IsCanonical())

	// The physical transposes agree with the direct conversions.
	csc2, err := csr.ToCSC(mem, gcs.ConvertOptions{})
	require.NoError(t, err)
	defer csc2.Release()
	p2, i2, v2 := buffers(t, csc2)
	assert.Equal(t, []int64{0, 2, 2, 4, 7, 9}, p2)
	assert.Equal(t, []int64{1, 2, 0, 2, 1, 2, 3, 0, 3}, i2)
	assert.Equal(t, []float64{3, 5, 1, 6, 4, 7, 8, 2, 9}, v2)
	csr2, err := csc.ToCSR(mem, gcs.ConvertOptions{})
	require.NoError(t, err)
	defer csr2.Release()
	p2, i2, v2 = buffers(t, csr2)
	assert.Equal(t, []int64{0, 2, 4, 7, 9}, p2)
	assert.Equal(t, []int64{2, 4, 0, 3, 0, 2, 3, 3, 4}, i2)
	assert.Equal(t, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}, v2)

	// Every element, from both.
	want := [][]float64{{0, 0, 1, 0, 2}, {3, 0, 0, 4, 0}, {5, 0, 6, 7, 0}, {0, 0, 0, 8, 9}}
	for i := range int64(4) {
		for j := range int64(5) {
			assert.Equal(t, want[i][j], gcs.At[float64](csr, i, j))
			assert.Equal(t, want[i][j], gcs.At[float64](csc, i, j))
		}
	}
}

// gcs3d is the (2, 3, 4) array of the GCS introduction with nine elements.
func gcs3d(t *testing.T, mem memory.Allocator) *coo.Tensor {
	t.Helper()
	coords := []int32{
		0, 0, 1,
		0, 0, 2,
		0, 0, 3,
		0, 2, 1,
		1, 0, 0,
		1, 0, 3,
		1, 2, 0,
		1, 2, 2,
		1, 2, 3,
	}
	x, err := coo.FromSlices(mem, []int64{2, 3, 4}, coords, coo.RowMajor, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9})
	require.NoError(t, err)
	return x
}

// The GCS introduction: the three worked GCS examples of the (2, 3, 4) array.
func TestGCSWorkedExamples(t *testing.T) {
	cases := []struct {
		dims            []int
		p               int
		rows, cols      int64
		crow, col, vals []int64
	}{
		{[]int{0, 1, 2}, 2, 6, 4, []int64{0, 3, 3, 4, 6, 6, 9}, []int64{1, 2, 3, 1, 0, 3, 0, 2, 3}, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{[]int{0, 1, 2}, 1, 2, 12, []int64{0, 4, 9}, []int64{1, 2, 3, 9, 0, 3, 8, 10, 11}, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{[]int{2, 1, 0}, 1, 4, 6, []int64{0, 2, 4, 6, 9}, []int64{1, 5, 0, 4, 0, 5, 0, 1, 5}, []int64{5, 7, 1, 4, 2, 8, 3, 6, 9}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("dims=%v,p=%d", c.dims, c.p), func(t *testing.T) {
			mem := testutil.Checked(t)
			x := gcs3d(t, mem)
			defer x.Release()
			g, err := fromCOOMapped(mem, x, c.dims, c.p, gcs.ConvertOptions{})
			require.NoError(t, err)
			defer g.Release()
			r, cl := g.Mapping().ReducedShape()
			assert.Equal(t, c.rows, r)
			assert.Equal(t, c.cols, cl)
			ptr, idx, vs := buffers(t, g.Storage())
			assert.Equal(t, c.crow, ptr, "crow_indices")
			assert.Equal(t, c.col, idx, "col_indices")
			fv := make([]float64, len(c.vals))
			for i, v := range c.vals {
				fv[i] = float64(v)
			}
			assert.Equal(t, fv, vs, "values")
			// Back to COO and dense.
			for idx, v := range coo.All[float64](x) {
				assert.Equal(t, v, gcs.At[float64](g, idx...))
			}
			y, err := g.ToCOO(mem, gcs.ConvertOptions{})
			require.NoError(t, err)
			defer y.Release()
			assert.Equal(t, int64(9), y.NNZ())
			for idx, v := range coo.All[float64](y) {
				assert.Equal(t, v, coo.At[float64](x, idx...))
			}
			// The identity dims with a canonical storage give a canonical COO.
			assert.Equal(t, c.dims[0] == 0, y.IsCanonical())
		})
	}
}

// reductions is the GCS introduction's table of the 12 reductions of a (2, 3, 4) array:
// the value 100i+10j+k stands for the element (i, j, k).
const reductions = `
[0] / [1, 2]
000 001 002 003 010 011 012 013 020 021 022 023
100 101 102 103 110 111 112 113 120 121 122 123
[0] / [2, 1]
000 010 020 001 011 021 002 012 022 003 013 023
100 110 120 101 111 121 102 112 122 103 113 123
[1] / [0, 2]
000 001 002 003 100 101 102 103
010 011 012 013 110 111 112 113
020 021 022 023 120 121 122 123
[1] / [2, 0]
000 100 001 101 002 102 003 103
010 110 011 111 012 112 013 113
020 120 021 121 022 122 023 123
[2] / [0, 1]
000 010 020 100 110 120
001 011 021 101 111 121
002 012 022 102 112 122
003 013 023 103 113 123
[2] / [1, 0]
000 100 010 110 020 120
001 101 011 111 021 121
002 102 012 112 022 122
003 103 013 113 023 123
[0, 1] / [2]
000 001 002 003
010 011 012 013
020 021 022 023
100 101 102 103
110 111 112 113
120 121 122 123
[0, 2] / [1]
000 010 020
001 011 021
002 012 022
003 013 023
100 110 120
101 111 121
102 112 122
103 113 123
[1, 0] / [2]
000 001 002 003
100 101 102 103
010 011 012 013
110 111 112 113
020 021 022 023
120 121 122 123
[1, 2] / [0]
000 100
001 101
002 102
003 103
010 110
011 111
012 112
013 113
020 120
021 121
022 122
023 123
[2, 0] / [1]
000 010 020
100 110 120
001 011 021
101 111 121
002 012 022
102 112 122
003 013 023
103 113 123
[2, 1] / [0]
000 100
010 110
020 120
001 101
011 111
021 121
002 102
012 112
022 122
003 103
013 113
023 123
`

type reduction struct {
	rowDims, colDims []int
	cells            [][]string
}

func parseReductions(t *testing.T) []reduction {
	t.Helper()
	var out []reduction
	axes := func(s string) []int {
		var a []int
		for _, f := range strings.Split(strings.Trim(strings.TrimSpace(s), "[]"), ",") {
			v, err := strconv.Atoi(strings.TrimSpace(f))
			require.NoError(t, err)
			a = append(a, v)
		}
		return a
	}
	for _, line := range strings.Split(strings.TrimSpace(reductions), "\n") {
		if strings.HasPrefix(line, "[") {
			rc := strings.Split(line, "/")
			out = append(out, reduction{rowDims: axes(rc[0]), colDims: axes(rc[1])})
			continue
		}
		r := &out[len(out)-1]
		r.cells = append(r.cells, strings.Fields(line))
	}
	require.Len(t, out, 12)
	return out
}

// The GCS introduction: every cell of the table of the 12 reductions, through the
// mapping in both directions and through the stored reduced matrix.
func TestTwelveReductions(t *testing.T) {
	mem := testutil.Checked(t)
	shape := []int64{2, 3, 4}
	// Every element, stored with the value 100i+10j+k (an explicit zero at
	// the origin).
	var coords []int64
	var values []float64
	for i := range int64(2) {
		for j := range int64(3) {
			for k := range int64(4) {
				coords = append(coords, i, j, k)
				values = append(values, float64(100*i+10*j+k))
			}
		}
	}
	x, err := coo.FromSlices(mem, shape, coords, coo.RowMajor, values)
	require.NoError(t, err)
	defer x.Release()

	seen := map[string]bool{}
	for _, r := range parseReductions(t) {
		dims := append(append([]int(nil), r.rowDims...), r.colDims...)
		name := fmt.Sprintf("%v/%v", r.rowDims, r.colDims)
		t.Run(name, func(t *testing.T) {
			seen[fmt.Sprint(dims, len(r.rowDims))] = true
			mp, err := gcs.NewMapping(shape, dims, len(r.rowDims))
			require.NoError(t, err)
			rows, cols := mp.ReducedShape()
			require.Equal(t, int64(len(r.cells)), rows)
			for _, row := range r.cells {
				require.Equal(t, int(cols), len(row))
			}
			g, err := fromCOOMapped(mem, x, dims, len(r.rowDims), gcs.ConvertOptions{})
			require.NoError(t, err)
			defer g.Release()
			red, err := g.Storage().ToDense(mem)
			require.NoError(t, err)
			defer red.Release()
			for ri, row := range r.cells {
				for ci, cell := range row {
					idx := []int64{int64(cell[0] - '0'), int64(cell[1] - '0'), int64(cell[2] - '0')}
					gr, gc := mp.ToRowCol(idx...)
					assert.Equal(t, [2]int64{int64(ri), int64(ci)}, [2]int64{gr, gc}, "cell %s", cell)
					assert.Equal(t, idx, mp.FromRowCol(int64(ri), int64(ci), nil), "cell %s", cell)
					want, _ := strconv.ParseFloat(cell, 64)
					assert.Equal(t, want, gcs.At[float64](g.Storage(), int64(ri), int64(ci)), "cell %s", cell)
					assert.Equal(t, want, gcs.At[float64](g, idx...), "cell %s", cell)
				}
			}
		})
	}
	assert.Len(t, seen, 12, "the 12 reductions are distinct")
}
