package gcs_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
)

// permutations returns every permutation of 0..n-1.
func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for i := 0; i <= len(p); i++ {
			q := slices.Insert(slices.Clone(p), i, n-1)
			out = append(out, q)
		}
	}
	return out
}

// transposed returns the row-major reference of the tensor whose axis k is
// axis perm[k] of the row-major tensor d of the given shape.
func transposed(d []float64, shape []int64, perm []int) ([]float64, []int64) {
	nd := len(shape)
	ns := make([]int64, nd)
	for k, p := range perm {
		ns[k] = shape[p]
	}
	out := make([]float64, len(d))
	idx := make([]int64, nd)
	for q := range d {
		r := int64(q)
		for k := nd - 1; k >= 0; k-- {
			idx[k] = r % shape[k]
			r /= shape[k]
		}
		var o int64
		for k, p := range perm {
			o = o*ns[k] + idx[p]
		}
		out[o] = d[q]
	}
	return out, ns
}

// checkTensor compares the tensor with a row-major reference.
func checkTensor(t *testing.T, mem memory.Allocator, g *gcs.Tensor, want []float64) {
	t.Helper()
	require.NoError(t, g.Validate())
	rows, cols := g.Mapping().ReducedShape()
	require.Equal(t, []int64{rows, cols}, g.Storage().Shape())
	d, err := g.ToDense(mem)
	require.NoError(t, err)
	defer d.Release()
	require.Equal(t, want, testutil.DenseValues(t, d))
	shape := g.Shape()
	got := make([]float64, len(want))
	for idx, v := range gcs.All[float64](g) {
		got[testutil.Linear(shape, idx)] += v
	}
	require.Equal(t, want, got)
	for q := range want {
		if q%7 != 0 {
			continue
		}
		idx := make([]int64, len(shape))
		r := int64(q)
		for k := len(shape) - 1; k >= 0; k-- {
			idx[k] = r % shape[k]
			r /= shape[k]
		}
		require.Equal(t, want[q], gcs.At[float64](g, idx...))
	}
	c, err := g.ToCOO(mem, gcs.ConvertOptions{})
	require.NoError(t, err)
	defer c.Release()
	cd, err := c.ToDense(mem)
	require.NoError(t, err)
	defer cd.Release()
	require.Equal(t, want, testutil.DenseValues(t, cd))
}

// Random tensors of rank 0 to 4 under every mapping (every permutation and
// partitioning for rank ≤ 3), converted, transposed and remapped, against
// a dense reference.
func TestPropertyTensor(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	shapes := [][]int64{{}, {5}, {0}, {3, 4}, {1, 6}, {2, 3, 4}, {4, 1, 3}, {3, 0, 2}, {2, 3, 2, 3}, {5, 2, 1, 4}}
	for si, shape := range shapes {
		mem := testutil.Checked(t)
		nd := len(shape)
		it := testutil.IndexTypes[r.IntN(len(testutil.IndexTypes))]
		x, rf := testutil.RandomCOO(t, mem, r, shape, 5+r.IntN(40), coo.Layout(r.IntN(2)), it, f64, 3)
		want := rf.Dense(arrowsparse.SumDuplicates)
		t.Run(fmt.Sprintf("%v/%s", shape, it), func(t *testing.T) {
			perms := permutations(nd)
			if nd > 3 {
				perms = [][]int{{0, 1, 2, 3}, {3, 1, 0, 2}, {2, 3, 0, 1}}
			}
			for _, dims := range perms {
				for p := 0; p <= nd; p++ {
					g, err := fromCOOMapped(mem, x, dims, p, gcs.ConvertOptions{Workers: 1 + si%2})
					require.NoError(t, err, "dims %v p %d", dims, p)
					assert.True(t, g.IsCanonical())
					assert.Equal(t, dims, g.Dims())
					assert.Equal(t, p, g.Partitioning())
					checkTensor(t, mem, g, want)

					// Transposing never copies.
					perm := r.Perm(nd)
					tg, err := g.Transpose(perm...)
					require.NoError(t, err)
					assert.Same(t, g.Storage(), tg.Storage())
					tw, _ := transposed(want, shape, perm)
					checkTensor(t, mem, tg, tw)
					tg.Release()

					// Remapping to a random mapping.
					dims2 := r.Perm(nd)
					p2 := r.IntN(nd + 1)
					rg, err := remapTo(mem, g, dims2, p2, gcs.ConvertOptions{})
					require.NoError(t, err)
					assert.Equal(t, dims2, rg.Dims())
					checkTensor(t, mem, rg, want)
					// And to CSC storage.
					cg, err := rg.WithStorage(mem, gcs.Cols, gcs.ConvertOptions{})
					require.NoError(t, err)
					assert.Equal(t, gcs.Cols, cg.Storage().Axis())
					checkTensor(t, mem, cg, want)
					cg.Release()
					rg.Release()
					g.Release()
				}
			}
		})
		x.Release()
	}
}

