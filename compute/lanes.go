package compute

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/par"
)

// parallelNNZ is the number of stored values below which the kernels run
// on one goroutine.
const parallelNNZ = 1 << 16

// workersFor resolves o.Workers for a kernel over n stored values.
func workersFor(workers int, n int64) int {
	if n < parallelNNZ {
		return 1
	}
	return par.Workers(workers)
}

// laneSet is a matrix's lanes, for the merge kernels: index pointers
// widened to int64, and typed indices and values.
type laneSet[I arrowsparse.Index, T arrowsparse.Number] struct {
	ptr []int64
	idx []I
	val []T
}

// lanesOf returns m's lanes; I and T must be its index and value types.
func lanesOf[I arrowsparse.Index, T arrowsparse.Number](m *gcs.Matrix) laneSet[I, T] {
	idx, err := gcs.Indices[I](m)
	if err != nil {
		panic(arrowsparse.PanicError{Msg: "compute: " + err.Error()})
	}
	val, err := gcs.Values[T](m)
	if err != nil {
		panic(arrowsparse.PanicError{Msg: "compute: " + err.Error()})
	}
	return laneSet[I, T]{ptr: readInts(bytesOf(m.IndptrBuffer()), m.IndptrType(), m.Lanes()+1), idx: idx, val: val}
}

