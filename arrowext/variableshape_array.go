package arrowext

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/views"
)

// VariableShapeTensorArray is a column of arrow.variable_shape_tensor: row
// i is a dense tensor of the type's value type and number of dimensions,
// with a shape of its own, or null. It shares its buffers with its
// storage, a Struct array of the data lists and the shapes.
type VariableShapeTensorArray struct {
	array.ExtensionArrayBase
}

var _ array.ExtensionArray = (*VariableShapeTensorArray)(nil)

// TensorType returns the array's type.
func (a *VariableShapeTensorArray) TensorType() *VariableShapeTensorType {
	return a.DataType().(*VariableShapeTensorType)
}

// inlineRank is the rank up to which Row and RowShape keep their scratch
// shapes and strides on the stack.
const inlineRank = 8

// Row returns row i as a read-only view of the logical tensor, with no
// copy: the row's physical shape, permuted by the type's permutation, with
// the matching strides and the logical dim names. If row i is null, Row
// returns a nil view and a nil error. It takes O(ndim) time and one
// allocation for ranks up to 8, whatever the size of the tensor, unless the
// storage's values have nulls of their own, which Row then looks for in the
// row (a dense view cannot hold them: they are an error).
//
// The row is checked against the type and the storage: its shape entries
// must be ≥ 0 and match the uniform shape, their product must equal the
// length of its data list (and the row-major strides of the shape must fit
// in int64, zero-size dimensions counted as 1), and the list must lie inside the values; a
// null data list or shape in a valid row is an error too. These errors, and
// buffers too short for the row, wrap arrow.ErrInvalid; an i outside
// [0, Len()) is an error wrapping arrow.ErrIndex; a value type that is not a
// tensor value type, an error wrapping arrow.ErrType. The view retains the
// values buffer, so the array may be released first; the returned view must
// be released by the caller.
func (a *VariableShapeTensorArray) Row(i int) (*views.View, error) {
	var scratch [3 * inlineRank]int64
	t := a.TensorType()
	tmp := scratch[:]
	if t.ndim > inlineRank {
		tmp = make([]int64, 3*t.ndim)
	}
	phys, logShape, logStrides := tmp[:t.ndim], tmp[t.ndim:2*t.ndim], tmp[2*t.ndim:3*t.ndim]
	r, err := a.row(i, phys)
	if err != nil || !r.valid {
		return nil, err
	}
	if err := core.CheckValueType(t.ValueType()); err != nil {
		return nil, err
	}
	// Physical row-major strides, then the logical axes.
	acc := int64(1)
	for k := t.ndim - 1; k >= 0; k-- {
		logStrides[k] = acc // physical stride of axis k, for now
		acc *= max(phys[k], 1)
	}
	for k := range t.ndim {
		logShape[k] = phys[t.physAxis(k)]
	}
	if t.perm != nil {
		// logStrides holds the physical strides; permute them in place
		// through phys, which is no longer needed.
		copy(phys, logStrides)
		for k := range t.ndim {
			logStrides[k] = phys[t.perm[k]]
		}
	}
	return views.FromArrowBuffer(t.ValueType(), valuesBuf(r.values), r.start, logShape, logStrides, t.logNames)
}

// RowShape returns the logical shape of row i, or nil for a null row, with
// the checks of Row (except those of the value type). The caller owns the
// slice.
func (a *VariableShapeTensorArray) RowShape(i int) ([]int64, error) {
	t := a.TensorType()
	phys := make([]int64, t.ndim)
	r, err := a.row(i, phys)
	if err != nil || !r.valid {
		return nil, err
	}
	out := make([]int64, t.ndim)
	for k := range out {
		out[k] = phys[t.physAxis(k)]
	}
	return out, nil
}

// varRow locates one row of a variable-shape column.
type varRow struct {
	valid  bool
	values arrow.ArrayData // the primitive values of the data lists
	start  int64           // position of the row's first value in values (offset included)
}

