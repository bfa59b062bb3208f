package views

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/tensor"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// FromArray returns a read-only view of the values of an Arrow array, with
// no copy. See FromArrayData. The returned view must be released by the
// caller; the array may be released independently.
func FromArray(arr arrow.Array) (*View, error) {
	if arr == nil {
		return nil, core.Errorf(arrowsparse.ErrStructure, "views: nil array")
	}
	return FromArrayData(arr.Data())
}

// FromFixedSizeList returns a read-only view of a FixedSizeList array: 2-d,
// row i being list i over the child values, with one more axis per level
// of nested FixedSizeLists. Both the list array's offset and the child's
// are respected; no element is copied. See FromArrayData. The returned
// view must be released by the caller.
func FromFixedSizeList(arr *array.FixedSizeList) (*View, error) {
	if arr == nil {
		return nil, core.Errorf(arrowsparse.ErrStructure, "views: nil array")
	}
	return FromArrayData(arr.Data())
}

// FixedShapeLayout is implemented by extension types whose storage is a
// flat FixedSizeList holding one dense tensor per row, as Arrow's canonical
// arrow.fixed_shape_tensor does; arrowext.FixedShapeTensorType implements
// it. Within a row's list, the element with logical index idx is list
// element Σ idx[k]·LogicalElemStrides()[k]. FromArrayData views an array of
// such a type as the tensors of its rows stacked along a first axis.
type FixedShapeLayout interface {
	arrow.ExtensionType
	// LogicalShape returns the shape of the tensor each row holds, in
	// logical axis order. The caller owns the slice.
	LogicalShape() []int64
	// LogicalElemStrides returns the stride of each logical axis within a
	// row's list, counted in elements (not bytes). The caller owns the
	// slice.
	LogicalElemStrides() []int64
	// LogicalDimNames returns the names of the logical axes, or nil. The
	// caller owns the slice.
	LogicalDimNames() []string
}

// fixedShapeTensorName is the name of Arrow's canonical fixed-shape tensor
// extension type.
const fixedShapeTensorName = "arrow.fixed_shape_tensor"

// FromArrayData returns a read-only view of the values of Arrow array data,
// with no copy:
//
//   - a primitive array of a tensor value type (int8…int64, uint8…uint64,
//     float16, float32, float64) gives a 1-d view of its Len() values,
//     starting at its offset;
//   - a FixedSizeList array of such values gives a 2-d view, Len() × list
//     size, and nested FixedSizeLists give one more axis per level, each
//     level's offset respected;
//   - an array of an extension type that implements FixedShapeLayout (Arrow's
//     fixed_shape_tensor, whose storage is one flat FixedSizeList per row)
//     gives an (N+1)-d view, Len() × the logical shape of its rows, with
//     the type's permutation turned into strides and its logical dim names
//     (the first axis is unnamed). An arrow.fixed_shape_tensor of another
//     implementation, which does not describe its layout, is an error
//     wrapping arrow.ErrType: wrap it with package arrowext first. Other
//     extension arrays are viewed through their storage.
//
// The view is read-only because Arrow arrays are immutable; Copy makes a
// writable one. A dense view has no validity bitmap, so any null in the
// viewed range is an error wrapping arrow.ErrInvalid; so is data whose
// buffers are too short for its length and offset. Other types are an error
// wrapping arrow.ErrType. The view retains the values buffer; the returned
// view must be released by the caller.
func FromArrayData(data arrow.ArrayData) (*View, error) {
	if data == nil {
		return nil, core.Errorf(arrowsparse.ErrStructure, "views: nil array data")
	}
	if ext, ok := data.DataType().(arrow.ExtensionType); ok {
		if l, ok := ext.(FixedShapeLayout); ok {
			return fromFixedShape(data, l)
		}
		if ext.ExtensionName() == fixedShapeTensorName {
			return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "views: this %s type (%T) does not describe its layout; wrap the array with package arrowext first", fixedShapeTensorName, ext)
		}
	}
	shape := []int64{int64(data.Len())}
	d := data
	abs, count := int64(d.Offset()), int64(d.Len())
	for {
		if err := checkNoNulls(d, abs, count); err != nil {
			return nil, err
		}
		dt := d.DataType()
		if ext, ok := dt.(arrow.ExtensionType); ok {
			dt = ext.StorageType()
		}
		fsl, ok := dt.(*arrow.FixedSizeListType)
		if !ok {
			break
		}
		child, start, cnt, err := fixedSizeListChild(d, fsl, abs, count)
		if err != nil {
			return nil, err
		}
		shape = append(shape, int64(fsl.Len()))
		abs, count, d = start, cnt, child
	}
	dt := d.DataType()
	if ext, ok := dt.(arrow.ExtensionType); ok {
		dt = ext.StorageType()
	}
	if err := core.CheckValueType(dt); err != nil {
		return nil, err
	}
	buf, abs, err := valuesBuffer(d, abs, count)
	if err != nil {
		return nil, err
	}
	strides, err := arrowsparse.RowMajorStrides(shape)
	if err != nil {
		return nil, err
	}
	v, err := New(dt, buf, abs, shape, strides)
	if err != nil {
		return nil, err
	}
	v.readOnly = true
	return v, nil
}

