package views

import (
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/tensor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
)

func int32Array(mem memory.Allocator, vals []int32, valid []bool) arrow.Array {
	b := array.NewInt32Builder(mem)
	defer b.Release()
	b.AppendValues(vals, valid)
	return b.NewArray()
}

func TestFromArrayRespectsOffset(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	full := int32Array(mem, []int32{0, 1, 2, 3, 4, 5, 6}, nil)
	sl := array.NewSlice(full, 2, 6)
	full.Release()
	v, err := FromArray(sl)
	sl.Release() // the view retains the values buffer
	require.NoError(t, err)
	defer v.Release()
	assert.Equal(t, []int64{4}, v.Shape())
	assert.Equal(t, int64(2), v.ElemOffset())
	assert.True(t, v.ReadOnly())
	assert.Equal(t, "[2 3 4 5]", v.String())
	require.ErrorIs(t, Set(v, int32(9), 0), arrowsparse.ErrReadOnly)

	w, err := v.Copy(mem, CopyOptions{})
	require.NoError(t, err)
	defer w.Release()
	require.NoError(t, Set(w, int32(9), 0))
	assert.Equal(t, "[9 3 4 5]", w.String())
}

func TestFromArrayNullsAndTypes(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	withNull := int32Array(mem, []int32{1, 2, 3, 4}, []bool{true, false, true, true})
	defer withNull.Release()
	_, err := FromArray(withNull)
	require.ErrorIs(t, err, arrow.ErrInvalid)

	// a slice that avoids the null is fine
	tail := array.NewSlice(withNull, 2, 4)
	defer tail.Release()
	v, err := FromArray(tail)
	require.NoError(t, err)
	assert.Equal(t, "[3 4]", v.String())
	v.Release()

	hb := array.NewFloat16Builder(mem)
	hb.AppendValues([]float16.Num{float16.New(1.5), float16.New(-2)}, nil)
	h := hb.NewArray()
	hb.Release()
	defer h.Release()
	hv, err := FromArray(h)
	require.NoError(t, err)
	defer hv.Release()
	assert.Equal(t, float16.New(-2), At[float16.Num](hv, 1))
	assert.Equal(t, "[1.5 -2]", hv.String())

	bb := array.NewBooleanBuilder(mem)
	bb.Append(true)
	ba := bb.NewArray()
	bb.Release()
	defer ba.Release()
	_, err = FromArray(ba)
	require.ErrorIs(t, err, arrow.ErrType)

	sb := array.NewStringBuilder(mem)
	sb.Append("x")
	sa := sb.NewArray()
	sb.Release()
	defer sa.Release()
	_, err = FromArray(sa)
	require.ErrorIs(t, err, arrow.ErrType)

	empty := int32Array(mem, nil, nil)
	defer empty.Release()
	ev, err := FromArray(empty)
	require.NoError(t, err)
	assert.Equal(t, int64(0), ev.Len())
	ev.Release()

	_, err = FromArray(nil)
	require.ErrorIs(t, err, arrow.ErrInvalid)
}

func TestFromFixedSizeList(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	// 5 lists of 3 float64s: 0..14
	b := array.NewFixedSizeListBuilder(mem, 3, arrow.PrimitiveTypes.Float64)
	vb := b.ValueBuilder().(*array.Float64Builder)
	for i := range 5 {
		b.Append(true)
		for j := range 3 {
			vb.Append(float64(3*i + j))
		}
	}
	full := b.NewArray().(*array.FixedSizeList)
	b.Release()
	defer full.Release()

	v, err := FromFixedSizeList(full)
	require.NoError(t, err)
	assert.Equal(t, []int64{5, 3}, v.Shape())
	assert.Equal(t, []int64{3, 1}, v.ElemStrides())
	assert.Equal(t, 7.0, At[float64](v, 2, 1))
	v.Release()

	// an offset list array over an offset child
	sl := array.NewSlice(full, 1, 4).(*array.FixedSizeList)
	defer sl.Release()
	v, err = FromFixedSizeList(sl)
	require.NoError(t, err)
	defer v.Release()
	assert.Equal(t, "[[3 4 5]\n [6 7 8]\n [9 10 11]]", v.String())
	assert.Equal(t, int64(3), v.ElemOffset())

	childSlice := array.NewSliceData(full.ListValues().Data(), 3, 15) // child starts at value 3
	defer childSlice.Release()
	data := array.NewData(full.DataType(), 2, []*memory.Buffer{nil}, []arrow.ArrayData{childSlice}, 0, 1)
	defer data.Release()
	v2, err := FromArrayData(data) // rows 1, 2 of a list array over values 3..14
	require.NoError(t, err)
	defer v2.Release()
	assert.Equal(t, "[[6 7 8]\n [9 10 11]]", v2.String())

	// too short a child is an error, not a panic
	short := array.NewData(full.DataType(), 4, []*memory.Buffer{nil}, []arrow.ArrayData{childSlice}, 0, 1)
	defer short.Release()
	_, err = FromArrayData(short)
	require.ErrorIs(t, err, arrowsparse.ErrBufferSize)

	// nested lists: FixedSizeList<FixedSizeList<float64, 3>, 5> of length 1
	nested := array.NewData(arrow.FixedSizeListOf(5, full.DataType()), 1, []*memory.Buffer{nil}, []arrow.ArrayData{full.Data()}, 0, 0)
	defer nested.Release()
	v3, err := FromArrayData(nested)
	require.NoError(t, err)
	defer v3.Release()
	assert.Equal(t, []int64{1, 5, 3}, v3.Shape())
	assert.Equal(t, 14.0, At[float64](v3, 0, 4, 2))
}

