// Package views provides zero-copy dense views over Arrow memory: strided
// views with NumPy's indexing algebra, and remapped views for the rotations,
// tilings and index-list selections that strides cannot express.
//
// # Layout
//
// A View is a data type, a retained *memory.Buffer, an element offset, a
// shape and signed strides. The element with index idx is element number
//
//	Offset(idx) = offset + Σ idx[k]·strides[k]
//
// of the buffer (the strided storage of Peterson's "Gentle introduction to
// GCS", 2020). Offsets and strides count elements of the data type, never
// bytes: ElemOffset and ElemStrides say so in their names, and ByteOffset
// and ByteStrides convert at the Arrow boundary, where strides are bytes
// (Tensor.fbs, arrow-go's tensor package). Strides may be negative (a
// flipped axis) or zero (a broadcast axis).
//
// The strides of axes of length 1 are normalised to the value a row-major
// layout would give them, and the strides of an empty view to row-major
// strides, so that the strides tell the truth about the memory layout (as
// the NuMojo "NDArray view" proposal asks). IsCContiguous and IsFContiguous
// ignore axes of length 1, as NumPy's flags do.
//
// # Remapped axes
//
// Rotate, Tile and Select return a *Remapped: a view in which an axis k may
// carry an index map p_k from its logical index to a physical index, so that
//
//	Offset(idx) = offset + Σ p_k(idx[k])·strides[k]
//
// Each map has the form
//
//	x = ((a + i·b) mod m)·c + d    (or x = a + i·b when there is no modulus)
//	p = table[x]                   (or p = x when there is no table)
//
// A rotation by s of an axis of length n is the modulus n with a = −s mod n
// (the per-axis offsets of dtype-next's index algebra, which wrap modulo
// the axis length). A tile
// that repeats an axis of length n is the modulus n over a longer logical
// axis (dtype-next's max-shape). A selection by an index list is a table of
// physical indices, checked once and then immutable; views derived from it
// share it, and SelectArray can use an Arrow int64 array's values in place.
// Slicing, flipping, transposing, indexing, broadcasting and further
// rotations compose with the maps in O(1) per axis, except that rotating or
// tiling a strict sub-range of a rotated or tiled axis materialises that
// axis's map into a table of its length. Maps simplify as they go: an axis
// whose map has become affine folds back into the offset and stride, and a
// *Remapped whose maps have all cancelled reports IsStrided and converts to
// a *View with AsView.
//
// *Remapped implements arrowsparse.Tensor but not arrowsparse.Dense, whose
// contract is plain strided addressing: code that reads ElemOffset and
// ElemStrides cannot be handed a remapped view by mistake. At, Set, All,
// Elements, Locate, Offset, Copy, CopyTo and ToDense honour the maps; plain
// strided views pay nothing for them.
//
// # Operations
//
// Every operation returns a new view of the same buffer and never modifies
// its receiver; none copies elements. Each takes O(ndim) time and, for
// views of rank ≤ 8, makes exactly one allocation (shape, strides, names and
// maps live in the view's own allocation), whatever the size of the data:
//
//	Slice(ranges...)     start:stop:step per axis, NumPy semantics (Range)
//	Index(axis, i)       integer indexing, dropping the axis
//	Transpose(perm...)   any axis permutation; T() reverses the axes
//	Flip(axis)           reverse an axis (a negative stride)
//	ExpandDims(axis)     insert an axis of length 1 (np.newaxis)
//	Squeeze(axes...)     drop axes of length 1
//	BroadcastTo(shape)   NumPy broadcast_to, stride 0, read-only
//	Tile(reps...)        numpy.tile: repeat each axis reps[k] times, read-only
//	Reshape(shape...)    a view when the strides allow it, else an error
//	Rotate(axis, shift)  numpy.roll as a view
//	Select(axis, list)   index-list selection (dtype-next's indexed reader)
//	Locate(pos)          the inverse map: buffer position → index, or false
//
// Select and SelectArray also read their index list once, to check it;
// Select copies it into a table (a second allocation). ReshapeCopy, Copy,
// CopyTo and ToDense copy elements.
//
// Copy picks the fastest path the layout allows: one memmove for a
// contiguous view, one memmove per row when the last axis has stride 1
// (after merging axes that are contiguous with each other), a cache-blocked
// transpose when another axis has stride 1 (a transposed matrix, or a batch
// of them), and a strided gather otherwise. On amd64, transposes of planes
// over 1 MiB with 8-byte elements write through a small assembly kernel with
// non-temporal stores (the purego build tag selects the pure-Go kernel).
// CopyOptions.Workers splits copies of 4 MiB and more among goroutines (0:
// every core).
//
// # Arrow interop
//
// FromArray, FromArrayData and FromFixedSizeList view the values of
// primitive arrays (1-d) and of FixedSizeList arrays (2-d, or N-d when
// nested), respecting every level's offset. A column of Arrow's
// fixed_shape_tensor extension type (one flat FixedSizeList per row, see
// package arrowext) is viewed as its rows' logical tensors stacked along a
// first axis: the type describes itself through FixedShapeLayout, and its
// permutation becomes strides. FromArrowBuffer is the read-only
// constructor for code that reads other Arrow layouts itself. A dense view
// has no validity bitmap, so nulls in the viewed range are an error.
//
// FromArrowTensor and ToArrowTensor convert to and from arrow-go's
// tensor.Interface without copying, turning byte strides into element
// strides and back; Arrow tensors need non-negative strides, so a flipped
// view must be copied first, and arrow-go has no float16 tensor.
//
// # Ownership
//
// A view retains its buffer, and the Arrow buffer of an index table taken
// from an array; Release releases them when the view's count reaches zero.
// Views derived from a view retain the same buffer, so the parent may be
// released first. Every function and method that returns a view, a tensor
// or a buffer says that the caller must release it. Values, Buffer and the
// slices yielded by All share memory with the view: the view must outlive
// them or be retained.
//
// # Aliasing
//
// Views share their buffer: a write through one is visible through every
// other view of the same memory, including arrow-go tensors made by
// ToArrowTensor. A view is read-only when a write through it would surprise:
// views of Arrow arrays and tensors (which are immutable), views in which two
// indices reach one element (broadcasts, tiles, selections with a repeated
// index), views made with AsReadOnly, and views derived from any of these.
// Set returns an error through a read-only view; Values bypasses the flag.
// New accepts self-overlapping strides other than 0 without marking the view
// read-only, as numpy.lib.stride_tricks.as_strided does. CopyTo handles a
// destination that overlaps its source by copying through a temporary.
//
// # Errors
//
// Constructors check that every element a view can reach lies inside its
// buffer (for FromArrowTensor, inside the tensor's data) and that no address
// arithmetic overflows; operations check their arguments. Bad input (out-of-
// range indices or axes, a zero step, a bad permutation, a rank mismatch,
// incompatible broadcast shapes, a write through a read-only view, a buffer
// too small for the view, an unsupported type) returns an error wrapping
// arrow.ErrInvalid, arrow.ErrIndex or arrow.ErrType, through the categories
// of the arrowsparse package; it never panics. Slicing clamps out-of-range
// bounds, as NumPy does.
//
// After those checks, element access needs no check beyond the index
// range: At, Set and Offset with an index outside the shape, or with the
// wrong number of indices, panic with an arrowsparse.PanicError, as a slice
// index out of range does, and so do At, Set, All and Elements with a Go
// type that is not the view's data type (Values returns an error instead,
// as the sparse formats' Values do).
//
// # Concurrency
//
// A view's shape, strides and maps never change after it is made, so any
// number of goroutines may read a view, derive views from it, copy it and
// Retain or Release it at the same time. Writes through writable views
// (Set, CopyTo, the slice of Values) are not synchronised: like writes to a slice, they
// must not race with other accesses to the same elements.
package views
