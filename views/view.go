package views

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/debug"
)

// inlineDims is the rank up to which a view's shape, strides, dim names and
// axis maps live in the same allocation as the View itself.
const inlineDims = 8

// View is a dense strided view over an Arrow buffer.
//
// The element with index idx is element number
//
//	Offset(idx) = ElemOffset() + Σ idx[k]·ElemStrides()[k]
//
// of the buffer, counted in elements of the view's data type (not bytes).
// Strides are signed; a stride of 0 on an axis longer than 1 repeats data
// (a broadcast), and such a view is read-only. *View implements arrowsparse.Dense.
type View struct{ viewBase }

// Remapped is a dense view over an Arrow buffer in which some axes are
// remapped: made by Rotate, Tile or Select, which plain strides cannot
// express. The element with index idx is element number
//
//	Offset(idx) = offset + Σ p_k(idx[k])·stride[k]
//
// of the buffer, counted in elements, where p_k is the index map of axis k
// (the identity on plain axes; see the package doc, # Remapped axes).
//
// *Remapped implements arrowsparse.Tensor but not arrowsparse.Dense, so that code which
// addresses memory with ElemOffset and ElemStrides cannot be handed one by
// mistake. Copy and ToDense materialise it; AsView returns it as a *View
// when its remapping has cancelled out.
type Remapped struct{ viewBase }

// viewBase is the state shared by View and Remapped.
type viewBase struct {
	refCount atomic.Int64
	dtype    arrow.DataType
	width    int64 // bytes per element
	buf      *memory.Buffer
	offset   int64     // element position of physical index (0, …, 0)
	shape    []int64   // logical shape, never modified after construction
	strides  []int64   // element strides of the physical axes, never modified after construction
	maps     []axisMap // nil when every axis is plain; else one per axis
	names    []string  // nil or one per axis
	size     int64     // number of elements: product of shape
	readOnly bool
}

var (
	_ arrowsparse.Tensor = (*View)(nil)
	_ arrowsparse.Dense  = (*View)(nil)
	_ arrowsparse.Tensor = (*Remapped)(nil)
)

// asView returns c, which must be the viewBase of an allocation made by alloc
// and have no remapped axis, as a *View. View is struct{ viewBase }, so the
// conversion is between types of the same layout.
func asView(c *viewBase) *View {
	if c == nil {
		return nil
	}
	debug.Assert(c.maps == nil, "views: a remapped viewBase converted to *View")
	return (*View)(unsafe.Pointer(c))
}

// asRemapped returns c as a *Remapped (see asView).
func asRemapped(c *viewBase) *Remapped {
	if c == nil {
		return nil
	}
	return (*Remapped)(unsafe.Pointer(c))
}

// viewAlloc lets a strided view of rank ≤ inlineDims take one allocation.
type viewAlloc struct {
	viewBase
	dims  [2 * inlineDims]int64
	names [inlineDims]string
}

// mappedAlloc lets a remapped view of rank ≤ inlineDims take one
// allocation.
type mappedAlloc struct {
	viewAlloc
	maps [inlineDims]axisMap
}

// alloc returns a zero viewBase whose shape and strides slices have length ndim
// and, if named, whose names slice has length ndim, and if mapped, whose
// maps slice has length ndim. It allocates once for ndim ≤ inlineDims.
func alloc(ndim int, named, mapped bool) *viewBase {
	if ndim <= inlineDims {
		var a *viewAlloc
		if mapped {
			m := new(mappedAlloc)
			m.viewBase.maps = m.maps[:ndim:ndim]
			a = &m.viewAlloc
		} else {
			a = new(viewAlloc)
		}
		a.shape = a.dims[:ndim:ndim]
		a.strides = a.dims[inlineDims : inlineDims+ndim : inlineDims+ndim]
		if named {
			a.viewBase.names = a.names[:ndim:ndim]
		}
		return &a.viewBase
	}
	v := new(viewBase)
	d := make([]int64, 2*ndim)
	v.shape, v.strides = d[:ndim:ndim], d[ndim:]
	if named {
		v.names = make([]string, ndim)
	}
	if mapped {
		v.maps = make([]axisMap, ndim)
	}
	return v
}

