package views

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// This file holds the typed entry points of the view operations: each
// method of *View and *Remapped checks nothing itself and calls the shared
// implementation on viewBase (ops.go). Every operation makes a new view of the
// receiver's buffer, copies no elements, does not modify the receiver, takes
// O(ndim) time and, for views of rank ≤ 8, makes one allocation; Select,
// SelectArray, Rotate and Tile document their exceptions. The new view
// retains the buffer and must be released by the caller; the receiver may
// be released independently.

// Slice returns the view of the elements selected by one Range per axis,
// with NumPy's basic slicing semantics (see Range). Missing trailing ranges
// select whole axes. More ranges than axes is an error wrapping
// arrow.ErrInvalid, and a Step of 0 one wrapping arrow.ErrIndex; bounds
// outside an axis are clamped, as in NumPy. The rank is unchanged; use Index
// to drop an axis.
//
// Slicing adds start·stride to the element offset and multiplies each
// element stride by its step (the NuMojo view proposal: a[1:6:2, 2:8:2] of a 6×8 row-major
// array has element offset 10 and element strides (16, 2)).
// The returned view must be released by the caller.
func (v *View) Slice(ranges ...Range) (*View, error) {
	c, err := v.slice(ranges)
	return asView(c), err
}

// Index returns the view of the elements whose index on axis is i, with
// that axis removed: NumPy's a[..., i, ...] (the NuMojo view proposal: a[1] of a 6×8
// row-major array has shape (8) and element offset 8). A negative axis or i
// counts from the end. An axis or index out of range is an error wrapping
// arrow.ErrIndex. The returned view must be released by the caller.
func (v *View) Index(axis int, i int64) (*View, error) {
	c, err := v.index(axis, i)
	return asView(c), err
}

// Transpose returns the view with its axes permuted: axis k of the result
// is axis perm[k] of the receiver, and so are its stride and name. With no
// arguments it reverses the axes, as NumPy's transpose does. A perm that is
// not a permutation of 0..ndim-1 is an error wrapping arrow.ErrInvalid. The
// returned view must be released by the caller.
func (v *View) Transpose(perm ...int) (*View, error) {
	c, err := v.transpose(perm)
	return asView(c), err
}

// T returns the view with its axes reversed: the transpose of a matrix. It
// cannot fail. The returned view must be released by the caller.
func (v *View) T() *View { return asView(v.t()) }

// Flip returns the view with the order of the elements along axis reversed:
// Slice with Range{None, None, -1} on that axis, which negates the stride. A
// negative axis counts from the end; an axis out of range is an error
// wrapping arrow.ErrIndex. The returned view must be released by the
// caller.
func (v *View) Flip(axis int) (*View, error) {
	c, err := v.flip(axis)
	return asView(c), err
}

// ExpandDims returns the view with a new axis of length 1 inserted at
// position axis, in [-ndim-1, ndim]: NumPy's expand_dims, or np.newaxis in
// an index. An axis out of range is an error wrapping arrow.ErrIndex. The
// returned view must be released by the caller.
func (v *View) ExpandDims(axis int) (*View, error) {
	c, err := v.expandDims(axis)
	return asView(c), err
}

// Squeeze returns the view without the given axes, which must have length
// 1, or without every axis of length 1 when none is given. An axis out of
// range is an error wrapping arrow.ErrIndex; a repeated axis or one longer
// than 1 is an error wrapping arrow.ErrInvalid. The returned view must be
// released by the caller.
func (v *View) Squeeze(axes ...int) (*View, error) {
	c, err := v.squeeze(axes)
	return asView(c), err
}

// BroadcastTo returns a read-only view of the given shape, with NumPy's
// broadcast_to semantics: the receiver's shape is aligned with the end of
// shape, each of its axes must have the target length or length 1, and an
// axis of length 1 or a new leading axis repeats its elements with element
// stride 0. A target with fewer axes, an incompatible axis, or a negative or
// overflowing shape is an error wrapping arrow.ErrInvalid. The returned view
// must be released by the caller.
func (v *View) BroadcastTo(shape []int64) (*View, error) {
	c, err := v.broadcast(shape, false)
	return asView(c), err
}

