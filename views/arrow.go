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

// FromFixedSizeList returns a read-only 2-d view of a FixedSizeList array:
// row i is list i, of the list size's length, over the child values with no
// copy. Both the list array's offset and the child's are respected.
// See FromArrayData. The returned view must be released by the caller.
func FromFixedSizeList(arr *array.FixedSizeList) (*View, error) {
	if arr == nil {
		return nil, core.Errorf(arrowsparse.ErrStructure, "views: nil array")
	}
	return FromArrayData(arr.Data())
}

// FromArrayData returns a read-only view of the values of Arrow array data,
// with no copy:
//
//   - a primitive array of a tensor value type (int8…int64, uint8…uint64,
//     float16, float32, float64) gives a 1-d view of its Len() values,
//     starting at its offset;
//   - a FixedSizeList array of such values gives a 2-d view, Len() × list
//     size, and nested FixedSizeLists give one more axis per level (the
//     storage of Arrow's fixed_shape_tensor), each level's offset respected.
//     An extension array is viewed through its storage.
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
		if len(d.Children()) != 1 {
			return nil, core.Errorf(arrowsparse.ErrStructure, "views: FixedSizeList data with %d children", len(d.Children()))
		}
		n := int64(fsl.Len())
		child := d.Children()[0]
		start, ok1 := core.MulInt64(abs, n)
		cnt, ok2 := core.MulInt64(count, n)
		if !ok1 || !ok2 {
			return nil, core.Errorf(arrowsparse.ErrOverflow, "views: FixedSizeList offsets overflow int64")
		}
		if start+cnt > int64(child.Len()) {
			return nil, core.Errorf(arrowsparse.ErrBufferSize, "views: FixedSizeList rows %d..%d need child values up to %d, but the child has %d", abs, abs+count, start+cnt, child.Len())
		}
		shape = append(shape, n)
		abs, count, d = int64(child.Offset())+start, cnt, child
	}
	dt := d.DataType()
	if ext, ok := dt.(arrow.ExtensionType); ok {
		dt = ext.StorageType()
	}
	if err := core.CheckValueType(dt); err != nil {
		return nil, err
	}
	if abs-int64(d.Offset())+count > int64(d.Len()) {
		return nil, core.Errorf(arrowsparse.ErrBufferSize, "views: values %d..%d are beyond the array's %d", abs-int64(d.Offset()), abs-int64(d.Offset())+count, d.Len())
	}
	bufs := d.Buffers()
	var buf *memory.Buffer
	if len(bufs) > 1 {
		buf = bufs[1]
	}
	if buf == nil {
		if count != 0 {
			return nil, core.Errorf(arrowsparse.ErrBufferSize, "views: array of %d values has no values buffer", count)
		}
		buf = memory.NewBufferBytes(nil)
		abs = 0
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
