package arrowext

import (
	"slices"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/tensor"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/debug"
	"github.com/arrowsparse/arrowsparse/views"
)

// growable is a buffer from an allocator that grows geometrically.
type growable struct {
	buf *memory.Buffer
}

// grow makes the buffer n bytes long, keeping its content, with capacity
// for growth; new bytes are zero. It returns an error when n is beyond the
// largest buffer this module allocates.
func (g *growable) grow(mem memory.Allocator, n int64) error {
	if n > core.MaxBufferBytes {
		return core.Errorf(arrowsparse.ErrOverflow, "arrowext: a column of %d bytes is beyond the largest buffer (2^46 bytes)", n)
	}
	if g.buf == nil {
		g.buf = memory.NewResizableBuffer(mem)
	}
	old := g.buf.Len()
	if int(n) > g.buf.Cap() {
		g.buf.Reserve(max(int(n), 2*g.buf.Cap(), 64))
	}
	g.buf.ResizeNoShrink(int(n))
	if int(n) > old {
		clear(g.buf.Bytes()[old:])
	}
	return nil
}

// reserve makes room for n bytes without changing the length.
func (g *growable) reserve(mem memory.Allocator, n int64) error {
	if n > core.MaxBufferBytes {
		return core.Errorf(arrowsparse.ErrOverflow, "arrowext: a column of %d bytes is beyond the largest buffer (2^46 bytes)", n)
	}
	if g.buf == nil {
		g.buf = memory.NewResizableBuffer(mem)
	}
	g.buf.Reserve(int(n))
	return nil
}

// take returns the buffer, at least n bytes long, and forgets it.
func (g *growable) take(mem memory.Allocator, n int64) *memory.Buffer {
	if g.buf == nil || int64(g.buf.Len()) < n {
		_ = g.grow(mem, n) // n was reached before; cannot fail
	}
	b := g.buf
	g.buf = nil
	return b
}

func (g *growable) release() {
	if g.buf != nil {
		g.buf.Release()
		g.buf = nil
	}
}

// validity tracks the nulls of a builder; its bitmap exists from the first
// null on.
type validity struct {
	bits  growable
	nulls int
}

// append records one more slot, valid or not, after n slots.
func (v *validity) append(mem memory.Allocator, n int, valid bool) error {
	if valid && v.bits.buf == nil {
		return nil
	}
	if v.bits.buf == nil {
		if err := v.bits.grow(mem, bitutil.BytesForBits(int64(n+1))); err != nil {
			return err
		}
		bitutil.SetBitsTo(v.bits.buf.Bytes(), 0, int64(n), true)
	} else if err := v.bits.grow(mem, bitutil.BytesForBits(int64(n+1))); err != nil {
		return err
	}
	bitutil.SetBitTo(v.bits.buf.Bytes(), n, valid)
	if !valid {
		v.nulls++
	}
	return nil
}

// take returns the bitmap (nil when there are no nulls) and the null
// count, and resets.
func (v *validity) take(mem memory.Allocator, n int) (*memory.Buffer, int) {
	nulls := v.nulls
	v.nulls = 0
	if v.bits.buf == nil {
		return nil, nulls
	}
	return v.bits.take(mem, bitutil.BytesForBits(int64(n))), nulls
}

// asView returns t as a *views.View: itself when it is one, else a view of
// its buffer with its offset, shape, strides and names. The result must be
// released by the caller.
func asView(t arrowsparse.Dense) (*views.View, error) {
	if t == nil {
		return nil, core.Errorf(arrowsparse.ErrStructure, "arrowext: nil tensor")
	}
	if v, ok := t.(*views.View); ok {
		v.Retain()
		return v, nil
	}
	v, err := views.New(t.DataType(), t.Buffer(), t.ElemOffset(), t.Shape(), t.ElemStrides())
	if err != nil {
		return nil, err
	}
	if names := t.DimNames(); names != nil {
		nv, err := v.WithDimNames(names...)
		v.Release()
		return nv, err
	}
	return v, nil
}

// copyPhysical copies the logical tensor v into the row-major physical
// layout at element offset off of buf: physical axis j is logical axis
// inv[j].
func copyPhysical(mem memory.Allocator, v *views.View, inv []int, buf *memory.Buffer, off int64, physShape []int64) error {
	src := v
	if !isIdentity(inv) {
		t, err := v.Transpose(inv...)
		if err != nil {
			return err
		}
		defer t.Release()
		src = t
	}
	strides, err := arrowsparse.RowMajorStrides(physShape)
	if err != nil {
		return err
	}
	dst, err := views.New(v.DataType(), buf, off, physShape, strides)
	if err != nil {
		return err
	}
	defer dst.Release()
	return src.CopyTo(mem, dst, views.CopyOptions{})
}

