package arrowext_test

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/tensor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/arrowext"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
	"github.com/arrowsparse/arrowsparse/views"
)

// randomView returns a writable row-major view of random values.
func randomView(t testing.TB, r *rand.Rand, mem memory.Allocator, vt arrow.DataType, shape []int64) *views.View {
	t.Helper()
	v, err := views.Alloc(mem, vt, shape)
	require.NoError(t, err)
	b := v.Buffer().Bytes()
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return v
}

// TestFixedShapeBuilder appends logical tensors, some of them transposed
// views, to builders of permuted types and reads the rows back.
func TestFixedShapeBuilder(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(7, 8))
	for _, vt := range testutil.ValueTypes {
		for _, perm := range [][]int{nil, {0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}, {0, 2, 1}} {
			typ := mustFixed(t, vt, []int64{2, 3, 4}, []string{"a", "b", "c"}, perm)
			b, err := arrowext.NewFixedShapeTensorBuilder(mem, typ)
			require.NoError(t, err)
			var want []*views.View
			for i := range 5 {
				if i == 2 {
					require.NoError(t, b.AppendNull())
					want = append(want, nil)
					continue
				}
				// A logical tensor, sometimes stored transposed.
				var v *views.View
				if i%2 == 0 {
					v = randomView(t, r, mem, vt, typ.LogicalShape())
				} else {
					ls := typ.LogicalShape()
					base := randomView(t, r, mem, vt, []int64{ls[2], ls[0], ls[1]})
					v, err = base.Transpose(1, 2, 0)
					require.NoError(t, err)
					base.Release()
				}
				require.NoError(t, b.Append(v))
				want = append(want, v)
			}
			assert.Equal(t, 5, b.Len())
			col := b.NewArray()
			assert.Equal(t, 0, b.Len())
			assert.Equal(t, 1, col.NullN())
			for i, w := range want {
				got, err := col.Row(i)
				require.NoError(t, err)
				if w == nil {
					assert.Nil(t, got)
					continue
				}
				assert.Equal(t, viewBytes(t, mem, w), viewBytes(t, mem, got), "%s row %d", typ, i)
				got.Release()
				w.Release()
			}
			// The builder starts again after NewArray.
			require.NoError(t, b.AppendNull())
			again := b.NewArray()
			assert.Equal(t, 1, again.Len())
			again.Release()
			col.Release()
			b.Release()
		}
	}
}

func TestFixedShapeBuilderErrors(t *testing.T) {
	mem := testutil.Checked(t)
	typ := mustFixed(t, arrow.PrimitiveTypes.Int32, []int64{2, 3}, nil, []int{1, 0})
	b, err := arrowext.NewFixedShapeTensorBuilder(mem, typ)
	require.NoError(t, err)
	defer b.Release()
	wrongShape, err := views.Alloc(mem, arrow.PrimitiveTypes.Int32, []int64{2, 3}) // logical shape is (3, 2)
	require.NoError(t, err)
	defer wrongShape.Release()
	assert.ErrorIs(t, b.Append(wrongShape), arrow.ErrInvalid)
	wrongType, err := views.Alloc(mem, arrow.PrimitiveTypes.Int64, []int64{3, 2})
	require.NoError(t, err)
	defer wrongType.Release()
	assert.ErrorIs(t, b.Append(wrongType), arrow.ErrType)
	assert.Equal(t, 0, b.Len())

	_, err = arrowext.NewFixedShapeTensorBuilder(mem, mustFixed(t, arrow.BinaryTypes.String, []int64{2}, nil, nil))
	assert.ErrorIs(t, err, arrow.ErrType)
}

// TestAppendArrowTensor builds a column from arrow-go dense tensors,
// row-major and column-major.
func TestAppendArrowTensor(t *testing.T) {
	mem := testutil.Checked(t)
	typ := mustFixed(t, arrow.PrimitiveTypes.Float64, []int64{2, 3}, nil, nil)
	b, err := arrowext.NewFixedShapeTensorBuilder(mem, typ)
	require.NoError(t, err)
	defer b.Release()
	vals := []float64{0, 1, 2, 3, 4, 5}
	buf := testutil.BufferOf(mem, vals)
	defer buf.Release()
	data := array.NewData(arrow.PrimitiveTypes.Float64, 6, []*memory.Buffer{nil, buf}, nil, 0, 0)
	defer data.Release()
	rowMajor := tensor.New(data, []int64{2, 3}, nil, nil)
	defer rowMajor.Release()
	colMajor := tensor.New(data, []int64{2, 3}, []int64{8, 16}, nil)
	defer colMajor.Release()
	require.NoError(t, b.AppendArrowTensor(rowMajor))
	require.NoError(t, b.AppendArrowTensor(colMajor))
	col := b.NewArray()
	defer col.Release()
	r0, err := col.Row(0)
	require.NoError(t, err)
	defer r0.Release()
	r1, err := col.Row(1)
	require.NoError(t, err)
	defer r1.Release()
	assert.Equal(t, "[[0 1 2]\n [3 4 5]]", r0.String())
	assert.Equal(t, "[[0 2 4]\n [1 3 5]]", r1.String())
}