// fixedSizeListChild returns the child of FixedSizeList data d and the
// absolute position and number of the child slots that the count lists
// from absolute position abs cover, checking that the child holds them.
func fixedSizeListChild(d arrow.ArrayData, fsl *arrow.FixedSizeListType, abs, count int64) (arrow.ArrayData, int64, int64, error) {
	if len(d.Children()) != 1 {
		return nil, 0, 0, core.Errorf(arrowsparse.ErrStructure, "views: FixedSizeList data with %d children", len(d.Children()))
	}
	n := int64(fsl.Len())
	child := d.Children()[0]
	start, ok1 := core.MulInt64(abs, n)
	cnt, ok2 := core.MulInt64(count, n)
	if !ok1 || !ok2 {
		return nil, 0, 0, core.Errorf(arrowsparse.ErrOverflow, "views: FixedSizeList offsets overflow int64")
	}
	if start+cnt > int64(child.Len()) {
		return nil, 0, 0, core.Errorf(arrowsparse.ErrBufferSize, "views: FixedSizeList rows %d..%d need child values up to %d, but the child has %d", abs, abs+count, start+cnt, child.Len())
	}
	return child, int64(child.Offset()) + start, cnt, nil
}

// valuesBuffer returns the values buffer of primitive data d and the
// element position to view it from, checking that the count values from
// absolute position abs lie within d.
func valuesBuffer(d arrow.ArrayData, abs, count int64) (*memory.Buffer, int64, error) {
	if abs-int64(d.Offset())+count > int64(d.Len()) {
		return nil, 0, core.Errorf(arrowsparse.ErrBufferSize, "views: values %d..%d are beyond the array's %d", abs-int64(d.Offset()), abs-int64(d.Offset())+count, d.Len())
	}
	bufs := d.Buffers()
	var buf *memory.Buffer
	if len(bufs) > 1 {
		buf = bufs[1]
	}
	if buf == nil {
		if count != 0 {
			return nil, 0, core.Errorf(arrowsparse.ErrBufferSize, "views: array of %d values has no values buffer", count)
		}
		return memory.NewBufferBytes(nil), 0, nil
	}
	return buf, abs, nil
}

// fromFixedShape views data of a FixedShapeLayout extension type as
// (rows, logical shape...).
func fromFixedShape(data arrow.ArrayData, l FixedShapeLayout) (*View, error) {
	fsl, ok := l.StorageType().(*arrow.FixedSizeListType)
	if !ok {
		return nil, core.Errorf(arrowsparse.ErrStructure, "views: %s storage is %s, not a FixedSizeList", l.ExtensionName(), l.StorageType())
	}
	rowShape, rowStrides, names := l.LogicalShape(), l.LogicalElemStrides(), l.LogicalDimNames()
	if len(rowStrides) != len(rowShape) || (names != nil && len(names) != len(rowShape)) {
		return nil, core.Errorf(arrowsparse.ErrShape, "views: %s layout has %d strides and %d names for %d dimensions", l.ExtensionName(), len(rowStrides), len(names), len(rowShape))
	}
	if size, err := numElements(rowShape); err != nil || size != int64(fsl.Len()) {
		return nil, core.Errorf(arrowsparse.ErrShape, "views: %s rows of shape %v do not fill lists of %d values", l.ExtensionName(), rowShape, fsl.Len())
	}
	abs, count := int64(data.Offset()), int64(data.Len())
	if err := checkNoNulls(data, abs, count); err != nil {
		return nil, err
	}
	child, start, cnt, err := fixedSizeListChild(data, fsl, abs, count)
	if err != nil {
		return nil, err
	}
	if err := checkNoNulls(child, start, cnt); err != nil {
		return nil, err
	}
	dt := fsl.Elem()
	if err := core.CheckValueType(dt); err != nil {
		return nil, err
	}
	buf, start, err := valuesBuffer(child, start, cnt)
	if err != nil {
		return nil, err
	}
	shape := append([]int64{count}, rowShape...)
	strides := append([]int64{int64(fsl.Len())}, rowStrides...)
	if names != nil {
		names = append([]string{""}, names...)
	}
	return newReadOnly(dt, buf, start, start+cnt, start, shape, strides, names)
}