// Remap sorts only when it must, and shares what it can.
func TestRemapReusesOrder(t *testing.T) {
	mem := testutil.Checked(t)
	x := gcs3d(t, mem)
	defer x.Release()
	want := make([]float64, 24)
	for idx, v := range coo.All[float64](x) {
		want[testutil.Linear([]int64{2, 3, 4}, idx)] = v
	}
	g, err := fromCOOMapped(mem, x, []int{0, 1, 2}, 2, gcs.ConvertOptions{})
	require.NoError(t, err)
	defer g.Release()

	same, err := remapTo(mem, g, []int{0, 1, 2}, 2, gcs.ConvertOptions{})
	require.NoError(t, err)
	assert.Same(t, g, same)
	same.Release()

	// The swapped mapping is the transposed reduced matrix: a CSC over the
	// same buffers.
	sw, err := remapTo(mem, g, []int{2, 0, 1}, 1, gcs.ConvertOptions{})
	require.NoError(t, err)
	assert.Same(t, g.Storage().IndptrBuffer(), sw.Storage().IndptrBuffer())
	assert.Equal(t, gcs.Cols, sw.Storage().Axis())
	checkTensor(t, mem, sw, want)
	sw.Release()

	// Same dims, another partitioning: same order, new pointers, shared
	// values (the GCS introduction's second example from its first).
	p1, err := remapTo(mem, g, []int{0, 1, 2}, 1, gcs.ConvertOptions{})
	require.NoError(t, err)
	assert.Same(t, g.Storage().ValuesBuffer(), p1.Storage().ValuesBuffer())
	ptr, idx, _ := buffers(t, p1.Storage())
	assert.Equal(t, []int64{0, 4, 9}, ptr)
	assert.Equal(t, []int64{1, 2, 3, 9, 0, 3, 8, 10, 11}, idx)
	checkTensor(t, mem, p1, want)
	p1.Release()

	// The order of a CSC with another split: reindexed into a CSC.
	c, err := remapTo(mem, g, []int{1, 2, 0}, 2, gcs.ConvertOptions{})
	require.NoError(t, err)
	assert.Same(t, g.Storage().ValuesBuffer(), c.Storage().ValuesBuffer())
	assert.Equal(t, gcs.Cols, c.Storage().Axis())
	checkTensor(t, mem, c, want)
	c.Release()

	// A new order needs a sort: the GCS introduction's third example.
	s, err := remapTo(mem, g, []int{2, 1, 0}, 1, gcs.ConvertOptions{})
	require.NoError(t, err)
	assert.NotSame(t, g.Storage().ValuesBuffer(), s.Storage().ValuesBuffer())
	ptr, idx, vs := buffers(t, s.Storage())
	assert.Equal(t, []int64{0, 2, 4, 6, 9}, ptr)
	assert.Equal(t, []int64{1, 5, 0, 4, 0, 5, 0, 1, 5}, idx)
	assert.Equal(t, []float64{5, 7, 1, 4, 2, 8, 3, 6, 9}, vs)
	s.Release()

	_, err = remapTo(mem, g, []int{0, 0, 1}, 1, gcs.ConvertOptions{})
	require.ErrorIs(t, err, arrowsparse.ErrStructure)
	_, err = remapTo(mem, g, []int{0, 1, 2}, 4, gcs.ConvertOptions{})
	require.ErrorIs(t, err, arrowsparse.ErrStructure)
}

