package compute

import (
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

// unionCount writes, for each lane k in [k0, k1), the number of indices
// in the union of the lanes of a and b, summed from k0, to cnt[k+1], and
// returns the total.
func unionCount[I arrowsparse.Index, T arrowsparse.Number](a, b laneSet[I, T], k0, k1 int64, cnt []int64) int64 {
	s := int64(0)
	ai, bi := a.idx, b.idx
	for k := k0; k < k1; k++ {
		i, ie := a.ptr[k], a.ptr[k+1]
		j, je := b.ptr[k], b.ptr[k+1]
		s += (ie - i) + (je - j)
		for i < ie && j < je {
			ca, cb := ai[i], bi[j]
			switch {
			case ca < cb:
				i++
			case cb < ca:
				j++
			default:
				s--
				i++
				j++
			}
		}
		cnt[k+1] = s
	}
	return s
}

// intersectCount is unionCount for the intersection of the lanes.
func intersectCount[I arrowsparse.Index, T arrowsparse.Number](a, b laneSet[I, T], k0, k1 int64, cnt []int64) int64 {
	s := int64(0)
	ai, bi := a.idx, b.idx
	for k := k0; k < k1; k++ {
		i, ie := a.ptr[k], a.ptr[k+1]
		j, je := b.ptr[k], b.ptr[k+1]
		for i < ie && j < je {
			ca, cb := ai[i], bi[j]
			switch {
			case ca < cb:
				i++
			case cb < ca:
				j++
			default:
				s++
				i++
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
// end of lane k to cnt[k+1], and returns the total.
func unionFill[I arrowsparse.Index, T arrowsparse.Number](p op, keep bool, a, b laneSet[I, T], k0, k1, at int64, oi []I, ov []T, cnt []int64) int64 {
	pos := at
	ai, av, bi, bv := a.idx, a.val, b.idx, b.val
	for k := k0; k < k1; k++ {
		i, ie := a.ptr[k], a.ptr[k+1]
		j, je := b.ptr[k], b.ptr[k+1]
		for i < ie && j < je {
			ca, cb := ai[i], bi[j]
			var c I
			var v T
			switch {
			case ca < cb:
				c, v = ca, left(p, av[i])
				i++
			case cb < ca:
				c, v = cb, right(p, bv[j])
				j++
			default:
				c, v = ca, both(p, av[i], bv[j])
				i++
				j++
			}
			if keep || v != 0 {
				oi[pos], ov[pos] = c, v
				pos++
			}
		}
		for ; i < ie; i++ {
			if v := left(p, av[i]); keep || v != 0 {
				oi[pos], ov[pos] = ai[i], v
				pos++
			}
		}
		for ; j < je; j++ {
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
	ai, av, bi, bv := a.idx, a.val, b.idx, b.val
	for k := k0; k < k1; k++ {
		i, ie := a.ptr[k], a.ptr[k+1]
		j, je := b.ptr[k], b.ptr[k+1]
		for i < ie && j < je {
			ca, cb := ai[i], bi[j]
			switch {
			case ca < cb:
				i++
			case cb < ca:
				j++
			default:
				if v := av[i] * bv[j]; keep || v != 0 {
					oi[pos], ov[pos] = ca, v
					pos++
				}
				i++
				j++
			}
		}
		cnt[k+1] = pos - at
	}
	return pos - at
}
