package views

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// iota64 returns a writable contiguous float64 view of the given shape whose
// element at buffer position p holds float64(p).
func iota64(t testing.TB, mem memory.Allocator, shape ...int64) *View {
	t.Helper()
	v, err := Alloc(mem, arrow.PrimitiveTypes.Float64, shape)
	require.NoError(t, err)
	for i := range data[float64](v) {
		data[float64](v)[i] = float64(i)
	}
	return v
}

// The GCS introduction: the 2×3 array 1..6 with strides (3,1) at offset 0, and with
// strides (-1,-2) at offset 5, stored in memory as 6 3 5 2 4 1.
func TestStridedStorageExample(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	want := [][]float64{{1, 2, 3}, {4, 5, 6}}
	for _, tc := range []struct {
		name    string
		memory  []float64
		offset  int64
		strides []int64
		locs    [][]int64
	}{
		{"strides (3,1)", []float64{1, 2, 3, 4, 5, 6}, 0, []int64{3, 1}, [][]int64{{0, 1, 2}, {3, 4, 5}}},
		{"strides (-1,-2)", []float64{6, 3, 5, 2, 4, 1}, 5, []int64{-1, -2}, [][]int64{{5, 3, 1}, {4, 2, 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			buf := core.NewZeroedBuffer(mem, 6*8)
			defer buf.Release()
			copy(core.MustSlice[float64](buf, 6), tc.memory)
			v, err := New(arrow.PrimitiveTypes.Float64, buf, tc.offset, []int64{2, 3}, tc.strides)
			require.NoError(t, err)
			defer v.Release()
			for i := range int64(2) {
				for j := range int64(3) {
					assert.Equal(t, want[i][j], At[float64](v, i, j))
					assert.Equal(t, tc.locs[i][j], v.Offset(i, j))
					// dimensionality promotion: memory location → index
					idx, ok := v.Locate(tc.locs[i][j])
					require.True(t, ok)
					assert.Equal(t, []int64{i, j}, idx)
				}
			}
			_, ok := v.Locate(6)
			assert.False(t, ok)
			c, err := v.Copy(mem, CopyOptions{})
			require.NoError(t, err)
			defer c.Release()
			assert.Equal(t, []float64{1, 2, 3, 4, 5, 6}, data[float64](c))
		})
	}
}

// The GCS introduction's promotion formula for a row-major (2, 3, 8) array:
// indices[i] = index // strides[i] mod shape[i].
func TestDimensionalityPromotion(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	v := iota64(t, mem, 2, 3, 8)
	defer v.Release()
	strides := v.ElemStrides()
	assert.Equal(t, []int64{24, 8, 1}, strides)
	for pos := range int64(48) {
		idx, ok := v.Locate(pos)
		require.True(t, ok)
		for i, s := range strides {
			assert.Equal(t, pos/s%v.Dim(i), idx[i])
		}
	}
}

// The NuMojo view proposal: over a 6×8 row-major array a holding 0..47, b = a[1:6:2, 2:8:2]
// has offset 10, shape (3,3), element strides (16,2) and the values
// 10 12 14 / 26 28 30 / 42 44 46; a[1] has shape (8) and offset 8.
func TestSliceAndIndexExample(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	a := iota64(t, mem, 6, 8)
	defer a.Release()
	assert.Equal(t, []int64{8, 1}, a.ElemStrides())

	b, err := a.Slice(Range{1, 6, 2}, Range{2, 8, 2})
	require.NoError(t, err)
	defer b.Release()
	assert.Equal(t, int64(10), b.ElemOffset())
	assert.Equal(t, []int64{3, 3}, b.Shape())
	assert.Equal(t, []int64{16, 2}, b.ElemStrides())
	assert.Equal(t, []int64{128, 16}, b.ByteStrides())
	assert.Equal(t, "[[10 12 14]\n [26 28 30]\n [42 44 46]]", b.String())
	assert.Equal(t, int64(28), b.Offset(1, 1))
	assert.Equal(t, int64(42), b.Offset(2, 0))
	assert.False(t, b.IsCContiguous())
	assert.False(t, b.IsFContiguous())

	r, err := a.Index(0, 1)
	require.NoError(t, err)
	defer r.Release()
	assert.Equal(t, []int64{8}, r.Shape())
	assert.Equal(t, int64(8), r.ElemOffset())
	assert.Equal(t, []int64{1}, r.ElemStrides())
	assert.Equal(t, "[8 9 10 11 12 13 14 15]", r.String())

	// transpose swaps shape and strides; flip is [len-1::-1].
	tr := b.T()
	defer tr.Release()
	assert.Equal(t, []int64{2, 16}, tr.ElemStrides())
	assert.Equal(t, "[[10 26 42]\n [12 28 44]\n [14 30 46]]", tr.String())
	f, err := b.Flip(1)
	require.NoError(t, err)
	defer f.Release()
	assert.Equal(t, int64(14), f.ElemOffset())
	assert.Equal(t, []int64{16, -2}, f.ElemStrides())
	assert.Equal(t, "[[14 12 10]\n [30 28 26]\n [46 44 42]]", f.String())
}

// The NuMojo view proposal's normalised strides: NumPy's a[::100, :] of a 3×3 array has
// strides (2400, 8) yet is both C- and F-contiguous; normalising the stride
// of the length-1 axis makes the strides tell the truth.
func TestNormalisedStrides(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	a := iota64(t, mem, 3, 3)
	defer a.Release()
	b, err := a.Slice(Range{None, None, 100}, Full())
	require.NoError(t, err)
	defer b.Release()
	assert.Equal(t, []int64{1, 3}, b.Shape())
	assert.Equal(t, []int64{3, 1}, b.ElemStrides())
	assert.True(t, b.IsCContiguous())
	assert.True(t, b.IsFContiguous())

	// a column is contiguous only in the trivial sense of being 1-d if its
	// stride is 1: here it is not.
	col, err := a.Slice(Full(), Span(1, 2))
	require.NoError(t, err)
	defer col.Release()
	assert.Equal(t, []int64{3, 1}, col.Shape())
	assert.False(t, col.IsCContiguous())
	assert.False(t, col.IsFContiguous())
	assert.True(t, a.IsCContiguous())
	assert.False(t, a.IsFContiguous())
	at := a.T()
	defer at.Release()
	assert.True(t, at.IsFContiguous())
}

// Dtype-next: the 3×3 matrix 0..8 transposed by [1 0], broadcast to [6 3],
// rotated by [0 1], with row 1 and column 2 selected, printed as there.
func TestIndexAlgebraExample(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	a := iota64(t, mem, 3, 3)
	defer a.Release()
	assert.Equal(t, "[[0.000 1.000 2.000]\n [3.000 4.000 5.000]\n [6.000 7.000 8.000]]", Formatted(a, "%.3f"))

	tr, err := a.Transpose(1, 0)
	require.NoError(t, err)
	defer tr.Release()
	assert.Equal(t, []int64{1, 3}, tr.ElemStrides()) // {:shape [3 3] :strides [1 3]}
	assert.Equal(t, "[[0.000 3.000 6.000]\n [1.000 4.000 7.000]\n [2.000 5.000 8.000]]", Formatted(tr, "%.3f"))

	bc, err := a.Tile(2, 1)
	require.NoError(t, err)
	defer bc.Release()
	assert.Equal(t, "[[0.000 1.000 2.000]\n [3.000 4.000 5.000]\n [6.000 7.000 8.000]\n"+
		" [0.000 1.000 2.000]\n [3.000 4.000 5.000]\n [6.000 7.000 8.000]]", Formatted(bc, "%.3f"))
	assert.True(t, bc.ReadOnly())
	require.ErrorIs(t, Set(bc, 1.0, 0, 0), arrowsparse.ErrReadOnly)

	rot, err := a.Rotate(1, 1) // rotate [0 1]
	require.NoError(t, err)
	defer rot.Release()
	assert.Equal(t, "[[2.000 0.000 1.000]\n [5.000 3.000 4.000]\n [8.000 6.000 7.000]]", Formatted(rot, "%.3f"))
	assert.False(t, rot.IsStrided())
	assert.False(t, rot.ReadOnly())

	row, err := a.Index(0, 1) // select 1 :all
	require.NoError(t, err)
	defer row.Release()
	assert.Equal(t, "[3.000 4.000 5.000]", Formatted(row, "%.3f"))
	assert.Equal(t, int64(3), row.ElemOffset())
	assert.Equal(t, []int64{1}, row.ElemStrides())

	col, err := a.Index(1, 2) // select :all 2
	require.NoError(t, err)
	defer col.Release()
	assert.Equal(t, "[2.000 5.000 8.000]", Formatted(col, "%.3f"))
	assert.Equal(t, int64(2), col.ElemOffset())
	assert.Equal(t, []int64{3}, col.ElemStrides())

	// The indexed reader: select by an index list.
	sel, err := a.Select(0, []int64{2, 0})
	require.NoError(t, err)
	defer sel.Release()
	assert.Equal(t, "[[6 7 8]\n [0 1 2]]", sel.String())

	// local→global: the inverse map of each view, and "no such element"
	// for addresses a selection does not reach (row 1 is not selected).
	for _, pos := range []int64{0, 2, 6, 8} {
		idx, ok := sel.Locate(pos)
		require.True(t, ok)
		assert.Equal(t, float64(pos), At[float64](sel, idx...))
	}
	_, ok := sel.Locate(4)
	assert.False(t, ok)
	idx, ok := rot.Locate(0)
	require.True(t, ok)
	assert.Equal(t, []int64{0, 1}, idx)
	idx, ok = bc.Locate(4) // a tiled element has two indices; the first is returned
	require.True(t, ok)
	assert.Equal(t, []int64{1, 1}, idx)
}