// FromArrowBuffer returns a read-only view of buf, the values buffer of an
// Arrow array (which is immutable), with the given element offset, shape,
// element strides (counted in elements, not bytes) and dim names (none, or
// one per axis). It checks what New checks and makes one allocation for
// views of rank ≤ 8, whatever the size of the data. It serves code that
// reads an Arrow layout itself, such as the rows of package arrowext's
// tensor columns. The view retains buf; the returned view must be released
// by the caller.
func FromArrowBuffer(dt arrow.DataType, buf *memory.Buffer, elemOffset int64, shape, elemStrides []int64, dimNames []string) (*View, error) {
	if err := core.CheckValueType(dt); err != nil {
		return nil, err
	}
	if buf == nil {
		return nil, core.Errorf(arrowsparse.ErrBufferSize, "views: nil buffer")
	}
	return newReadOnly(dt, buf, 0, int64(buf.Len())/int64(arrowsparse.ByteWidth(dt)), elemOffset, shape, elemStrides, dimNames)
}

// newReadOnly is newChecked for a read-only view with dim names, in one
// allocation: the reachable elements are confined to [lo, hi) of buf,
// counted in elements.
func newReadOnly(dt arrow.DataType, buf *memory.Buffer, lo, hi, elemOffset int64, shape, elemStrides []int64, names []string) (*View, error) {
	if err := core.CheckValueType(dt); err != nil {
		return nil, err
	}
	if len(elemStrides) != len(shape) {
		return nil, core.Errorf(arrowsparse.ErrShape, "views: %d strides for %d dimensions", len(elemStrides), len(shape))
	}
	if err := core.CheckDimNames(names, len(shape)); err != nil {
		return nil, err
	}
	w := int64(arrowsparse.ByteWidth(dt))
	if !core.Aligned(buf, int(w)) {
		return nil, core.Errorf(arrowsparse.ErrAlignment, "views: buffer address is not a multiple of the %s width %d", dt, w)
	}
	size, err := numElements(shape)
	if err != nil {
		return nil, err
	}
	if err := checkBounds(lo, hi, elemOffset, size, shape, elemStrides); err != nil {
		return nil, err
	}
	named := false
	for _, n := range names {
		named = named || n != ""
	}
	v := alloc(len(shape), named, false)
	copy(v.shape, shape)
	copy(v.strides, elemStrides)
	if named {
		copy(v.names, names)
	}
	v.init(dt, buf, elemOffset, size)
	normaliseUnitStrides(v.shape, v.strides)
	v.readOnly = true
	return asView(v), nil
}

// checkNoNulls returns an error if d has a null among its count slots from
// absolute position abs (offset included).
func checkNoNulls(d arrow.ArrayData, abs, count int64) error {
	if d.NullN() == 0 || count == 0 {
		return nil
	}
	bufs := d.Buffers()
	if len(bufs) == 0 || bufs[0] == nil {
		return core.Errorf(arrowsparse.ErrStructure, "views: %d nulls; a dense view has no validity bitmap", d.NullN())
	}
	bm := bufs[0].Bytes()
	if int64(len(bm))*8 < abs+count {
		return core.Errorf(arrowsparse.ErrBufferSize, "views: validity bitmap of %d bytes is too short for %d slots", len(bm), abs+count)
	}
	if nulls := count - int64(bitutil.CountSetBits(bm, int(abs), int(count))); nulls > 0 {
		return core.Errorf(arrowsparse.ErrStructure, "views: %d nulls in the viewed values; a dense view has no validity bitmap", nulls)
	}
	return nil
}