// Keys wider than 64 bits take the comparison-sort and 128-bit paths.
func TestHypersparseTensor(t *testing.T) {
	mem := testutil.Checked(t)
	shape := []int64{4, 4, 1 << 60}
	coords := []int64{
		3, 1, 1 << 59,
		0, 2, 5,
		3, 1, 1 << 59,
		1, 0, 1<<60 - 1,
		0, 2, 4,
	}
	x, err := coo.FromSlices(mem, shape, coords, coo.RowMajor, []float64{1, 2, 3, 4, 5})
	require.NoError(t, err)
	defer x.Release()
	g, err := fromCOOMapped(mem, x, []int{0, 1, 2}, 1, gcs.ConvertOptions{})
	require.NoError(t, err)
	defer g.Release()
	check := func(g *gcs.Tensor) {
		t.Helper()
		assert.Equal(t, int64(4), g.NNZ())
		assert.Equal(t, 4.0, gcs.At[float64](g, 3, 1, 1<<59))
		assert.Equal(t, 2.0, gcs.At[float64](g, 0, 2, 5))
		assert.Equal(t, 5.0, gcs.At[float64](g, 0, 2, 4))
		assert.Equal(t, 4.0, gcs.At[float64](g, 1, 0, 1<<60-1))
		assert.Equal(t, 0.0, gcs.At[float64](g, 1, 0, 0))
		n := 0
		for idx, v := range gcs.All[float64](g) {
			assert.Equal(t, v, gcs.At[float64](g, idx...))
			n++
		}
		assert.Equal(t, 4, n)
	}
	check(g)
	assert.True(t, g.IsCanonical())
	// Same order, 16 rows: the linear keys need 128 bits.
	r, err := remapTo(mem, g, []int{0, 1, 2}, 2, gcs.ConvertOptions{})
	require.NoError(t, err)
	assert.Same(t, g.Storage().ValuesBuffer(), r.Storage().ValuesBuffer())
	check(r)
	r.Release()
	// Another order: a sort of two-word (row, column) keys.
	s, err := remapTo(mem, g, []int{1, 0, 2}, 2, gcs.ConvertOptions{})
	require.NoError(t, err)
	check(s)
	s.Release()
	// The whole tensor in one row does not fit int64 columns.
	_, err = remapTo(mem, g, []int{0, 1, 2}, 0, gcs.ConvertOptions{})
	require.ErrorIs(t, err, arrowsparse.ErrOverflow)
	c, err := g.ToCOO(mem, gcs.ConvertOptions{})
	require.NoError(t, err)
	assert.True(t, c.IsCanonical())
	c.Release()
}

func TestMapping(t *testing.T) {
	// The GCS introduction: shape (2, 3, 4, 5, 6), dims (2, 4, 1, 3, 0), partitioning 3.
	mp, err := gcs.NewMapping([]int64{2, 3, 4, 5, 6}, []int{2, 4, 1, 3, 0}, 3)
	require.NoError(t, err)
	assert.Equal(t, []int{2, 4, 1}, mp.RowDims())
	assert.Equal(t, []int{3, 0}, mp.ColDims())
	assert.Equal(t, []int64{18, 3, 1}, mp.RowStrides())
	assert.Equal(t, []int64{2, 1}, mp.ColStrides())
	rows, cols := mp.ReducedShape()
	assert.Equal(t, int64(72), rows)
	assert.Equal(t, int64(10), cols)
	r, c := mp.ToRowCol(1, 2, 3, 4, 5)
	assert.Equal(t, int64(3*18+5*3+2), r)
	assert.Equal(t, int64(4*2+1), c)
	assert.Equal(t, []int64{1, 2, 3, 4, 5}, mp.FromRowCol(r, c, nil))
	assert.Panics(t, func() { mp.ToRowCol(1, 2, 3) })
	assert.Panics(t, func() { mp.ToRowCol(2, 0, 0, 0, 0) })
	assert.Panics(t, func() { mp.FromRowCol(72, 0, nil) })
	assert.Panics(t, func() { mp.FromRowCol(0, 0, make([]int64, 2)) })
	assert.False(t, mp.IsIdentity())
	sw := mp.Swapped()
	assert.Equal(t, []int{3, 0, 2, 4, 1}, sw.Dims())
	assert.Equal(t, 2, sw.Partitioning())
	r2, c2 := sw.ToRowCol(1, 2, 3, 4, 5)
	assert.Equal(t, [2]int64{c, r}, [2]int64{r2, c2})

	id, err := gcs.IdentityMapping([]int64{3, 4})
	require.NoError(t, err)
	assert.True(t, id.IsIdentity())
	zero, err := gcs.IdentityMapping(nil)
	require.NoError(t, err)
	r, c = zero.ToRowCol()
	assert.Equal(t, [2]int64{0, 0}, [2]int64{r, c})

	for _, bad := range []struct {
		shape []int64
		dims  []int
		p     int
		want  error
	}{
		{[]int64{2, 3}, []int{0, 0}, 1, arrowsparse.ErrStructure},
		{[]int64{2, 3}, []int{0, 2}, 1, arrowsparse.ErrStructure},
		{[]int64{2, 3}, []int{0}, 1, arrowsparse.ErrStructure},
		{[]int64{2, 3}, []int{0, 1}, -1, arrowsparse.ErrStructure},
		{[]int64{2, 3}, []int{0, 1}, 3, arrowsparse.ErrStructure},
		{[]int64{2, -3}, []int{0, 1}, 1, arrowsparse.ErrShape},
		{[]int64{1 << 40, 1 << 40}, []int{0, 1}, 0, arrowsparse.ErrOverflow},
		{[]int64{1 << 40, 1 << 40}, []int{1, 0}, 2, arrowsparse.ErrOverflow},
	} {
		_, err := gcs.NewMapping(bad.shape, bad.dims, bad.p)
		require.ErrorIs(t, err, bad.want, "%v %v %d", bad.shape, bad.dims, bad.p)
	}
	// A mapping with 2^63-1 rows exists; a CSR storage for it cannot, since
	// its index pointers would number 2^63.
	mp, err = gcs.NewMapping([]int64{math.MaxInt64, 1}, []int{0, 1}, 1)
	require.NoError(t, err)
	nr, nc := mp.ReducedShape()
	assert.Equal(t, []int64{math.MaxInt64, 1}, []int64{nr, nc})
}

