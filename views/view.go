package views

import (
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	as "github.com/arrowsparse/arrowsparse"
)

// inlineDims is the rank up to which a view's shape, strides and dim names
// live in the same allocation as the View itself.
const inlineDims = 8

// View is a dense strided view over an Arrow buffer.
//
// The element with index idx is element number
//
//	Offset(idx) = offset + Σ idx[k]·strides[k]
//
// of the buffer, counted in elements of the view's data type (not bytes).
// Strides are signed; a stride of 0 on an axis longer than 1 repeats data
// (a broadcast), and such a view is read-only.
type View struct {
	refCount atomic.Int64
	dtype    arrow.DataType
	width    int64 // bytes per element
	buf      *memory.Buffer
	offset   int64   // element position of index (0, …, 0)
	shape    []int64 // never modified after construction
	strides  []int64 // element strides, never modified after construction
	names    []string
	size     int64 // number of elements: product of shape
	readOnly bool
}

var (
	_ as.Tensor = (*View)(nil)
	_ as.Dense  = (*View)(nil)
)

// viewAlloc lets a view of rank ≤ inlineDims take one allocation.
type viewAlloc struct {
	View
	dims  [2 * inlineDims]int64
	names [inlineDims]string
}

// alloc returns a zero View whose shape and strides slices have length ndim
// and, if named, whose names slice has length ndim. It allocates once for
// ndim ≤ inlineDims.
func alloc(ndim int, named bool) *View {
	if ndim <= inlineDims {
		a := new(viewAlloc)
		a.shape = a.dims[:ndim:ndim]
		a.strides = a.dims[inlineDims : inlineDims+ndim : inlineDims+ndim]
		if named {
			a.View.names = a.names[:ndim:ndim]
		}
		return &a.View
	}
	v := new(View)
	d := make([]int64, 2*ndim)
	v.shape, v.strides = d[:ndim:ndim], d[ndim:]
	if named {
		v.names = make([]string, ndim)
	}
	return v
}

// New returns a view of buf holding values of type dt, with the given
// element offset, shape and element strides (strides count elements, not
// bytes, and may be negative). The view retains buf; Release releases it.
//
// New checks that every element the view can reach lies inside buf, that
// the arithmetic does not overflow, and that buf is aligned for dt. It
// returns an error wrapping arrow.ErrInvalid or arrow.ErrType otherwise.
// Strides of axes of length 1 are normalised (see the package doc). The
// returned view must be released by the caller.
func New(dt arrow.DataType, buf *memory.Buffer, elemOffset int64, shape, elemStrides []int64) (*View, error) {
	if err := as.CheckValueType(dt); err != nil {
		return nil, err
	}
	if len(elemStrides) != len(shape) {
		return nil, as.Errorf(as.ErrShape, "views: %d strides for %d dimensions", len(elemStrides), len(shape))
	}
	if buf == nil {
		return nil, as.Errorf(as.ErrBufferSize, "views: nil buffer")
	}
	w := int64(as.ByteWidth(dt))
	if !as.Aligned(buf, int(w)) {
		return nil, as.Errorf(as.ErrAlignment, "views: buffer address is not a multiple of the %s width %d", dt, w)
	}
	size, err := as.NumElements(shape)
	if err != nil {
		return nil, err
	}
	if err := checkBounds(int64(buf.Len())/w, elemOffset, size, shape, elemStrides); err != nil {
		return nil, err
	}
	v := alloc(len(shape), false)
	copy(v.shape, shape)
	copy(v.strides, elemStrides)
	v.init(dt, buf, elemOffset, size)
	normaliseUnitStrides(v.shape, v.strides)
	v.readOnly = isBroadcast(v.shape, v.strides)
	return v, nil
}

// init sets the fields every constructor sets, and retains buf.
func (v *View) init(dt arrow.DataType, buf *memory.Buffer, offset, size int64) {
	v.refCount.Store(1)
	v.dtype = dt
	v.width = int64(as.ByteWidth(dt))
	buf.Retain()
	v.buf = buf
	v.offset = offset
	v.size = size
}

// Contiguous returns a row-major view of the first product(shape) elements
// of buf. The returned view must be released by the caller.
func Contiguous(dt arrow.DataType, buf *memory.Buffer, shape []int64) (*View, error) {
	st, err := as.RowMajorStrides(shape)
	if err != nil {
		return nil, err
	}
	return New(dt, buf, 0, shape, st)
}

// Alloc returns a writable row-major view of a new zeroed buffer from mem.
// The returned view must be released by the caller.
func Alloc(mem memory.Allocator, dt arrow.DataType, shape []int64) (*View, error) {
	if err := as.CheckValueType(dt); err != nil {
		return nil, err
	}
	n, err := as.NumElements(shape)
	if err != nil {
		return nil, err
	}
	w := int64(as.ByteWidth(dt))
	nbytes, ok := as.MulInt64(n, w)
	if !ok {
		return nil, as.Errorf(as.ErrOverflow, "views: %d elements of %d bytes overflow int64", n, w)
	}
	buf := NewZeroedBuffer(mem, nbytes)
	defer buf.Release()
	return Contiguous(dt, buf, shape)
}

// NewZeroedBuffer returns a buffer of n zero bytes from mem. Allocators need
// not zero their memory, so it is cleared here. The buffer must be released
// by the caller.
func NewZeroedBuffer(mem memory.Allocator, n int64) *memory.Buffer {
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(n))
	clear(buf.Bytes())
	return buf
}

