package views

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// The shared implementation of the view operations; api.go documents them.

// derive returns a view under construction with the receiver's data type,
// buffer, offset, read-only flag and, if the receiver has names, a names
// slice of length ndim. The caller fills the shape, strides, names and maps
// and calls finish.
func (v *viewBase) derive(ndim int, mapped bool) *viewBase {
	out := alloc(ndim, v.names != nil, mapped)
	out.refCount.Store(1)
	out.dtype, out.width, out.buf = v.dtype, v.width, v.buf
	out.offset = v.offset
	out.readOnly = v.readOnly
	return out
}

// finish completes a view under construction: it simplifies the axis maps,
// normalises the strides of axes of length 1, sets the size and the
// read-only flag, and retains the buffer and the index tables.
func (out *viewBase) finish() *viewBase {
	size, _ := arrowsparse.NumElements(out.shape) // callers check shapes from outside
	out.size = size
	if out.maps != nil {
		strided := true
		if size != 0 {
			for k := range out.maps {
				out.canonAxis(k)
				if !out.maps[k].plain() {
					strided = false
				}
			}
		}
		if strided {
			out.maps = nil
		} else {
			for k := range out.maps {
				if h := out.maps[k].hold; h != nil {
					h.Retain()
				}
			}
		}
	}
	normaliseUnitStrides(out.shape, out.strides)
	if isBroadcast(out.shape, out.strides) {
		out.readOnly = true
	}
	out.buf.Retain()
	return out
}

// copyAxis copies axis k of v to axis j of out.
func (out *viewBase) copyAxis(j int, v *viewBase, k int) {
	out.shape[j], out.strides[j] = v.shape[k], v.strides[k]
	if out.names != nil {
		out.names[j] = v.names[k]
	}
	if out.maps != nil && v.maps != nil {
		out.maps[j] = v.maps[k]
	}
}

// physAt returns the physical index of logical index i on axis k.
func (v *viewBase) physAt(k int, i int64) int64 {
	if v.maps == nil || v.maps[k].plain() {
		return i
	}
	return v.maps[k].phys(i)
}

// axisArg resolves an axis argument in [-n, n) to [0, n).
func axisArg(axis, n int, what string) (int, error) {
	if axis < -n || axis >= n {
		return 0, core.Errorf(arrowsparse.ErrOutOfRange, "views: %s: axis %d is out of range for %d dimensions", what, axis, n)
	}
	if axis < 0 {
		axis += n
	}
	return axis, nil
}

// slice implements View.Slice and Remapped.Slice.
func (v *viewBase) slice(ranges []Range) (*viewBase, error) {
	if len(ranges) > len(v.shape) {
		return nil, core.Errorf(arrowsparse.ErrShape, "views: %d ranges for %d dimensions", len(ranges), len(v.shape))
	}
	for _, r := range ranges {
		if r.Step == 0 {
			return nil, core.Errorf(arrowsparse.ErrOutOfRange, "views: slice step cannot be zero")
		}
	}
	out := v.derive(len(v.shape), v.maps != nil)
	for k := range v.shape {
		out.copyAxis(k, v, k)
	}
	for k, r := range ranges {
		start, step, n, _ := r.Resolve(v.shape[k])
		out.shape[k] = n
		if n == 0 {
			continue
		}
		if out.maps == nil || out.maps[k].plain() {
			out.offset += start * v.strides[k]
			if n > 1 {
				out.strides[k] = step * v.strides[k]
			}
		} else {
			out.maps[k].slice(start, step)
		}
	}
	return out.finish(), nil
}

// slice composes the map with logical index start + i·step.
func (m *axisMap) slice(start, step int64) {
	if m.mod > 0 {
		m.a = mulAddMod(start, m.b, m.a, m.mod)
		m.b = mulAddMod(floorMod(step, m.mod), m.b, 0, m.mod)
		return
	}
	m.a += start * m.b
	m.b *= step
}

// index implements View.Index and Remapped.Index.
func (v *viewBase) index(axis int, i int64) (*viewBase, error) {
	axis, err := axisArg(axis, len(v.shape), "Index")
	if err != nil {
		return nil, err
	}
	n := v.shape[axis]
	if i < -n || i >= n {
		return nil, core.Errorf(arrowsparse.ErrOutOfRange, "views: index %d is out of range for axis %d of length %d", i, axis, n)
	}
	if i < 0 {
		i += n
	}
	out := v.derive(len(v.shape)-1, v.maps != nil)
	out.offset += v.physAt(axis, i) * v.strides[axis]
	for k, j := 0, 0; k < len(v.shape); k++ {
		if k != axis {
			out.copyAxis(j, v, k)
			j++
		}
	}
	return out.finish(), nil
}

