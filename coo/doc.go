// Package coo holds N-d sparse tensors in coordinate (COO) format over Arrow
// buffers: an nnz × ndim integer coordinate matrix and nnz values, for any
// rank from 0 up.
//
// # Layout
//
// The coordinate matrix holds values of an Arrow index type (int8…int64,
// uint8…uint32) and is stored either row-major (the ndim coordinates of an
// entry together; what Arrow C++ writes) or column-major (one run per
// dimension; what a table with one column per dimension gives). Entry i's
// coordinate k is element i·ndim+k (RowMajor) or k·nnz+i (ColMajor). Both
// layouts work everywhere. The values buffer holds nnz values of an Arrow
// tensor value type, in entry order. Buffers may be longer than needed.
//
// A tensor is canonical when its entries are sorted in row-major order of
// their coordinates (the first coordinate most significant) with no two
// entries at the same coordinates. The flag is computed when the tensor is
// built, never taken on trust (except under the WithTrusted option, which says
// what it skips). Canonicalize sorts and sums duplicates, as scipy,
// pydata/sparse and PyTorch do; CanonicalizeWith chooses another duplicate
// policy by name (arrowsparse.KeepLast is what Arrow C++'s densify does).
//
// # Ownership
//
// New adopts existing buffers without copying and retains them; FromSlices,
// FromDense, FromRecord and the Builder allocate from the given
// memory.Allocator. Every returned *Tensor must be released by the caller.
// Operations that return the receiver unchanged (Canonicalize of a canonical
// tensor, WithLayout to the current layout) return it retained.
//
// # Aliasing
//
// Coords and Values return slices that alias the tensor's buffers: they are
// valid while the tensor is alive and must not be modified, because tensors
// are immutable and may share buffers with other tensors (WithLayout and
// Permute share the values buffer; ToRecord of a column-major tensor shares
// both).
//
// # Errors
//
// Constructors check types, shape, buffer sizes and alignment, and that
// every coordinate lies inside the shape; failures return errors wrapping
// arrow.ErrInvalid (arrowsparse.ErrShape, arrowsparse.ErrBufferSize, arrowsparse.ErrOverflow, …),
// arrow.ErrIndex (arrowsparse.ErrOutOfRange) or arrow.ErrType
// (arrowsparse.ErrUnsupportedType). Accessors given a wrong rank, an index outside
// the shape or the wrong Go type panic with an arrowsparse.PanicError, as slice
// indexing does.
//
// # Concurrency
//
// A Tensor may be read by any number of goroutines. Canonicalize runs on as
// many goroutines as GOMAXPROCS unless CanonOptions.Workers says otherwise;
// its result does not depend on the number of workers.
package coo