// TestNewFixedShapeTensorArray checks the column made from a view of
// (N, …): zero-copy for contiguous and permuted layouts (the column's
// values are the view's buffer), one copy otherwise; the rows always equal
// the view's.
func TestNewFixedShapeTensorArray(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(9, 10))
	type layout struct {
		name     string
		make     func(base *views.View) (*views.View, error)
		zeroCopy bool
		perm     []int
	}
	layouts := []layout{
		{"row-major", func(b *views.View) (*views.View, error) { b.Retain(); return b, nil }, true, nil},
		{"rows permuted", func(b *views.View) (*views.View, error) { return b.Transpose(0, 3, 1, 2) }, true, []int{2, 0, 1}},
		{"rows transposed", func(b *views.View) (*views.View, error) { return b.Transpose(0, 3, 2, 1) }, true, []int{2, 1, 0}},
		{"rows of another cycle", func(b *views.View) (*views.View, error) { return b.Transpose(0, 2, 3, 1) }, true, []int{1, 2, 0}},
		{"rows not adjacent", func(b *views.View) (*views.View, error) { return b.Transpose(1, 0, 2, 3) }, false, nil},
		{"every other row", func(b *views.View) (*views.View, error) {
			return b.Slice(views.Range{Start: views.None, Stop: views.None, Step: 2}, views.Full(), views.Full(), views.Full())
		}, false, nil},
		{"flipped", func(b *views.View) (*views.View, error) { return b.Flip(3) }, false, nil},
		{"sliced axis", func(b *views.View) (*views.View, error) {
			return b.Slice(views.Full(), views.Full(), views.Span(0, 2), views.Full())
		}, false, nil},
		{"offset rows", func(b *views.View) (*views.View, error) {
			return b.Slice(views.Span(1, 4), views.Full(), views.Full(), views.Full())
		}, true, nil},
	}
	for _, vt := range testutil.ValueTypes {
		for _, l := range layouts {
			base := randomView(t, r, mem, vt, []int64{4, 3, 4, 5})
			named, err := base.WithDimNames("row", "a", "b", "c")
			require.NoError(t, err)
			base.Release()
			v, err := l.make(named)
			require.NoError(t, err)
			named.Release()
			col, err := arrowext.NewFixedShapeTensorArray(mem, v)
			require.NoError(t, err, l.name)
			typ := col.TensorType()
			assert.Equal(t, v.Shape()[1:], typ.LogicalShape(), l.name)
			assert.Equal(t, v.DimNames()[1:], typ.LogicalDimNames(), l.name)
			assert.Equal(t, l.perm, typ.Permutation(), l.name)
			values := col.Storage().(*array.FixedSizeList).ListValues().Data().Buffers()[1]
			assert.Equal(t, l.zeroCopy, values == v.Buffer(), "%s: zero-copy", l.name)
			whole, err := col.View()
			require.NoError(t, err)
			assert.Equal(t, viewBytes(t, mem, v), viewBytes(t, mem, whole), "%s %s", vt, l.name)
			whole.Release()
			col.Release()
			v.Release()
		}
	}

	// Unit axes do not prevent zero-copy, and keep the identity when the
	// rest is row-major.
	base := randomView(t, r, mem, arrow.PrimitiveTypes.Int8, []int64{2, 1, 3, 1, 4})
	col, err := arrowext.NewFixedShapeTensorArray(mem, base)
	require.NoError(t, err)
	assert.Nil(t, col.TensorType().Permutation())
	assert.Same(t, base.Buffer(), col.Storage().(*array.FixedSizeList).ListValues().Data().Buffers()[1])
	col.Release()
	tr, err := base.Transpose(0, 4, 1, 2, 3)
	require.NoError(t, err)
	col, err = arrowext.NewFixedShapeTensorArray(mem, tr)
	require.NoError(t, err)
	assert.Same(t, base.Buffer(), col.Storage().(*array.FixedSizeList).ListValues().Data().Buffers()[1])
	whole, err := col.View()
	require.NoError(t, err)
	assert.Equal(t, viewBytes(t, mem, tr), viewBytes(t, mem, whole))
	whole.Release()
	col.Release()
	tr.Release()
	base.Release()

	// No rows.
	empty := randomView(t, r, mem, arrow.PrimitiveTypes.Float32, []int64{0, 2, 2})
	col, err = arrowext.NewFixedShapeTensorArray(mem, empty)
	require.NoError(t, err)
	assert.Equal(t, 0, col.Len())
	col.Release()
	empty.Release()

	scalar := randomView(t, r, mem, arrow.PrimitiveTypes.Float32, []int64{})
	_, err = arrowext.NewFixedShapeTensorArray(mem, scalar)
	assert.ErrorIs(t, err, arrow.ErrInvalid)
	scalar.Release()
}

