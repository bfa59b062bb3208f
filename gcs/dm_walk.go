package gcs

import (
	"iter"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/strided"
	"github.com/arrowsparse/arrowsparse/internal/vals"
)

// forward writes the storage index of the wrapper index idx to s.
func (d *DM) forward(idx, s []int64) {
	for k, g := range d.groups {
		var x int64
		for _, f := range g {
			i := f.start
			if f.axis >= 0 {
				i += f.step * idx[f.axis]
			}
			x += f.stride * i
		}
		s[k] = x
	}
}

// invert writes to idx the wrapper indices of the axes of group k encoded
// in the storage index x, and reports whether x is inside the wrapper.
func (d *DM) invert(k int, x int64, idx []int64) bool {
	g := d.groups[k]
	u := uint64(x)
	for j := len(g) - 1; j >= 0; j-- {
		f := &g[j]
		q, r := f.div.DivMod(u)
		u = q
		i := int64(r)
		if f.axis < 0 {
			if i != f.start {
				return false
			}
			continue
		}
		t := i - f.start
		if f.step != 1 {
			if t%f.step != 0 {
				return false
			}
			t /= f.step
		}
		if t < 0 || t >= d.shape[f.axis] {
			return false
		}
		idx[f.axis] = t
	}
	return u == 0
}

// bounds returns the smallest and largest storage index of group k that
// the wrapper reaches. The wrapper must not be empty.
func (d *DM) bounds(k int) (lo, hi int64) {
	for _, f := range d.groups[k] {
		a, b := f.start, f.start
		if f.axis >= 0 {
			b = f.start + f.step*(d.shape[f.axis]-1)
			if b < a {
				a, b = b, a
			}
		}
		lo += f.stride * a
		hi += f.stride * b
	}
	return lo, hi
}

// empty reports whether the wrapper has no elements.
func (d *DM) empty() bool {
	for _, n := range d.shape {
		if n == 0 {
			return true
		}
	}
	return false
}

// each calls f with the wrapper index and the position in the innermost
// storage's value buffer of every stored element inside the wrapper, until
// f returns false. It returns false if f did. The index slice is reused.
func (d *DM) each(f func(idx []int64, p int64) bool) bool {
	if d.empty() {
		return true
	}
	switch d.kind {
	case storeDense:
		return d.eachDense(f)
	case storeCOO:
		return d.eachCOO(f)
	case storeMatrix:
		return d.eachMatrix(f)
	}
	inner := d.storage.(*DM)
	idx := make([]int64, len(d.shape))
	return inner.each(func(s []int64, p int64) bool {
		for k := range d.groups {
			if !d.invert(k, s[k], idx) {
				return true
			}
		}
		return f(idx, p)
	})
}

// eachDense visits every wrapper index in row-major order: over dense
// storage the DM is a strided view.
func (d *DM) eachDense(f func([]int64, int64) bool) bool {
	off, strides := d.denseLayout()
	return strided.Walk(d.shape, strides, off, f)
}

// denseLayout returns the element offset and strides of the strided view
// that the DM is over dense storage.
func (d *DM) denseLayout() (int64, []int64) {
	dn := d.storage.(arrowsparse.Dense)
	ds := dn.ElemStrides()
	off := dn.ElemOffset()
	strides := make([]int64, len(d.shape))
	for k, g := range d.groups {
		for _, f := range g {
			off += ds[k] * f.stride * f.start
			if f.axis >= 0 {
				strides[f.axis] = ds[k] * f.stride * f.step
			}
		}
	}
	return off, strides
}

// eachCOO scans the COO entries, restricted by binary search to the range
// of the first storage dimension when the COO is canonical.
func (d *DM) eachCOO(f func([]int64, int64) bool) bool {
	t := d.storage.(*coo.Tensor)
	fm := formsOf(t)
	n := t.NNZ()
	lo, hi := int64(0), n
	nd := len(d.groups)
	if t.IsCanonical() && nd > 0 && n > 0 {
		a, b := d.bounds(0)
		lo = searchCOO(fm, n, nd, a)
		hi = searchCOO(fm, n, nd, b+1)
	}
	idx := make([]int64, len(d.shape))
	step := core.ChunkEntries(nd, hi-lo)
	buf := make([]int64, step*int64(max(nd, 1)))
	for a := lo; a < hi; a += step {
		b := min(a+step, hi)
		fm.coords(int(a), int(b), buf)
	entries:
		for q := range b - a {
			s := buf[q*int64(nd) : (q+1)*int64(nd)]
			for k := range nd {
				if !d.invert(k, s[k], idx) {
					continue entries
				}
			}
			if !f(idx, a+q) {
				return false
			}
		}
	}
	return true
}