// transpose implements View.Transpose and Remapped.Transpose.
func (v *viewBase) transpose(perm []int) (*viewBase, error) {
	nd := len(v.shape)
	if len(perm) == 0 {
		return v.t(), nil
	}
	if err := checkPermutation(perm, nd); err != nil {
		return nil, err
	}
	out := v.derive(nd, v.maps != nil)
	for k, p := range perm {
		out.copyAxis(k, v, p)
	}
	return out.finish(), nil
}

// t implements View.T and Remapped.T.
func (v *viewBase) t() *viewBase {
	nd := len(v.shape)
	out := v.derive(nd, v.maps != nil)
	for k := range nd {
		out.copyAxis(k, v, nd-1-k)
	}
	return out.finish()
}

// flip implements View.Flip and Remapped.Flip.
func (v *viewBase) flip(axis int) (*viewBase, error) {
	axis, err := axisArg(axis, len(v.shape), "Flip")
	if err != nil {
		return nil, err
	}
	out := v.derive(len(v.shape), v.maps != nil)
	for k := range v.shape {
		out.copyAxis(k, v, k)
	}
	if n := v.shape[axis]; n > 1 {
		if out.maps == nil || out.maps[axis].plain() {
			out.offset += (n - 1) * v.strides[axis]
			out.strides[axis] = -v.strides[axis]
		} else {
			out.maps[axis].slice(n-1, -1)
		}
	}
	return out.finish(), nil
}

// expandDims implements View.ExpandDims and Remapped.ExpandDims.
func (v *viewBase) expandDims(axis int) (*viewBase, error) {
	nd := len(v.shape)
	axis, err := axisArg(axis, nd+1, "ExpandDims")
	if err != nil {
		return nil, err
	}
	out := v.derive(nd+1, v.maps != nil)
	for k, j := 0, 0; j <= nd; j++ {
		if j == axis {
			out.shape[j] = 1
			continue
		}
		out.copyAxis(j, v, k)
		k++
	}
	return out.finish(), nil
}

// squeeze implements View.Squeeze and Remapped.Squeeze.
func (v *viewBase) squeeze(axes []int) (*viewBase, error) {
	nd := len(v.shape)
	var drop uint64 // bit k: drop axis k (ranks ≤ 64)
	var dropBig []bool
	if nd > 64 {
		dropBig = make([]bool, nd)
	}
	isDropped := func(k int) bool {
		if dropBig != nil {
			return dropBig[k]
		}
		return drop&(1<<k) != 0
	}
	n := 0
	mark := func(k int) {
		if dropBig != nil {
			dropBig[k] = true
		} else {
			drop |= 1 << k
		}
		n++
	}
	if len(axes) == 0 {
		for k, d := range v.shape {
			if d == 1 {
				mark(k)
			}
		}
	}
	for _, a := range axes {
		k, err := axisArg(a, nd, "Squeeze")
		if err != nil {
			return nil, err
		}
		if isDropped(k) {
			return nil, core.Errorf(arrowsparse.ErrShape, "views: Squeeze: axis %d is repeated", k)
		}
		if v.shape[k] != 1 {
			return nil, core.Errorf(arrowsparse.ErrShape, "views: Squeeze: axis %d has length %d, not 1", k, v.shape[k])
		}
		mark(k)
	}
	out := v.derive(nd-n, v.maps != nil)
	for k, j := 0, 0; k < nd; k++ {
		if !isDropped(k) {
			out.copyAxis(j, v, k)
			j++
		}
	}
	return out.finish(), nil
}

func (v *viewBase) broadcast(shape []int64, tile bool) (*viewBase, error) {
	nd, td := len(v.shape), len(shape)
	what := "BroadcastTo"
	if tile {
		what = "Tile"
	}
	if td < nd {
		return nil, core.Errorf(arrowsparse.ErrShape, "views: %s: cannot broadcast %d dimensions to %d", what, nd, td)
	}
	if _, err := numElements(shape); err != nil {
		return nil, err
	}
	lead := td - nd
	mapped := v.maps != nil
	for k, n := range v.shape {
		t := shape[lead+k]
		switch {
		case n == t || n == 1:
		case tile && n > 0 && t >= n && t%n == 0:
			if v.strides[k] != 0 {
				mapped = true
			}
		default:
			return nil, core.Errorf(arrowsparse.ErrShape, "views: %s: cannot broadcast shape %v to %v: axis %d has length %d, want %d or 1", what, v.shape, cloneShape(shape), k, n, t)
		}
	}
	out := v.derive(td, mapped)
	if out.names != nil {
		clear(out.names[:lead])
	}
	for k := range lead {
		out.shape[k], out.strides[k] = shape[k], 0
	}
	for k, n := range v.shape {
		j := lead + k
		out.copyAxis(j, v, k)
		t := shape[j]
		out.shape[j] = t
		switch {
		case n == t:
		case n == 1:
			out.strides[j] = 0
		case v.strides[k] == 0:
			// repeating a repeated axis: still stride 0
		default:
			out.maps[j].wrap(n)
		}
	}
	out.readOnly = true
	return out.finish(), nil
}

