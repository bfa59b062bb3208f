package views

import (
	"math"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// values returns the view's elements in row-major order.
func values[V Viewer](v V) []float64 { return slices.Collect(Elements[float64](v)) }

func TestBadInputReturnsErrors(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	a := iota64(t, mem, 2, 3)
	defer a.Release()
	rot, err := a.Rotate(1, 1)
	require.NoError(t, err)
	defer rot.Release()
	ro := a.AsReadOnly()
	defer ro.Release()
	buf := core.NewZeroedBuffer(mem, 6*8)
	defer buf.Release()
	f64 := arrow.PrimitiveTypes.Float64

	for _, tc := range []struct {
		name string
		run  func() error
		want []error
	}{
		{"slice: more ranges than axes", func() error { _, err := a.Slice(Full(), Full(), Full()); return err }, []error{arrowsparse.ErrShape, arrow.ErrInvalid}},
		{"slice: zero step", func() error { _, err := a.Slice(Range{0, 2, 0}); return err }, []error{arrowsparse.ErrOutOfRange, arrow.ErrIndex}},
		{"index: out of range", func() error { _, err := a.Index(0, 2); return err }, []error{arrowsparse.ErrOutOfRange, arrow.ErrIndex}},
		{"index: negative out of range", func() error { _, err := a.Index(1, -4); return err }, []error{arrow.ErrIndex}},
		{"index: bad axis", func() error { _, err := a.Index(2, 0); return err }, []error{arrow.ErrIndex}},
		{"transpose: not a permutation", func() error { _, err := a.Transpose(0, 0); return err }, []error{arrowsparse.ErrStructure, arrow.ErrInvalid}},
		{"transpose: rank mismatch", func() error { _, err := a.Transpose(0, 1, 2); return err }, []error{arrow.ErrInvalid}},
		{"flip: bad axis", func() error { _, err := a.Flip(-3); return err }, []error{arrow.ErrIndex}},
		{"expand dims: bad axis", func() error { _, err := a.ExpandDims(4); return err }, []error{arrow.ErrIndex}},
		{"squeeze: axis of length 3", func() error { _, err := a.Squeeze(1); return err }, []error{arrowsparse.ErrShape, arrow.ErrInvalid}},
		{"broadcast: incompatible", func() error { _, err := a.BroadcastTo([]int64{2, 4}); return err }, []error{arrowsparse.ErrShape, arrow.ErrInvalid}},
		{"broadcast: fewer axes", func() error { _, err := a.BroadcastTo([]int64{3}); return err }, []error{arrowsparse.ErrShape}},
		{"broadcast: negative", func() error { _, err := a.BroadcastTo([]int64{-1, 2, 3}); return err }, []error{arrowsparse.ErrShape}},
		{"broadcast: overflow", func() error { _, err := a.BroadcastTo([]int64{math.MaxInt64, 2, 3}); return err }, []error{arrowsparse.ErrOverflow, arrow.ErrInvalid}},
		{"broadcast: tile needs Tile", func() error { _, err := a.BroadcastTo([]int64{4, 3}); return err }, []error{arrowsparse.ErrShape}},
		{"tile: negative repetition", func() error { _, err := a.Tile(-1, 1); return err }, []error{arrowsparse.ErrShape}},
		{"tile: overflow", func() error { _, err := a.Tile(1, 1<<62); return err }, []error{arrowsparse.ErrOverflow}},
		{"rotate: bad axis", func() error { _, err := a.Rotate(5, 1); return err }, []error{arrow.ErrIndex}},
		{"select: out of range", func() error { _, err := a.Select(1, []int64{0, 3}); return err }, []error{arrowsparse.ErrOutOfRange, arrow.ErrIndex}},
		{"reshape: element count", func() error { _, err := a.Reshape(4, 2); return err }, []error{arrowsparse.ErrShape, arrow.ErrInvalid}},
		{"reshape: two unknowns", func() error { _, err := a.Reshape(-1, -1); return err }, []error{arrowsparse.ErrShape}},
		{"reshape: needs a copy", func() error {
			t := a.T()
			defer t.Release()
			_, err := t.Reshape(6)
			return err
		}, []error{arrowsparse.ErrShape, arrow.ErrInvalid}},
		{"write: read-only view", func() error { return Set(ro, 1.0, 0, 0) }, []error{arrowsparse.ErrReadOnly, arrow.ErrInvalid}},
		{"write: broadcast view", func() error {
			b, err := a.BroadcastTo([]int64{2, 2, 3})
			require.NoError(t, err)
			defer b.Release()
			return Set(b, 1.0, 0, 0, 0)
		}, []error{arrowsparse.ErrReadOnly}},
		{"copy to: read-only", func() error { return a.CopyTo(mem, ro, CopyOptions{}) }, []error{arrowsparse.ErrReadOnly}},
		{"copy to: rank mismatch", func() error {
			d := iota64(t, mem, 6)
			defer d.Release()
			return a.CopyTo(mem, d, CopyOptions{})
		}, []error{arrowsparse.ErrShape}},
		{"copy to: type mismatch", func() error {
			d, err := Alloc(mem, arrow.PrimitiveTypes.Int64, []int64{2, 3})
			require.NoError(t, err)
			defer d.Release()
			return a.CopyTo(mem, d, CopyOptions{})
		}, []error{arrowsparse.ErrUnsupportedType, arrow.ErrType}},
		{"new: buffer too small", func() error { _, err := New(f64, buf, 0, []int64{7}, []int64{1}); return err }, []error{arrowsparse.ErrBufferSize, arrow.ErrInvalid}},
		{"new: negative stride below the buffer", func() error { _, err := New(f64, buf, 1, []int64{3}, []int64{-1}); return err }, []error{arrowsparse.ErrBufferSize}},
		{"new: rank mismatch", func() error { _, err := New(f64, buf, 0, []int64{2, 3}, []int64{1}); return err }, []error{arrowsparse.ErrShape}},
		{"new: stride overflow", func() error { _, err := New(f64, buf, 0, []int64{3}, []int64{1 << 62}); return err }, []error{arrowsparse.ErrOverflow}},
		{"new: nil buffer", func() error { _, err := New(f64, nil, 0, nil, nil); return err }, []error{arrowsparse.ErrBufferSize}},
		{"new: not a value type", func() error { _, err := New(arrow.FixedWidthTypes.Boolean, buf, 0, nil, nil); return err }, []error{arrow.ErrType}},
		{"contiguous: too small", func() error { _, err := Contiguous(f64, buf, []int64{2, 4}); return err }, []error{arrowsparse.ErrBufferSize}},
		{"alloc: overflow", func() error { _, err := Alloc(mem, f64, []int64{1 << 61}); return err }, []error{arrowsparse.ErrOverflow}},
		{"as view: remapped", func() error { _, err := rot.AsView(); return err }, []error{arrowsparse.ErrStructure, arrow.ErrInvalid}},
		{"names: wrong count", func() error { _, err := a.WithDimNames("x"); return err }, []error{arrowsparse.ErrShape}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			require.NotPanics(t, func() { err = tc.run() })
			require.Error(t, err)
			for _, w := range tc.want {
				require.ErrorIs(t, err, w)
			}
		})
	}
}

