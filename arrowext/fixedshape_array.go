package arrowext

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/views"
)

// FixedShapeTensorArray is a column of arrow.fixed_shape_tensor: row i is a
// dense tensor of the type's logical shape, or null. It shares its buffers
// with its storage, a FixedSizeList array.
type FixedShapeTensorArray struct {
	array.ExtensionArrayBase
}

var _ array.ExtensionArray = (*FixedShapeTensorArray)(nil)

// TensorType returns the array's type.
func (a *FixedShapeTensorArray) TensorType() *FixedShapeTensorType {
	return a.DataType().(*FixedShapeTensorType)
}

// Row returns row i as a read-only view of the logical tensor, with no
// copy: the type's permutation becomes the view's strides, and the view has
// the logical dim names. If row i is null, Row returns a nil view and a nil
// error. It takes O(ndim) time and one allocation for ranks up to 8,
// whatever the size of the tensor, unless
// the storage's values have nulls of their own, which Row then looks for in
// the row (a dense view cannot hold them: they are an error).
//
// An i outside [0, Len()) is an error wrapping arrow.ErrIndex; a value type
// that is not a tensor value type, an error wrapping arrow.ErrType; storage
// buffers too short for the row, an error wrapping arrow.ErrInvalid. The
// view retains the values buffer, so the array may be released first; the
// returned view must be released by the caller.
func (a *FixedShapeTensorArray) Row(i int) (*views.View, error) {
	t := a.TensorType()
	d := a.Data()
	if i < 0 || i >= d.Len() {
		return nil, core.Errorf(arrowsparse.ErrOutOfRange, "%s: row %d of a column of %d rows", FixedShapeTensorName, i, d.Len())
	}
	j := int64(d.Offset()) + int64(i)
	if valid, err := validAt(d, j); err != nil || !valid {
		return nil, err
	}
	if err := core.CheckValueType(t.ValueType()); err != nil {
		return nil, err
	}
	if len(d.Children()) != 1 {
		return nil, core.Errorf(arrowsparse.ErrStructure, "%s storage has %d children, want 1", FixedShapeTensorName, len(d.Children()))
	}
	c := d.Children()[0]
	start, ok := core.MulInt64(j, t.size)
	if !ok || start+t.size > int64(c.Len()) {
		return nil, core.Errorf(arrowsparse.ErrBufferSize, "%s: row %d needs list values up to %d, but the storage holds %d", FixedShapeTensorName, i, start+t.size, c.Len())
	}
	start += int64(c.Offset())
	if err := checkValuesValid(c, start, t.size, i); err != nil {
		return nil, err
	}
	return views.FromArrowBuffer(t.ValueType(), valuesBuf(c), start, t.logShape, t.logStrides, t.logNames)
}

// View returns the whole column as one read-only view of shape
// (Len(), logical shape...), with no copy: views.FromArray(a). A dense view
// has no validity bitmap, so a column with null rows is an error wrapping
// arrow.ErrInvalid (use Row). It takes O(ndim) time and a constant number
// of allocations. The returned view must be released by the caller.
func (a *FixedShapeTensorArray) View() (*views.View, error) {
	return views.FromArray(a)
}

// ValueStr returns row i as text: "(null)" for a null row, else the
// logical tensor in NumPy's nested-bracket layout.
func (a *FixedShapeTensorArray) ValueStr(i int) string {
	v, err := a.Row(i)
	switch {
	case err != nil:
		return "(" + err.Error() + ")"
	case v == nil:
		return array.NullValueStr
	}
	defer v.Release()
	return v.String()
}

// GetOneForMarshal returns row i for JSON: nil for a null row, else the
// storage's list of values in physical order.
func (a *FixedShapeTensorArray) GetOneForMarshal(i int) any {
	if valid, err := validAt(a.Data(), int64(a.Data().Offset()+i)); err != nil || !valid {
		return nil
	}
	return a.Storage().GetOneForMarshal(i)
}

// validAt reports whether slot j (offset included) of d is valid, reading
// the validity bitmap only when d has nulls and checking its length.
func validAt(d arrow.ArrayData, j int64) (bool, error) {
	if d.NullN() == 0 {
		return true, nil
	}
	bufs := d.Buffers()
	if len(bufs) == 0 || bufs[0] == nil {
		return false, core.Errorf(arrowsparse.ErrStructure, "column with %d nulls has no validity bitmap", d.NullN())
	}
	bm := bufs[0].Bytes()
	if int64(len(bm))*8 <= j {
		return false, core.Errorf(arrowsparse.ErrBufferSize, "validity bitmap of %d bytes is too short for slot %d", len(bm), j)
	}
	return bitutil.BitIsSet(bm, int(j)), nil
}

// checkValuesValid returns an error if the n values of primitive data c
// from slot start (offset included) include a null. It reads the bitmap
// only when c has nulls.
func checkValuesValid(c arrow.ArrayData, start, n int64, row int) error {
	if c.NullN() == 0 || n == 0 {
		return nil
	}
	bufs := c.Buffers()
	if len(bufs) == 0 || bufs[0] == nil {
		return core.Errorf(arrowsparse.ErrStructure, "tensor values with %d nulls have no validity bitmap", c.NullN())
	}
	bm := bufs[0].Bytes()
	if int64(len(bm))*8 < start+n {
		return core.Errorf(arrowsparse.ErrBufferSize, "validity bitmap of %d bytes is too short for values %d..%d", len(bm), start, start+n)
	}
	if nulls := n - int64(bitutil.CountSetBits(bm, int(start), int(n))); nulls > 0 {
		return core.Errorf(arrowsparse.ErrStructure, "row %d holds %d null values; a dense tensor cannot hold nulls", row, nulls)
	}
	return nil
}

// valuesBuf returns the values buffer of primitive data, or an empty buffer
// when it has none (FromArrowBuffer then accepts only an empty view).
func valuesBuf(c arrow.ArrayData) *memory.Buffer {
	if bufs := c.Buffers(); len(bufs) > 1 && bufs[1] != nil {
		return bufs[1]
	}
	return emptyBuffer
}

var emptyBuffer = memory.NewBufferBytes(nil)