// FixedShapeTensorBuilder builds a FixedShapeTensorArray row by row, from
// views of the logical tensors or arrow-go dense tensors, copying each into
// the physical layout of the type.
//
// A builder is not safe for concurrent use.
type FixedShapeTensorBuilder struct {
	refCount atomic.Int64
	mem      memory.Allocator
	typ      *FixedShapeTensorType
	inv      []int // physical axis j is logical axis inv[j]
	width    int64
	values   growable
	valid    validity
	n        int
}

// NewFixedShapeTensorBuilder returns a builder of columns of type typ,
// whose buffers come from mem. The value type must be a tensor value type
// (an error wrapping arrow.ErrType otherwise). The builder must be
// released by the caller.
func NewFixedShapeTensorBuilder(mem memory.Allocator, typ *FixedShapeTensorType) (*FixedShapeTensorBuilder, error) {
	if typ == nil {
		return nil, core.Errorf(arrowsparse.ErrStructure, "arrowext: nil type")
	}
	if err := core.CheckValueType(typ.ValueType()); err != nil {
		return nil, err
	}
	b := &FixedShapeTensorBuilder{mem: mem, typ: typ, inv: inverse(typ.perm, len(typ.shape)), width: int64(arrowsparse.ByteWidth(typ.ValueType()))}
	b.refCount.Store(1)
	return b, nil
}

// Retain increases the reference count by 1.
// Retain may be called simultaneously from multiple goroutines.
func (b *FixedShapeTensorBuilder) Retain() { b.refCount.Add(1) }

// Release decreases the reference count by 1.
// When the reference count goes to zero, the memory is freed.
// Release may be called simultaneously from multiple goroutines.
func (b *FixedShapeTensorBuilder) Release() {
	n := b.refCount.Add(-1)
	debug.Assert(n >= 0, "arrowext: too many releases")
	if n == 0 {
		b.values.release()
		b.valid.bits.release()
	}
}

// Len returns the number of rows appended since the last NewArray.
func (b *FixedShapeTensorBuilder) Len() int { return b.n }

// Reserve makes room for n more rows without further allocation.
func (b *FixedShapeTensorBuilder) Reserve(n int) error {
	need, ok := core.MulInt64(int64(b.n+n), b.typ.size*b.width)
	if !ok {
		return core.Errorf(arrowsparse.ErrOverflow, "arrowext: %d rows of %d elements overflow", b.n+n, b.typ.size)
	}
	return b.values.reserve(b.mem, need)
}

// Append appends v, a tensor of the type's logical shape and value type,
// as the next row: its elements are copied in the type's physical order.
// The type's dim names are the column's; v's are not compared with them.
// A view of another value type (arrow.ErrType) or shape (arrow.ErrInvalid)
// is an error, and nothing is appended.
func (b *FixedShapeTensorBuilder) Append(v *views.View) error {
	if v == nil {
		return core.Errorf(arrowsparse.ErrStructure, "arrowext: nil view")
	}
	if !arrow.TypeEqual(v.DataType(), b.typ.ValueType()) {
		return core.Errorf(arrowsparse.ErrUnsupportedType, "arrowext: a %s tensor appended to a column of %s", v.DataType(), b.typ.ValueType())
	}
	if !slices.Equal(v.Shape(), b.typ.logShape) {
		return core.Errorf(arrowsparse.ErrShape, "arrowext: a tensor of shape %v appended to a column of logical shape %v", v.Shape(), b.typ.logShape)
	}
	rowBytes := b.typ.size * b.width
	end, ok := core.MulInt64(int64(b.n+1), rowBytes)
	if !ok {
		return core.Errorf(arrowsparse.ErrOverflow, "arrowext: %d rows of %d bytes overflow", b.n+1, rowBytes)
	}
	if err := b.values.grow(b.mem, end); err != nil {
		return err
	}
	if err := copyPhysical(b.mem, v, b.inv, b.values.buf, int64(b.n)*b.typ.size, b.typ.shape); err != nil {
		b.values.buf.ResizeNoShrink(int(int64(b.n) * rowBytes))
		return err
	}
	if err := b.valid.append(b.mem, b.n, true); err != nil {
		return err
	}
	b.n++
	return nil
}

// AppendArrowTensor appends an arrow-go dense tensor, read in place
// through views.FromArrowTensor, as Append does.
func (b *FixedShapeTensorBuilder) AppendArrowTensor(t tensor.Interface) error {
	v, err := views.FromArrowTensor(t)
	if err != nil {
		return err
	}
	defer v.Release()
	return b.Append(v)
}

