package coo

import (
	"slices"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/coords"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/debug"
)

// Layout is the memory order of the nnz × ndim coordinate matrix.
type Layout int8

const (
	// RowMajor stores the ndim coordinates of each entry together: the
	// coordinate k of entry i is element i·ndim + k. Arrow C++ writes this.
	RowMajor Layout = iota
	// ColMajor stores each dimension's coordinates together: the coordinate
	// k of entry i is element k·nnz + i. Arrow C++ reads it, and it is the
	// layout of a table with one column per dimension.
	ColMajor
)

// String returns "row-major" or "column-major".
func (l Layout) String() string {
	if l == ColMajor {
		return "column-major"
	}
	return "row-major"
}

// Tensor is an N-d sparse tensor in coordinate format, over Arrow buffers.
// It is immutable once built; see the package documentation.
type Tensor struct {
	refCount  atomic.Int64
	valueType arrow.DataType
	indexType arrow.DataType
	shape     []int64
	names     []string
	nnz       int64
	layout    Layout
	coords    *memory.Buffer // nnz × ndim index values, see Layout
	values    *memory.Buffer // nnz values
	canonical bool
	// claimedNot records an explicit claim of non-canonical order made with
	// WithCanonicalClaim(false), kept for CanonicalFlag.
	claimedNot bool
}

var _ arrowsparse.Sparse = (*Tensor)(nil)

// New returns a tensor over existing Arrow buffers, without copying them.
//
// coords holds the nnz × ndim coordinate matrix in the given layout, as
// values of indexType; values holds nnz values of valueType. Buffers may be
// longer than needed (IPC pads them): the tensor keeps exactly the bytes
// it needs, and nothing later reads the rest. New retains both buffers; the
// caller keeps its own references. A nil buffer is allowed where zero bytes
// are needed.
//
// New checks the types, the shape, the dim names, the buffer sizes and
// alignment, and (unless WithTrusted) that every coordinate lies inside the
// shape; it computes the canonical flag. The index type needs to hold only
// the coordinates stored, not every coordinate of the shape. Any failure
// returns an error wrapping arrow.ErrInvalid, arrow.ErrIndex or
// arrow.ErrType. The returned tensor must be released by the caller.
func New(valueType, indexType arrow.DataType, shape []int64, coords *memory.Buffer, layout Layout, values *memory.Buffer, nnz int64, opts ...Option) (*Tensor, error) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	for _, b := range []*memory.Buffer{coords, values} {
		if b != nil {
			b.Retain()
		}
	}
	t, err := adopt(valueType, indexType, shape, coords, layout, values, nnz, &cfg)
	if err != nil {
		for _, b := range []*memory.Buffer{coords, values} {
			if b != nil {
				b.Release()
			}
		}
		return nil, err
	}
	return t, nil
}

// adopt checks and builds a tensor that takes over the caller's references
// to the buffers when it succeeds (constructors that allocate use it
// directly). On error the references stay with the caller.
func adopt(valueType, indexType arrow.DataType, shape []int64, coords *memory.Buffer, layout Layout, values *memory.Buffer, nnz int64, cfg *config) (*Tensor, error) {
	t := &Tensor{
		valueType: valueType,
		indexType: indexType,
		shape:     append([]int64(nil), shape...),
		nnz:       nnz,
		layout:    layout,
		coords:    coords,
		values:    values,
	}
	if err := t.checkLayout(cfg.names); err != nil {
		return nil, err
	}
	t.names = core.CloneDimNames(cfg.names)
	t.claimedNot = cfg.claim < 0
	if cfg.trusted {
		t.canonical = cfg.claim > 0
	} else {
		if err := t.checkBounds(); err != nil {
			return nil, err
		}
		t.canonical = t.detectCanonical()
		if cfg.claim > 0 && !t.canonical {
			return nil, core.Errorf(arrowsparse.ErrNotCanonical, "coo: data claims canonical order but its coordinates are not sorted without duplicates")
		}
	}
	nd := int64(len(shape))
	core.AdoptExact(&t.coords, nnz*nd*int64(arrowsparse.ByteWidth(indexType)))
	core.AdoptExact(&t.values, nnz*int64(arrowsparse.ByteWidth(valueType)))
	t.refCount.Store(1)
	return t, nil
}

