package gcs

import (
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/debug"
)

// Axis names the compressed axis of a matrix: Rows for CSR, Cols for CSC.
// The values are those of Arrow's SparseMatrixCompressedAxis enum
// (Row = 0, Column = 1).
type Axis int8

const (
	// Rows compresses the rows: compressed sparse rows (CSR). Lane i is
	// row i and the indices are column numbers.
	Rows Axis = 0
	// Cols compresses the columns: compressed sparse columns (CSC). Lane j
	// is column j and the indices are row numbers.
	Cols Axis = 1
)

// String returns "rows" or "columns".
func (a Axis) String() string {
	if a == Cols {
		return "columns"
	}
	return "rows"
}

// Other returns the other axis: Cols for Rows and Rows for Cols.
func (a Axis) Other() Axis { return 1 - a }

func (a Axis) check() error {
	if a != Rows && a != Cols {
		return core.Errorf(arrowsparse.ErrStructure, "gcs: unknown compressed axis %d", a)
	}
	return nil
}

// Matrix is a 2-d sparse matrix in compressed sparse row (CSR) or column
// (CSC) format over three Arrow buffers: indptr, indices and values. It is
// immutable once built; see the package documentation for the layout and
// the ownership rules.
type Matrix struct {
	refCount    atomic.Int64
	axis        Axis
	valueType   arrow.DataType
	indptrType  arrow.DataType
	indicesType arrow.DataType
	rows, cols  int64
	names       []string
	nnz         int64
	indptr      *memory.Buffer // major+1 pointers
	indices     *memory.Buffer // nnz minor indices
	values      *memory.Buffer // nnz values
	sorted      bool           // indices non-decreasing within every lane
	canonical   bool           // indices strictly increasing within every lane
	bounded     bool           // every index checked (or built) inside the shape
}

var _ arrowsparse.Sparse = (*Matrix)(nil)

// New returns a matrix over existing Arrow buffers, without copying them.
// axis says which axis is compressed (Rows: CSR, Cols: CSC); shape is
// (rows, columns). For CSR, indptr holds rows+1 pointers of indptrType and
// indices holds the column of each of the nnz values, of indexType; for
// CSC, indptr holds cols+1 pointers and indices the rows. indptrType and
// indexType may differ (Arrow allows it); values holds nnz values of
// valueType. Buffers may be longer than needed (IPC pads them): the matrix
// keeps exactly the bytes it needs, and nothing later reads the rest. New
// retains the three buffers and the caller keeps its own references. A nil
// buffer is allowed where zero bytes are needed.
//
// New checks the types, the shape and names, the buffer sizes and
// alignment, that indptr starts at 0, never decreases and ends at nnz, and
// (unless WithTrusted) that every index lies inside the shape; it computes
// the canonical flag (strictly increasing indices within every lane). The
// index type needs to hold only the indices stored, and the pointer type
// the pointers, as in Arrow C++. Any failure returns an error wrapping
// arrow.ErrInvalid, arrow.ErrIndex or arrow.ErrType. The returned matrix
// must be released by the caller.
func New(valueType, indptrType, indexType arrow.DataType, shape []int64, axis Axis, indptr, indices, values *memory.Buffer, nnz int64, opts ...Option) (*Matrix, error) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	m, err := build(axis, shape, valueType, indptrType, indexType, indptr, indices, values, nnz, &cfg)
	if err != nil {
		return nil, err
	}
	for _, b := range []*memory.Buffer{indptr, indices, values} {
		if b != nil {
			b.Retain()
		}
	}
	m.exact()
	return m, nil
}

// NewCSR is New with axis Rows: a CSR matrix over existing buffers,
// adopted without copying. SciPy's csr_matrix (indptr, indices, data) maps
// onto it directly, int32 buffers staying int32.
func NewCSR(valueType, indptrType, indexType arrow.DataType, shape []int64, indptr, indices, values *memory.Buffer, nnz int64, opts ...Option) (*Matrix, error) {
	return New(valueType, indptrType, indexType, shape, Rows, indptr, indices, values, nnz, opts...)
}

// NewCSC is New with axis Cols: a CSC matrix over existing buffers,
// adopted without copying.
func NewCSC(valueType, indptrType, indexType arrow.DataType, shape []int64, indptr, indices, values *memory.Buffer, nnz int64, opts ...Option) (*Matrix, error) {
	return New(valueType, indptrType, indexType, shape, Cols, indptr, indices, values, nnz, opts...)
}

// exact cuts the matrix's buffers, to which it holds references, to the
// bytes it needs.
func (m *Matrix) exact() {
	major, _ := m.dims()
	core.AdoptExact(&m.indptr, (major+1)*int64(arrowsparse.ByteWidth(m.indptrType)))
	core.AdoptExact(&m.indices, m.nnz*int64(arrowsparse.ByteWidth(m.indicesType)))
	core.AdoptExact(&m.values, m.nnz*int64(arrowsparse.ByteWidth(m.valueType)))
}