// AppendNull appends a null row (its values are zeros).
func (b *FixedShapeTensorBuilder) AppendNull() error {
	end, ok := core.MulInt64(int64(b.n+1), b.typ.size*b.width)
	if !ok {
		return core.Errorf(arrowsparse.ErrOverflow, "arrowext: %d rows overflow", b.n+1)
	}
	if err := b.values.grow(b.mem, end); err != nil {
		return err
	}
	if err := b.valid.append(b.mem, b.n, false); err != nil {
		return err
	}
	b.n++
	return nil
}

// NewArray returns the rows appended so far as a column and resets the
// builder. The column must be released by the caller.
func (b *FixedShapeTensorBuilder) NewArray() *FixedShapeTensorArray {
	n := b.n
	values := b.values.take(b.mem, int64(n)*b.typ.size*b.width)
	valid, nulls := b.valid.take(b.mem, n)
	b.n = 0
	defer values.Release()
	if valid != nil {
		defer valid.Release()
	}
	child := array.NewData(b.typ.ValueType(), n*int(b.typ.size), []*memory.Buffer{nil, values}, nil, 0, 0)
	defer child.Release()
	return newFixedShapeArray(b.typ, n, valid, nulls, child)
}

// newFixedShapeArray assembles a column from its validity bitmap and the
// data of its list values.
func newFixedShapeArray(typ *FixedShapeTensorType, n int, valid *memory.Buffer, nulls int, child arrow.ArrayData) *FixedShapeTensorArray {
	data := array.NewData(typ, n, []*memory.Buffer{valid}, []arrow.ArrayData{child}, nulls, 0)
	defer data.Release()
	return array.NewExtensionData(data).(*FixedShapeTensorArray)
}

// VariableShapeTensorBuilder builds a VariableShapeTensorArray row by row,
// from views of the logical tensors or arrow-go dense tensors, copying each
// into its physical layout.
//
// A builder is not safe for concurrent use.
type VariableShapeTensorBuilder struct {
	refCount atomic.Int64
	mem      memory.Allocator
	typ      *VariableShapeTensorType
	inv      []int
	width    int64
	values   growable // the elements
	offsets  growable // int32 list offsets, n+1 of them
	shapes   growable // int32 physical shapes, ndim per row
	valid    validity
	n        int
	nvals    int64
}

// NewVariableShapeTensorBuilder returns a builder of columns of type typ,
// whose buffers come from mem. The value type must be a tensor value type
// (an error wrapping arrow.ErrType otherwise). The builder must be
// released by the caller.
func NewVariableShapeTensorBuilder(mem memory.Allocator, typ *VariableShapeTensorType) (*VariableShapeTensorBuilder, error) {
	if typ == nil {
		return nil, core.Errorf(arrowsparse.ErrStructure, "arrowext: nil type")
	}
	if err := core.CheckValueType(typ.ValueType()); err != nil {
		return nil, err
	}
	b := &VariableShapeTensorBuilder{mem: mem, typ: typ, inv: inverse(typ.perm, typ.ndim), width: int64(arrowsparse.ByteWidth(typ.ValueType()))}
	b.refCount.Store(1)
	return b, nil
}

// Retain increases the reference count by 1.
// Retain may be called simultaneously from multiple goroutines.
func (b *VariableShapeTensorBuilder) Retain() { b.refCount.Add(1) }

// Release decreases the reference count by 1.
// When the reference count goes to zero, the memory is freed.
// Release may be called simultaneously from multiple goroutines.
func (b *VariableShapeTensorBuilder) Release() {
	n := b.refCount.Add(-1)
	debug.Assert(n >= 0, "arrowext: too many releases")
	if n == 0 {
		b.values.release()
		b.offsets.release()
		b.shapes.release()
		b.valid.bits.release()
	}
}

// Len returns the number of rows appended since the last NewArray.
func (b *VariableShapeTensorBuilder) Len() int { return b.n }