// checkLayout runs the O(ndim) checks: types, shape, names, layout, and
// buffers large enough and aligned for nnz entries.
func (t *Tensor) checkLayout(names []string) error {
	if err := core.CheckValueType(t.valueType); err != nil {
		return err
	}
	if err := core.CheckIndexType(t.indexType); err != nil {
		return err
	}
	if err := core.CheckShape(t.shape); err != nil {
		return err
	}
	if err := core.CheckDimNames(names, len(t.shape)); err != nil {
		return err
	}
	if t.layout != RowMajor && t.layout != ColMajor {
		return core.Errorf(arrowsparse.ErrStructure, "coo: unknown coordinate layout %d", t.layout)
	}
	if t.nnz < 0 {
		return core.Errorf(arrowsparse.ErrShape, "coo: negative number of stored values %d", t.nnz)
	}
	ndim := int64(len(t.shape))
	ncoord, ok := core.MulInt64(t.nnz, ndim)
	if !ok {
		return core.Errorf(arrowsparse.ErrOverflow, "coo: %d entries × %d dimensions overflow int64", t.nnz, ndim)
	}
	if err := core.CheckBuffer(t.coords, ncoord, t.indexType, "coo: coordinate"); err != nil {
		return err
	}
	if err := core.CheckBuffer(t.values, t.nnz, t.valueType, "coo: value"); err != nil {
		return err
	}
	if t.nnz > 0 && slices.Contains(t.shape, 0) {
		return core.Errorf(arrowsparse.ErrOutOfRange, "coo: %d entries in a shape %v without elements", t.nnz, t.shape)
	}
	return nil
}

// Retain increases the reference count by 1.
// Retain may be called simultaneously from multiple goroutines.
func (t *Tensor) Retain() { t.refCount.Add(1) }

// Release decreases the reference count by 1.
// When the reference count goes to zero, the buffers are released.
// Release may be called simultaneously from multiple goroutines.
func (t *Tensor) Release() {
	n := t.refCount.Add(-1)
	debug.Assert(n >= 0, "coo: too many releases of a Tensor")
	if n == 0 {
		if t.coords != nil {
			t.coords.Release()
		}
		if t.values != nil {
			t.values.Release()
		}
		t.coords, t.values = nil, nil
	}
}

// Format returns arrowsparse.FormatCOO.
func (t *Tensor) Format() arrowsparse.Format { return arrowsparse.FormatCOO }

// DataType returns the type of the values.
func (t *Tensor) DataType() arrow.DataType { return t.valueType }

// IndexType returns the type of the coordinates.
func (t *Tensor) IndexType() arrow.DataType { return t.indexType }

// Shape returns a copy of the shape.
func (t *Tensor) Shape() []int64 { return append([]int64(nil), t.shape...) }

// NumDims returns the number of dimensions.
func (t *Tensor) NumDims() int { return len(t.shape) }

// DimNames returns a copy of the dimension names, or nil.
func (t *Tensor) DimNames() []string { return core.CloneDimNames(t.names) }

// NNZ returns the number of stored entries, duplicates included.
func (t *Tensor) NNZ() int64 { return t.nnz }

// Layout returns the layout of the coordinate matrix, as it was given. When
// nnz ≤ 1 or ndim ≤ 1 the two layouts address the same elements; the layout
// is kept anyway because IPC writes different strides for them.
func (t *Tensor) Layout() Layout { return t.layout }

// IsCanonical reports whether the entries are sorted in row-major order of
// their coordinates without duplicates. The flag is computed by New (or
// claimed under WithTrusted).
func (t *Tensor) IsCanonical() bool { return t.canonical }

// CanonicalFlag returns the canonical flag to record when the tensor is
// written out, such as the isCanonical field of an IPC message: IsCanonical,
// except that an explicit WithCanonicalClaim(false) from the producer is
// kept. A false flag is always a safe claim, and keeping it lets a message
// be read and written back byte for byte.
func (t *Tensor) CanonicalFlag() bool { return t.canonical && !t.claimedNot }