// pydata/sparse's GCXS compressed_axes are the row dimensions in the given
// order, the other axes in increasing order forming the columns.
func TestCompressedAxes(t *testing.T) {
	shape := []int64{2, 3, 4}
	for _, c := range []struct {
		axes []int
		dims []int
	}{
		{[]int{0}, []int{0, 1, 2}},
		{[]int{1}, []int{1, 0, 2}},
		{[]int{2}, []int{2, 0, 1}},
		{[]int{0, 1}, []int{0, 1, 2}},
		{[]int{2, 0}, []int{2, 0, 1}},
		{[]int{1, 2}, []int{1, 2, 0}},
	} {
		mp, err := gcs.FromCompressedAxes(shape, c.axes)
		require.NoError(t, err)
		assert.Equal(t, c.dims, mp.Dims())
		assert.Equal(t, len(c.axes), mp.Partitioning())
		back, ok := mp.CompressedAxes()
		assert.True(t, ok)
		assert.Equal(t, c.axes, back)
	}
	mp, err := gcs.NewMapping(shape, []int{0, 2, 1}, 1)
	require.NoError(t, err)
	_, ok := mp.CompressedAxes()
	assert.False(t, ok, "GCXS keeps the column axes in increasing order")
	_, err = gcs.FromCompressedAxes(shape, []int{1, 1})
	require.ErrorIs(t, err, arrowsparse.ErrStructure)
	_, err = gcs.FromCompressedAxes(shape, []int{3})
	require.ErrorIs(t, err, arrowsparse.ErrStructure)
}