// Append appends v, a tensor of the type's value type and number of
// dimensions, as the next row: its logical shape, permuted back, becomes
// the row's physical shape, and its elements are copied in that physical
// order. A shape that disagrees with the type's uniform shape, and a column
// whose values would exceed 2^31-1 (List offsets are int32), are errors
// wrapping arrow.ErrInvalid; a view of another value type, one wrapping
// arrow.ErrType. Nothing is appended then.
func (b *VariableShapeTensorBuilder) Append(v *views.View) error {
	if v == nil {
		return core.Errorf(arrowsparse.ErrStructure, "arrowext: nil view")
	}
	t := b.typ
	if !arrow.TypeEqual(v.DataType(), t.ValueType()) {
		return core.Errorf(arrowsparse.ErrUnsupportedType, "arrowext: a %s tensor appended to a column of %s", v.DataType(), t.ValueType())
	}
	logical := v.Shape()
	if len(logical) != t.ndim {
		return core.Errorf(arrowsparse.ErrShape, "arrowext: a %d-d tensor appended to a column of %d-d tensors", len(logical), t.ndim)
	}
	phys := make([]int64, t.ndim)
	for j := range phys {
		phys[j] = logical[b.inv[j]]
		if phys[j] > 1<<31-1 {
			return core.Errorf(arrowsparse.ErrShape, "arrowext: shape %v has a dimension beyond int32", logical)
		}
		if t.uniform != nil && t.uniform[j] != VariableDim && t.uniform[j] != phys[j] {
			return core.Errorf(arrowsparse.ErrShape, "arrowext: a tensor of physical shape %v does not fit the uniform shape %s", phys, uniformText(t.uniform))
		}
	}
	size := v.Len()
	if b.nvals+size > 1<<31-1 {
		return core.Errorf(arrowsparse.ErrShape, "arrowext: a column of %d values is beyond the 2^31-1 that int32 list offsets address", b.nvals+size)
	}
	if err := b.values.grow(b.mem, (b.nvals+size)*b.width); err != nil {
		return err
	}
	if err := copyPhysical(b.mem, v, b.inv, b.values.buf, b.nvals, phys); err != nil {
		b.values.buf.ResizeNoShrink(int(b.nvals * b.width))
		return err
	}
	if err := b.appendSlot(phys, size, true); err != nil {
		return err
	}
	return nil
}

// appendSlot records row n's offsets, shape and validity.
func (b *VariableShapeTensorBuilder) appendSlot(phys []int64, size int64, valid bool) error {
	nd := int64(b.typ.ndim)
	if err := b.offsets.grow(b.mem, int64(b.n+2)*4); err != nil {
		return err
	}
	if err := b.shapes.grow(b.mem, int64(b.n+1)*nd*4); err != nil {
		return err
	}
	if err := b.valid.append(b.mem, b.n, valid); err != nil {
		return err
	}
	offs := arrow.Int32Traits.CastFromBytes(b.offsets.buf.Bytes())
	offs[b.n] = int32(b.nvals)
	offs[b.n+1] = int32(b.nvals + size)
	shp := arrow.Int32Traits.CastFromBytes(b.shapes.buf.Bytes())
	for k, d := range phys {
		shp[int64(b.n)*nd+int64(k)] = int32(d)
	}
	b.nvals += size
	b.n++
	return nil
}

// AppendArrowTensor appends an arrow-go dense tensor, read in place
// through views.FromArrowTensor, as Append does.
func (b *VariableShapeTensorBuilder) AppendArrowTensor(t tensor.Interface) error {
	v, err := views.FromArrowTensor(t)
	if err != nil {
		return err
	}
	defer v.Release()
	return b.Append(v)
}

// AppendNull appends a null row (an empty data list and a zero shape).
func (b *VariableShapeTensorBuilder) AppendNull() error {
	return b.appendSlot(make([]int64, b.typ.ndim), 0, false)
}

// NewArray returns the rows appended so far as a column and resets the
// builder. The column must be released by the caller.
func (b *VariableShapeTensorBuilder) NewArray() *VariableShapeTensorArray {
	t := b.typ
	n, nd := b.n, t.ndim
	values := b.values.take(b.mem, b.nvals*b.width)
	offsets := b.offsets.take(b.mem, int64(n+1)*4) // zero when n is 0
	shapes := b.shapes.take(b.mem, int64(n*nd)*4)
	valid, nulls := b.valid.take(b.mem, n)
	nvals := b.nvals
	b.n, b.nvals = 0, 0
	defer values.Release()
	defer offsets.Release()
	defer shapes.Release()
	if valid != nil {
		defer valid.Release()
	}
	st := t.Storage.(*arrow.StructType)
	vals := array.NewData(t.ValueType(), int(nvals), []*memory.Buffer{nil, values}, nil, 0, 0)
	defer vals.Release()
	list := array.NewData(st.Field(0).Type, n, []*memory.Buffer{nil, offsets}, []arrow.ArrayData{vals}, 0, 0)
	defer list.Release()
	dims := array.NewData(arrow.PrimitiveTypes.Int32, n*nd, []*memory.Buffer{nil, shapes}, nil, 0, 0)
	defer dims.Release()
	shape := array.NewData(st.Field(1).Type, n, []*memory.Buffer{nil}, []arrow.ArrayData{dims}, 0, 0)
	defer shape.Release()
	data := array.NewData(t, n, []*memory.Buffer{valid}, []arrow.ArrayData{list, shape}, nulls, 0)
	defer data.Release()
	return array.NewExtensionData(data).(*VariableShapeTensorArray)
}
