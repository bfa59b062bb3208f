package gcs

import (
	"slices"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/views"
)

// Slice returns the DM of the elements selected by one views.Range per
// axis, with Python's slice semantics (negative bounds count from the end,
// bounds are clamped, a negative step reverses, a step of 0 is an error
// wrapping arrowsparse.ErrOutOfRange). Missing trailing ranges select whole axes.
// The storage is shared, never copied or read: only the parameters change.
// The result must be released by the caller.
func (d *DM) Slice(ranges ...views.Range) (*DM, error) {
	if len(ranges) > len(d.shape) {
		return nil, core.Errorf(arrowsparse.ErrShape, "gcs: %d ranges for a %d-d DM", len(ranges), len(d.shape))
	}
	type sel struct{ start, step, n int64 }
	sels := make([]sel, len(ranges))
	for a, r := range ranges {
		s, st, n, err := r.Resolve(d.shape[a])
		if err != nil {
			return nil, err
		}
		sels[a] = sel{s, st, n}
	}
	out := d.derive()
	for _, g := range out.groups {
		for i := range g {
			f := &g[i]
			if f.axis < 0 || f.axis >= len(sels) {
				continue
			}
			s := sels[f.axis]
			f.start += f.step * s.start
			if s.n > 1 {
				f.step *= s.step
			}
		}
	}
	for a, s := range sels {
		out.shape[a] = s.n
	}
	return out, nil
}

// Index returns the DM of the elements whose index on axis is i, with that
// axis removed: NumPy's a[..., i, ...]. A negative axis or i counts from the
// end; an axis or index out of range is an error wrapping arrowsparse.ErrOutOfRange.
// The storage is shared, never copied: the axis becomes a fixed offset in
// its storage dimension. The result must be released by the caller.
func (d *DM) Index(axis int, i int64) (*DM, error) {
	n := len(d.shape)
	if axis < 0 {
		axis += n
	}
	if axis < 0 || axis >= n {
		return nil, core.Errorf(arrowsparse.ErrOutOfRange, "gcs: axis %d is outside a %d-d DM", axis, n)
	}
	if i < 0 {
		i += d.shape[axis]
	}
	if i < 0 || i >= d.shape[axis] {
		return nil, core.Errorf(arrowsparse.ErrOutOfRange, "gcs: index %d is outside axis %d of length %d", i, axis, d.shape[axis])
	}
	out := d.derive()
	for _, g := range out.groups {
		for j := range g {
			f := &g[j]
			switch {
			case f.axis == axis:
				f.start += f.step * i
				f.step = 1
				f.axis = -1
			case f.axis > axis:
				f.axis--
			}
		}
	}
	out.shape = slices.Delete(out.shape, axis, axis+1)
	if out.names != nil {
		out.names = core.CloneDimNames(slices.Delete(out.names, axis, axis+1))
	}
	return out, nil
}

// Transpose returns the DM with its axes permuted: axis k of the result is
// axis perm[k] of the receiver; with no arguments the axes are reversed. The
// storage is shared, never copied: only the axis numbers in the parameters
// change. A perm that is not a permutation is an error wrapping
// arrowsparse.ErrStructure. The result must be released by the caller.
func (d *DM) Transpose(perm ...int) (*DM, error) {
	n := len(d.shape)
	if len(perm) == 0 {
		perm = make([]int, n)
		for k := range perm {
			perm[k] = n - 1 - k
		}
	}
	if err := core.CheckPermutation(perm, n, "gcs: axis permutation"); err != nil {
		return nil, err
	}
	inv := make([]int, n)
	for k, p := range perm {
		inv[p] = k
	}
	out := d.derive()
	for _, g := range out.groups {
		for j := range g {
			if g[j].axis >= 0 {
				g[j].axis = inv[g[j].axis]
			}
		}
	}
	for k, p := range perm {
		out.shape[k] = d.shape[p]
		if out.names != nil {
			out.names[k] = d.names[p]
		}
	}
	return out, nil
}

// SwapAxes returns the DM with axes a and b exchanged (negative axes count
// from the end), without copying. The result must be released by the
// caller.
func (d *DM) SwapAxes(a, b int) (*DM, error) {
	n := len(d.shape)
	if a < 0 {
		a += n
	}
	if b < 0 {
		b += n
	}
	if a < 0 || a >= n || b < 0 || b >= n {
		return nil, core.Errorf(arrowsparse.ErrOutOfRange, "gcs: axes %d and %d are not both axes of a %d-d DM", a, b, n)
	}
	perm := make([]int, n)
	for k := range perm {
		perm[k] = k
	}
	perm[a], perm[b] = b, a
	return d.Transpose(perm...)
}