// FromSlices returns a matrix holding copies of indptr, indices and values
// in buffers from mem, with the index and value types of the Go types. It
// checks everything New checks; nnz is len(values). The result must be
// released by the caller.
func FromSlices[P, I arrowsparse.Index, T arrowsparse.Value](mem memory.Allocator, axis Axis, shape []int64, indptr []P, indices []I, values []T, opts ...Option) (*Matrix, error) {
	if len(indices) != len(values) {
		return nil, core.Errorf(arrowsparse.ErrBufferSize, "gcs: %d indices for %d values", len(indices), len(values))
	}
	bufs := [3]*memory.Buffer{
		copyBuffer(mem, core.BytesOf(indptr)),
		copyBuffer(mem, core.BytesOf(indices)),
		copyBuffer(mem, core.BytesOf(values)),
	}
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	// The pointer count is checked against the shape by build; a short
	// slice gives a short buffer and an error.
	m, err := build(axis, shape, arrowsparse.DataTypeOf[T](), arrowsparse.DataTypeOf[P](), arrowsparse.DataTypeOf[I](), bufs[0], bufs[1], bufs[2], int64(len(values)), &cfg)
	if err != nil {
		for _, b := range bufs {
			b.Release()
		}
		return nil, err
	}
	m.exact()
	return m, nil
}

// build checks its arguments and returns a matrix over the buffers, which
// it neither retains nor releases.
func build(axis Axis, shape []int64, vt, pt, it arrow.DataType, indptr, indices, values *memory.Buffer, nnz int64, cfg *config) (*Matrix, error) {
	if err := axis.check(); err != nil {
		return nil, err
	}
	if err := core.CheckValueType(vt); err != nil {
		return nil, err
	}
	if err := core.CheckIndexType(pt); err != nil {
		return nil, err
	}
	if err := core.CheckIndexType(it); err != nil {
		return nil, err
	}
	if len(shape) != 2 {
		return nil, core.Errorf(arrowsparse.ErrShape, "gcs: a compressed matrix has 2 dimensions, not %d", len(shape))
	}
	if err := core.CheckShape(shape); err != nil {
		return nil, err
	}
	if err := core.CheckDimNames(cfg.names, 2); err != nil {
		return nil, err
	}
	if nnz < 0 {
		return nil, core.Errorf(arrowsparse.ErrShape, "gcs: negative number of stored values %d", nnz)
	}
	m := &Matrix{
		axis:        axis,
		valueType:   vt,
		indptrType:  pt,
		indicesType: it,
		rows:        shape[0],
		cols:        shape[1],
		names:       core.CloneDimNames(cfg.names),
		nnz:         nnz,
		indptr:      indptr,
		indices:     indices,
		values:      values,
	}
	major, minor := m.dims()
	if nnz > 0 && minor == 0 {
		return nil, core.Errorf(arrowsparse.ErrOutOfRange, "gcs: %d values in a matrix without %s", nnz, axis.Other())
	}
	if major == 1<<63-1 {
		return nil, core.Errorf(arrowsparse.ErrOverflow, "gcs: %d %s need %d pointers, which overflows int64", major, axis, uint64(major)+1)
	}
	if err := core.CheckIndexFits(pt, nnz, "nnz"); err != nil {
		return nil, err
	}
	if err := core.CheckBuffer(indptr, major+1, pt, "gcs: indptr"); err != nil {
		return nil, err
	}
	if err := core.CheckBuffer(indices, nnz, it, "gcs: indices"); err != nil {
		return nil, err
	}
	if err := core.CheckBuffer(values, nnz, vt, "gcs: values"); err != nil {
		return nil, err
	}
	if err := m.ix().checkPointers(m); err != nil {
		return nil, err
	}
	m.refCount.Store(1)
	if cfg.trusted {
		m.canonical = cfg.claim > 0
		m.sorted = m.canonical
		return m, nil
	}
	var err error
	if m.sorted, m.canonical, err = m.ix().checkIndices(m); err != nil {
		return nil, err
	}
	m.bounded = true
	if cfg.claim > 0 && !m.canonical {
		return nil, core.Errorf(arrowsparse.ErrNotCanonical, "gcs: data claims canonical order but the indices of some %s are not strictly increasing", axis.singular())
	}
	return m, nil
}

func (a Axis) singular() string {
	if a == Cols {
		return "column"
	}
	return "row"
}

// copyBuffer returns a new buffer from mem holding a copy of b.
func copyBuffer(mem memory.Allocator, b []byte) *memory.Buffer {
	buf := core.NewBuffer(mem, int64(len(b)))
	copy(buf.Bytes(), b)
	return buf
}