func TestElementAccessPanicsOutsideTheShape(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	a := iota64(t, mem, 2, 3)
	defer a.Release()
	assert.PanicsWithValue(t, arrowsparse.PanicError{Msg: "views: index out of range"}, func() { At[float64](a, 2, 0) })
	assert.PanicsWithValue(t, arrowsparse.PanicError{Msg: "views: index out of range"}, func() { At[float64](a, 0, -1) })
	assert.PanicsWithValue(t, arrowsparse.PanicError{Msg: "views: index rank does not match the view's rank"}, func() { At[float64](a, 0) })
	assert.Panics(t, func() { At[float32](a, 0, 0) })
	_, err := Values[int64](a)
	assert.ErrorIs(t, err, arrowsparse.ErrUnsupportedType)
	assert.ErrorIs(t, err, arrow.ErrType)
}

func TestSliceNegativeStepsAndClamping(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	a := iota64(t, mem, 10)
	defer a.Release()
	for _, tc := range []struct {
		r      Range
		want   []float64
		offset int64
		stride int64
	}{
		{Range{None, None, -1}, []float64{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}, 9, -1},
		{Range{-2, None, -3}, []float64{8, 5, 2}, 8, -3},
		{Range{-100, 3, 1}, []float64{0, 1, 2}, 0, 1},
		{Range{7, 100, 2}, []float64{7, 9}, 7, 2},
		{Range{5, 5, 1}, nil, 0, 1},
		{Range{2, 8, -1}, nil, 0, 1},
		{Range{4, 5, 7}, []float64{4}, 4, 1},
	} {
		s, err := a.Slice(tc.r)
		require.NoError(t, err)
		assert.Equal(t, tc.want, values(s), "%v", tc.r)
		assert.Equal(t, int64(len(tc.want)), s.Len())
		assert.Equal(t, tc.offset, s.ElemOffset(), "%v", tc.r)
		assert.Equal(t, []int64{tc.stride}, s.ElemStrides(), "%v", tc.r)
		s.Release()
	}
}