// row checks row i and fills phys with its physical shape.
func (a *VariableShapeTensorArray) row(i int, phys []int64) (varRow, error) {
	t := a.TensorType()
	d := a.Data()
	if i < 0 || i >= d.Len() {
		return varRow{}, core.Errorf(arrowsparse.ErrOutOfRange, "%s: row %d of a column of %d rows", VariableShapeTensorName, i, d.Len())
	}
	j := int64(d.Offset()) + int64(i)
	if valid, err := validAt(d, j); err != nil || !valid {
		return varRow{}, err
	}
	if len(d.Children()) != 2 {
		return varRow{}, core.Errorf(arrowsparse.ErrStructure, "%s storage has %d children, want 2", VariableShapeTensorName, len(d.Children()))
	}
	ld, sd := d.Children()[0], d.Children()[1]

	// The shape: ndim int32 values of the FixedSizeList child.
	slot := int64(sd.Offset()) + j
	if valid, err := validAt(sd, slot); err != nil || !valid {
		return varRow{}, rowError(i, err, "its shape is null")
	}
	if len(sd.Children()) != 1 {
		return varRow{}, core.Errorf(arrowsparse.ErrStructure, "%s shape field has %d children, want 1", VariableShapeTensorName, len(sd.Children()))
	}
	sv := sd.Children()[0]
	nd := int64(t.ndim)
	first, ok := core.MulInt64(slot, nd)
	if !ok || first+nd > int64(sv.Len()) {
		return varRow{}, core.Errorf(arrowsparse.ErrBufferSize, "%s: the shape of row %d lies beyond the shape field's %d values", VariableShapeTensorName, i, sv.Len())
	}
	first += int64(sv.Offset())
	if err := checkValuesValid(sv, first, nd, i); err != nil {
		return varRow{}, err
	}
	sb := valuesBuf(sv).Bytes()
	if int64(len(sb)) < (first+nd)*4 {
		return varRow{}, core.Errorf(arrowsparse.ErrBufferSize, "%s: shape buffer of %d bytes is too short for row %d", VariableShapeTensorName, len(sb), i)
	}
	size, span := int64(1), int64(1) // span: the product of max(dim, 1), for the strides
	for k := range phys {
		dim := int64(int32(binary.NativeEndian.Uint32(sb[(first+int64(k))*4:])))
		if dim < 0 {
			return varRow{}, core.Errorf(arrowsparse.ErrShape, "%s: row %d has shape %v, with a negative dimension", VariableShapeTensorName, i, shapeText(sb, first, nd))
		}
		if t.uniform != nil && t.uniform[k] != VariableDim && t.uniform[k] != dim {
			return varRow{}, core.Errorf(arrowsparse.ErrShape, "%s: row %d has shape %v, which disagrees with the uniform shape %s", VariableShapeTensorName, i, shapeText(sb, first, nd), uniformText(t.uniform))
		}
		phys[k] = dim
		size, _ = core.MulInt64(size, dim)
		if span, ok = core.MulInt64(span, max(dim, 1)); !ok {
			return varRow{}, core.Errorf(arrowsparse.ErrOverflow, "%s: the strides of row %d's shape %v overflow int64", VariableShapeTensorName, i, shapeText(sb, first, nd))
		}
	}

	// The data: the list's range of values.
	lslot := int64(ld.Offset()) + j
	if valid, err := validAt(ld, lslot); err != nil || !valid {
		return varRow{}, rowError(i, err, "its data list is null")
	}
	if len(ld.Children()) != 1 {
		return varRow{}, core.Errorf(arrowsparse.ErrStructure, "%s data field has %d children, want 1", VariableShapeTensorName, len(ld.Children()))
	}
	ob := offsetsBuf(ld)
	if int64(len(ob)) < (lslot+2)*4 {
		return varRow{}, core.Errorf(arrowsparse.ErrBufferSize, "%s: the data list offsets (%d bytes) are too short for row %d", VariableShapeTensorName, len(ob), i)
	}
	start := int64(int32(binary.NativeEndian.Uint32(ob[lslot*4:])))
	end := int64(int32(binary.NativeEndian.Uint32(ob[(lslot+1)*4:])))
	vd := ld.Children()[0]
	if start < 0 || end < start || end > int64(vd.Len()) {
		return varRow{}, core.Errorf(arrowsparse.ErrStructure, "%s: row %d's data list spans values %d..%d, outside the %d values", VariableShapeTensorName, i, start, end, vd.Len())
	}
	if end-start != size {
		return varRow{}, core.Errorf(arrowsparse.ErrShape, "%s: row %d has shape %v (%d elements) but its data list holds %d values", VariableShapeTensorName, i, shapeText(sb, first, nd), size, end-start)
	}
	start += int64(vd.Offset())
	if err := checkValuesValid(vd, start, size, i); err != nil {
		return varRow{}, err
	}
	return varRow{valid: true, values: vd, start: start}, nil
}

// rowError is err if not nil, else an error saying why a valid row is
// broken.
func rowError(i int, err error, why string) error {
	if err != nil {
		return err
	}
	return core.Errorf(arrowsparse.ErrStructure, "%s: row %d is valid but %s", VariableShapeTensorName, i, why)
}

// shapeText returns the nd int32 values of b from element first, for a
// message.
func shapeText(b []byte, first, nd int64) []int32 {
	out := make([]int32, nd)
	for k := range out {
		out[k] = int32(binary.NativeEndian.Uint32(b[(first+int64(k))*4:]))
	}
	return out
}

// offsetsBuf returns the bytes of a list's offsets buffer, or nil.
func offsetsBuf(ld arrow.ArrayData) []byte {
	if bufs := ld.Buffers(); len(bufs) > 1 && bufs[1] != nil {
		return bufs[1].Bytes()
	}
	return nil
}

// ValueStr returns row i as text: "(null)" for a null row, else the
// logical tensor in NumPy's nested-bracket layout, or the error that
// prevents reading it, in parentheses.
func (a *VariableShapeTensorArray) ValueStr(i int) string {
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
// storage's {"data": [...], "shape": [...]} in physical order.
func (a *VariableShapeTensorArray) GetOneForMarshal(i int) any {
	if valid, err := validAt(a.Data(), int64(a.Data().Offset()+i)); err != nil || !valid {
		return nil
	}
	return a.Storage().GetOneForMarshal(i)
}
