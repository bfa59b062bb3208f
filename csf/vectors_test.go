package csf_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
	"github.com/arrowsparse/arrowsparse/views"
)

// levels reads every level of x as int64 slices, whatever the types.
func levels(t *testing.T, x *csf.Tensor) (indptr, indices [][]int64) {
	t.Helper()
	for l := range x.NumDims() {
		indices = append(indices, readInts(t, x.IndicesBuffer(l), x.IndexType(l), x.LevelLen(l)))
		if l < x.NumDims()-1 {
			indptr = append(indptr, readInts(t, x.IndptrBuffer(l), x.IndptrType(l), x.LevelLen(l)+1))
		}
	}
	return indptr, indices
}

func readInts(t *testing.T, b *memory.Buffer, dt arrow.DataType, n int64) []int64 {
	t.Helper()
	out := make([]int64, n)
	for i := range out {
		out[i] = testutil.GetInt(b.Bytes(), dt, int64(i))
	}
	return out
}

// seed003 is the 4-d example of the CSF tutorial: eight values at 1-based (i, j, k,
// l) coordinates, in the seed's (unsorted) order. The shape leaves room for
// coordinate 0.
func csfTutorial(t *testing.T, mem memory.Allocator) *coo.Tensor {
	t.Helper()
	x, err := coo.FromSlices(mem, []int64{3, 3, 3, 4}, []int32{
		1, 1, 1, 2,
		1, 1, 1, 3,
		1, 2, 1, 1,
		1, 2, 1, 3,
		1, 2, 2, 1,
		2, 2, 2, 1,
		2, 2, 2, 3,
		2, 2, 2, 2,
	}, coo.RowMajor, []float64{1, 2, 3, 4, 5, 6, 7, 8}, coo.WithDimNames("i", "j", "k", "l"))
	require.NoError(t, err)
	return x
}

// The trie of the CSF tutorial, derived by hand. Sorted by (i, j, k, l) the entries
// are 1112:1, 1113:2, 1211:3, 1213:4, 1221:5, 2221:6, 2222:8, 2223:7.
//
//	level 0 (i): nodes 1, 2          i=1 has j∈{1,2}, i=2 has j∈{2}
//	level 1 (j): nodes 1, 2 | 2      (1,1) has k∈{1}; (1,2) k∈{1,2}; (2,2) k∈{2}
//	level 2 (k): nodes 1 | 1, 2 | 2  (1,1,1) l∈{2,3}; (1,2,1) {1,3}; (1,2,2) {1}; (2,2,2) {1,2,3}
//	level 3 (l): 2, 3 | 1, 3 | 1 | 1, 2, 3
//
// This is also the example in the comments of Arrow's SparseTensor.fbs.
func TestTrieExample(t *testing.T) {
	mem := testutil.Checked(t)
	x := csfTutorial(t, mem)
	defer x.Release()
	for _, workers := range []int{1, 2} {
		c, err := csf.FromCOO(mem, x, csf.ConvertOptions{Workers: workers})
		require.NoError(t, err)
		assert.Equal(t, []int{0, 1, 2, 3}, c.AxisOrder()) // argsort of [3 3 3 4], stable
		assert.Equal(t, arrow.PrimitiveTypes.Int32, c.IndexType(0))
		assert.Equal(t, []string{"i", "j", "k", "l"}, c.DimNames())
		ip, ix := levels(t, c)
		assert.Equal(t, [][]int64{{0, 2, 3}, {0, 1, 3, 4}, {0, 2, 4, 5, 8}}, ip)
		assert.Equal(t, [][]int64{{1, 2}, {1, 2, 2}, {1, 1, 2, 2}, {2, 3, 1, 3, 1, 1, 2, 3}}, ix)
		vs, err := csf.Values[float64](c)
		require.NoError(t, err)
		assert.Equal(t, []float64{1, 2, 3, 4, 5, 6, 8, 7}, vs)
		require.NoError(t, c.Validate())
		assert.EqualValues(t, 8, c.NNZ())
		assert.Equal(t, 8.0, csf.At[float64](c, 2, 2, 2, 2))
		assert.Equal(t, 0.0, csf.At[float64](c, 2, 2, 2, 0))
		assert.Equal(t, 0.0, csf.At[float64](c, 0, 2, 2, 2))

		// The seed's i=1 subtensor: a zero-copy 3-d tensor over (j, k, l).
		s := c.Sub(1)
		assert.Equal(t, []int64{3, 3, 4}, s.Shape())
		assert.Equal(t, []string{"j", "k", "l"}, s.DimNames())
		assert.Equal(t, []int{0, 1, 2}, s.AxisOrder())
		assert.EqualValues(t, 5, s.NNZ())
		assert.True(t, s.IndicesBuffer(0) == c.IndicesBuffer(1)) // shared
		require.NoError(t, s.Validate())
		sv, _ := csf.Values[float64](s)
		assert.Equal(t, []float64{1, 2, 3, 4, 5}, sv)
		si, _ := csf.Indices[int32](s, 2)
		assert.Equal(t, []int32{2, 3, 1, 3, 1}, si)
		sp, _ := csf.Indptr[int32](s, 1)
		assert.Equal(t, []int32{0, 2, 4, 5}, sp)
		assert.True(t, s.IsCompact()) // i=1 is the first root: its subtree starts every level

		// The i=2 subtensor starts inside every level.
		s2 := c.Sub(2)
		assert.False(t, s2.IsCompact())
		require.NoError(t, s2.Validate())
		sp, _ = csf.Indptr[int32](s2, 1)
		assert.Equal(t, []int32{5, 8}, sp) // positions in the shared buffer: subtract sp[0]
		k, err := s2.Compact(mem)
		require.NoError(t, err)
		kp, kx := levels(t, k)
		assert.Equal(t, [][]int64{{0, 1}, {0, 3}}, kp)
		assert.Equal(t, [][]int64{{2}, {2}, {1, 2, 3}}, kx)
		kv, _ := csf.Values[float64](k)
		assert.Equal(t, []float64{6, 8, 7}, kv)
		require.NoError(t, k.Validate())
		assert.True(t, k.IsCompact())
		k.Release()
		s2.Release()
		// Nothing is stored at i=0.
		s0 := c.Sub(0)
		assert.EqualValues(t, 0, s0.NNZ())
		require.NoError(t, s0.Validate())
		s0.Release()
		assert.Equal(t, 4.0, csf.At[float64](s, 2, 1, 3))
		var got []float64
		for idx, v := range csf.All[float64](s) {
			got = append(got, v)
			assert.Equal(t, v, csf.At[float64](s, idx...))
		}
		assert.Equal(t, []float64{1, 2, 3, 4, 5}, got)

		// The fiber at (i, j, k) = (2, 2, 2).
		fi, fv, err := csf.Fiber[int32, float64](c, 2, 2, 2)
		require.NoError(t, err)
		assert.Equal(t, []int32{1, 2, 3}, fi)
		assert.Equal(t, []float64{6, 8, 7}, fv)
		s.Release()
		c.Release()
	}
}