// splitLanes cuts the lanes of a and b into w runs of nearly equal numbers
// of values of both: run c is lanes [r[c], r[c+1]).
func splitLanes(pa, pb []int64, w int) []int64 {
	major := int64(len(pa) - 1)
	total := pa[major] + pb[major]
	r := make([]int64, w+1)
	r[w] = major
	for c := 1; c < w; c++ {
		target := total / int64(w) * int64(c)
		lo, hi := r[c-1], major
		for lo < hi {
			mid := int64(uint64(lo+hi) >> 1)
			if pa[mid]+pb[mid] < target {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		r[c] = lo
	}
	return r
}

// mergeMatrices returns a p b for two matrices of the same shape, axis,
// value type and index type, whose lanes are strictly increasing. The
// result is a canonical matrix along the same axis.
func mergeMatrices[I arrowsparse.Index, T arrowsparse.Number](mem memory.Allocator, a, b *gcs.Matrix, p op, keep bool, workers int, ptrType arrow.DataType) (*gcs.Matrix, error) {
	la, lb := lanesOf[I, T](a), lanesOf[I, T](b)
	major := a.Lanes()
	if r, ok, err := samePattern(mem, a, la, lb, p, keep, workers); ok || err != nil {
		return r, err
	}
	w := workersFor(workers, a.NNZ()+b.NNZ())
	w = int(min(int64(w), max(major, 1)))
	r := splitLanes(la.ptr, lb.ptr, w)

	// Count the entries of the pattern of each lane (as a prefix within
	// its run), then the start of each run.
	ptr := make([]int64, major+1)
	counted := make([]int64, w)
	par.Do(w, func(c int) {
		if p.union() {
			counted[c] = unionCount(la, lb, r[c], r[c+1], ptr)
		} else {
			counted[c] = intersectCount(la, lb, r[c], r[c+1], ptr)
		}
	})
	start := make([]int64, w+1)
	for c := range w {
		start[c+1] = start[c] + counted[c]
	}
	n := start[w]
	it := arrowsparse.DataTypeOf[I]()
	vt := a.DataType()
	idxBuf, err := checkedBuffer(mem, it, n, "the indices of the result")
	if err != nil {
		return nil, err
	}
	defer idxBuf.Release()
	valBuf, err := checkedBuffer(mem, vt, n, "the values of the result")
	if err != nil {
		return nil, err
	}
	defer valBuf.Release()
	oi := core.MustSliceBytes[I](bytesOf(idxBuf))
	ov := core.MustSliceBytes[T](bytesOf(valBuf))

	// Fill: each run writes its entries from its start, leaving out zero
	// results unless keep, and records its lanes' ends as a prefix.
	written := make([]int64, w)
	par.Do(w, func(c int) {
		if p.union() {
			written[c] = unionFill(p, keep, la, lb, r[c], r[c+1], start[c], oi, ov, ptr)
		} else {
			written[c] = intersectFill(keep, la, lb, r[c], r[c+1], start[c], oi, ov, ptr)
		}
	})
	final := make([]int64, w+1)
	for c := range w {
		final[c+1] = final[c] + written[c]
	}
	if final[w] != n {
		// Zero results were left out: move each run down to its place in
		// exact buffers.
		ib, err := checkedBuffer(mem, it, final[w], "the indices of the result")
		if err != nil {
			return nil, err
		}
		defer ib.Release()
		vb, err := checkedBuffer(mem, vt, final[w], "the values of the result")
		if err != nil {
			return nil, err
		}
		defer vb.Release()
		ni, nv := core.MustSliceBytes[I](bytesOf(ib)), core.MustSliceBytes[T](bytesOf(vb))
		for c := range w {
			copy(ni[final[c]:final[c+1]], oi[start[c]:start[c]+written[c]])
			copy(nv[final[c]:final[c+1]], ov[start[c]:start[c]+written[c]])
		}
		idxBuf, valBuf = ib, vb
		n = final[w]
	}
	par.Do(w, func(c int) {
		for k := r[c]; k < r[c+1]; k++ {
			ptr[k+1] += final[c]
		}
	})
	pt, err := chooseIndex(ptrType, wider(a.IndptrType(), b.IndptrType()), n, "the number of entries of the result")
	if err != nil {
		return nil, err
	}
	ptrBuf := newBuffer(mem, pt, major+1)
	defer ptrBuf.Release()
	writeInts(ptrBuf.Bytes(), pt, 0, ptr)
	return gcs.New(vt, pt, it, a.Shape(), a.Axis(), ptrBuf, idxBuf, valBuf, n,
		gcs.WithDimNames(a.DimNames()...), gcs.WithCanonicalClaim(true))
}

// The merge loops below are written so that the compiler turns their
// decisions into conditional moves: on lanes whose indices interleave at
// random, a branch per entry would be mispredicted half the time.

// unionCount writes, for each lane k in [k0, k1), the number of indices
// in the union of the lanes of a and b, summed from k0, to cnt[k+1], and
// returns the total.
func unionCount[I arrowsparse.Index, T arrowsparse.Number](a, b laneSet[I, T], k0, k1 int64, cnt []int64) int64 {
	s := int64(0)
	for k := k0; k < k1; k++ {
		ai, bi := a.idx[a.ptr[k]:a.ptr[k+1]], b.idx[b.ptr[k]:b.ptr[k+1]]
		i, j := 0, 0
		for i < len(ai) && j < len(bi) {
			ca, cb := ai[i], bi[j]
			c := min(ca, cb)
			if ca == c {
				i++
			}
			if cb == c {
				j++
			}
			s++
		}
		s += int64(len(ai)-i) + int64(len(bi)-j)
		cnt[k+1] = s
	}
	return s
}

// intersectCount is unionCount for the intersection of the lanes.
func intersectCount[I arrowsparse.Index, T arrowsparse.Number](a, b laneSet[I, T], k0, k1 int64, cnt []int64) int64 {
	s := int64(0)
	for k := k0; k < k1; k++ {
		ai, bi := a.idx[a.ptr[k]:a.ptr[k+1]], b.idx[b.ptr[k]:b.ptr[k+1]]
		i, j := 0, 0
		for i < len(ai) && j < len(bi) {
			ca, cb := ai[i], bi[j]
			if ca == cb {
				s++
			}
			if ca <= cb {
				i++
			}
			if cb <= ca {
				j++
			}
		}
		cnt[k+1] = s
	}
	return s
}

// unionFill writes the union of the lanes [k0, k1) of a and b, with the
// values of p, to oi and ov from position at, leaving out zero values
// unless keep. It writes the number of entries written from k0 up to the
// end of lane k to cnt[k+1], and returns the total. oi and ov must have
// room for the whole union.
func unionFill[I arrowsparse.Index, T arrowsparse.Number](p op, keep bool, a, b laneSet[I, T], k0, k1, at int64, oi []I, ov []T, cnt []int64) int64 {
	pos := at
	for k := k0; k < k1; k++ {
		pa, pb := a.ptr[k], b.ptr[k]
		ai, bi := a.idx[pa:a.ptr[k+1]], b.idx[pb:b.ptr[k+1]]
		av, bv := a.val[pa:a.ptr[k+1]], b.val[pb:b.ptr[k+1]]
		av, bv = av[:len(ai)], bv[:len(bi)]
		i, j := 0, 0
		for i < len(ai) && j < len(bi) {
			ca, cb := ai[i], bi[j]
			c := min(ca, cb)
			// An operand without an entry at c contributes its implicit
			// zero: p(x, 0) and p(0, y) are what left and right give.
			sa, sb := 0, 0
			if ca == c {
				sa = 1
			}
			if cb == c {
				sb = 1
			}
			xs, ys := [2]T{0, av[i]}, [2]T{0, bv[j]}
			v := both(p, xs[sa], ys[sb])
			oi[pos], ov[pos] = c, v
			i += sa
			j += sb
			if keep || v != 0 {
				pos++
			}
		}
		for ; i < len(ai); i++ {
			if v := left(p, av[i]); keep || v != 0 {
				oi[pos], ov[pos] = ai[i], v
				pos++
			}
		}
		for ; j < len(bi); j++ {
			if v := right(p, bv[j]); keep || v != 0 {
				oi[pos], ov[pos] = bi[j], v
				pos++
			}
		}
		cnt[k+1] = pos - at
	}
	return pos - at
}

// intersectFill is unionFill for the product, over the intersection.
func intersectFill[I arrowsparse.Index, T arrowsparse.Number](keep bool, a, b laneSet[I, T], k0, k1, at int64, oi []I, ov []T, cnt []int64) int64 {
	pos := at
	for k := k0; k < k1; k++ {
		pa, pb := a.ptr[k], b.ptr[k]
		ai, bi := a.idx[pa:a.ptr[k+1]], b.idx[pb:b.ptr[k+1]]
		av, bv := a.val[pa:a.ptr[k+1]], b.val[pb:b.ptr[k+1]]
		av, bv = av[:len(ai)], bv[:len(bi)]
		i, j := 0, 0
		for i < len(ai) && j < len(bi) {
			ca, cb := ai[i], bi[j]
			if ca == cb {
				if v := av[i] * bv[j]; keep || v != 0 {
					oi[pos], ov[pos] = ca, v
					pos++
				}
			}
			if ca <= cb {
				i++
			}
			if cb <= ca {
				j++
			}
		}
		cnt[k+1] = pos - at
	}
	return pos - at
}

// samePattern computes a p b entry by entry when a and b have the same
// index pointers and, as it checks on the way, the same indices: then the
// result has their pattern, shares a's index buffers and needs only new
// values. It reports false (and has allocated nothing that it keeps) when
// the indices differ somewhere or, unless keep, a result is zero.
func samePattern[I arrowsparse.Index, T arrowsparse.Number](mem memory.Allocator, a *gcs.Matrix, la, lb laneSet[I, T], p op, keep bool, workers int) (*gcs.Matrix, bool, error) {
	n := int64(len(la.idx))
	if n == 0 || int64(len(lb.idx)) != n || !slices.Equal(la.ptr, lb.ptr) {
		return nil, false, nil
	}
	vb, err := checkedBuffer(mem, a.DataType(), n, "the values of the result")
	if err != nil {
		return nil, false, err
	}
	defer vb.Release()
	out := core.MustSliceBytes[T](vb.Bytes())
	w := workersFor(workers, 2*n)
	failed := make([]bool, w)
	par.Do(w, func(c int) {
		lo, hi := n*int64(c)/int64(w), n*int64(c+1)/int64(w)
		failed[c] = !sameRange(p, keep, la.idx[lo:hi], lb.idx[lo:hi], la.val[lo:hi], lb.val[lo:hi], out[lo:hi])
	})
	if slices.Contains(failed, true) {
		return nil, false, nil
	}
	r, err := a.WithValues(a.DataType(), vb)
	return r, true, err
}

// sameRange writes out[i] = ai[i] p bi[i] and reports whether the indices
// were equal and, unless keep, no result was zero. It works in blocks, so
// that the loops stay simple enough to run at memory speed.
func sameRange[I arrowsparse.Index, T arrowsparse.Number](p op, keep bool, ai, bi []I, av, bv, out []T) bool {
	const block = 4096
	for lo := 0; lo < len(ai); lo += block {
		hi := min(lo+block, len(ai))
		x, y := ai[lo:hi], bi[lo:hi]
		y = y[:len(x)]
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		u, v, o := av[lo:hi], bv[lo:hi], out[lo:hi]
		v, o = v[:len(u)], o[:len(u)]
		switch p {
		case opAdd:
			for i := range u {
				o[i] = u[i] + v[i]
			}
		case opSub:
			for i := range u {
				o[i] = u[i] - v[i]
			}
		case opMul:
			for i := range u {
				o[i] = u[i] * v[i]
			}
		case opMin:
			for i := range u {
				o[i] = min(u[i], v[i])
			}
		default:
			for i := range u {
				o[i] = max(u[i], v[i])
			}
		}
		if !keep {
			for _, z := range o {
				if z == 0 {
					return false
				}
			}
		}
	}
	return true
}