// Tile returns a read-only view that repeats the receiver reps[k] times
// along each axis, as numpy.tile does: if reps has fewer entries than the
// view has axes, it is padded with leading 1s; if it has more, the view
// gains leading axes of length 1 first. Axis k of the result has length
// shape[k]·reps[k], and its index i reads the receiver's index i mod
// shape[k]. This is the broadcast with a max-shape of the dtype-next
// proposal, under which [3 3] tiles to [6 3] (reps [2 1]). A tiled axis is a
// remapped axis whose index wraps modulo its length (see the package doc,
// # Remapped axes). A negative repetition is an error wrapping
// arrowsparse.ErrShape, and a length that overflows int64 one wrapping
// arrowsparse.ErrOverflow. The returned view must be released by the
// caller.
func (v *View) Tile(reps ...int64) (*Remapped, error) {
	var arr [8]int64
	shape, err := tileShape(arr[:], v.shape, reps)
	if err != nil {
		return nil, err
	}
	c, err := v.broadcast(shape, true)
	return asRemapped(c), err
}

// tileShape returns the shape numpy.tile gives a view of the given shape,
// in dst if it is long enough.
func tileShape(dst, shape, reps []int64) ([]int64, error) {
	nd := max(len(shape), len(reps))
	out := dst[:0]
	if cap(out) < nd {
		out = make([]int64, nd)
	}
	out = out[:nd]
	for k := range nd {
		n, r := int64(1), int64(1)
		if j := k - (nd - len(shape)); j >= 0 {
			n = shape[j]
		}
		if j := k - (nd - len(reps)); j >= 0 {
			r = reps[j]
		}
		if r < 0 {
			return nil, core.Errorf(arrowsparse.ErrShape, "views: Tile repetition %d of axis %d is negative", r, k)
		}
		m, ok := core.MulInt64(n, r)
		if !ok {
			return nil, core.Errorf(arrowsparse.ErrOverflow, "views: Tile of axis %d (%d × %d) overflows int64", k, n, r)
		}
		out[k] = m
	}
	return out, nil
}

// Rotate returns the view with the elements along axis rotated by shift,
// as numpy.roll does: element i of the result is element (i − shift) mod n
// of the receiver, so a shift of 1 moves the last element to the front
// (dtype-next: rotating the 3×3 matrix 0..8 by 1 along axis 1 gives the rows
// 2 0 1, 5 3 4, 8 6 7). A negative shift rotates the other way. A negative
// axis counts from the end; an axis out of range is an error wrapping
// arrow.ErrIndex. A rotated axis is a remapped axis whose index wraps modulo
// the axis length (see the package doc, # Remapped axes). The returned view
// must be released by the caller.
func (v *View) Rotate(axis int, shift int64) (*Remapped, error) {
	c, err := v.rotate(axis, shift)
	return asRemapped(c), err
}

// Select returns the view of the elements whose index on axis is one of
// indices, in that order: NumPy's a[..., indices, ...] as a view, and seed
// 002's indexed reader. Indices may repeat and may be negative, counting
// from the end; an index or axis out of range is an error wrapping
// arrow.ErrIndex. A selection with a repeated index is read-only.
//
// Select checks and copies the index list, in O(len(indices)) time, into an
// immutable table that views derived from the result share: it makes two
// allocations (one more, to sort a copy, when the list is not monotonic).
// SelectArray uses an Arrow array's values in place. The returned view must
// be released by the caller.
func (v *View) Select(axis int, indices []int64) (*Remapped, error) {
	c, err := v.selectIdx(axis, indices)
	return asRemapped(c), err
}

// SelectArray is Select with the index list in an Arrow integer array
// (int8…int64 or uint8…uint64) without nulls. As for Arrow's take kernel,
// indices must lie in [0, n): a negative one is an error wrapping
// arrow.ErrIndex, and so is a null, with arrow.ErrInvalid. For an int64
// array on an axis that is not remapped yet, the view reads the array's
// values in place and retains their buffer, so the call makes one
// allocation besides the duplicate check of Select; other arrays are
// copied. The returned view must be released by the caller.
func (v *View) SelectArray(axis int, indices arrow.Array) (*Remapped, error) {
	c, err := v.selectArray(axis, indices)
	return asRemapped(c), err
}

// AsReadOnly returns a read-only view of the same elements: Set through it,
// and through every view derived from it, returns an error. The returned
// view must be released by the caller.
func (v *View) AsReadOnly() *View { return asView(v.asReadOnly()) }

// WithDimNames returns the view with the given dimension names, one per
// axis, or with none when names is empty. A wrong number of names is an
// error wrapping arrow.ErrInvalid. The returned view must be released by
// the caller.
func (v *View) WithDimNames(names ...string) (*View, error) {
	c, err := v.withDimNames(names)
	return asView(c), err
}