func TestTensorRoundTrip(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	a := iota64(t, mem, 3, 4)
	defer a.Release()
	named, err := a.WithDimNames("r", "c")
	require.NoError(t, err)
	defer named.Release()

	check := func(v *View) {
		t.Helper()
		tn, err := v.ToArrowTensor()
		require.NoError(t, err)
		defer tn.Release()
		f := tn.(*tensor.Float64)
		assert.Equal(t, v.Shape(), tn.Shape())
		assert.Equal(t, v.ByteStrides(), tn.Strides())
		for idx, x := range All[float64](v) {
			assert.Equal(t, x, f.Value(idx), "%v", idx)
		}
		back, err := FromArrowTensor(tn)
		require.NoError(t, err)
		defer back.Release()
		assert.Equal(t, v.Shape(), back.Shape())
		assert.Equal(t, v.ElemStrides(), back.ElemStrides())
		assert.Equal(t, v.ElemOffset(), back.ElemOffset())
		assert.Equal(t, v.DimNames(), back.DimNames())
		assert.Equal(t, values(v), values(back))
		assert.True(t, back.ReadOnly())
		assert.Same(t, v.Buffer(), back.Buffer()) // zero-copy both ways
	}
	check(a)
	check(named)
	tr := named.T() // column-major
	defer tr.Release()
	check(tr)
	sub, err := a.Slice(Range{1, 3, 1}, Range{1, None, 2})
	require.NoError(t, err)
	defer sub.Release()
	check(sub) // offset data
	bc, err := sub.BroadcastTo([]int64{2, 2, 2})
	require.NoError(t, err)
	defer bc.Release()
	check(bc) // zero strides are non-negative

	// the tensor keeps the buffer alive after the view is gone
	tv := a.T()
	tn, err := tv.ToArrowTensor()
	require.NoError(t, err)
	tv.Release()
	assert.Equal(t, 4.0, tn.(*tensor.Float64).Value([]int64{0, 1}))
	tn.Release()
}

func TestTensorErrors(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	a := iota64(t, mem, 3, 4)
	defer a.Release()
	f, err := a.Flip(0)
	require.NoError(t, err)
	defer f.Release()
	_, err = f.ToArrowTensor()
	require.ErrorIs(t, err, arrow.ErrInvalid)

	h, err := Alloc(mem, arrow.FixedWidthTypes.Float16, []int64{2})
	require.NoError(t, err)
	defer h.Release()
	_, err = h.ToArrowTensor()
	require.ErrorIs(t, err, arrow.ErrType)

	// strides that are not a multiple of the width
	data := array.NewData(arrow.PrimitiveTypes.Float64, 12, []*memory.Buffer{nil, a.Buffer()}, nil, 0, 0)
	defer data.Release()
	bad := tensor.New(data, []int64{2, 2}, []int64{12, 8}, nil)
	defer bad.Release()
	_, err = FromArrowTensor(bad)
	require.ErrorIs(t, err, arrowsparse.ErrAlignment)

	// strides that reach past the data's length
	over := tensor.New(data, []int64{3, 5}, []int64{32, 8}, nil)
	defer over.Release()
	_, err = FromArrowTensor(over)
	require.ErrorIs(t, err, arrowsparse.ErrBufferSize)

	// a window of the buffer: the tensor may not reach outside its data
	win := array.NewData(arrow.PrimitiveTypes.Float64, 4, []*memory.Buffer{nil, a.Buffer()}, nil, 0, 4)
	defer win.Release()
	ok := tensor.New(win, []int64{2, 2}, nil, nil)
	defer ok.Release()
	wv, err := FromArrowTensor(ok)
	require.NoError(t, err)
	assert.Equal(t, "[[4 5]\n [6 7]]", wv.String())
	wv.Release()
	tooFar := tensor.New(win, []int64{2, 3}, nil, nil)
	defer tooFar.Release()
	_, err = FromArrowTensor(tooFar)
	require.ErrorIs(t, err, arrowsparse.ErrBufferSize)

	d32 := array.NewData(arrow.FixedWidthTypes.Date32, 2, []*memory.Buffer{nil, a.Buffer()}, nil, 0, 0)
	defer d32.Release()
	dt := tensor.New(d32, []int64{2}, nil, nil)
	defer dt.Release()
	_, err = FromArrowTensor(dt)
	require.ErrorIs(t, err, arrow.ErrType)
}