// The 2×3×2 int32 example of the IPC spec, §7.2, converted from dense with
// int64 indices: axis order ArgSort([2 3 2]) = [0 2 1].
func TestSpec72(t *testing.T) {
	mem := testutil.Checked(t)
	d, err := views.Alloc(mem, arrow.PrimitiveTypes.Int32, []int64{2, 3, 2})
	require.NoError(t, err)
	defer d.Release()
	require.NoError(t, views.Set[int32](d, 10, 0, 0, 1))
	require.NoError(t, views.Set[int32](d, 20, 0, 2, 0))
	require.NoError(t, views.Set[int32](d, 30, 0, 2, 1))
	require.NoError(t, views.Set[int32](d, 40, 1, 1, 0))
	c, err := csf.FromDense(mem, d, csf.ConvertOptions{IndexType: arrow.PrimitiveTypes.Int64})
	require.NoError(t, err)
	defer c.Release()
	assert.Equal(t, []int{0, 2, 1}, c.AxisOrder())
	// Level 0 (dim 0): indices [0 1], indptr [0 2 3].
	ip0, err := csf.Indptr[int64](c, 0)
	require.NoError(t, err)
	assert.Equal(t, []int64{0, 2, 3}, ip0)
	ix0, _ := csf.Indices[int64](c, 0)
	assert.Equal(t, []int64{0, 1}, ix0)
	// Level 1 (dim 2): indices [0 1 0], indptr [0 1 3 4].
	ip1, _ := csf.Indptr[int64](c, 1)
	assert.Equal(t, []int64{0, 1, 3, 4}, ip1)
	ix1, _ := csf.Indices[int64](c, 1)
	assert.Equal(t, []int64{0, 1, 0}, ix1)
	// Level 2 (dim 1): indices [2 0 2 1].
	ix2, _ := csf.Indices[int64](c, 2)
	assert.Equal(t, []int64{2, 0, 2, 1}, ix2)
	vs, _ := csf.Values[int32](c)
	assert.Equal(t, []int32{20, 10, 30, 40}, vs)
	assert.EqualValues(t, (3+4)*8+(2+3+4)*8, c.IndexBytes())

	// Round trips: to dense, and through COO with int32 indices.
	back, err := c.ToDense(mem)
	require.NoError(t, err)
	defer back.Release()
	assert.Equal(t, []int32{0, 10, 0, 0, 20, 30, 0, 0, 40, 0, 0, 0}, testutil.ViewValues[int32](t, back.(*views.View)))
	x, err := c.ToCOO(mem, csf.ConvertOptions{})
	require.NoError(t, err)
	defer x.Release()
	assert.False(t, x.IsCanonical())
	c32, err := csf.FromCOO(mem, x, csf.ConvertOptions{IndexType: arrow.PrimitiveTypes.Int32})
	require.NoError(t, err)
	defer c32.Release()
	p, ix := levels(t, c32)
	assert.Equal(t, [][]int64{{0, 2, 3}, {0, 1, 3, 4}}, p)
	assert.Equal(t, [][]int64{{0, 1}, {0, 1, 0}, {2, 0, 2, 1}}, ix)

	// The slice at dimension 0 = 0: a 2-d tensor over dims (1, 2) whose
	// levels are dims 2 then 1.
	s := c.Sub(0)
	defer s.Release()
	assert.Equal(t, []int64{3, 2}, s.Shape())
	assert.Equal(t, []int{1, 0}, s.AxisOrder())
	sd, err := s.ToDense(mem)
	require.NoError(t, err)
	defer sd.Release()
	assert.Equal(t, []int32{0, 10, 0, 0, 20, 30}, testutil.ViewValues[int32](t, sd.(*views.View)))
}
