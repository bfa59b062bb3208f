package arrowsparse

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Format names a tensor storage format.
type Format int8

// The storage formats of this module.
const (
	FormatDense Format = iota // strided dense storage (views.View)
	FormatCOO                 // coordinate list (coo.Tensor)
	FormatCSR                 // compressed sparse rows (gcs.Matrix)
	FormatCSC                 // compressed sparse columns (gcs.Matrix)
	FormatCSF                 // compressed sparse fibers (csf.Tensor)
	FormatGCS                 // N-d tensor over a CSR/CSC matrix (gcs.Tensor)
	FormatDM                  // dimensions-mapping wrapper over any storage (gcs.DM)
)

var formatNames = [...]string{"Dense", "COO", "CSR", "CSC", "CSF", "GCS", "DM"}

// String returns the format's usual name, such as "COO" or "CSR".
func (f Format) String() string {
	if f >= 0 && int(f) < len(formatNames) {
		return formatNames[f]
	}
	return "Format(" + strconv.Itoa(int(f)) + ")"
}

// Tensor is what every tensor of this module offers, sparse or dense.
//
// Tensors are immutable once built (writable dense views are the one
// exception and say so), so any number of goroutines may read one at the same
// time. Memory is reference counted with Retain and Release, in the manner of
// arrow-go.
type Tensor interface {
	// Format returns the storage format.
	Format() Format
	// DataType returns the Arrow type of the values.
	DataType() arrow.DataType
	// Shape returns the size of each dimension. The caller owns the slice.
	Shape() []int64
	// NumDims returns the number of dimensions (0 for a scalar).
	NumDims() int
	// DimNames returns the dimension names, or nil when the tensor has none.
	// The caller owns the slice.
	DimNames() []string
	// NNZ returns the number of stored values. For sparse formats it counts
	// explicitly stored zeros and, for non-canonical COO, duplicates; for a
	// dense tensor it is the number of elements.
	NNZ() int64
	// ToDense materialises the tensor as a new row-major dense tensor whose
	// buffer comes from mem. Duplicate sparse entries are summed. The result
	// must be released by the caller.
	ToDense(mem memory.Allocator) (Dense, error)

	// Retain increases the reference count by 1.
	// Retain may be called simultaneously from multiple goroutines.
	Retain()
	// Release decreases the reference count by 1.
	// When the reference count goes to zero, the memory is freed.
	// Release may be called simultaneously from multiple goroutines.
	Release()
}

// Dense is a dense strided tensor over an Arrow buffer. *views.View
// implements it; ToDense returns one.
//
// The element with index idx lives at element position
// ElemOffset() + Σ idx[k]·ElemStrides()[k] of Buffer(), counted in elements
// of DataType(), not bytes.
type Dense interface {
	Tensor
	// Buffer returns the backing buffer. It shares memory with the tensor:
	// the tensor must outlive it or the buffer must be retained.
	Buffer() *memory.Buffer
	// ElemOffset returns the position of element (0, …, 0), in elements.
	ElemOffset() int64
	// ElemStrides returns the signed strides, in elements. The caller owns
	// the slice.
	ElemStrides() []int64
}

// Duplicates says how entries with equal coordinates are combined when a
// sparse tensor is canonicalised, converted or densified.
type Duplicates int8

const (
	// SumDuplicates adds the values, in storage order, in the value type
	// (integers wrap around). This is what scipy, pydata/sparse and PyTorch
	// do, and the default everywhere in this module.
	SumDuplicates Duplicates = iota
	// KeepLast keeps the value stored last, as Arrow C++'s densify does.
	KeepLast
	// KeepFirst keeps the value stored first.
	KeepFirst
	// KeepMin keeps the smallest value (NaN is never kept over a number).
	KeepMin
	// KeepMax keeps the largest value (NaN is never kept over a number).
	KeepMax
	// RejectDuplicates makes the operation fail with an error wrapping
	// ErrNotCanonical if two entries share coordinates.
	RejectDuplicates
)

var dupNames = [...]string{"sum", "last", "first", "min", "max", "reject"}

// String returns the policy's short name, such as "sum" or "last".
func (d Duplicates) String() string {
	if d >= 0 && int(d) < len(dupNames) {
		return dupNames[d]
	}
	return "Duplicates(" + strconv.Itoa(int(d)) + ")"
}

// Check returns an error wrapping ErrStructure unless d is a known policy.
func (d Duplicates) Check() error {
	if d >= 0 && int(d) < len(dupNames) {
		return nil
	}
	return errorf(ErrStructure, "unknown duplicate policy %d", d)
}
