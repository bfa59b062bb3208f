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
// tensor value type, in entry order. Buffers may be longer than needed: a
// tensor keeps exactly the bytes it uses, so nothing later reads the rest.
// The index type needs to hold only the coordinates stored, as in Arrow
// C++, not every coordinate of the shape.
//
// A tensor is canonical when its entries are sorted in row-major order of
// their coordinates (the first coordinate most significant) with no two
// entries at the same coordinates. The flag is computed when the tensor is
// built, never taken on trust (except under the WithTrusted option, which
// says what it skips). Canonicalize sorts and sums duplicates, as scipy,
// pydata/sparse and PyTorch do; ConvertOptions.Duplicates chooses another
// policy by name (arrowsparse.KeepLast is what Arrow C++'s densify does).
//
// # Options
//
// Conversions take a ConvertOptions whose zero value is the default:
// Duplicates (summed), Workers (0: every core) and IndexType (nil: the
// function's documented choice). The same fields, with the same meanings,
// are in gcs.ConvertOptions and csf.ConvertOptions. Constructors over
// existing buffers take functional options (WithDimNames,
// WithCanonicalClaim, WithTrusted).
//
// # Tables
//
// ToRecord and FromRecord convert between a tensor and a record batch with
// one column per dimension and a value column, keeping the shape and the
// dim names in the schema metadata (TableMetadataKey). A tensor of any size
// travels as a table of bounded batches: ToRecords cuts it into record
// batches of at most a given number of entries (slices of one table, no
// copy for a column-major tensor), which an IPC file writer or a Parquet
// writer takes one by one; FromRecordReader and FromTable read every batch
// of a reader or table into one tensor, batch by batch. DuckDB, pyarrow and
// pandas read such files as ordinary tables ("SELECT user, sum(value) ...
// GROUP BY user").
//
// # Ownership
//
// New adopts existing buffers without copying and retains them; FromSlices,
// FromDense, FromRecord, FromRecordReader, FromTable and the Builder allocate from the given
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
// arrow.ErrInvalid (arrowsparse.ErrShape, ErrBufferSize, ErrOverflow, …),
// arrow.ErrIndex (arrowsparse.ErrOutOfRange) or arrow.ErrType
// (arrowsparse.ErrUnsupportedType). A tensor a constructor accepted never
// makes a later operation panic or allocate beyond what its data and the
// output need. Accessors given a wrong rank, an index outside the shape or
// the wrong Go type (At, All) panic with an arrowsparse.PanicError, as
// slice indexing does; Coords and Values return an error for a wrong Go
// type.
//
// # Concurrency
//
// A Tensor may be read by any number of goroutines. Canonicalize runs on as
// many goroutines as GOMAXPROCS unless ConvertOptions.Workers says
// otherwise; its result does not depend on the number of workers. It is a
// parallel radix sort for every shape and size (see Canonicalize for its
// memory), shapes of 2^64 elements or more included.
package coo
