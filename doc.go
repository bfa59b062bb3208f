// Package arrowsparse is the shared vocabulary of a library that makes sparse
// tensors first-class in the Apache Arrow ecosystem: the Tensor interface that
// every format implements, the value and index types Arrow allows, shape
// arithmetic that checks for overflow, and the error categories.
//
// The formats live in sub-packages: coo (N-d coordinate lists), gcs (CSR and
// CSC matrices, GCS tensors and the DM wrapper), csf (compressed sparse
// fibers), views (dense strided views). ipc reads and writes Arrow IPC Tensor
// and SparseTensor messages byte-compatibly with Arrow C++.
//
// # Types
//
// Containers keep their data types at run time as arrow.DataType values,
// because IPC messages and Arrow arrays hand them over that way. Kernels are
// generic functions instantiated per Go type and chosen once per call, never
// per element. Value holds the Go types of tensor values (the Arrow tensor
// types, float16 as float16.Num); Index holds the Go types of sparse indices
// (int8…int64 and uint8…uint32; uint64 is rejected as in Arrow C++).
// AsSlice gives zero-copy typed access to a buffer, checking its size and
// alignment.
//
// # Shapes
//
// Shapes are []int64. A dimension may not be negative. A sparse tensor's
// shape may describe more than 2^63-1 elements (a hypersparse tensor); a
// dense tensor's may not, and NumElements reports the overflow. Strides in
// this package are counted in elements; packages that deal in bytes (ipc,
// views at the Arrow boundary) say so in every name.
//
// # Ownership
//
// Memory is Arrow memory: *memory.Buffer from a memory.Allocator, reference
// counted. Constructors retain what they store and Release frees it when the
// count reaches zero. A slice returned by AsSlice aliases the buffer: it is
// valid while the buffer is alive. HugePageAllocator is an allocator for
// large, long-lived operands: it backs allocations of 4 MiB and more with
// transparent huge pages and those from 1 MiB with mappings of ordinary
// pages, which only Release frees. Kernels that overwrite
// every byte of a result take its memory uncleared from an allocator that
// implements UninitializedAllocator, as HugePageAllocator does.
//
// # Errors
//
// Input from outside (bytes, files, user slices and shapes, metadata) never
// causes a panic: it yields an *Error whose category is one of the sentinels
// (ErrShape, ErrOverflow, ErrBufferSize, ErrAlignment, ErrStructure,
// ErrNotCanonical, ErrReadOnly, ErrOutOfRange, ErrSyntax, ErrUnsupportedType). Each
// sentinel wraps arrow.ErrInvalid, arrow.ErrIndex or arrow.ErrType, so
// errors.Is works with either. Misuse in code, such as an index outside the
// shape passed to At, panics with a PanicError, as a slice index does.
package arrowsparse