// A 2-d GCS with the identity mapping is its CSR or CSC, both ways without
// copying; its transpose is the CSC of the transpose.
func TestTensorMatrixIdentity(t *testing.T) {
	mem := testutil.Checked(t)
	x := gcs4x5(t, mem)
	defer x.Release()
	m, err := gcs.MatrixFromCOO(mem, x, gcs.Rows, gcs.ConvertOptions{})
	require.NoError(t, err)
	defer m.Release()
	named, err := m.WithDimNames("i", "j")
	require.NoError(t, err)
	defer named.Release()
	g := gcs.FromMatrix(named)
	defer g.Release()
	assert.Same(t, named, g.Storage())
	assert.True(t, g.Mapping().IsIdentity())
	assert.Equal(t, []string{"i", "j"}, g.DimNames())
	back, err := g.AsMatrix()
	require.NoError(t, err)
	defer back.Release()
	assert.Same(t, m.IndptrBuffer(), back.IndptrBuffer())
	assert.Equal(t, gcs.Rows, back.Axis())
	assert.Equal(t, []string{"i", "j"}, back.DimNames())

	tg, err := g.Transpose()
	require.NoError(t, err)
	defer tg.Release()
	assert.Equal(t, []string{"j", "i"}, tg.DimNames())
	tm, err := tg.AsMatrix()
	require.NoError(t, err)
	defer tm.Release()
	assert.Equal(t, gcs.Cols, tm.Axis())
	assert.Same(t, m.IndptrBuffer(), tm.IndptrBuffer())
	assert.Equal(t, []int64{5, 4}, tm.Shape())
	for i := range int64(4) {
		for j := range int64(5) {
			assert.Equal(t, gcs.At[float64](m, i, j), gcs.At[float64](tm, j, i))
		}
	}
	p0, err := remapTo(mem, g, []int{0, 1}, 0, gcs.ConvertOptions{})
	require.NoError(t, err)
	defer p0.Release()
	_, err = p0.AsMatrix()
	require.ErrorIs(t, err, arrowsparse.ErrShape)

	// NewTensor checks the storage shape.
	_, err = gcs.NewTensor([]int64{2, 10}, []int{0, 1}, 1, m)
	require.ErrorIs(t, err, arrowsparse.ErrShape)
	nt, err := gcs.NewTensor([]int64{2, 2, 5}, []int{0, 1, 2}, 2, m)
	require.NoError(t, err)
	assert.Equal(t, 7.0, gcs.At[float64](nt, 1, 0, 3))
	assert.Equal(t, "GCS", nt.Format().String())
	assert.Equal(t, f64, nt.DataType())
	assert.Equal(t, 3, nt.NumDims())
	assert.Equal(t, 3, nt.Mapping().NumDims())
	nn, err := nt.WithDimNames("a", "b", "c")
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c"}, nn.DimNames())
	assert.Same(t, m, nn.Storage())
	nd := nn.DM()
	assert.Equal(t, 3, nd.NumDims())
	assert.Equal(t, []string{"a", "b", "c"}, nd.DimNames())
	assert.Equal(t, 7.0, gcs.At[float64](nd, 1, 0, 3))
	nd.Release()
	nn.Release()
	nt.Release()
	_, err = gcs.NewTensor([]int64{2, 2, 5}, []int{0, 1, 1}, 2, m)
	require.ErrorIs(t, err, arrowsparse.ErrStructure)
	_, err = g.Transpose(0, 0)
	require.ErrorIs(t, err, arrowsparse.ErrStructure)
	_, err = g.WithDimNames("a")
	require.ErrorIs(t, err, arrowsparse.ErrShape)
}

func TestTensorFromDense(t *testing.T) {
	mem := testutil.Checked(t)
	x := gcs3d(t, mem)
	defer x.Release()
	d, err := x.ToDense(mem)
	require.NoError(t, err)
	defer d.Release()
	g, err := fromDenseMapped(mem, d, []int{2, 1, 0}, 1, gcs.ConvertOptions{IndexType: arrow.PrimitiveTypes.Int16})
	require.NoError(t, err)
	defer g.Release()
	assert.Equal(t, arrow.PrimitiveTypes.Int16, g.Storage().IndexType())
	checkTensor(t, mem, g, testutil.DenseValues(t, d))
	ptr, idx, vs := buffers(t, g.Storage())
	assert.Equal(t, []int64{0, 2, 4, 6, 9}, ptr)
	assert.Equal(t, []int64{1, 5, 0, 4, 0, 5, 0, 1, 5}, idx)
	assert.Equal(t, []float64{5, 7, 1, 4, 2, 8, 3, 6, 9}, vs)
}