// checkBounds verifies that every element reachable by the view lies in
// [0, bufElems), without overflow.
func checkBounds(bufElems, offset, size int64, shape, strides []int64) error {
	if offset < 0 {
		return as.Errorf(as.ErrOutOfRange, "views: negative element offset %d", offset)
	}
	if size == 0 {
		if offset > bufElems {
			return as.Errorf(as.ErrBufferSize, "views: element offset %d is past the end of a %d-element buffer", offset, bufElems)
		}
		return nil
	}
	lo, hi := offset, offset
	for k, n := range shape {
		ext, ok := as.MulInt64(n-1, strides[k])
		if !ok {
			return as.Errorf(as.ErrOverflow, "views: stride %d × extent %d of axis %d overflows int64", strides[k], n-1, k)
		}
		if ext < 0 {
			lo, ok = as.AddInt64(lo, ext)
		} else {
			hi, ok = as.AddInt64(hi, ext)
		}
		if !ok {
			return as.Errorf(as.ErrOverflow, "views: addresses of shape %v, strides %v, offset %d overflow int64", shape, strides, offset)
		}
	}
	if lo < 0 || hi >= bufElems {
		return as.Errorf(as.ErrBufferSize, "views: shape %v, strides %v and offset %d reach elements %d..%d, outside a %d-element buffer", shape, strides, offset, lo, hi, bufElems)
	}
	return nil
}

// normaliseUnitStrides gives every axis of length 1 the stride a row-major
// layout would give it, so that contiguity flags and exported strides tell
// the truth about the memory layout.
func normaliseUnitStrides(shape, strides []int64) {
	s := int64(1)
	for k := len(shape) - 1; k >= 0; k-- {
		if shape[k] == 1 {
			strides[k] = s
		}
		if shape[k] > 1 {
			s = abs(strides[k]) * shape[k]
		}
	}
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
func (v *View) Retain() { v.refCount.Add(1) }

// Release decreases the reference count by 1.
// When the reference count goes to zero, the view releases its buffer.
// Release may be called simultaneously from multiple goroutines.
func (v *View) Release() {
	if v.refCount.Add(-1) == 0 {
		v.buf.Release()
		v.buf = nil
	}
}

// Format returns as.FormatDense.
func (v *View) Format() as.Format { return as.FormatDense }

// DataType returns the Arrow type of the elements.
func (v *View) DataType() arrow.DataType { return v.dtype }

// Shape returns a copy of the shape.
func (v *View) Shape() []int64 { return append([]int64(nil), v.shape...) }

// NumDims returns the number of dimensions.
func (v *View) NumDims() int { return len(v.shape) }

// DimNames returns a copy of the dimension names, or nil if there are none.
func (v *View) DimNames() []string { return as.CloneDimNames(v.names) }

// NNZ returns the number of elements: every element of a dense view is
// stored.
func (v *View) NNZ() int64 { return v.size }

// Len returns the number of elements.
func (v *View) Len() int64 { return v.size }

// Buffer returns the backing buffer. It shares memory with the view: the view
// must outlive it, or the buffer must be retained.
func (v *View) Buffer() *memory.Buffer { return v.buf }

// ElemOffset returns the element position of index (0, …, 0).
func (v *View) ElemOffset() int64 { return v.offset }

// ElemStrides returns a copy of the strides, counted in elements.
func (v *View) ElemStrides() []int64 { return append([]int64(nil), v.strides...) }

// ByteStrides returns a copy of the strides, counted in bytes.
func (v *View) ByteStrides() []int64 {
	out := make([]int64, len(v.strides))
	for i, s := range v.strides {
		out[i] = s * v.width
	}
	return out
}

// ReadOnly reports whether writes through the view are refused: broadcast
// views and views made read-only with AsReadOnly.
func (v *View) ReadOnly() bool { return v.readOnly }

// Offset returns the element position of index idx: offset + Σ idx[k]·strides[k].
// It panics if idx has the wrong length or an entry outside the shape.
func (v *View) Offset(idx ...int64) int64 {
	if len(idx) != len(v.shape) {
		panic(as.PanicError{Msg: "views: index rank does not match the view's rank"})
	}
	off := v.offset
	for k, i := range idx {
		if uint64(i) >= uint64(v.shape[k]) {
			panic(as.PanicError{Msg: "views: index out of range"})
		}
		off += i * v.strides[k]
	}
	return off
}

// Data returns the whole backing buffer as a []T, aliasing it. Element idx
// of the view is Data[T](v)[v.Offset(idx...)]. It panics if T is not the
// view's data type.
func Data[T as.Value](v *View) []T {
	mustType[T](v)
	return as.MustSlice[T](v.buf, int64(v.buf.Len())/v.width)
}

func mustType[T as.Value](v *View) {
	if !as.TypeMatches[T](v.dtype) {
		panic(as.PanicError{Msg: "views: Go type " + as.DataTypeOf[T]().String() + " does not match the view's type " + v.dtype.String()})
	}
}

// At returns the element at idx. It panics if T is not the view's type or
// idx is outside the shape, as a slice index does.
func At[T as.Value](v *View, idx ...int64) T {
	return Data[T](v)[v.Offset(idx...)]
}

// Set stores x at idx. It returns an error wrapping as.ErrReadOnly on a
// read-only view, and panics if T is not the view's type or idx is outside
// the shape.
func Set[T as.Value](v *View, x T, idx ...int64) error {
	if v.readOnly {
		return as.Errorf(as.ErrReadOnly, "views: write through a read-only view")
	}
	Data[T](v)[v.Offset(idx...)] = x
	return nil
}