// searchCOO returns the first entry of a canonical COO whose first
// coordinate is ≥ x.
func searchCOO(fm cooForms, n int64, nd int, x int64) int64 {
	lo, hi := int64(0), n
	c := make([]int64, nd)
	for lo < hi {
		mid := int64(uint64(lo+hi) >> 1)
		fm.coords(int(mid), int(mid+1), c)
		if c[0] < x {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// eachMatrix visits the lanes that the wrapper reaches, and within each
// only the entries in the reachable range of indices when the lanes are
// sorted.
func (d *DM) eachMatrix(f func([]int64, int64) bool) bool {
	m := d.storage.(*Matrix)
	km, kn := 0, 1 // storage dimensions of the lanes and of the indices
	if m.axis == Cols {
		km, kn = 1, 0
	}
	ix := m.ix()
	lo, hi := d.bounds(kn)
	idx := make([]int64, len(d.shape))
	buf := make([]int64, chunk)
	// Enumerate the wrapper indices of the lane group: each gives one lane.
	g := d.groups[km]
	var shape, strides []int64
	var axes []int
	base := int64(0)
	for _, fc := range g {
		base += fc.stride * fc.start
		if fc.axis >= 0 {
			axes = append(axes, fc.axis)
			shape = append(shape, d.shape[fc.axis])
			strides = append(strides, fc.stride*fc.step)
		}
	}
	return strided.Walk(shape, strides, base, func(sub []int64, lane int64) bool {
		for i, a := range axes {
			idx[a] = sub[i]
		}
		a, b := ix.lane(m, lane)
		if m.sorted {
			a = ix.lowerBound(m, a, b, lo)
		}
		for c := a; c < b; c += chunk {
			e := min(c+chunk, b)
			ix.indices(m, c, e, buf)
			for q, j := range buf[:e-c] {
				if j > hi && m.sorted {
					return true
				}
				if d.invert(kn, j, idx) && !f(idx, c+int64(q)) {
					return false
				}
			}
		}
		return true
	})
}

// leafValues returns the value bytes of the innermost storage, into which
// the positions that each and find give point.
func (d *DM) leafValues() []byte {
	var b []byte
	switch s := d.storage.(type) {
	case *DM:
		return s.leafValues()
	case *coo.Tensor:
		if s.ValuesBuffer() != nil {
			b = s.ValuesBuffer().Bytes()
		}
	case *Matrix:
		if s.values != nil {
			b = s.values.Bytes()
		}
	case arrowsparse.Dense:
		b = s.Buffer().Bytes()
	}
	return b // whole elements: constructors keep exactly those
}

// find appends to dst the positions in the innermost value buffer of the
// elements stored at the wrapper index idx (already checked).
func (d *DM) find(idx []int64, dst []int64) []int64 {
	s := make([]int64, len(d.groups))
	d.forward(idx, s)
	switch st := d.storage.(type) {
	case *DM:
		return st.find(s, dst)
	case *coo.Tensor:
		return findCOO(st, s, dst)
	case *Matrix:
		k, j := s[0], s[1]
		if st.axis == Cols {
			k, j = j, k
		}
		ix := st.ix()
		if st.sorted {
			lo, hi := ix.search(st, k, j)
			for p := lo; p < hi; p++ {
				dst = append(dst, p)
			}
			return dst
		}
		return ix.scan(st, k, j, dst)
	case arrowsparse.Dense:
		p := st.ElemOffset()
		for k, v := range st.ElemStrides() {
			p += v * s[k]
		}
		return append(dst, p)
	}
	return dst
}

// findCOO appends the entries of t at coordinates s: by binary search in a
// canonical tensor, by a scan otherwise.
func findCOO(t *coo.Tensor, s []int64, dst []int64) []int64 {
	fm := formsOf(t)
	n := t.NNZ()
	nd := len(s)
	c := make([]int64, nd)
	cmp := func(i int64) int {
		fm.coords(int(i), int(i+1), c)
		for k := range nd {
			if c[k] != s[k] {
				if c[k] < s[k] {
					return -1
				}
				return 1
			}
		}
		return 0
	}
	if t.IsCanonical() {
		lo, hi := int64(0), n
		for lo < hi {
			mid := int64(uint64(lo+hi) >> 1)
			if cmp(mid) < 0 {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if lo < n && cmp(lo) == 0 {
			dst = append(dst, lo)
		}
		return dst
	}
	for i := range n {
		if cmp(i) == 0 {
			dst = append(dst, i)
		}
	}
	return dst
}

func (d *DM) checkIndex(idx []int64) {
	if len(idx) != len(d.shape) {
		panic(arrowsparse.PanicError{Msg: "gcs: index rank does not match the DM's rank"})
	}
	for k, i := range idx {
		if uint64(i) >= uint64(d.shape[k]) {
			panic(arrowsparse.PanicError{Msg: "gcs: index out of range"})
		}
	}
}

func mustDMType[T arrowsparse.Value](d *DM) {
	if !arrowsparse.TypeMatches[T](d.DataType()) {
		panic(arrowsparse.PanicError{Msg: "gcs: Go type " + arrowsparse.DataTypeOf[T]().String() + " does not match the DM's type " + d.DataType().String()})
	}
}

func dmAt[T arrowsparse.Value](d *DM, idx []int64) T {
	mustDMType[T](d)
	d.checkIndex(idx)
	perm := d.find(idx, nil)
	var zero T
	if len(perm) == 0 {
		return zero
	}
	vs := core.MustSliceBytes[T](d.leafValues())
	if len(perm) == 1 {
		return vs[perm[0]]
	}
	out := []T{zero}
	vals.For(d.DataType()).ReducePerm(core.BytesOf(vs), core.BytesOf(out), 0, perm, []int64{0, int64(len(perm))}, arrowsparse.SumDuplicates)
	return out[0]
}

func dmAll[T arrowsparse.Value](d *DM) iter.Seq2[[]int64, T] {
	mustDMType[T](d)
	return func(yield func([]int64, T) bool) {
		vs := core.MustSliceBytes[T](d.leafValues())
		d.each(func(idx []int64, p int64) bool { return yield(idx, vs[p]) })
	}
}