// Remap of a storage with duplicates: reusing the order keeps them, a sort
// combines them under the policy.
func TestRemapDuplicates(t *testing.T) {
	mem := testutil.Checked(t)
	m, err := gcs.FromSlices(mem, gcs.Rows, []int64{2, 3}, []int32{0, 3, 4}, []int32{1, 1, 2, 0}, []float64{1, 2, 3, 4})
	require.NoError(t, err)
	defer m.Release()
	assert.True(t, m.IsSorted())
	assert.False(t, m.IsCanonical())
	g := gcs.FromMatrix(m)
	defer g.Release()
	want := []float64{0, 3, 3, 4, 0, 0}

	same, err := remapTo(mem, g, []int{0, 1}, 0, gcs.ConvertOptions{})
	require.NoError(t, err)
	assert.Equal(t, int64(4), same.NNZ())
	assert.False(t, same.IsCanonical())
	checkTensor(t, mem, same, want)
	same.Release()

	for p, w := range map[arrowsparse.Duplicates]float64{arrowsparse.SumDuplicates: 3, arrowsparse.KeepLast: 2, arrowsparse.KeepMax: 2, arrowsparse.KeepMin: 1} {
		s, err := remapTo(mem, g, []int{1, 0}, 0, gcs.ConvertOptions{Duplicates: p})
		require.NoError(t, err)
		assert.Equal(t, int64(3), s.NNZ())
		assert.True(t, s.IsCanonical())
		assert.Equal(t, w, gcs.At[float64](s, 0, 1))
		s.Release()
	}
	_, err = remapTo(mem, g, []int{1, 0}, 0, gcs.ConvertOptions{Duplicates: arrowsparse.RejectDuplicates})
	require.ErrorIs(t, err, arrowsparse.ErrNotCanonical)
	_, err = remapTo(mem, g, []int{1, 0}, 0, gcs.ConvertOptions{Duplicates: arrowsparse.Duplicates(-1)})
	require.ErrorIs(t, err, arrowsparse.ErrStructure)

	x := gcs3d(t, mem)
	defer x.Release()
	dup, err := coo.FromSlices(mem, []int64{2, 3, 4}, []int64{1, 2, 3, 1, 2, 3}, coo.RowMajor, []float64{1, 2})
	require.NoError(t, err)
	defer dup.Release()
	_, err = fromCOOMapped(mem, dup, []int{2, 0, 1}, 2, gcs.ConvertOptions{Duplicates: arrowsparse.RejectDuplicates})
	require.ErrorIs(t, err, arrowsparse.ErrNotCanonical)
	small, err := fromCOOMapped(mem, x, []int{2, 0, 1}, 2, gcs.ConvertOptions{IndexType: arrow.PrimitiveTypes.Int8, IndptrType: arrow.PrimitiveTypes.Int8})
	require.NoError(t, err, "int8 holds 6 columns and 9 entries")
	small.Release()
	row, err := fromCOOMapped(mem, x, []int{0, 1, 2}, 0, gcs.ConvertOptions{IndexType: arrow.PrimitiveTypes.Uint8, IndptrType: arrow.PrimitiveTypes.Int8})
	require.NoError(t, err)
	assert.Equal(t, []int64{1, 24}, row.Storage().Shape())
	row.Release()
	big, err := coo.FromSlices(mem, []int64{2, 200}, []int64{1, 150}, coo.RowMajor, []float64{1})
	require.NoError(t, err)
	defer big.Release()
	_, err = fromCOOMapped(mem, big, []int{0, 1}, 1, gcs.ConvertOptions{IndexType: arrow.PrimitiveTypes.Int8})
	require.ErrorIs(t, err, arrowsparse.ErrUnsupportedType)
	_, err = fromCOOMapped(mem, x, []int{0, 1, 2}, 1, gcs.ConvertOptions{IndexType: arrow.PrimitiveTypes.Int8, IndptrType: arrow.PrimitiveTypes.Uint64})
	require.ErrorIs(t, err, arrowsparse.ErrUnsupportedType)
}

// A reduced matrix with more lanes than memory can hold is refused, not
// attempted.
func TestHugeLanes(t *testing.T) {
	mem := testutil.Checked(t)
	x, err := coo.FromSlices(mem, []int64{1 << 45, 4}, []int64{3, 1}, coo.RowMajor, []float64{1})
	require.NoError(t, err)
	defer x.Release()
	_, err = gcs.MatrixFromCOO(mem, x, gcs.Rows, gcs.ConvertOptions{})
	require.ErrorIs(t, err, arrowsparse.ErrOverflow)
	m, err := gcs.MatrixFromCOO(mem, x, gcs.Cols, gcs.ConvertOptions{})
	require.NoError(t, err, "4 columns are fine")
	defer m.Release()
	assert.Equal(t, 1.0, gcs.At[float64](m, 3, 1))
	_, err = m.ToCSR(mem, gcs.ConvertOptions{})
	require.ErrorIs(t, err, arrowsparse.ErrOverflow)
	g, err := fromCOOMapped(mem, x, []int{1, 0}, 1, gcs.ConvertOptions{})
	require.NoError(t, err)
	defer g.Release()
	sw, err := remapTo(mem, g, []int{0, 1}, 1, gcs.ConvertOptions{})
	require.NoError(t, err, "the swapped mapping is a CSC view")
	assert.Equal(t, gcs.Cols, sw.Storage().Axis())
	sw.Release()
	_, err = remapTo(mem, g, []int{0, 1}, 2, gcs.ConvertOptions{})
	require.ErrorIs(t, err, arrowsparse.ErrOverflow)
	c, err := m.ToCOO(mem, gcs.ConvertOptions{})
	require.NoError(t, err)
	defer c.Release()
	assert.Equal(t, int64(1), c.NNZ())
}