func TestBroadcastToNumPy(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	a := iota64(t, mem, 3, 1)
	defer a.Release()
	b, err := a.BroadcastTo([]int64{2, 3, 4})
	require.NoError(t, err)
	defer b.Release()
	assert.Equal(t, []int64{2, 3, 4}, b.Shape())
	assert.Equal(t, []int64{0, 1, 0}, b.ElemStrides())
	assert.True(t, b.ReadOnly())
	assert.Equal(t, "[[[0 0 0 0]\n  [1 1 1 1]\n  [2 2 2 2]]\n\n [[0 0 0 0]\n  [1 1 1 1]\n  [2 2 2 2]]]", b.String())
	// broadcasting to a zero length is allowed, as in NumPy
	z, err := a.BroadcastTo([]int64{3, 0})
	require.NoError(t, err)
	defer z.Release()
	assert.Equal(t, int64(0), z.Len())
	assert.Equal(t, "[[]]", z.String())
	// a copy of a broadcast is writable and contiguous
	c, err := b.Copy(mem, CopyOptions{})
	require.NoError(t, err)
	defer c.Release()
	assert.False(t, c.ReadOnly())
	assert.Equal(t, values(b), values(c))
}

func TestSqueezeExpandDimsAndNames(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	a0 := iota64(t, mem, 2, 1, 3)
	defer a0.Release()
	a, err := a0.WithDimNames("x", "one", "z")
	require.NoError(t, err)
	defer a.Release()
	assert.Equal(t, []string{"x", "one", "z"}, a.DimNames())

	s, err := a.Squeeze()
	require.NoError(t, err)
	defer s.Release()
	assert.Equal(t, []int64{2, 3}, s.Shape())
	assert.Equal(t, []string{"x", "z"}, s.DimNames())

	e, err := s.ExpandDims(-1)
	require.NoError(t, err)
	defer e.Release()
	assert.Equal(t, []int64{2, 3, 1}, e.Shape())
	assert.Equal(t, []string{"x", "z", ""}, e.DimNames())
	assert.True(t, e.IsCContiguous())

	tr, err := a.Transpose(2, 0, 1)
	require.NoError(t, err)
	defer tr.Release()
	assert.Equal(t, []string{"z", "x", "one"}, tr.DimNames())
	assert.Equal(t, []int64{3, 2, 1}, tr.Shape())

	ix, err := a.Index(0, 1)
	require.NoError(t, err)
	defer ix.Release()
	assert.Equal(t, []string{"one", "z"}, ix.DimNames())

	_, err = a.Squeeze(0)
	require.ErrorIs(t, err, arrowsparse.ErrShape)
	_, err = a.Squeeze(1, -2)
	require.ErrorIs(t, err, arrowsparse.ErrShape)

	c, err := tr.Copy(mem, CopyOptions{})
	require.NoError(t, err)
	defer c.Release()
	assert.Equal(t, []string{"z", "x", "one"}, c.DimNames())

	unnamed, err := a.WithDimNames()
	require.NoError(t, err)
	defer unnamed.Release()
	assert.Nil(t, unnamed.DimNames())
}

