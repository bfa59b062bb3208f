package csf_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
)

// handBuilt holds the the CSF tutorial tensor as the Go slices of its levels, to be
// spoilt one way or another and handed to New.
type handBuilt struct {
	shape   []int64
	order   []int
	indptr  [][]int32
	indices [][]int32
	values  []float64
	nnz     int64
}

func csfTutorialLevels() handBuilt {
	return handBuilt{
		shape:   []int64{3, 3, 3, 4},
		order:   []int{0, 1, 2, 3},
		indptr:  [][]int32{{0, 2, 3}, {0, 1, 3, 4}, {0, 2, 4, 5, 8}},
		indices: [][]int32{{1, 2}, {1, 2, 2}, {1, 1, 2, 2}, {2, 3, 1, 3, 1, 1, 2, 3}},
		values:  []float64{1, 2, 3, 4, 5, 6, 8, 7},
		nnz:     8,
	}
}

// build hands h to New, with the given level lengths (nil: the lengths of
// the indices slices).
func (h handBuilt) build(t *testing.T, mem memory.Allocator, lens []int64, opts ...csf.Option) (*csf.Tensor, error) {
	t.Helper()
	var lv []csf.Level
	var bufs []*memory.Buffer
	for l, ix := range h.indices {
		b := testutil.BufferOf(mem, ix)
		bufs = append(bufs, b)
		level := csf.Level{Indices: b, IndexType: i32, Len: int64(len(ix))}
		if lens != nil {
			level.Len = lens[l]
		}
		if l < len(h.indptr) {
			p := testutil.BufferOf(mem, h.indptr[l])
			bufs = append(bufs, p)
			level.Indptr, level.IndptrType = p, i32
		}
		lv = append(lv, level)
	}
	vb := testutil.BufferOf(mem, h.values)
	defer vb.Release()
	for _, b := range bufs {
		defer b.Release()
	}
	return csf.New(f64, h.shape, h.order, lv, vb, h.nnz, opts...)
}

func TestNewAdoptsBuffers(t *testing.T) {
	mem := testutil.Checked(t)
	h := csfTutorialLevels()
	x, err := h.build(t, mem, nil, csf.WithDimNames("i", "j", "k", "l"))
	require.NoError(t, err)
	defer x.Release()
	require.NoError(t, x.Validate())
	assert.Equal(t, arrowsparse.FormatCSF, x.Format())
	assert.Equal(t, f64, x.DataType())
	assert.Equal(t, 4, x.NumDims())
	assert.True(t, x.IsCompact())
	// IndexBytes: indptr 3+4+5 int32, indices 2+3+4+8 int32.
	assert.EqualValues(t, 4*(3+4+5)+4*(2+3+4+8), x.IndexBytes())
	c := csfTutorial(t, mem)
	defer c.Release()
	y, err := csf.FromCOO(mem, c, csf.ConvertOptions{})
	require.NoError(t, err)
	defer y.Release()
	d1, err := x.ToDense(mem)
	require.NoError(t, err)
	defer d1.Release()
	d2, err := y.ToDense(mem)
	require.NoError(t, err)
	defer d2.Release()
	assert.Equal(t, denseOf(t, d2), denseOf(t, d1))

	// Typed access with the wrong Go type, and misuse.
	_, err = csf.Indices[int64](x, 0)
	require.ErrorIs(t, err, arrow.ErrType)
	_, err = csf.Indptr[int64](x, 0)
	require.ErrorIs(t, err, arrow.ErrType)
	_, err = csf.Indptr[int32](x, 3) // the last level has none
	require.ErrorIs(t, err, arrow.ErrType)
	_, err = csf.Values[float32](x)
	require.ErrorIs(t, err, arrow.ErrType)
	_, _, err = csf.Fiber[int64, float64](x, 1, 1, 1)
	require.ErrorIs(t, err, arrow.ErrType)
	assert.Panics(t, func() { csf.At[float64](x, 1, 1, 1) })
	assert.Panics(t, func() { csf.At[float64](x, 1, 1, 1, 4) })
	assert.Panics(t, func() { csf.At[float32](x, 1, 1, 1, 1) })
	assert.Panics(t, func() { x.Sub(1, 1, 1) })
	assert.Panics(t, func() { x.Sub(3) })
	assert.Panics(t, func() { csf.Fiber[int32, float64](x, 1, 1) })
	assert.Panics(t, func() { x.IndicesBuffer(4) })
	_, err = x.WithAxisOrder(mem, 0, 1, 1, 2)
	require.ErrorIs(t, err, arrowsparse.ErrStructure)
	same, err := x.WithAxisOrder(mem, 0, 1, 2, 3)
	require.NoError(t, err)
	assert.True(t, same == x)
	same.Release()
}