// dims returns the number of lanes (the length of the compressed axis) and
// the length of the other axis.
func (m *Matrix) dims() (major, minor int64) {
	if m.axis == Cols {
		return m.cols, m.rows
	}
	return m.rows, m.cols
}

// Retain increases the reference count by 1.
// Retain may be called simultaneously from multiple goroutines.
func (m *Matrix) Retain() { m.refCount.Add(1) }

// Release decreases the reference count by 1.
// When the reference count goes to zero, the buffers are released.
// Release may be called simultaneously from multiple goroutines.
func (m *Matrix) Release() {
	n := m.refCount.Add(-1)
	debug.Assert(n >= 0, "gcs: too many releases of a Matrix")
	if n == 0 {
		for _, b := range []*memory.Buffer{m.indptr, m.indices, m.values} {
			if b != nil {
				b.Release()
			}
		}
		m.indptr, m.indices, m.values = nil, nil, nil
	}
}

// Format returns arrowsparse.FormatCSR or arrowsparse.FormatCSC.
func (m *Matrix) Format() arrowsparse.Format {
	if m.axis == Cols {
		return arrowsparse.FormatCSC
	}
	return arrowsparse.FormatCSR
}

// Axis returns the compressed axis: Rows for CSR, Cols for CSC.
func (m *Matrix) Axis() Axis { return m.axis }

// DataType returns the type of the values.
func (m *Matrix) DataType() arrow.DataType { return m.valueType }

// IndptrType returns the type of the index pointers.
func (m *Matrix) IndptrType() arrow.DataType { return m.indptrType }

// IndexType returns the type of the indices.
func (m *Matrix) IndexType() arrow.DataType { return m.indicesType }

// Shape returns (rows, columns), as a new slice.
func (m *Matrix) Shape() []int64 { return []int64{m.rows, m.cols} }

// Rows returns the number of rows.
func (m *Matrix) Rows() int64 { return m.rows }

// Cols returns the number of columns.
func (m *Matrix) Cols() int64 { return m.cols }

// NumDims returns 2.
func (m *Matrix) NumDims() int { return 2 }

// DimNames returns a copy of the dimension names, or nil.
func (m *Matrix) DimNames() []string { return core.CloneDimNames(m.names) }

// NNZ returns the number of stored values, explicit zeros and duplicates
// included.
func (m *Matrix) NNZ() int64 { return m.nnz }

// Lanes returns the number of lanes: rows for CSR, columns for CSC. The
// indptr array has Lanes()+1 entries.
func (m *Matrix) Lanes() int64 {
	major, _ := m.dims()
	return major
}

// IsCanonical reports whether the indices are strictly increasing within
// every lane: sorted, without duplicates. The flag is computed when the
// matrix is built (or claimed under WithTrusted), never taken on trust.
func (m *Matrix) IsCanonical() bool { return m.canonical }

// IsSorted reports whether the indices are non-decreasing within every
// lane: sorted, with duplicates adjacent if there are any. A canonical
// matrix is sorted. Binary search (At) needs a sorted matrix; other
// matrices are scanned lane by lane.
func (m *Matrix) IsSorted() bool { return m.sorted }

// IndptrBuffer returns the index pointer buffer. It shares memory with the
// matrix: the matrix must outlive it, or the buffer must be retained.
func (m *Matrix) IndptrBuffer() *memory.Buffer { return m.indptr }

// IndicesBuffer returns the index buffer, sharing memory like IndptrBuffer.
// It may be nil when nnz is 0.
func (m *Matrix) IndicesBuffer() *memory.Buffer { return m.indices }

// ValuesBuffer returns the value buffer, sharing memory like IndptrBuffer.
// It may be nil when nnz is 0.
func (m *Matrix) ValuesBuffer() *memory.Buffer { return m.values }

// ValueBytes returns the bytes of the NNZ values, in storage order, as the
// little-endian bytes of DataType(). It aliases the matrix's memory: the
// matrix must outlive it. It is the arrowsparse.Sparse accessor for code
// that learns the value type only at run time.
func (m *Matrix) ValueBytes() []byte { return m.values.Bytes() }

// Indptr returns the Lanes()+1 index pointers of a matrix (or of a GCS
// tensor's storage) as a []P aliasing the buffer.
// It returns an error wrapping arrowsparse.ErrUnsupportedType if P is not the
// indptr type. The slice must not be modified.
func Indptr[P arrowsparse.Index, X Compressed](x X) ([]P, error) {
	m := storageOf(x)
	if !arrowsparse.TypeMatches[P](m.indptrType) {
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "gcs: indptr is %s, not %s", m.indptrType, arrowsparse.DataTypeOf[P]())
	}
	major, _ := m.dims()
	return arrowsparse.AsSlice[P](m.indptr, major+1)
}