func TestReshapeAsView(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	a := iota64(t, mem, 4, 6)
	defer a.Release()

	r, err := a.Reshape(2, -1, 3)
	require.NoError(t, err)
	defer r.Release()
	assert.Equal(t, []int64{2, 4, 3}, r.Shape())
	assert.Equal(t, []int64{12, 3, 1}, r.ElemStrides())
	assert.Equal(t, data[float64](r)[:24], values(r))

	// every other column is a uniform stride: it merges
	even, err := a.Slice(Full(), Range{None, None, 2})
	require.NoError(t, err)
	defer even.Release()
	flat, err := even.Reshape(12)
	require.NoError(t, err)
	defer flat.Release()
	assert.Equal(t, []int64{2}, flat.ElemStrides())
	assert.Equal(t, values(even), values(flat))

	// the first three columns split rows but cannot merge them
	cols, err := a.Slice(Full(), Span(0, 3))
	require.NoError(t, err)
	defer cols.Release()
	split, err := cols.Reshape(2, 2, 3)
	require.NoError(t, err)
	defer split.Release()
	assert.Equal(t, []int64{12, 6, 1}, split.ElemStrides())
	assert.Equal(t, values(cols), values(split))
	_, err = cols.Reshape(12)
	require.ErrorIs(t, err, arrowsparse.ErrShape)
	cp, err := cols.ReshapeCopy(mem, 12)
	require.NoError(t, err)
	defer cp.Release()
	assert.Equal(t, values(cols), values(cp))

	// a transposed matrix reshapes along its own axes
	tr := a.T()
	defer tr.Release()
	tt, err := tr.Reshape(3, 2, 1, 4)
	require.NoError(t, err)
	defer tt.Release()
	assert.Equal(t, values(tr), values(tt))
	assert.Equal(t, []int64{2, 1, 24, 6}, tt.ElemStrides())

	// reversed axes stay reversed
	f, err := a.Flip(1)
	require.NoError(t, err)
	defer f.Release()
	ff, err := f.Reshape(4, 2, 3)
	require.NoError(t, err)
	defer ff.Release()
	assert.Equal(t, values(f), values(ff))

	// empty views reshape freely
	e, err := a.Slice(Span(0, 0))
	require.NoError(t, err)
	defer e.Release()
	ee, err := e.Reshape(3, 0, -1)
	require.ErrorIs(t, err, arrowsparse.ErrShape) // -1 is ambiguous with a 0
	assert.Nil(t, ee)
	ee, err = e.Reshape(0, 5)
	require.NoError(t, err)
	defer ee.Release()
	assert.Equal(t, []int64{0, 5}, ee.Shape())
}

func TestRemappedOperations(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	a := iota64(t, mem, 3, 4)
	defer a.Release()
	r, err := a.Rotate(1, 1) // columns 3 0 1 2
	require.NoError(t, err)
	defer r.Release()
	assert.Equal(t, []float64{3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10}, values(r))

	check := func(v *Remapped, err error, want []float64, shape ...int64) {
		t.Helper()
		require.NoError(t, err)
		defer v.Release()
		assert.Equal(t, shape, v.Shape())
		assert.Equal(t, want, values(v))
	}
	s, err := r.Slice(Full(), Range{1, None, 1})
	check(s, err, []float64{0, 1, 2, 4, 5, 6, 8, 9, 10}, 3, 3)
	s, err = r.Slice(Span(0, 1), Range{None, None, -1})
	check(s, err, []float64{2, 1, 0, 3}, 1, 4)
	s, err = r.Index(0, 2)
	check(s, err, []float64{11, 8, 9, 10}, 4)
	s, err = r.Index(1, 0)
	check(s, err, []float64{3, 7, 11}, 3)
	s, err = r.Transpose(1, 0)
	check(s, err, []float64{3, 7, 11, 0, 4, 8, 1, 5, 9, 2, 6, 10}, 4, 3)
	check(r.T(), nil, []float64{3, 7, 11, 0, 4, 8, 1, 5, 9, 2, 6, 10}, 4, 3)
	s, err = r.Flip(1)
	check(s, err, []float64{2, 1, 0, 3, 6, 5, 4, 7, 10, 9, 8, 11}, 3, 4)
	s, err = r.ExpandDims(0)
	check(s, err, values(r), 1, 3, 4)
	s, err = r.Squeeze()
	check(s, err, values(r), 3, 4)
	s, err = r.BroadcastTo([]int64{2, 3, 4})
	check(s, err, append(values(r), values(r)...), 2, 3, 4)
	s, err = r.Tile(1, 2)
	check(s, err, []float64{3, 0, 1, 2, 3, 0, 1, 2, 7, 4, 5, 6, 7, 4, 5, 6, 11, 8, 9, 10, 11, 8, 9, 10}, 3, 8)
	s, err = r.Rotate(1, -1) // back to the original: strided again
	require.NoError(t, err)
	assert.True(t, s.IsStrided())
	sv, err := s.AsView()
	require.NoError(t, err)
	assert.Equal(t, values(a), values(sv))
	assert.Equal(t, a.ElemStrides(), sv.ElemStrides())
	sv.Release()
	check(s, nil, values(a), 3, 4)
	s, err = r.Select(1, []int64{0, -1})
	check(s, err, []float64{3, 2, 7, 6, 11, 10}, 3, 2)
	idx := array.NewInt64Builder(mem)
	idx.AppendValues([]int64{2, 2, 0}, nil)
	ia := idx.NewInt64Array()
	idx.Release()
	defer ia.Release()
	s, err = r.SelectArray(0, ia)
	check(s, err, []float64{11, 8, 9, 10, 11, 8, 9, 10, 3, 0, 1, 2}, 3, 4)
	ro := r.AsReadOnly()
	assert.True(t, ro.ReadOnly())
	require.ErrorIs(t, Set(ro, 1.0, 0, 0), arrowsparse.ErrReadOnly)
	check(ro, nil, values(r), 3, 4)
	s, err = r.WithDimNames("i", "j")
	require.NoError(t, err)
	assert.Equal(t, []string{"i", "j"}, s.DimNames())
	check(s, nil, values(r), 3, 4)

	// writes through a rotation land where the view says
	require.NoError(t, Set(r, -1.0, 1, 0))
	assert.Equal(t, -1.0, At[float64](a, 1, 3))
	require.NoError(t, Set(r, 7.0, 1, 0))

	// the remapped view outlives its parent's reference
	assert.Equal(t, arrowsparse.FormatDense, r.Format())
	d, err := r.ToDense(mem)
	require.NoError(t, err)
	defer d.Release()
	assert.Equal(t, []int64{4, 1}, d.ElemStrides())
}

