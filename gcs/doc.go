// Package gcs holds the compressed sparse formats over Arrow buffers.
//
// Which type do I want?
//
//   - A sparse matrix, as scipy's csr_matrix or csc_matrix: Matrix (CSR or
//     CSC). MatrixFromCOO and MatrixFromDense build one; NewCSR and NewCSC
//     adopt existing buffers; MulVec (by a vector), MulDense (by a dense
//     matrix) and MulMatrix (by a sparse matrix) multiply. Element-wise
//     arithmetic and reductions are in package compute.
//   - A sparse tensor of any rank stored as a compressed matrix, as
//     pydata/sparse's GCXS: Tensor (GCS). FromCOO and FromDense build one.
//   - Copy-free slicing, indexing and axis permutation of any tensor (dense,
//     COO, CSR/CSC, GCS): DM, from NewDM or Tensor.DM.
//
// # Layout
//
// A Matrix is Arrow's SparseMatrixIndexCSX: three buffers, indptr, indices
// and values. Its compressed axis (Axis: Rows for CSR, Cols for CSC, the
// values of Arrow's compressedAxis enum) is cut into lanes: lane k (row k
// of a CSR, column k of a CSC) holds the entries indptr[k] ≤ p <
// indptr[k+1], and indices[p] is the entry's column (CSR) or row (CSC).
// indptr has Lanes()+1 entries, starts at 0, never decreases and ends at
// NNZ().
//
// The pointer and index arrays may have different types, any of
// int8…int64 and uint8…uint32, and need to hold only the values they hold
// (as in Arrow C++); values may have any Arrow tensor type, float16
// included. Buffers built elsewhere (SciPy's int32 arrays, an IPC body) are
// adopted as they are by New, NewCSR and NewCSC: no copy, no widening.
// Conversions choose their output index types as their documentation says;
// ConvertOptions.IndexType and ConvertOptions.IndptrType override the
// choice.
//
// A matrix is sorted when the indices increase within every lane
// (duplicates adjacent), and canonical when they strictly increase. Both
// flags are computed when the matrix is built, never taken on trust
// (except under WithTrusted, which says what it skips). MatrixFromCOO,
// MatrixFromDense and FromCOO produce canonical matrices, combining
// duplicates under ConvertOptions.Duplicates (summed by default, as scipy,
// pydata/sparse and PyTorch do); the physical transposes ToCSC and ToCSR
// produce sorted matrices and keep duplicates. T is the transpose without
// a copy: a CSR read as the CSC of its transpose, and back.
//
// # Mapping
//
// A GCS Tensor (Peterson, "Gentle introduction to GCS", 2020) maps each
// N-d index onto a (row, column) of a reduced matrix and stores that matrix
// in a Matrix. Its Mapping is a permutation dims of the axes and a
// partitioning p: the axes dims[:p] are the row dimensions and dims[p:] the
// column dimensions, each group linearised in C order:
//
//	row = Σ_i idx[dims[i]]·Π_{i<k<p} shape[dims[k]]           (i < p)
//	col = Σ_j idx[dims[j]]·Π_{j<k<N} shape[dims[k]]           (p ≤ j < N)
//	idx[dims[i]] = row / Π_{i<k<p} shape[dims[k]] mod shape[dims[i]]
//
// and likewise for the columns; the reduced matrix has Π shape[dims[:p]]
// rows and Π shape[dims[p:]] columns, so a canonical CSR storage holds the
// entries in lexicographic order of their indices permuted by dims. The
// introduction takes 0 < p < N; p = 0 and p = N are accepted too (one row
// or one column), so that 0-d and 1-d tensors have a mapping. A 2-d tensor
// with dims (0, 1) and p = 1 is its own reduced matrix: FromMatrix and
// AsMatrix convert without copying.
//
// pydata/sparse's GCXS(compressed_axes=c) is the mapping with dims = c
// followed by the other axes in increasing order and p = len(c), over a
// CSR storage whose indptr, indices and data are GCXS's (FromCompressedAxes
// and Mapping.CompressedAxes convert). The zero ConvertOptions.Mapping is
// compressed_axes=[0]: for a matrix, CSR.
//
// Tensor.Transpose never copies: it relabels dims so that every element
// keeps its (row, column). Tensor.Remap, pydata's change_compressed_axes,
// sorts only when the new mapping needs it: the swapped mapping
// (dims[p:] ++ dims[:p], N-p) is Matrix.T; a mapping whose linear order is
// the storage's order reuses the order and the values buffer and recomputes
// indptr and indices in one pass; anything else is a parallel radix sort.
//
// # DM
//
// A DM (Peterson, "Proposal of the DM storage format for PyTorch", 2021)
// wraps a storage tensor of rank m+1 in any format (a dense strided view,
// COO, CSR or CSC, a GCS tensor, another DM) with a wrapper shape, dims and
// a partitioning of m positions: storage dimension k is the C-order
// linearisation of the wrapper axes of group k, so that a DM of two groups
// over a Matrix is a GCS tensor. Each storage dimension keeps its axes as
// factors (size, stride, and an affine map start + step·x of the wrapper
// index), from which the proposal's rdimensions, rstrides and roffset
// follow (Reduction):
//
//	storage index k = roffset[k] + Σ_i rstrides[k][i]·idx[rdimensions[k][i]]
//
// Slice (start:stop:step, Python semantics), Index (an integer index, which
// turns an axis into a fixed offset), Transpose and SwapAxes change only
// these parameters: the storage is shared and never read. Reading inverts
// the map and visits exactly the elements of the slice: over a CSR or CSC
// only the lanes the slice reaches, binary-searching sorted lanes; over a
// canonical COO the range of the first storage dimension; over dense
// storage a strided view. At is O(log) on compressed and canonical COO
// storage. ToDense, ToCOO, ToGCS and ToMatrix materialise explicitly.
//
// # Ownership
//
// New, NewCSR, NewCSC, NewTensor, FromMatrix and NewDM share what they are
// given (buffers or tensors) without copying and retain it; the caller
// keeps its own references. Constructors keep exactly the bytes of a buffer
// that the matrix uses: trailing bytes (IPC pads buffers) are never read
// later. Everything that allocates takes a memory.Allocator first. Every
// returned *Matrix, *Tensor, *DM, COO tensor or view must be released by
// the caller; so must T's result. Operations that change nothing (ToCSR of
// a CSR, Remap to the same mapping, WithStorage to the same axis) return
// the receiver itself, retained.
//
// # Aliasing
//
// Tensors are immutable, so derived tensors share buffers freely: T,
// AsMatrix and FromMatrix share all three buffers; Tensor.Transpose,
// Tensor.DM and every DM operation share the storage; ToCOO of a Matrix or
// Tensor and the reuse paths of Remap share the values buffer. Lane,
// Indptr, Indices, Values and the buffer accessors return memory that
// aliases the tensor: valid while it is alive, and never to be modified.
// Row and Col return new slices. The index slices yielded by All are reused
// between iterations.
//
// # Errors
//
// Input from outside (buffers, slices, shapes, mappings, index types)
// never causes a panic: constructors and conversions return errors
// wrapping arrow.ErrInvalid (arrowsparse.ErrShape, ErrOverflow,
// ErrBufferSize, ErrAlignment, ErrStructure, ErrNotCanonical),
// arrow.ErrIndex (ErrOutOfRange) or arrow.ErrType (ErrUnsupportedType):
// dims that are not a permutation, an indptr that decreases or has the
// wrong ends, an index outside the shape, buffers too short, a shape whose
// products overflow int64, or an output (a dense copy, the index pointers
// of a hypersparse shape) larger than the machine's memory. Accessors
// given a wrong rank, an index outside the shape or the wrong Go type (At,
// All, Lane, Row, Col, Mapping.ToRowCol) panic with an
// arrowsparse.PanicError, as slice indexing does.
//
// # Products
//
// The kernels take the destination (MulVec) or the allocator first, then
// the operands, then KernelOptions; for a transposed operand pass m.T(),
// which shares m's buffers and must be released.
//
// MulVec of a CSR computes each output element as one sequential dot
// product, scipy's order of summation. On amd64, float32 and float64
// matrices with int32 or int64 pointers and indices run an assembly
// kernel (generated by gen_asm.go) that differs from the Go one only in
// its prefetches: it prefetches the value and index streams
// non-temporally, so that they pass by the L2 cache and leave it to x,
// and prefetches x a few entries ahead. On a matrix whose columns are
// spread at random (the bench workload a, 1M×1M) the gathers from x, which
// miss the L2 cache, take most of the time, and this makes the product
// about 15 % faster; the results are the same bits, with or without
// assembly (the products are rounded before they are added, never fused).
// The purego build tag, or another architecture, keeps the Go kernel.
//
// MulMatrix is Gustavson's algorithm by rows of the CSR product. A row of
// A with few entries merges the sorted rows of B that it scales (a heap of
// cursors, columns coming out in order); a longer row accumulates in a
// dense array of B's columns (a hash table when B is very wide) and sorts
// its columns (by radix, 8 bits a pass, from 256 columns). The rows of B
// are read in random order: on amd64 each worker prefetches the rows that
// the row of C two ahead needs (and their index pointers four ahead),
// which made the product on the bench workload a quarter faster. The
// result is allocated once: at the number of multiplications when they
// are at most four times the operands' entries, else at the exact size
// counted by a symbolic pass.
//
// # Concurrency
//
// A Matrix, Tensor or DM may be read by any number of goroutines. The
// conversions that sort (MatrixFromCOO, FromCOO, Remap) run a parallel
// radix sort, and the physical transposes (ToCSC, ToCSR) a parallel
// two-level counting sort, on ConvertOptions.Workers goroutines (0 means
// GOMAXPROCS); MulVec, MulDense and MulMatrix take KernelOptions.Workers
// and split the lanes into runs of equal numbers of values (of
// multiplications, for MulMatrix). Results do not depend on the number of
// workers, except for the last bits of the floating-point sums of a CSC's
// products in MulVec and MulDense, which add one partial vector per
// worker.
package gcs