// Indices returns the nnz indices (columns for CSR, rows for CSC) of a
// matrix (or of a GCS tensor's storage) as a []I
// aliasing the buffer. It returns an error wrapping arrowsparse.ErrUnsupportedType if
// I is not the indices type. The slice must not be modified.
func Indices[I arrowsparse.Index, X Compressed](x X) ([]I, error) {
	m := storageOf(x)
	if !arrowsparse.TypeMatches[I](m.indicesType) {
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "gcs: indices are %s, not %s", m.indicesType, arrowsparse.DataTypeOf[I]())
	}
	return arrowsparse.AsSlice[I](m.indices, m.nnz)
}

// Compressed is the constraint of the buffer accessors Values, Indptr and
// Indices: a matrix, or a GCS tensor (whose storage matrix they read).
type Compressed interface{ *Matrix | *Tensor }

// storageOf returns the matrix that holds x's buffers.
func storageOf[X Compressed](x X) *Matrix {
	if t, ok := any(x).(*Tensor); ok {
		return t.m
	}
	return any(x).(*Matrix)
}

// Values returns the nnz values of a matrix or GCS tensor as a []T
// aliasing the buffer, in storage order. It returns an error wrapping
// arrowsparse.ErrUnsupportedType if T is not the value type. The slice must
// not be modified.
func Values[T arrowsparse.Value, X Compressed](x X) ([]T, error) {
	m := storageOf(x)
	if !arrowsparse.TypeMatches[T](m.valueType) {
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "gcs: values are %s, not %s", m.valueType, arrowsparse.DataTypeOf[T]())
	}
	return arrowsparse.AsSlice[T](m.values, m.nnz)
}

// T returns the transpose of the matrix over the same buffers, without
// copying: the CSC of the transpose of a CSR, or the CSR of the transpose of
// a CSC. The dimension names are swapped. The result shares memory with the
// receiver (it retains the buffers) and must be released by the caller.
func (m *Matrix) T() *Matrix {
	t := m.clone()
	t.axis = m.axis.Other()
	t.rows, t.cols = m.cols, m.rows
	if m.names != nil {
		t.names = []string{m.names[1], m.names[0]}
	}
	return t
}

// clone returns a new matrix over the same buffers, retaining them.
func (m *Matrix) clone() *Matrix {
	t := &Matrix{
		axis:        m.axis,
		valueType:   m.valueType,
		indptrType:  m.indptrType,
		indicesType: m.indicesType,
		rows:        m.rows,
		cols:        m.cols,
		names:       m.names,
		nnz:         m.nnz,
		indptr:      m.indptr,
		indices:     m.indices,
		values:      m.values,
		sorted:      m.sorted,
		canonical:   m.canonical,
		bounded:     m.bounded,
	}
	for _, b := range []*memory.Buffer{m.indptr, m.indices, m.values} {
		if b != nil {
			b.Retain()
		}
	}
	t.refCount.Store(1)
	return t
}

// WithDimNames returns the matrix with the given dimension names (two, or
// none) over the same buffers. The result must be released by the caller.
func (m *Matrix) WithDimNames(names ...string) (*Matrix, error) {
	if err := core.CheckDimNames(names, 2); err != nil {
		return nil, err
	}
	t := m.clone()
	t.names = core.CloneDimNames(names)
	return t, nil
}

// Validate runs the full check of New on the matrix: types, buffer sizes,
// the indptr array, every index inside the shape, and a canonical flag that
// is true. It is what New does without WithTrusted, for matrices built with
// WithTrusted.
func (m *Matrix) Validate() error {
	cfg := config{names: m.names}
	if m.canonical {
		cfg.claim = 1
	}
	_, err := build(m.axis, m.Shape(), m.valueType, m.indptrType, m.indicesType, m.indptr, m.indices, m.values, m.nnz, &cfg)
	return err
}

// adopt returns a matrix over buffers the caller has just allocated and
// filled, taking over its references, with flags the caller computed.
func adopt(axis Axis, rows, cols int64, names []string, vt, pt, it arrow.DataType, indptr, indices, values *memory.Buffer, nnz int64, sorted, canonical bool) *Matrix {
	m := &Matrix{
		axis:        axis,
		valueType:   vt,
		indptrType:  pt,
		indicesType: it,
		rows:        rows,
		cols:        cols,
		names:       names,
		nnz:         nnz,
		indptr:      indptr,
		indices:     indices,
		values:      values,
		sorted:      sorted || canonical,
		canonical:   canonical,
		bounded:     true, // built by this package from checked input
	}
	m.refCount.Store(1)
	return m
}