func TestRotateAndTileOfSubRangesMaterialise(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	a := iota64(t, mem, 7)
	defer a.Release()
	r, err := a.Rotate(0, 3) // 4 5 6 0 1 2 3
	require.NoError(t, err)
	defer r.Release()
	s, err := r.Slice(Range{1, 6, 1}) // 5 6 0 1 2
	require.NoError(t, err)
	defer s.Release()
	assert.Equal(t, []float64{5, 6, 0, 1, 2}, values(s))
	rr, err := s.Rotate(0, 2) // 1 2 5 6 0
	require.NoError(t, err)
	defer rr.Release()
	assert.Equal(t, []float64{1, 2, 5, 6, 0}, values(rr))
	tt, err := s.Tile(2)
	require.NoError(t, err)
	defer tt.Release()
	assert.Equal(t, []float64{5, 6, 0, 1, 2, 5, 6, 0, 1, 2}, values(tt))
	// a slice inside one period is strided again
	in, err := r.Slice(Span(4, 7))
	require.NoError(t, err)
	defer in.Release()
	assert.True(t, in.IsStrided())
	assert.Equal(t, []float64{1, 2, 3}, values(in))
}

func TestSelectArrayZeroCopy(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	a := iota64(t, mem, 4, 3)
	defer a.Release()
	b := array.NewInt64Builder(mem)
	b.AppendValues([]int64{9, 3, 1, 0, 2}, nil)
	full := b.NewInt64Array()
	b.Release()
	ia := array.NewSlice(full, 1, 4) // 3 1 0: an offset array
	full.Release()
	s, err := a.SelectArray(0, ia)
	ia.Release() // the view retains the index buffer
	require.NoError(t, err)
	defer s.Release()
	assert.Equal(t, []float64{9, 10, 11, 3, 4, 5, 0, 1, 2}, values(s))
	assert.False(t, s.ReadOnly())

	for _, tc := range []struct {
		name string
		arr  func() arrow.Array
		want []float64
		err  error
	}{
		{"int32", func() arrow.Array {
			b := array.NewInt32Builder(mem)
			defer b.Release()
			b.AppendValues([]int32{1, 1}, nil)
			return b.NewArray()
		}, []float64{3, 4, 5, 3, 4, 5}, nil},
		{"uint8", func() arrow.Array {
			b := array.NewUint8Builder(mem)
			defer b.Release()
			b.AppendValues([]uint8{3}, nil)
			return b.NewArray()
		}, []float64{9, 10, 11}, nil},
		{"negative", func() arrow.Array {
			b := array.NewInt16Builder(mem)
			defer b.Release()
			b.AppendValues([]int16{-1}, nil)
			return b.NewArray()
		}, nil, arrow.ErrIndex},
		{"too large", func() arrow.Array {
			b := array.NewUint64Builder(mem)
			defer b.Release()
			b.AppendValues([]uint64{math.MaxUint64}, nil)
			return b.NewArray()
		}, nil, arrow.ErrIndex},
		{"null", func() arrow.Array {
			b := array.NewInt64Builder(mem)
			defer b.Release()
			b.AppendNull()
			return b.NewArray()
		}, nil, arrow.ErrInvalid},
		{"float", func() arrow.Array {
			b := array.NewFloat64Builder(mem)
			defer b.Release()
			b.Append(1)
			return b.NewArray()
		}, nil, arrow.ErrType},
	} {
		t.Run(tc.name, func(t *testing.T) {
			arr := tc.arr()
			defer arr.Release()
			s, err := a.SelectArray(0, arr)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			defer s.Release()
			assert.Equal(t, tc.want, values(s))
		})
	}
}

