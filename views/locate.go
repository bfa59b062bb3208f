package views

import "slices"

// Locate is the inverse of Offset: it returns the index of the element at
// element position pos of the buffer (counted in elements, not bytes), and
// false if the view does not reach that position. This is the GCS introduction's
// dimensionality promotion, generalised to any strides, and dtype-next's
// local→global map; on a selected axis it searches the index table, as
// dtype-next describes.
//
// When several indices reach pos (broadcasts, tiles, repeated selections,
// strides that overlap), Locate returns one of them, with 0 on every axis of
// stride 0. For views whose strides do not overlap (every view derived from
// a contiguous buffer by the operations of this package, apart from
// broadcasts and tiles) the cost is O(ndim log ndim) plus a table search per
// selected axis; self-overlapping strides made with New fall back to a
// bounded search. The returned slice belongs to the caller.
func (v *viewBase) Locate(pos int64) ([]int64, bool) {
	nd := len(v.shape)
	if v.size == 0 {
		return nil, false
	}
	idx := make([]int64, nd)
	rel := pos - v.offset
	type axis struct {
		k       int
		p, s    int64 // physical extent and stride (made positive)
		flipped bool
	}
	axes := make([]axis, 0, nd)
	for k := range nd {
		s := v.strides[k]
		if s == 0 {
			continue
		}
		p := v.shape[k]
		if v.maps != nil && !v.maps[k].plain() {
			p = v.maps[k].plen
		}
		a := axis{k: k, p: p, s: s}
		if s < 0 {
			rel -= (p - 1) * s
			a.s, a.flipped = -s, true
		}
		axes = append(axes, a)
	}
	slices.SortStableFunc(axes, func(x, y axis) int {
		switch {
		case x.s > y.s:
			return -1
		case x.s < y.s:
			return 1
		}
		return 0
	})
	// reach[j] is the largest offset the axes j.. can add.
	reach := make([]int64, len(axes)+1)
	for j := len(axes) - 1; j >= 0; j-- {
		reach[j] = reach[j+1] + (axes[j].p-1)*axes[j].s
	}
	if rel < 0 || rel > reach[0] {
		return nil, false
	}
	phys := make([]int64, nd)
	var search func(j int, rem int64) bool
	search = func(j int, rem int64) bool {
		if j == len(axes) {
			if rem != 0 {
				return false
			}
			for _, a := range axes {
				i := phys[a.k]
				if v.maps != nil && !v.maps[a.k].plain() {
					var ok bool
					if i, ok = v.maps[a.k].inverse(i, v.shape[a.k]); !ok {
						return false
					}
				}
				idx[a.k] = i
			}
			return true
		}
		a := axes[j]
		hi := min(a.p-1, rem/a.s)
		lo := int64(0)
		if d := rem - reach[j+1]; d > 0 {
			lo = (d + a.s - 1) / a.s
		}
		for q := lo; q <= hi; q++ {
			if a.flipped {
				phys[a.k] = a.p - 1 - q
			} else {
				phys[a.k] = q
			}
			if search(j+1, rem-q*a.s) {
				return true
			}
		}
		return false
	}
	if !search(0, rel) {
		return nil, false
	}
	return idx, true
}