// Slice is View.Slice; slicing a remapped axis composes with its map.
// The returned view must be released by the caller.
func (r *Remapped) Slice(ranges ...Range) (*Remapped, error) {
	c, err := r.slice(ranges)
	return asRemapped(c), err
}

// Index is View.Index; indexing a remapped axis removes its map. The
// returned view must be released by the caller.
func (r *Remapped) Index(axis int, i int64) (*Remapped, error) {
	c, err := r.index(axis, i)
	return asRemapped(c), err
}

// Transpose is View.Transpose; index maps move with their axes. The returned
// view must be released by the caller.
func (r *Remapped) Transpose(perm ...int) (*Remapped, error) {
	c, err := r.transpose(perm)
	return asRemapped(c), err
}

// T is View.T. The returned view must be released by the caller.
func (r *Remapped) T() *Remapped { return asRemapped(r.t()) }

// Flip is View.Flip. The returned view must be released by the caller.
func (r *Remapped) Flip(axis int) (*Remapped, error) {
	c, err := r.flip(axis)
	return asRemapped(c), err
}

// ExpandDims is View.ExpandDims. The returned view must be released by the
// caller.
func (r *Remapped) ExpandDims(axis int) (*Remapped, error) {
	c, err := r.expandDims(axis)
	return asRemapped(c), err
}

// Squeeze is View.Squeeze. The returned view must be released by the
// caller.
func (r *Remapped) Squeeze(axes ...int) (*Remapped, error) {
	c, err := r.squeeze(axes)
	return asRemapped(c), err
}

// BroadcastTo is View.BroadcastTo. The returned view must be released by
// the caller.
func (r *Remapped) BroadcastTo(shape []int64) (*Remapped, error) {
	c, err := r.broadcast(shape, false)
	return asRemapped(c), err
}

// Tile is View.Tile. Tiling an axis that is a strict sub-range of a rotated
// or tiled axis (a rotation or tile followed by a slice) cannot be composed
// in closed form: the axis's map is then materialised into a table of its
// n entries, in O(n) time and a second allocation. The returned view must be
// released by the caller.
func (r *Remapped) Tile(reps ...int64) (*Remapped, error) {
	var arr [8]int64
	shape, err := tileShape(arr[:], r.shape, reps)
	if err != nil {
		return nil, err
	}
	c, err := r.broadcast(shape, true)
	return asRemapped(c), err
}

// Rotate is View.Rotate. Rotating an axis that is a strict sub-range of a
// rotated or tiled axis, or a selected axis, is materialised as for Tile
// when it cannot be composed in closed form. The returned view must be
// released by the caller.
func (r *Remapped) Rotate(axis int, shift int64) (*Remapped, error) {
	c, err := r.rotate(axis, shift)
	return asRemapped(c), err
}

// Select is View.Select; selecting on a remapped axis composes the index
// list with the axis's map into the new table. The returned view must be
// released by the caller.
func (r *Remapped) Select(axis int, indices []int64) (*Remapped, error) {
	c, err := r.selectIdx(axis, indices)
	return asRemapped(c), err
}

// SelectArray is View.SelectArray. The returned view must be released by
// the caller.
func (r *Remapped) SelectArray(axis int, indices arrow.Array) (*Remapped, error) {
	c, err := r.selectArray(axis, indices)
	return asRemapped(c), err
}

// AsReadOnly is View.AsReadOnly. The returned view must be released by the
// caller.
func (r *Remapped) AsReadOnly() *Remapped { return asRemapped(r.asReadOnly()) }

// WithDimNames is View.WithDimNames. The returned view must be released by
// the caller.
func (r *Remapped) WithDimNames(names ...string) (*Remapped, error) {
	c, err := r.withDimNames(names)
	return asRemapped(c), err
}

// IsStrided reports whether every remapping of the view has cancelled out
// (a rotation by a multiple of the length, a slice that does not cross the
// wrap, an index that removed the remapped axis), so that AsView succeeds.
func (r *Remapped) IsStrided() bool { return r.maps == nil }

// AsView returns the view as a *View over the same buffer, sharing memory,
// when IsStrided reports true, and an error wrapping arrow.ErrInvalid
// otherwise (use Copy). The returned view must be released by the caller.
func (r *Remapped) AsView() (*View, error) {
	if r.maps != nil {
		return nil, core.Errorf(arrowsparse.ErrStructure, "views: a view with a rotated, tiled or selected axis has no strided form; use Copy")
	}
	return asView(r.clone()), nil
}