// Making a view allocates once, for views of rank ≤ 8.
func TestViewsAllocateOnce(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	a := iota64(t, mem, 4, 6, 5)
	defer a.Release()
	r, err := a.Rotate(1, 2)
	require.NoError(t, err)
	defer r.Release()
	ib := array.NewInt64Builder(mem)
	ib.AppendValues([]int64{0, 2, 3}, nil)
	ia := ib.NewInt64Array()
	ib.Release()
	defer ia.Release()
	for name, op := range map[string]func() interface{ Release() }{
		"Slice":       func() interface{ Release() } { v, _ := a.Slice(Range{1, None, 2}, Range{None, None, -1}); return v },
		"Index":       func() interface{ Release() } { v, _ := a.Index(1, 3); return v },
		"Transpose":   func() interface{ Release() } { v, _ := a.Transpose(2, 0, 1); return v },
		"T":           func() interface{ Release() } { return a.T() },
		"Flip":        func() interface{ Release() } { v, _ := a.Flip(0); return v },
		"ExpandDims":  func() interface{ Release() } { v, _ := a.ExpandDims(1); return v },
		"Squeeze":     func() interface{ Release() } { v, _ := a.Squeeze(); return v },
		"BroadcastTo": func() interface{ Release() } { v, _ := a.BroadcastTo([]int64{2, 4, 6, 5}); return v },
		"Tile":        func() interface{ Release() } { v, _ := a.Tile(2, 1, 1); return v },
		"Reshape":     func() interface{ Release() } { v, _ := a.Reshape(24, 5); return v },
		"Rotate":      func() interface{ Release() } { v, _ := a.Rotate(2, 1); return v },
		"SelectArray": func() interface{ Release() } { v, _ := a.SelectArray(1, ia); return v },
		"Remapped.Slice": func() interface{ Release() } {
			v, _ := r.Slice(Range{None, None, 2})
			return v
		},
		"Remapped.Rotate": func() interface{ Release() } { v, _ := r.Rotate(1, 1); return v },
		"Remapped.T":      func() interface{ Release() } { return r.T() },
	} {
		n := testing.AllocsPerRun(100, func() { op().Release() })
		assert.LessOrEqual(t, n, 1.0, name)
	}
	n := testing.AllocsPerRun(100, func() {
		v, _ := a.Select(1, []int64{0, 2, 3})
		v.Release()
	})
	assert.LessOrEqual(t, n, 2.0, "Select copies its list")
}

// Views of rank above 8 take the slow (allocating) paths.
func TestHighRank(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	shape := []int64{2, 1, 2, 1, 2, 1, 2, 1, 2, 3}
	a := iota64(t, mem, shape...)
	defer a.Release()
	perm := []int{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}
	tr, err := a.Transpose(perm...)
	require.NoError(t, err)
	defer tr.Release()
	c, err := tr.Copy(mem, CopyOptions{})
	require.NoError(t, err)
	defer c.Release()
	for idx, x := range All[float64](tr) {
		assert.Equal(t, x, At[float64](c, idx...))
		rev := slices.Clone(idx)
		slices.Reverse(rev)
		assert.Equal(t, x, At[float64](a, rev...))
	}
	r, err := tr.Rotate(0, 1)
	require.NoError(t, err)
	defer r.Release()
	rc, err := r.Copy(mem, CopyOptions{})
	require.NoError(t, err)
	defer rc.Release()
	assert.Equal(t, values(r), values(rc))
	sq, err := r.Squeeze()
	require.NoError(t, err)
	defer sq.Release()
	assert.Equal(t, []int64{3, 2, 2, 2, 2, 2}, sq.Shape())
	assert.Equal(t, values(r), values(sq))
}
