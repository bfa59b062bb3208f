package csf

import (
	"iter"
	"slices"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// All returns an iterator over the stored values in tree order: sorted by
// the coordinates taken in axis order. It yields each value's coordinates,
// in the tensor's dimension numbering (coordinate k is along dimension k,
// whatever the axis order), and the value. The coordinate slice is reused:
// it is valid until the next iteration and must not be modified. It panics
// if T is not the value type.
func All[T arrowsparse.Value](t *Tensor) iter.Seq2[[]int64, T] {
	vs := mustValues[T](t)
	return func(yield func([]int64, T) bool) {
		lo, hi := t.leafRange()
		if lo == hi {
			return
		}
		nl := len(t.levels)
		w := newWalker(t)
		w.seek(lo)
		step := core.ChunkEntries(nl, hi-lo)
		buf := make([]int64, step*int64(nl))
		out := make([]int64, nl)
		for a := lo; a < hi; a += step {
			b := min(a+step, hi)
			w.fill(a, b, buf)
			for j := range b - a {
				row := buf[j*int64(nl) : (j+1)*int64(nl)]
				for l, k := range t.order {
					out[k] = row[l]
				}
				if !yield(out, vs[a-lo+j]) {
					return
				}
			}
		}
	}
}

// At returns the value at idx (in dimension numbering), or zero if nothing
// is stored there. It binary-searches the children of one node per level,
// in O(Σ log(children)). It panics if T is not the value type, or idx has
// the wrong rank or an entry outside the shape.
func At[T arrowsparse.Value](t *Tensor, idx ...int64) T {
	vs := mustValues[T](t)
	if len(idx) != len(t.shape) {
		panic(arrowsparse.PanicError{Msg: "csf: index rank does not match the tensor's rank"})
	}
	for k, i := range idx {
		if uint64(i) >= uint64(t.shape[k]) {
			panic(arrowsparse.PanicError{Msg: "csf: index out of range"})
		}
	}
	var zero T
	p, ok := t.find(len(t.levels), func(l int) int64 { return idx[t.order[l]] })
	if !ok {
		return zero
	}
	return vs[p-t.levels[len(t.levels)-1].off]
}

// find descends depth levels, looking for coordinate x(l) among the
// children on each level l, and returns the position of the node found on
// level depth-1.
func (t *Tensor) find(depth int, x func(l int) int64) (int64, bool) {
	lo, hi := t.levels[0].off, t.levels[0].off+t.levels[0].n
	for l := range depth {
		lv := &t.levels[l]
		p, ok := opsFor(lv.idxType).search(lv.idx.Bytes(), lo, hi, x(l))
		if !ok {
			return 0, false
		}
		if l == depth-1 {
			return p, true
		}
		pops := opsFor(lv.ptrType)
		lo, hi = pops.get(lv.ptr.Bytes(), p), pops.get(lv.ptr.Bytes(), p+1)
	}
	return 0, false
}

// Sub returns the sub-tensor below a node: the values whose first
// len(fixed) coordinates in axis order are fixed, that is whose coordinate
// along dimension AxisOrder()[j] is fixed[j]. It is the subtree of the
// node reached by fixed, as a tensor of rank NumDims()-len(fixed) over the
// remaining dimensions.
//
// The result's dimensions are the remaining ones in their original order
// (with their names), and its axis order is the receiver's with the fixed
// levels removed. Its level j is level len(fixed)+j of the receiver,
// restricted to the subtree: a range of nodes of the same buffers. When
// nothing is stored below fixed the result is empty.
//
// Sub copies nothing: the result retains the receiver's buffers and shares
// them, and does not depend on the receiver staying alive. It is not
// compact (see IsCompact) unless the subtree starts at the first node of
// every level. Sub with no coordinates returns the receiver, retained. It
// panics if len(fixed) > NumDims()-2 (a CSF tensor has at least 2
// dimensions; see Fiber for the last one) or a coordinate lies outside its
// dimension. The result must be released by the caller.
func (t *Tensor) Sub(fixed ...int64) *Tensor {
	nl := len(t.levels)
	k := len(fixed)
	if k > nl-2 {
		panic(arrowsparse.PanicError{Msg: "csf: Sub fixes at most NumDims()-2 coordinates"})
	}
	if k == 0 {
		t.Retain()
		return t
	}
	t.checkFixed(fixed)
	s := &Tensor{valueType: t.valueType, levels: make([]level, nl-k), vshift: t.vshift, unchecked: t.unchecked}
	// The remaining dimensions, in their original order.
	dims := slices.Clone(t.order[k:])
	slices.Sort(dims)
	s.shape = make([]int64, len(dims))
	if t.names != nil {
		s.names = make([]string, len(dims))
	}
	for j, d := range dims {
		s.shape[j] = t.shape[d]
		if s.names != nil {
			s.names[j] = t.names[d]
		}
	}
	s.names = core.CloneDimNames(s.names)
	s.order = make([]int, nl-k)
	for j, d := range t.order[k:] {
		s.order[j], _ = slices.BinarySearch(dims, d)
	}

	for j := range s.levels {
		lv := t.levels[k+j]
		s.levels[j] = level{idx: lv.idx, ptr: lv.ptr, idxType: lv.idxType, ptrType: lv.ptrType, off: lv.off}
	}
	p, ok := t.find(k, func(l int) int64 { return fixed[l] })
	if ok {
		par := &t.levels[k-1]
		pops := opsFor(par.ptrType)
		lo, hi := pops.get(par.ptr.Bytes(), p), pops.get(par.ptr.Bytes(), p+1)
		for j := range s.levels {
			lv := &s.levels[j]
			lv.off, lv.n = lo, hi-lo
			if lv.ptr != nil {
				ops := opsFor(lv.ptrType)
				lo, hi = ops.get(lv.ptr.Bytes(), lo), ops.get(lv.ptr.Bytes(), hi)
			}
		}
	}
	s.nnz = s.levels[len(s.levels)-1].n
	s.values = t.values
	s.retainBuffers()
	s.refCount.Store(1)
	return s
}

func (t *Tensor) checkFixed(fixed []int64) {
	for l, x := range fixed {
		if uint64(x) >= uint64(t.shape[t.order[l]]) {
			panic(arrowsparse.PanicError{Msg: "csf: coordinate out of range"})
		}
	}
}

// Fiber returns the fiber below a node on the next-to-last level: the
// indices (along dimension AxisOrder()[NumDims()-1]) and values of the
// entries whose first NumDims()-1 coordinates in axis order are fixed. The
// slices alias the tensor's buffers, are valid while it is alive and must
// not be modified. They are empty when nothing is stored there.
//
// It returns an error wrapping arrowsparse.ErrUnsupportedType if I is not the last
// level's indices type or T not the value type, and panics if fixed does
// not hold NumDims()-1 coordinates inside their dimensions.
func Fiber[I arrowsparse.Index, T arrowsparse.Value](t *Tensor, fixed ...int64) ([]I, []T, error) {
	nl := len(t.levels)
	if len(fixed) != nl-1 {
		panic(arrowsparse.PanicError{Msg: "csf: Fiber fixes NumDims()-1 coordinates"})
	}
	t.checkFixed(fixed)
	idx, err := Indices[I](t, nl-1)
	if err != nil {
		return nil, nil, err
	}
	vs, err := Values[T](t)
	if err != nil {
		return nil, nil, err
	}
	p, ok := t.find(nl-1, func(l int) int64 { return fixed[l] })
	if !ok {
		return nil, nil, nil
	}
	par := &t.levels[nl-2]
	pops := opsFor(par.ptrType)
	base := t.levels[nl-1].off
	lo, hi := pops.get(par.ptr.Bytes(), p)-base, pops.get(par.ptr.Bytes(), p+1)-base
	return idx[lo:hi:hi], vs[lo:hi:hi], nil
}