func TestBadInput(t *testing.T) {
	mem := testutil.Checked(t)
	cases := []struct {
		name  string
		spoil func(h *handBuilt) []int64 // returns level lengths, or nil
		opts  []csf.Option
		want  error
	}{
		{"axis order not a permutation", func(h *handBuilt) []int64 { h.order = []int{0, 0, 1, 2}; return nil }, nil, arrowsparse.ErrStructure},
		{"axis order too short", func(h *handBuilt) []int64 { h.order = []int{0, 1, 2}; return nil }, nil, arrowsparse.ErrStructure},
		{"negative dimension", func(h *handBuilt) []int64 { h.shape[1] = -3; return nil }, nil, arrowsparse.ErrShape},
		{"dim names", func(h *handBuilt) []int64 { return nil }, []csf.Option{csf.WithDimNames("a")}, arrowsparse.ErrShape},
		{"too few levels", func(h *handBuilt) []int64 {
			h.indices = h.indices[:3]
			return nil
		}, nil, arrowsparse.ErrStructure},
		{"indptr on the last level", func(h *handBuilt) []int64 {
			h.indptr = append(h.indptr, []int32{0, 0, 0, 0, 0, 0, 0, 0, 0})
			return nil
		}, nil, arrowsparse.ErrStructure},
		{"indptr missing", func(h *handBuilt) []int64 { h.indptr = h.indptr[:2]; return nil }, nil, arrowsparse.ErrStructure},
		{"indices buffer too short", func(h *handBuilt) []int64 { return []int64{2, 3, 5, 8} }, nil, arrowsparse.ErrBufferSize},
		{"indptr buffer too short", func(h *handBuilt) []int64 {
			h.indptr[1] = h.indptr[1][:3]
			return nil
		}, nil, arrowsparse.ErrBufferSize},
		{"negative length", func(h *handBuilt) []int64 { return []int64{2, -3, 4, 8} }, nil, arrowsparse.ErrShape},
		{"indptr decreases", func(h *handBuilt) []int64 { h.indptr[2] = []int32{0, 2, 1, 5, 8}; return nil }, nil, arrowsparse.ErrStructure},
		{"indptr does not start at 0", func(h *handBuilt) []int64 { h.indptr[1] = []int32{1, 1, 3, 4}; return nil }, nil, arrowsparse.ErrStructure},
		{"indptr end mismatches the next level", func(h *handBuilt) []int64 { h.indptr[1] = []int32{0, 1, 3, 3}; return nil }, nil, arrowsparse.ErrStructure},
		{"index outside its dimension", func(h *handBuilt) []int64 { h.indices[3][7] = 4; return nil }, nil, arrowsparse.ErrOutOfRange},
		{"negative index", func(h *handBuilt) []int64 { h.indices[1][0] = -1; return nil }, nil, arrowsparse.ErrOutOfRange},
		{"root index outside", func(h *handBuilt) []int64 { h.indices[0][1] = 3; return nil }, nil, arrowsparse.ErrOutOfRange},
		{"indices decrease within a node", func(h *handBuilt) []int64 { h.indices[3][5], h.indices[3][6] = 2, 1; return nil }, nil, arrowsparse.ErrStructure},
		{"repeated index within a node", func(h *handBuilt) []int64 { h.indices[2][1], h.indices[2][2] = 2, 2; return nil }, nil, arrowsparse.ErrStructure},
		{"repeated root", func(h *handBuilt) []int64 { h.indices[0][1] = 1; return nil }, nil, arrowsparse.ErrStructure},
		{"nnz disagrees with the last level", func(h *handBuilt) []int64 { h.nnz = 7; return nil }, nil, arrowsparse.ErrStructure},
		{"values too short", func(h *handBuilt) []int64 { h.values = h.values[:7]; return nil }, nil, arrowsparse.ErrBufferSize},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := csfTutorialLevels()
			lens := tc.spoil(&h)
			x, err := h.build(t, mem, lens, tc.opts...)
			require.ErrorIs(t, err, tc.want)
			require.Nil(t, x)
			assert.NotEmpty(t, err.Error())
		})
	}

	// Indices that increase across a node boundary are fine.
	h := csfTutorialLevels()
	x, err := h.build(t, mem, nil)
	require.NoError(t, err)
	x.Release()

	// Trusted skips the content checks but not the end points; Validate
	// finds what it skipped.
	h.indptr[2] = []int32{0, 2, 1, 5, 8}
	x, err = h.build(t, mem, nil, csf.WithTrusted())
	require.NoError(t, err)
	require.ErrorIs(t, x.Validate(), arrowsparse.ErrStructure)
	x.Release()
	h = csfTutorialLevels()
	h.indices[3][0] = 9
	x, err = h.build(t, mem, nil, csf.WithTrusted())
	require.NoError(t, err)
	require.ErrorIs(t, x.Validate(), arrowsparse.ErrOutOfRange)
	x.Release()
	h = csfTutorialLevels()
	h.indptr[1] = []int32{0, 1, 3, 3}
	_, err = h.build(t, mem, nil, csf.WithTrusted())
	require.ErrorIs(t, err, arrowsparse.ErrStructure)

	// Types, alignment, rank.
	ib := testutil.BufferOf(mem, []int64{0, 1})
	defer ib.Release()
	pb := testutil.BufferOf(mem, []int64{0, 1, 2})
	defer pb.Release()
	vb := testutil.BufferOf(mem, []float64{1, 2})
	defer vb.Release()
	good := []csf.Level{{Indices: ib, IndexType: i64, Indptr: pb, IndptrType: i64, Len: 2}, {Indices: ib, IndexType: i64, Len: 2}}
	x, err = csf.New(f64, []int64{2, 2}, []int{0, 1}, good, vb, 2)
	require.NoError(t, err)
	x.Release()
	_, err = csf.New(f64, []int64{2}, []int{0}, good[1:], vb, 2)
	require.ErrorIs(t, err, arrowsparse.ErrShape) // fewer than 2 dimensions
	_, err = csf.New(f64, []int64{}, []int{}, nil, vb, 0)
	require.ErrorIs(t, err, arrowsparse.ErrShape)
	_, err = csf.New(arrow.BinaryTypes.String, []int64{2, 2}, []int{0, 1}, good, vb, 2)
	require.ErrorIs(t, err, arrow.ErrType)
	bad := append([]csf.Level(nil), good...)
	bad[0].IndexType = arrow.PrimitiveTypes.Uint64
	_, err = csf.New(f64, []int64{2, 2}, []int{0, 1}, bad, vb, 2)
	require.ErrorIs(t, err, arrow.ErrType)
	bad = append([]csf.Level(nil), good...)
	bad[0].IndptrType = f64
	_, err = csf.New(f64, []int64{2, 2}, []int{0, 1}, bad, vb, 2)
	require.ErrorIs(t, err, arrow.ErrType)
	odd := memory.SliceBuffer(ib, 1, 8)
	defer odd.Release()
	bad = append([]csf.Level(nil), good...)
	bad[1].Indices, bad[1].Len = odd, 1
	bad[0].Indptr = testutil.BufferOf(mem, []int64{0, 1, 1})
	defer bad[0].Indptr.Release()
	_, err = csf.New(f64, []int64{2, 2}, []int{0, 1}, bad, vb, 1)
	require.ErrorIs(t, err, arrowsparse.ErrAlignment)
	_, err = csf.New(f64, []int64{2, 2}, []int{0, 1}, good, nil, 2)
	require.ErrorIs(t, err, arrowsparse.ErrBufferSize)

	// Conversions that cannot work.
	y, err := csf.New(f64, []int64{1 << 40, 1 << 40}, []int{0, 1}, good, vb, 2)
	require.NoError(t, err)
	defer y.Release()
	_, err = y.ToDense(mem)
	require.ErrorIs(t, err, arrowsparse.ErrOverflow)
	c := csfTutorial(t, mem)
	defer c.Release()
	for _, o := range []csf.ConvertOptions{
		{AxisOrder: []int{0, 1, 2}},
		{AxisOrder: []int{0, 1, 2, 2}},
		{IndexType: arrow.PrimitiveTypes.Uint64},
		{LevelIndexTypes: []arrow.DataType{i8, i8}},
		{LevelIndptrTypes: []arrow.DataType{i8, i8, i8, i8}},
		{LevelIndptrTypes: []arrow.DataType{i8, f64, i8}},
		{Duplicates: 42},
	} {
		_, err = csf.FromCOO(mem, c, o)
		require.Error(t, err, "%+v", o)
	}
	ok, err := csf.FromCOO(mem, c, csf.ConvertOptions{Duplicates: arrowsparse.RejectDuplicates})
	require.NoError(t, err) // the CSF tutorial has no duplicates
	ok.Release()
	dup, err := coo.FromSlices(mem, []int64{2, 2}, []int8{0, 1, 0, 1}, coo.RowMajor, []float64{1, 2})
	require.NoError(t, err)
	defer dup.Release()
	_, err = csf.FromCOO(mem, dup, csf.ConvertOptions{Duplicates: arrowsparse.RejectDuplicates})
	require.ErrorIs(t, err, arrowsparse.ErrNotCanonical)
	one, err := coo.FromSlices(mem, []int64{5}, []int8{1}, coo.RowMajor, []float64{1})
	require.NoError(t, err)
	defer one.Release()
	_, err = csf.FromCOO(mem, one, csf.ConvertOptions{})
	require.ErrorIs(t, err, arrowsparse.ErrShape) // CSF needs 2 dimensions
	// A coordinate type too narrow for a dimension.
	wide, err := coo.FromSlices(mem, []int64{2, 300}, []int16{0, 299}, coo.RowMajor, []float64{1})
	require.NoError(t, err)
	defer wide.Release()
	_, err = csf.FromCOO(mem, wide, csf.ConvertOptions{IndexType: i8})
	require.ErrorIs(t, err, arrow.ErrType)
	z, err := csf.FromCOO(mem, wide, csf.ConvertOptions{LevelIndexTypes: []arrow.DataType{u8, i16}, LevelIndptrTypes: []arrow.DataType{u8}})
	require.NoError(t, err)
	defer z.Release()
	_, err = z.WithIndexTypes(mem, nil, i8)
	require.ErrorIs(t, err, arrow.ErrType)
	_, err = z.WithIndexTypes(mem, arrow.PrimitiveTypes.Uint64, nil)
	require.ErrorIs(t, err, arrow.ErrType)
	same, err := z.WithIndexTypes(mem, nil, nil)
	require.NoError(t, err)
	assert.True(t, same == z)
	same.Release()
	u, err := z.WithIndexTypes(mem, i32, i32)
	require.NoError(t, err)
	assert.True(t, u.ValuesBuffer() == z.ValuesBuffer())
	require.NoError(t, u.Validate())
	u.Release()
}