// wrap turns the map of an axis of length n ≥ 2 into one that is periodic
// with period n, so that logical index i reads the old index i mod n. A
// modular map whose modulus divides n is periodic already and unchanged
// (a tile of a tile, a rotation of a tile). A modular map over a strict
// sub-range of its period cannot be composed in closed form, so it is first
// materialised into a table of n physical indices.
func (m *axisMap) wrap(n int64) {
	switch {
	case m.plain():
		m.plen = n
		m.mod, m.a, m.b, m.c, m.d = n, 0, 1, 1, 0
	case m.mod > 0 && n%m.mod == 0:
	case m.mod == 0: // table, affine: x = a + i·b
		m.c, m.d = m.b, m.a
		m.mod, m.a, m.b = n, 0, 1
	default:
		plen := m.plen
		tab := m.materialise(n)
		*m = axisMap{mod: n, b: 1, c: 1, tab: tab, plen: plen}
	}
}

// rotate implements View.Rotate and Remapped.Rotate.
func (v *viewBase) rotate(axis int, shift int64) (*viewBase, error) {
	axis, err := axisArg(axis, len(v.shape), "Rotate")
	if err != nil {
		return nil, err
	}
	n := v.shape[axis]
	r := int64(0)
	if n > 1 && v.strides[axis] != 0 {
		r = floorMod(-floorMod(shift, n), n)
	}
	out := v.derive(len(v.shape), v.maps != nil || r != 0)
	for k := range v.shape {
		out.copyAxis(k, v, k)
	}
	if r != 0 {
		m := &out.maps[axis]
		m.wrap(n)
		m.a = mulAddMod(r, m.b, m.a, m.mod)
	}
	return out.finish(), nil
}

// selectIdx implements View.Select and Remapped.Select.
func (v *viewBase) selectIdx(axis int, indices []int64) (*viewBase, error) {
	axis, err := axisArg(axis, len(v.shape), "Select")
	if err != nil {
		return nil, err
	}
	n := v.shape[axis]
	tab := make([]int64, len(indices))
	for j, i := range indices {
		if i < -n || i >= n {
			return nil, core.Errorf(arrowsparse.ErrOutOfRange, "views: Select: index %d (entry %d) is out of range for axis %d of length %d", i, j, axis, n)
		}
		if i < 0 {
			i += n
		}
		tab[j] = i
	}
	return v.selectTable(axis, tab, nil, true), nil
}

// selectArray implements View.SelectArray and Remapped.SelectArray.
func (v *viewBase) selectArray(axis int, indices arrow.Array) (*viewBase, error) {
	axis, err := axisArg(axis, len(v.shape), "SelectArray")
	if err != nil {
		return nil, err
	}
	if indices.NullN() > 0 {
		return nil, core.Errorf(arrowsparse.ErrStructure, "views: SelectArray: the index array has %d nulls", indices.NullN())
	}
	n := v.shape[axis]
	bad := func(j int, i any) error {
		return core.Errorf(arrowsparse.ErrOutOfRange, "views: SelectArray: index %v (entry %d) is out of range for axis %d of length %d", i, j, axis, n)
	}
	if a, ok := indices.(*array.Int64); ok {
		vals := a.Int64Values()
		for j, i := range vals {
			if uint64(i) >= uint64(n) {
				return nil, bad(j, i)
			}
		}
		if v.maps == nil || v.maps[axis].plain() {
			return v.selectTable(axis, vals, a.Data().Buffers()[1], false), nil
		}
		return v.selectTable(axis, slices.Clone(vals), nil, false), nil
	}
	tab := make([]int64, indices.Len())
	var conv func(j int) (int64, bool)
	switch a := indices.(type) {
	case *array.Int8:
		conv = func(j int) (int64, bool) { x := a.Value(j); return int64(x), x >= 0 }
	case *array.Int16:
		conv = func(j int) (int64, bool) { x := a.Value(j); return int64(x), x >= 0 }
	case *array.Int32:
		conv = func(j int) (int64, bool) { x := a.Value(j); return int64(x), x >= 0 }
	case *array.Uint8:
		conv = func(j int) (int64, bool) { return int64(a.Value(j)), true }
	case *array.Uint16:
		conv = func(j int) (int64, bool) { return int64(a.Value(j)), true }
	case *array.Uint32:
		conv = func(j int) (int64, bool) { return int64(a.Value(j)), true }
	case *array.Uint64:
		conv = func(j int) (int64, bool) { x := a.Value(j); return int64(x), x <= uint64(n) }
	default:
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "views: SelectArray: indices of type %s, want an integer type", indices.DataType())
	}
	for j := range tab {
		i, ok := conv(j)
		if !ok || i >= n {
			return nil, bad(j, i)
		}
		tab[j] = i
	}
	return v.selectTable(axis, tab, nil, false), nil
}