// FromArrowTensor returns a read-only view of an arrow-go tensor, with no copy.
// The tensor's byte strides become element strides and must be multiples of
// the element width (an error wrapping arrow.ErrInvalid otherwise); its
// data's offset is the view's element offset, and every element the strides
// reach must lie within the data's Len() values. Dim names are kept. Types
// other than the tensor value types (arrow-go also has date32 and date64
// tensors) are an error wrapping arrow.ErrType. The view retains the data's
// values buffer, is read-only because arrow-go tensors are immutable, and
// must be released by the caller.
func FromArrowTensor(t tensor.Interface) (*View, error) {
	if t == nil {
		return nil, core.Errorf(arrowsparse.ErrStructure, "views: nil tensor")
	}
	dt := t.DataType()
	if err := core.CheckValueType(dt); err != nil {
		return nil, err
	}
	data := t.Data()
	if data == nil || len(data.Buffers()) < 2 || data.Buffers()[1] == nil {
		return nil, core.Errorf(arrowsparse.ErrBufferSize, "views: tensor has no values buffer")
	}
	if data.NullN() > 0 {
		return nil, core.Errorf(arrowsparse.ErrStructure, "views: tensor data has %d nulls", data.NullN())
	}
	w := int64(arrowsparse.ByteWidth(dt))
	shape := t.Shape()
	bstrides := t.Strides()
	var strides []int64
	if len(bstrides) == 0 && len(shape) > 0 {
		var err error
		if strides, err = arrowsparse.RowMajorStrides(shape); err != nil {
			return nil, err
		}
	} else {
		if len(bstrides) != len(shape) {
			return nil, core.Errorf(arrowsparse.ErrShape, "views: tensor has %d strides for %d dimensions", len(bstrides), len(shape))
		}
		strides = make([]int64, len(shape))
		for k, b := range bstrides {
			if b%w != 0 {
				return nil, core.Errorf(arrowsparse.ErrAlignment, "views: byte stride %d of axis %d is not a multiple of the %s width %d", b, k, dt, w)
			}
			strides[k] = b / w
		}
	}
	lo := int64(data.Offset())
	v, err := newChecked(dt, data.Buffers()[1], lo, lo+int64(data.Len()), lo, shape, strides)
	if err != nil {
		return nil, err
	}
	v.readOnly = true
	if names := core.CloneDimNames(t.DimNames()); names != nil {
		nv, err := v.WithDimNames(names...)
		v.Release()
		if err != nil {
			return nil, err
		}
		v = nv
	}
	return v, nil
}

// ToArrowTensor returns an arrow-go tensor over the view's buffer, with no copy:
// its byte strides are the view's element strides times the width, and its
// data starts at the view's element offset. Arrow tensors have non-negative
// strides, so a view with a negative stride is an error wrapping
// arrow.ErrInvalid: Copy it first. arrow-go has no float16 tensor, so a
// float16 view is an error wrapping arrow.ErrType. Dim names are kept.
// The tensor retains the buffer and must be released by the caller; the
// view may be released independently. arrow-go reports every tensor as
// immutable, and writes through the view show in the tensor.
func (v *View) ToArrowTensor() (tensor.Interface, error) {
	switch v.dtype.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT32, arrow.FLOAT64:
	default:
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "views: arrow-go has no %s tensor", v.dtype)
	}
	last := v.offset
	for k, s := range v.strides {
		if s < 0 {
			return nil, core.Errorf(arrowsparse.ErrStructure, "views: axis %d has element stride %d; Arrow tensors need non-negative strides (Copy the view first)", k, s)
		}
		if v.size > 0 {
			last += (v.shape[k] - 1) * s
		}
	}
	length := int64(0)
	if v.size > 0 {
		length = last - v.offset + 1
	}
	data := array.NewData(v.dtype, int(length), []*memory.Buffer{nil, v.buf}, nil, 0, int(v.offset))
	defer data.Release()
	var names []string
	if v.names != nil {
		names = append([]string(nil), v.names...)
	}
	return tensor.New(data, v.Shape(), v.ByteStrides(), names), nil
}