// layoutType is a FixedShapeLayout extension type over FixedSizeList<int32>[6]
// whose rows are 3×2 tensors stored transposed (physical 2×3).
type layoutType struct {
	arrow.ExtensionBase
	strides []int64 // a lying layout can reach outside the rows
}

func (*layoutType) ArrayType() reflect.Type                      { return reflect.TypeOf(layoutArray{}) }
func (*layoutType) ExtensionName() string                        { return "test.layout" }
func (*layoutType) Serialize() string                            { return "" }
func (l *layoutType) ExtensionEquals(o arrow.ExtensionType) bool { return o == arrow.ExtensionType(l) }
func (l *layoutType) Deserialize(arrow.DataType, string) (arrow.ExtensionType, error) {
	return l, nil
}
func (*layoutType) LogicalShape() []int64         { return []int64{3, 2} }
func (l *layoutType) LogicalElemStrides() []int64 { return append([]int64(nil), l.strides...) }
func (*layoutType) LogicalDimNames() []string     { return []string{"a", "b"} }

type layoutArray struct{ array.ExtensionArrayBase }

func TestFromArrayFixedShapeLayout(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	vals := int32Array(mem, []int32{0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15}, nil)
	defer vals.Release()
	fslType := arrow.FixedSizeListOf(6, arrow.PrimitiveTypes.Int32)
	data := array.NewData(fslType, 2, []*memory.Buffer{nil}, []arrow.ArrayData{vals.Data()}, 0, 0)
	defer data.Release()
	fsl := array.NewFixedSizeListData(data)
	defer fsl.Release()

	typ := &layoutType{ExtensionBase: arrow.ExtensionBase{Storage: fslType}, strides: []int64{1, 3}}
	col := array.NewExtensionArrayWithStorage(typ, fsl)
	defer col.Release()
	v, err := FromArray(col)
	require.NoError(t, err)
	defer v.Release()
	assert.Equal(t, []int64{2, 3, 2}, v.Shape())
	assert.Equal(t, []int64{6, 1, 3}, v.ElemStrides())
	assert.Equal(t, []string{"", "a", "b"}, v.DimNames())
	assert.True(t, v.ReadOnly())
	assert.Equal(t, int32(14), At[int32](v, 1, 1, 1)) // row 1, list element 1·1 + 1·3
	assert.Equal(t, int32(2), At[int32](v, 0, 2, 0))

	// A layout whose strides leave the rows is refused, not read.
	bad := &layoutType{ExtensionBase: arrow.ExtensionBase{Storage: fslType}, strides: []int64{1, 30}}
	badCol := array.NewExtensionArrayWithStorage(bad, fsl)
	defer badCol.Release()
	_, err = FromArray(badCol)
	assert.ErrorIs(t, err, arrow.ErrInvalid)
}

func TestFromArrowBuffer(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	arr := int32Array(mem, []int32{0, 1, 2, 3, 4, 5}, nil)
	defer arr.Release()
	buf := arr.Data().Buffers()[1]
	v, err := FromArrowBuffer(arrow.PrimitiveTypes.Int32, buf, 1, []int64{2, 2}, []int64{1, 2}, []string{"x", "y"})
	require.NoError(t, err)
	defer v.Release()
	assert.True(t, v.ReadOnly())
	assert.Equal(t, []string{"x", "y"}, v.DimNames())
	assert.Equal(t, "[[1 3]\n [2 4]]", v.String())
	assert.ErrorIs(t, Set(v, int32(9), 0, 0), arrowsparse.ErrReadOnly)

	_, err = FromArrowBuffer(arrow.PrimitiveTypes.Int32, buf, 5, []int64{2}, []int64{1}, nil)
	assert.ErrorIs(t, err, arrow.ErrInvalid)
	_, err = FromArrowBuffer(arrow.PrimitiveTypes.Int32, buf, 0, []int64{2}, []int64{1}, []string{"a", "b"})
	assert.ErrorIs(t, err, arrow.ErrInvalid)
	_, err = FromArrowBuffer(arrow.BinaryTypes.String, buf, 0, []int64{2}, []int64{1}, nil)
	assert.ErrorIs(t, err, arrow.ErrType)
	_, err = FromArrowBuffer(arrow.PrimitiveTypes.Int32, nil, 0, []int64{2}, []int64{1}, nil)
	assert.ErrorIs(t, err, arrow.ErrInvalid)
	// All-empty names are no names.
	e, err := FromArrowBuffer(arrow.PrimitiveTypes.Int32, buf, 0, []int64{2}, []int64{1}, []string{""})
	require.NoError(t, err)
	assert.Nil(t, e.DimNames())
	e.Release()
}