// CoordsBuffer returns the coordinate buffer. It shares memory with the
// tensor: the tensor must outlive it, or the buffer must be retained. It may
// be nil when the matrix is empty.
func (t *Tensor) CoordsBuffer() *memory.Buffer { return t.coords }

// ValuesBuffer returns the value buffer, sharing memory like CoordsBuffer.
func (t *Tensor) ValuesBuffer() *memory.Buffer { return t.values }

// ValueBytes returns the bytes of the NNZ values, in storage order, as the
// little-endian bytes of DataType(). It aliases the tensor's memory: the
// tensor must outlive it. It is the arrowsparse.Sparse accessor for code
// that learns the value type only at run time.
func (t *Tensor) ValueBytes() []byte { return t.values.Bytes() }

// Coords returns the coordinate matrix as a []I of length nnz·ndim that
// aliases the buffer (see Layout for the order). It returns an error
// wrapping arrowsparse.ErrUnsupportedType if I is not the index type.
func Coords[I arrowsparse.Index](t *Tensor) ([]I, error) {
	if !arrowsparse.TypeMatches[I](t.indexType) {
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "coo: coordinates are %s, not %s", t.indexType, arrowsparse.DataTypeOf[I]())
	}
	return arrowsparse.AsSlice[I](t.coords, t.nnz*int64(len(t.shape)))
}

// Values returns the values as a []T of length nnz that aliases the buffer.
// It returns an error wrapping arrowsparse.ErrUnsupportedType if T is not the value
// type.
func Values[T arrowsparse.Value](t *Tensor) ([]T, error) {
	if !arrowsparse.TypeMatches[T](t.valueType) {
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "coo: values are %s, not %s", t.valueType, arrowsparse.DataTypeOf[T]())
	}
	return arrowsparse.AsSlice[T](t.values, t.nnz)
}

// Coord returns coordinate k of entry i. It panics if i or k is out of
// range. It dispatches on the index type per call: use Coords in loops.
func (t *Tensor) Coord(i int64, k int) int64 {
	if uint64(i) >= uint64(t.nnz) || uint(k) >= uint(len(t.shape)) {
		panic(arrowsparse.PanicError{Msg: "coo: entry or dimension out of range"})
	}
	return coords.For(t.indexType).At(t.matrix(), i, k)
}

// Validate runs the full check: types, buffer sizes, every coordinate inside
// the shape, and a canonical flag that is true. It is what New does without
// WithTrusted, for tensors built with WithTrusted.
func (t *Tensor) Validate() error {
	if err := t.checkLayout(t.names); err != nil {
		return err
	}
	if err := t.checkBounds(); err != nil {
		return err
	}
	if t.canonical && !t.detectCanonical() {
		return core.Errorf(arrowsparse.ErrNotCanonical, "coo: the tensor claims canonical order but its coordinates are not sorted without duplicates")
	}
	return nil
}

// checkBounds verifies that every coordinate lies inside the shape.
func (t *Tensor) checkBounds() error {
	return coords.For(t.indexType).CheckBounds(t.matrix())
}

// detectCanonical reports whether entries are strictly increasing in
// row-major coordinate order.
func (t *Tensor) detectCanonical() bool {
	if t.nnz <= 1 {
		return true
	}
	if len(t.shape) == 0 {
		return false // several entries at the one coordinate of a scalar
	}
	return coords.For(t.indexType).IsSorted(t.matrix())
}

// matrix describes the coordinate matrix for the shared kernels.
func (t *Tensor) matrix() coords.Matrix {
	var data []byte
	if t.coords != nil {
		// Exactly the matrix: a buffer may be longer, by any number of bytes.
		data = t.coords.Bytes()[:t.nnz*int64(len(t.shape))*int64(arrowsparse.ByteWidth(t.indexType))]
	}
	return coords.Matrix{Type: t.indexType, Data: data, N: t.nnz, Shape: t.shape, ColMajor: t.layout == ColMajor}
}