// selectTable makes the selection view for checked, non-negative logical
// indices tab on axis. hold owns tab when it is Arrow memory; owned reports
// whether tab is a fresh Go slice that the view may keep and rewrite.
func (v *viewBase) selectTable(axis int, tab []int64, hold *memory.Buffer, owned bool) *viewBase {
	dup := hasDuplicates(tab)
	s := v.strides[axis]
	mapped := s != 0 && len(tab) > 1
	out := v.derive(len(v.shape), v.maps != nil || mapped)
	for k := range v.shape {
		out.copyAxis(k, v, k)
	}
	out.shape[axis] = int64(len(tab))
	if dup {
		out.readOnly = true
	}
	switch {
	case !mapped:
		// a repeated element or at most one index: a plain axis
		if len(tab) == 1 {
			out.offset += v.physAt(axis, tab[0]) * s
		}
		if out.maps != nil {
			out.maps[axis] = axisMap{}
		}
	case v.maps == nil || v.maps[axis].plain():
		out.maps[axis] = axisMap{tab: tab, b: 1, plen: v.shape[axis], hold: hold}
	default:
		old := &v.maps[axis]
		if !owned {
			tab = slices.Clone(tab)
		}
		for j, i := range tab {
			tab[j] = old.phys(i)
		}
		out.maps[axis] = axisMap{tab: tab, b: 1, plen: old.plen}
	}
	return out.finish()
}

// hasDuplicates reports whether tab repeats a value. It is O(len) for a
// monotonic list and sorts a copy otherwise.
func hasDuplicates(tab []int64) bool {
	inc, dec := true, true
	for j := 1; j < len(tab); j++ {
		if tab[j] <= tab[j-1] {
			inc = false
		}
		if tab[j] >= tab[j-1] {
			dec = false
		}
	}
	if inc || dec {
		return false
	}
	s := slices.Clone(tab)
	slices.Sort(s)
	for j := 1; j < len(s); j++ {
		if s[j] == s[j-1] {
			return true
		}
	}
	return false
}

// asReadOnly implements View.AsReadOnly and Remapped.AsReadOnly.
func (v *viewBase) asReadOnly() *viewBase {
	out := v.clone()
	out.readOnly = true
	return out
}

// clone returns a new view of the same elements.
func (v *viewBase) clone() *viewBase {
	out := v.derive(len(v.shape), v.maps != nil)
	for k := range v.shape {
		out.copyAxis(k, v, k)
	}
	return out.finish()
}

// withDimNames implements View.WithDimNames and Remapped.WithDimNames.
func (v *viewBase) withDimNames(names []string) (*viewBase, error) {
	if err := core.CheckDimNames(names, len(v.shape)); err != nil {
		return nil, err
	}
	names = core.CloneDimNames(names)
	out := alloc(len(v.shape), names != nil, v.maps != nil)
	out.refCount.Store(1)
	out.dtype, out.width, out.buf = v.dtype, v.width, v.buf
	out.offset, out.readOnly = v.offset, v.readOnly
	copy(out.shape, v.shape)
	copy(out.strides, v.strides)
	copy(out.maps, v.maps)
	copy(out.names, names)
	return out.finish(), nil
}

// cloneShape returns a copy of s for an error message, so that s itself
// does not escape to the heap.
func cloneShape[S ~[]E, E any](s S) S { return append(S(nil), s...) }

// numElements is arrowsparse.NumElements without letting shape escape: the shape of
// a view is often a literal at the call site.
func numElements(shape []int64) (int64, error) {
	n := int64(1)
	ok := true
	for _, d := range shape {
		if d < 0 {
			ok = false
			break
		}
		if n, ok = core.MulInt64(n, d); !ok {
			break
		}
	}
	if ok {
		return n, nil
	}
	return arrowsparse.NumElements(cloneShape(shape))
}

// checkPermutation is core.CheckPermutation without letting perm escape.
func checkPermutation(perm []int, n int) error {
	if len(perm) == n && n <= 64 {
		var seen uint64
		ok := true
		for _, p := range perm {
			if p < 0 || p >= n || seen&(1<<p) != 0 {
				ok = false
				break
			}
			seen |= 1 << p
		}
		if ok {
			return nil
		}
	}
	return core.CheckPermutation(cloneShape(perm), n, "views: Transpose permutation")
}
