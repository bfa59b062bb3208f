// Package compute holds the operations that work across the sparse formats
// of this module: element-wise arithmetic on two tensors, unary functions
// and scalars of the stored values, casts, and reductions over any axes.
// The products of a sparse matrix live with the matrix, in package gcs:
// gcs.MulVec (SpMV), gcs.MulDense (SpMM) and gcs.MulMatrix (SpGEMM).
//
//	sum, err := compute.Add(mem, a, b, compute.Options{})      // a + b
//	rows, err := compute.Sum(mem, m, []int{1}, compute.ReduceOptions{})
//	c, err := gcs.MulMatrix(mem, a, b, gcs.KernelOptions{})   // a·b
//
// Every function takes the allocator first, then its operands, then an
// options struct whose zero value is the default, and returns a tensor
// that must be released by the caller.
//
// # Formats
//
// Operands may be in any format of the module: *coo.Tensor, *gcs.Matrix
// (CSR or CSC), *gcs.Tensor (GCS), *csf.Tensor, *gcs.DM, or a dense
// tensor (*views.View or any arrowsparse.Dense), in any mix. The result of
// an element-wise operation has the first operand's format and order
// (Options.Format names another): a CSC stays CSC, a GCS tensor keeps its
// mapping and storage axis, a CSF tensor its axis order. An operand in that
// format and order whose entries are sorted is used as it is, so canonical
// operands merge in one pass without a sort: lane by lane for CSR, CSC and
// GCS (whose storage matrices merge), in the order of the coordinates for
// COO and CSF. Any other operand is converted first, with the conversions
// of its package (a physical transpose for a matrix along the other axis,
// a remap for a GCS tensor of another mapping, a radix sort otherwise).
// Unary functions keep their operand's format. A DM operand or a remapped
// view is materialised (ToCOO, ToDense).
//
// Results are canonical: sorted in their format's order without
// duplicates. Duplicates in an operand are summed first (they add up to
// one element, as everywhere in this module), so that the operations see
// the elements, not the stored entries; AsType is the exception and
// converts stored entries one by one, as scipy's astype does.
//
// # Zeros
//
// A sparse result stores no zero unless Options.KeepZeros (or
// ReduceOptions.KeepZeros): explicit zeros of the operands and results that
// come out as zero (x − x, an underflow, Scale by 0) are dropped, as scipy
// does. Negative zero is zero; NaN is not. Minimum and Maximum treat the
// implicit zeros as values: the minimum of a stored 3 and an implicit zero
// is 0, and of a stored −3 is −3.
//
// # Types
//
// Element-wise operands must have the same value type (AsType converts
// one); the result has it too. Integer arithmetic wraps around as Go's
// does (int8 127 + 1 is −128, uint8 0 − 1 is 255, and so on for products,
// negation and sums), never failing and never widening, except in the
// reductions, which follow NumPy's types (see Sum). float16 values are
// computed in float32 and rounded to float16 once per operation, which
// gives the correctly rounded float16 result of +, −, × and of min and
// max; Minimum and Maximum propagate NaN, as NumPy's minimum and maximum
// do. Index types of a result are the wider of the operands' (holding
// what either held) unless Options.IndexType and IndptrType name others;
// index pointers are widened when the number of entries needs it.
//
// # Reductions
//
// Sum, Prod, Min, Max, Count and Mean reduce over a set of axes with
// NumPy's axis semantics: nil means every axis (axis=None), a non-nil
// slice the listed axes (an empty one none), negative axes count from the
// end, and an axis given twice or outside the rank is an error. The
// implicit zeros take part, as in pydata/sparse: the product over a fiber
// that is not fully stored is 0, and its minimum is at most 0; Mean divides
// by the number of elements, stored or not. A reduction over an axis of
// length 0 gives 0 (Sum, Count), 1 (Prod) or NaN (Mean), and fails for Min
// and Max, as in NumPy. The result is a dense *views.View or a canonical
// sparse tensor (ReduceOptions.Format); by default a view when it has at
// most as many elements as the operand has stored values (a scalar is a
// 0-d view), and a *coo.Tensor otherwise, holding the results that are
// not zero.
//
// A reduction computes for each stored entry the key of its result element
// (its row-major position in the result), sorts the keys with their values
// by a parallel LSD radix sort (none when the storage order already groups
// them, as for trailing axes of a canonical COO tensor or the columns of a
// CSR matrix) and reduces the runs of equal keys in storage order; a dense
// result is accumulated directly. Results whose element count exceeds
// int64 (hypersparse shapes) are grouped by the ranks of their result
// coordinates, found by the sparse formats' radix sort (keysort.Carry) on
// keys of one 64-bit word per part of the result's axes.
//
// # Ownership
//
// Every returned tensor must be released by the caller. Results may share
// buffers with the operands, which are immutable: the unary functions and
// AsType share the index buffers of the operand (or of its canonical
// form) unless zeros are dropped, and an element-wise operation on two
// matrices with the same pattern (such as a matrix and a scaled copy of
// it) shares the first operand's index buffers. An operation that changes nothing still returns
// a new reference (EliminateZeros of a tensor without zeros returns the
// operand itself, retained).
//
// # Errors
//
// Operands of different shapes, axes that are not axes of the operand, a
// result format that cannot hold the result (CSR for a 3-d result, CSF
// for a 1-d one) are errors wrapping arrowsparse.ErrShape; different value
// types, an unsupported type or index type, or a Go type that is not the
// operand's (Scale, Map) wrap arrowsparse.ErrUnsupportedType
// (arrow.ErrType); a cast that would change a value wraps
// arrowsparse.ErrOutOfRange (arrow.ErrIndex); a result too large for the
// machine wraps arrowsparse.ErrOverflow. Errors of the conversions an
// operand needs are passed on. No input makes a function panic, and every
// allocation is bounded by the operands' sizes or, for dense results and
// for the index pointers of CSR, CSC and GCS operands and results (one
// entry per lane, as many as the compressed axes' extents multiply to),
// by the shape, each buffer after a check against the machine's memory.
// Those checks are per buffer: an operation that converts two operands of
// a hypersparse shape to GCS holds three such arrays at once, so keep
// hypersparse tensors in COO or CSF, whose sizes depend on their entries
// alone.
//
// # Concurrency
//
// Functions may be called from any number of goroutines. Each runs its
// kernels on up to Options.Workers goroutines (0: GOMAXPROCS), splitting
// lanes, entries or sorted runs among them; results do not depend on the
// number of workers, bit for bit. Map's function runs on those goroutines
// and must be safe for concurrent use. A merge of matrices writes each
// run of lanes, in one pass, into room sized for the union of its lanes
// (for a product, the intersection); the runs go in pairs that meet, the
// first filling its room backwards, so that on two workers no gap is left
// to close. Result buffers come uncleared from an allocator that
// implements arrowsparse.UninitializedAllocator.
package compute
