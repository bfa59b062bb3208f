// Package csf holds sparse tensors in compressed sparse fiber (CSF) format
// over Arrow buffers: the layout of Arrow's SparseCSFIndex, with
// conversions from and to COO and dense tensors, tree-order iteration,
// point lookup, zero-copy sub-tensors, and the two kernels CSF exists for,
// tensor-times-vector (TTV) and MTTKRP (Smith and Karypis, "Tensor-matrix
// products with a compressed sparse tensor", 2015; SPLATT).
//
// # Layout
//
// A CSF tensor stores the sorted set of its coordinate tuples as a trie. The
// axis order, a permutation of the dimensions, says which dimension each
// level of the trie holds: level l holds dimension AxisOrder()[l]. The
// values are sorted by their coordinates taken in axis order (tree order).
//
// Each level l has an indices buffer with one coordinate per node, along
// dimension AxisOrder()[l]. Every level but the last also has an indptr
// buffer with one more entry than it has nodes: the children of node i are
// nodes indptr[i] to indptr[i+1]-1 of the next level. The last level has
// one node per stored value, in the order of the values buffer. So a
// tensor of rank n has n indices buffers, n-1 indptr buffers and a values
// buffer, as Arrow C++ and the IPC format have it; every indptr starts at
// 0 and ends at the next level's length, and the children of a node have
// strictly increasing indices.
//
// The 2×3×2 int32 tensor with (0,0,1)=10, (0,2,0)=20, (0,2,1)=30 and
// (1,1,0)=40 has Arrow C++'s default axis order, the argsort of the shape
// [2 3 2], which is [0 2 1]. In tree order its values are (i,k,j) =
// (0,0,2):20, (0,1,0):10, (0,1,2):30, (1,0,1):40, and its levels are
//
//	level 0 (dim 0)  indices [0 1]       indptr [0 2 3]
//	level 1 (dim 2)  indices [0 1 0]     indptr [0 1 3 4]
//	level 2 (dim 1)  indices [2 0 2 1]
//	values           [20 10 30 40]
//
// Every level may have its own index types, for indices and for indptr,
// among the Arrow sparse index types (int8…int64, uint8…uint32): a level
// holding a dimension of size 200 can use uint8 indices while the level
// below it needs int32 positions. The IPC format has one indptr type and
// one indices type for all levels; ConvertOptions.IndexType gives that,
// and WithIndexTypes converts a tensor to it. MTTKRP
// reads int32 and int64 buffers in place and widens other types into
// temporary copies for the duration of a call; everything else reads every
// type in place.
//
// A CSF tensor has at least 2 dimensions, as in Arrow. Each value costs one
// index and each node of an upper level an index and an indptr entry, so
// the index is smaller than a COO index of the same type (NumDims × NNZ
// coordinates) when the upper levels compress, that is when the values
// share prefixes, and up to about twice as large when they do not.
// IndexBytes reports it.
//
// # Construction
//
// New adopts existing buffers, such as those of an IPC message, without
// copying and checks them (see Validate). FromCOO sorts COO entries in any
// order and combines duplicates (summing by default); FromDense takes the
// non-zero elements of a dense tensor with any strides. Both use the axis
// order of ConvertOptions, or Arrow C++'s default: the dimensions by increasing
// size, ties in dimension order (C++ uses an unstable std::sort here;
// libstdc++ keeps ties in order for the small ranks of tensors).
// WithAxisOrder rebuilds a tensor in another order; ToCOO and ToDense
// convert back.
//
// FromCOO sorts keys, the linear index in axis order, with the radix sort
// of internal/keysort, reduces duplicates as sorted groups come out, and
// builds the levels in two streaming passes that run in parallel over
// chunks of the sorted keys: one counts the nodes each chunk starts on each
// level, one writes them. When the linear indices of a hypersparse shape
// do not fit in 64 bits, the levels are cut into parts whose indices do,
// and the keys have one word per part; the same radix sort orders them
// (FROSTT's delicious-4d, about 2^75 elements, sorts in two words at about
// twice the time per entry of a one-word key).
//
// # Ownership
//
// New retains the buffers it adopts; the caller keeps its own references.
// FromCOO, FromDense, WithAxisOrder, WithIndexTypes, Compact, ToCOO,
// ToDense, TTV and TTVDense allocate from the given memory.Allocator. Every returned *Tensor (and
// every other returned tensor) must be released by the caller. Operations
// that return the receiver unchanged (WithAxisOrder to the current order,
// Compact of a compact tensor, Sub with no coordinates) return it
// retained. ToCOO and WithIndexTypes share the values buffer with their
// result (WithIndexTypes also shares the levels it need not convert),
// FromCOO shares
// the values buffer of a canonical COO tensor converted in the axis order
// 0, 1, …, and TTV along the last level shares the upper levels.
//
// # Aliasing
//
// Sub fixes the leading coordinates (in axis order) and returns the
// subtree below them as a tensor of lower rank over the same buffers: each
// of its levels is a range of nodes of the parent's level. It copies
// nothing and retains the buffers, so it may outlive the parent. Its
// indptr entries are positions in the shared buffers, so they start at
// the first node of the next level rather than at 0; Indptr documents how
// to read them, and Compact returns a tensor whose levels start at 0, as
// Arrow and IPC need (IsCompact says whether that is already so).
//
// Indices, Indptr, Values and Fiber return slices that alias the buffers:
// they are valid while the tensor is alive and must not be modified,
// because tensors are immutable and share buffers.
//
// # Errors
//
// Constructors check types, the shape, the axis order, buffer sizes and
// alignment, and the whole structure; failures return errors wrapping
// arrow.ErrInvalid (arrowsparse.ErrShape, arrowsparse.ErrStructure, arrowsparse.ErrBufferSize,
// arrowsparse.ErrAlignment, arrowsparse.ErrOverflow, arrowsparse.ErrNotCanonical), arrow.ErrIndex
// (arrowsparse.ErrOutOfRange) or arrow.ErrType (arrowsparse.ErrUnsupportedType). The WithTrusted
// option skips the O(nnz) checks for data this process wrote; Validate runs
// them later. Kernels return errors for arguments of the wrong shape or
// type. Accessors given a level, rank or coordinate outside the tensor, or
// the wrong Go type where no error is returned, panic with an
// arrowsparse.PanicError, as slice indexing does.
//
// # Concurrency
//
// A Tensor may be read by any number of goroutines. FromCOO, FromDense,
// WithAxisOrder, TTV and MTTKRP run on as many goroutines as GOMAXPROCS
// unless their options say otherwise, and their results do not depend on
// the number. MTTKRP splits its work into pieces that depend on the tensor
// only (root nodes, or chunks of root nodes summed into outputs of their
// own and added in a fixed order), so its output is the same bit for bit
// for any number of workers, and no two goroutines write the same memory.
//
// # Kernels
//
// MTTKRP multiplies the matricized tensor by the Khatri-Rao product of
// dense row-major factor matrices given as plain slices, along any mode:
// bottom-up from the root level, top-down then bottom-up from an inner
// level, top-down to the leaf level. The root mode is the fastest; keep a
// tensor per mode (or WithAxisOrder) for CP-ALS as SPLATT does when that
// matters. On amd64 with AVX, 3-level trees with float64 values and int32
// or int64 indptr and indices run 16 columns at a time in assembly
// (generated by gen_asm.go); it multiplies and adds without fused
// multiply-add, in the order of the Go code, so both give the same bits.
// It runs only on tensors whose contents were checked (not under WithTrusted),
// and build tag purego turns it off.
//
// TTV multiplies by a vector along any mode and returns a CSF tensor of
// rank one less (sharing the upper levels when the mode is the last level);
// TTVDense returns a dense result and also handles matrices.
package csf