// New returns a view of buf holding values of type dt, with the given
// element offset, shape and element strides (strides count elements, not
// bytes, and may be negative). The view is writable and retains buf;
// Release releases it.
//
// New checks that every element the view can reach lies inside buf, that
// the address arithmetic does not overflow, and that buf is aligned for dt.
// It returns an error wrapping arrow.ErrInvalid, arrow.ErrIndex or
// arrow.ErrType otherwise. Strides of axes of length 1 are normalised (see
// the package doc). New does not look for self-overlapping strides other
// than stride 0: a view in which two indices reach one element is the
// caller's choice, as with numpy.lib.stride_tricks.as_strided. The returned
// view must be released by the caller.
func New(dt arrow.DataType, buf *memory.Buffer, elemOffset int64, shape, elemStrides []int64) (*View, error) {
	if buf == nil {
		if err := core.CheckValueType(dt); err != nil {
			return nil, err
		}
		return nil, core.Errorf(arrowsparse.ErrBufferSize, "views: nil buffer")
	}
	w := int64(arrowsparse.ByteWidth(dt))
	hi := int64(0)
	if w > 0 {
		hi = int64(buf.Len()) / w
	}
	return newChecked(dt, buf, 0, hi, elemOffset, shape, elemStrides)
}

// newChecked is New with the reachable elements confined to [lo, hi) of
// buf, counted in elements.
func newChecked(dt arrow.DataType, buf *memory.Buffer, lo, hi, elemOffset int64, shape, elemStrides []int64) (*View, error) {
	if err := core.CheckValueType(dt); err != nil {
		return nil, err
	}
	if len(elemStrides) != len(shape) {
		return nil, core.Errorf(arrowsparse.ErrShape, "views: %d strides for %d dimensions", len(elemStrides), len(shape))
	}
	if buf == nil {
		return nil, core.Errorf(arrowsparse.ErrBufferSize, "views: nil buffer")
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
	v := alloc(len(shape), false, false)
	copy(v.shape, shape)
	copy(v.strides, elemStrides)
	v.init(dt, buf, elemOffset, size)
	normaliseUnitStrides(v.shape, v.strides)
	v.readOnly = isBroadcast(v.shape, v.strides)
	return asView(v), nil
}

// init sets the fields every constructor sets, and retains buf.
func (v *viewBase) init(dt arrow.DataType, buf *memory.Buffer, offset, size int64) {
	v.refCount.Store(1)
	v.dtype = dt
	v.width = int64(arrowsparse.ByteWidth(dt))
	// Whole elements only: a trailing partial element is never seen.
	v.buf = core.ExactBuffer(buf, int64(buf.Len())/v.width*v.width)
	v.offset = offset
	v.size = size
}

// Contiguous returns a writable row-major view of the first product(shape)
// elements of buf. The returned view must be released by the caller.
func Contiguous(dt arrow.DataType, buf *memory.Buffer, shape []int64) (*View, error) {
	st, err := arrowsparse.RowMajorStrides(shape)
	if err != nil {
		return nil, err
	}
	return New(dt, buf, 0, shape, st)
}

// Alloc returns a writable row-major view of a new zeroed buffer from mem.
// The returned view must be released by the caller.
func Alloc(mem memory.Allocator, dt arrow.DataType, shape []int64) (*View, error) {
	if err := core.CheckValueType(dt); err != nil {
		return nil, err
	}
	n, err := arrowsparse.NumElements(shape)
	if err != nil {
		return nil, err
	}
	w := int64(arrowsparse.ByteWidth(dt))
	nbytes, ok := core.MulInt64(n, w)
	if !ok {
		return nil, core.Errorf(arrowsparse.ErrOverflow, "views: %d elements of %d bytes overflow int64", n, w)
	}
	if err := core.CheckAlloc(nbytes, "views: a dense tensor of shape "+fmt.Sprint(shape)); err != nil {
		return nil, err
	}
	buf := core.NewZeroedBuffer(mem, nbytes)
	defer buf.Release()
	return Contiguous(dt, buf, shape)
}

// checkBounds verifies that every element reachable with the given offset,
// shape and element strides lies in [lo, hi), without overflow.
func checkBounds(lo, hi, offset, size int64, shape, strides []int64) error {
	if offset < lo {
		return core.Errorf(arrowsparse.ErrOutOfRange, "views: element offset %d is before the first element %d", offset, lo)
	}
	if size == 0 {
		if offset > hi {
			return core.Errorf(arrowsparse.ErrBufferSize, "views: element offset %d is past the end of a %d-element buffer", offset, hi)
		}
		return nil
	}
	first, last := offset, offset
	for k, n := range shape {
		ext, ok := core.MulInt64(n-1, strides[k])
		if !ok {
			return core.Errorf(arrowsparse.ErrOverflow, "views: stride %d × extent %d of axis %d overflows int64", strides[k], n-1, k)
		}
		if ext < 0 {
			first, ok = core.AddInt64(first, ext)
		} else {
			last, ok = core.AddInt64(last, ext)
		}
		if !ok {
			return core.Errorf(arrowsparse.ErrOverflow, "views: addresses of shape %v, element strides %v, offset %d overflow int64", cloneShape(shape), cloneShape(strides), offset)
		}
	}
	if first < lo || last >= hi {
		return core.Errorf(arrowsparse.ErrBufferSize, "views: shape %v, element strides %v and offset %d reach elements %d..%d, outside the buffer's elements %d..%d", cloneShape(shape), cloneShape(strides), offset, first, last, lo, hi-1)
	}
	return nil
}

// normaliseUnitStrides gives every axis of length 1 the stride a row-major
// layout would give it, so that contiguity flags and exported strides tell
// the truth about the memory layout (the NuMojo view proposal). The strides of an empty
// view become row-major strides.
//
// Exactly column-major strides (stride k = Π shape[:k], unit axes included)
// are kept as they are: they tell the truth already, and keeping them lets
// a column-major Arrow tensor with unit axes be written back with the very
// strides Arrow C++ gave it (a 1×7 column-major tensor has strides (1, 1),
// which are also C-contiguous).
func normaliseUnitStrides(shape, strides []int64) {
	empty := false
	for _, n := range shape {
		if n == 0 {
			empty = true
		}
	}
	if !empty && exactlyColumnMajor(shape, strides) {
		return
	}
	s := int64(1)
	for k := len(shape) - 1; k >= 0; k-- {
		switch {
		case empty:
			strides[k] = s
			if t, ok := core.MulInt64(s, max(shape[k], 1)); ok {
				s = t
			}
		case shape[k] == 1:
			strides[k] = s
		default:
			s = abs(strides[k]) * shape[k]
		}
	}
}

// exactlyColumnMajor reports whether strides are the column-major strides of
// a non-empty shape, unit axes included.
func exactlyColumnMajor(shape, strides []int64) bool {
	s := int64(1)
	for k, n := range shape {
		if strides[k] != s {
			return false
		}
		s *= n
	}
	return true
}

func isBroadcast(shape, strides []int64) bool {
	for k, n := range shape {
		if n > 1 && strides[k] == 0 {
			return true
		}
	}
	return false
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// Retain increases the reference count by 1.
// Retain may be called simultaneously from multiple goroutines.
func (v *viewBase) Retain() { v.refCount.Add(1) }

// Release decreases the reference count by 1.
// When the reference count goes to zero, the view releases its buffer and
// any index tables it holds.
// Release may be called simultaneously from multiple goroutines.
func (v *viewBase) Release() {
	n := v.refCount.Add(-1)
	debug.Assert(n >= 0, "views: too many releases")
	if n == 0 {
		for k := range v.maps {
			if h := v.maps[k].hold; h != nil {
				h.Release()
				v.maps[k].hold = nil
			}
		}
		v.buf.Release()
		v.buf = nil
	}
}

// Format returns arrowsparse.FormatDense.
func (v *viewBase) Format() arrowsparse.Format { return arrowsparse.FormatDense }

// DataType returns the Arrow type of the elements.
func (v *viewBase) DataType() arrow.DataType { return v.dtype }

// Shape returns a copy of the shape.
func (v *viewBase) Shape() []int64 { return append([]int64(nil), v.shape...) }

// Dim returns the length of axis k. It panics if k is not an axis.
func (v *viewBase) Dim(k int) int64 { return v.shape[k] }

// NumDims returns the number of dimensions.
func (v *viewBase) NumDims() int { return len(v.shape) }

// DimNames returns a copy of the dimension names, or nil if there are none.
func (v *viewBase) DimNames() []string { return core.CloneDimNames(v.names) }

// NNZ returns the number of elements: every element of a dense view is
// stored.
func (v *viewBase) NNZ() int64 { return v.size }

// Len returns the number of elements.
func (v *viewBase) Len() int64 { return v.size }

// Buffer returns the backing buffer. It shares memory with the view: the view
// must outlive it, or the buffer must be retained.
func (v *View) Buffer() *memory.Buffer { return v.buf }

// ElemOffset returns the position of the element at index (0, …, 0),
// counted in elements (not bytes).
func (v *View) ElemOffset() int64 { return v.offset }

// ByteOffset returns ElemOffset counted in bytes.
func (v *View) ByteOffset() int64 { return v.offset * v.width }

// ElemStrides returns a copy of the signed strides, counted in elements
// (not bytes).
func (v *View) ElemStrides() []int64 { return append([]int64(nil), v.strides...) }

// ByteStrides returns a copy of the signed strides, counted in bytes, as
// Arrow's Tensor.fbs and arrow-go's tensor package count them.
func (v *View) ByteStrides() []int64 {
	out := make([]int64, len(v.strides))
	for i, s := range v.strides {
		out[i] = s * v.width
	}
	return out
}

// ReadOnly reports whether writes through the view are refused: views over
// Arrow arrays and tensors (which are immutable), views in which two
// indices reach one element (broadcasts, tiles, selections with a repeated
// index), views made read-only with AsReadOnly, and every view derived from
// a read-only view.
func (v *viewBase) ReadOnly() bool { return v.readOnly }

// IsCContiguous reports whether the view's elements fill a
// block of memory in row-major order with no gaps: the stride of each axis
// is the product of the lengths of the axes after it, ignoring axes of
// length 1, as NumPy's C_CONTIGUOUS flag does. An empty view is contiguous.
func (v *View) IsCContiguous() bool {
	if v.size == 0 {
		return true
	}
	want := int64(1)
	for k := len(v.shape) - 1; k >= 0; k-- {
		if n := v.shape[k]; n != 1 {
			if v.strides[k] != want {
				return false
			}
			want *= n
		}
	}
	return true
}

// IsFContiguous reports whether the view's elements fill a
// block of memory in column-major (Fortran) order with no gaps, ignoring axes
// of length 1, as NumPy's F_CONTIGUOUS flag does. A view with at most one
// axis longer than 1 is both C- and F-contiguous.
func (v *View) IsFContiguous() bool {
	if v.size == 0 {
		return true
	}
	want := int64(1)
	for k, n := range v.shape {
		if n != 1 {
			if v.strides[k] != want {
				return false
			}
			want *= n
		}
	}
	return true
}

// Offset returns the position in the buffer of the element at idx, counted
// in elements (not bytes): offset + Σ idx[k]·strides[k] for a *View, with
// each axis's index map applied to idx[k] first for a *Remapped.
// It panics if idx has the wrong length or an entry outside the shape.
func (v *viewBase) Offset(idx ...int64) int64 {
	if len(idx) != len(v.shape) {
		panic(arrowsparse.PanicError{Msg: "views: index rank does not match the view's rank"})
	}
	off := v.offset
	for k, i := range idx {
		if uint64(i) >= uint64(v.shape[k]) {
			panic(arrowsparse.PanicError{Msg: "views: index out of range"})
		}
		if v.maps != nil && !v.maps[k].plain() {
			i = v.maps[k].phys(i)
		}
		off += i * v.strides[k]
	}
	return off
}

// Of returns a view of any arrowsparse.Dense: the view itself, retained, for
// a *View, and otherwise a view checked as New checks one, so that code
// taking a Dense from elsewhere can rely on its layout. The dim names are
// kept. The returned view must be released by the caller.
func Of(d arrowsparse.Dense) (*View, error) {
	if v, ok := d.(*View); ok {
		v.Retain()
		return v, nil
	}
	v, err := New(d.DataType(), d.Buffer(), d.ElemOffset(), d.Shape(), d.ElemStrides())
	if err != nil {
		return nil, err
	}
	names := d.DimNames()
	if names == nil {
		return v, nil
	}
	defer v.Release()
	return v.WithDimNames(names...)
}

// Unbroadcast returns the view with every broadcast axis (an axis of stride
// 0 and length above 1) shortened to length 1, and the number of times the
// view repeats each element of the result: the product of the broadcast
// lengths. Code that scans a view can scan the result instead and multiply,
// so that a tiny buffer broadcast to a huge shape costs what its buffer
// holds. The returned view shares the buffer and must be released by the
// caller.
func (v *View) Unbroadcast() (*View, int64) {
	if v.size == 0 {
		v.Retain()
		return v, 1
	}
	shape := v.Shape()
	mult := int64(1)
	for k, n := range shape {
		if v.strides[k] == 0 && n > 1 {
			mult *= n // cannot overflow: the view's size fits int64
			shape[k] = 1
		}
	}
	if mult == 1 {
		v.Retain()
		return v, 1
	}
	ranges := make([]Range, len(shape))
	for k, n := range shape {
		ranges[k] = Span(0, n)
	}
	u, _ := v.Slice(ranges...) // bounds within the shape: cannot fail
	return u, mult
}