// TestNewTensorArray turns dense tensors into columns: fixed-shape when they
// agree, variable-shape otherwise.
func TestNewTensorArray(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(11, 12))
	f32 := arrow.PrimitiveTypes.Float32
	a := randomView(t, r, mem, f32, []int64{2, 3})
	defer a.Release()
	b := randomView(t, r, mem, f32, []int64{2, 3})
	defer b.Release()
	c := randomView(t, r, mem, f32, []int64{4, 1})
	defer c.Release()
	bt := b.T()
	defer bt.Release()
	named, err := a.WithDimNames("x", "y")
	require.NoError(t, err)
	defer named.Release()

	check := func(col arrow.Array, want []*views.View) {
		t.Helper()
		for i, w := range want {
			got, err := arrowext.Row(col, i)
			require.NoError(t, err)
			if w == nil {
				assert.Nil(t, got)
				continue
			}
			assert.Equal(t, w.Shape(), got.Shape())
			assert.Equal(t, viewBytes(t, mem, w), viewBytes(t, mem, got))
			got.Release()
		}
	}

	col, err := arrowext.NewTensorArray(mem, []arrowsparse.Dense{a, nil, b})
	require.NoError(t, err)
	assert.IsType(t, (*arrowext.FixedShapeTensorArray)(nil), col)
	check(col, []*views.View{a, nil, b})
	col.Release()

	col, err = arrowext.NewTensorArray(mem, []arrowsparse.Dense{named, named})
	require.NoError(t, err)
	assert.Equal(t, []string{"x", "y"}, col.(*arrowext.FixedShapeTensorArray).TensorType().DimNames())
	col.Release()

	col, err = arrowext.NewTensorArray(mem, []arrowsparse.Dense{a, c, nil, bt})
	require.NoError(t, err)
	assert.IsType(t, (*arrowext.VariableShapeTensorArray)(nil), col)
	assert.Nil(t, col.(*arrowext.VariableShapeTensorArray).TensorType().DimNames()) // names differ
	check(col, []*views.View{a, c, nil, bt})
	col.Release()

	i32 := randomView(t, r, mem, arrow.PrimitiveTypes.Int32, []int64{2, 3})
	defer i32.Release()
	_, err = arrowext.NewTensorArray(mem, []arrowsparse.Dense{a, i32})
	assert.ErrorIs(t, err, arrow.ErrType)
	flat := randomView(t, r, mem, f32, []int64{6})
	defer flat.Release()
	_, err = arrowext.NewTensorArray(mem, []arrowsparse.Dense{a, flat})
	assert.ErrorIs(t, err, arrow.ErrInvalid)
	_, err = arrowext.NewTensorArray(mem, []arrowsparse.Dense{nil})
	assert.ErrorIs(t, err, arrow.ErrInvalid)
}

// TestVariableShapeBuilder appends tensors of several shapes to permuted
// types with a uniform dimension.
func TestVariableShapeBuilder(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(13, 14))
	for _, vt := range testutil.ValueTypes {
		typ := mustVariable(t, vt, 3, []string{"p", "q", "s"}, []int{2, 0, 1}, []int64{arrowext.VariableDim, 2, arrowext.VariableDim})
		b, err := arrowext.NewVariableShapeTensorBuilder(mem, typ)
		require.NoError(t, err)
		// Physical axis 1 has size 2: it is logical axis 2 (perm[2] = 1).
		shapes := [][]int64{{3, 1, 2}, {0, 4, 2}, nil, {1, 1, 2}}
		var want []*views.View
		for _, s := range shapes {
			if s == nil {
				require.NoError(t, b.AppendNull())
				want = append(want, nil)
				continue
			}
			v := randomView(t, r, mem, vt, s)
			require.NoError(t, b.Append(v))
			want = append(want, v)
		}
		bad := randomView(t, r, mem, vt, []int64{1, 1, 3})
		assert.ErrorIs(t, b.Append(bad), arrow.ErrInvalid)
		bad.Release()
		col := b.NewArray()
		for i, w := range want {
			got, err := col.Row(i)
			require.NoError(t, err)
			if w == nil {
				assert.Nil(t, got)
				continue
			}
			assert.Equal(t, w.Shape(), got.Shape())
			assert.Equal(t, viewBytes(t, mem, w), viewBytes(t, mem, got))
			assert.Equal(t, []string{"s", "p", "q"}, got.DimNames())
			got.Release()
			w.Release()
		}
		col.Release()
		b.Release()
	}
}
