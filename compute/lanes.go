package compute

import (
	"slices"
	"unsafe"

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

// lanesOf returns m's lanes, widening its index pointers into memory from
// mem on up to workers goroutines, and the function that releases that
// memory; I and T must be m's index and value types.
func lanesOf[I arrowsparse.Index, T arrowsparse.Number](mem memory.Allocator, m *gcs.Matrix, workers int) (laneSet[I, T], func()) {
	idx, err := gcs.Indices[I](m)
	if err != nil {
		panic(arrowsparse.PanicError{Msg: "compute: " + err.Error()})
	}
	val, err := gcs.Values[T](m)
	if err != nil {
		panic(arrowsparse.PanicError{Msg: "compute: " + err.Error()})
	}
	ptr, release := readIntsOn(mem, bytesOf(m.IndptrBuffer()), m.IndptrType(), m.Lanes()+1, workers)
	return laneSet[I, T]{ptr: ptr, idx: idx, val: val}, release
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
	la, releaseA := lanesOf[I, T](mem, a, workers)
	defer releaseA()
	lb, releaseB := lanesOf[I, T](mem, b, workers)
	defer releaseB()
	major := a.Lanes()
	if r, ok, err := samePattern(mem, a, b, la, lb, p, keep, workers); ok || err != nil {
		return r, err
	}
	w := workersFor(workers, a.NNZ()+b.NNZ())
	w = int(min(int64(w), max(major, 1)))
	r := splitLanes(la.ptr, lb.ptr, w)

	// Room for each run of lanes: the most entries its lanes can give,
	// lenA+lenB per lane for a union and min(lenA, lenB) for an
	// intersection, a bound tied to the operands' sizes that costs no
	// merge to compute.
	start := make([]int64, w+1)
	for c := range w {
		if p.union() {
			start[c+1] = start[c] + la.ptr[r[c+1]] - la.ptr[r[c]] + lb.ptr[r[c+1]] - lb.ptr[r[c]]
			continue
		}
		m := int64(0)
		for k := r[c]; k < r[c+1]; k++ {
			m += min(la.ptr[k+1]-la.ptr[k], lb.ptr[k+1]-lb.ptr[k])
		}
		start[c+1] = start[c] + m
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

	// One pass. The runs go in pairs that meet: the first of a pair fills
	// its room backwards from its end, lane by lane from the last, and the
	// second forwards from that same point. Each pair's entries are then
	// contiguous, whatever its runs left out (overlaps, zero results), and
	// on two workers the result needs no closing of gaps at all. ends[k+1]
	// is where lane k ends in the room; lo and hi are each run's span.
	ends, releaseEnds := scratchInts(mem, major+1)
	defer releaseEnds()
	lo, hi := make([]int64, w), make([]int64, w)
	back := func(c int) bool { return c%2 == 0 && c+1 < w }
	par.Do(w, func(c int) {
		lo[c], hi[c] = fillRun(p, keep, la, lb, r[c], r[c+1], start[c], start[c+1], back(c), oi, ov, ends)
	})
	// Close the gaps between the pairs' blocks, moving each block down to
	// the end of the one before it; shift[c] is how far run c moved.
	shift := make([]int64, w)
	end := hi[min(1, w-1)]
	for c := 2; c < w; c += 2 {
		bl, bh := lo[c], hi[min(c+1, w-1)]
		d := bl - end
		if d > 0 {
			copy(oi[end:end+bh-bl], oi[bl:bh])
			copy(ov[end:end+bh-bl], ov[bl:bh])
		}
		shift[c] = d
		if c+1 < w {
			shift[c+1] = d
		}
		end += bh - bl
	}
	base := lo[0]
	m := end - base
	if m != n || base != 0 {
		// Keep exact buffers: new ones when more than an eighth of the
		// room is unused (copying the entries), else slices of these.
		iw, vw := int64(arrowsparse.ByteWidth(it)), int64(arrowsparse.ByteWidth(vt))
		var ib, vb *memory.Buffer
		if m < n-n/8 {
			ib, vb = newBuffer(mem, it, m), newBuffer(mem, vt, m)
			copy(bytesOf(ib), bytesOf(idxBuf)[base*iw:(base+m)*iw])
			copy(bytesOf(vb), bytesOf(valBuf)[base*vw:(base+m)*vw])
		} else {
			ib, vb = memory.SliceBuffer(idxBuf, int(base*iw), int(m*iw)), memory.SliceBuffer(valBuf, int(base*vw), int(m*vw))
		}
		defer ib.Release()
		defer vb.Release()
		idxBuf, valBuf, n = ib, vb, m
	}
	pt, err := chooseIndex(ptrType, wider(a.IndptrType(), b.IndptrType()), n, "the number of entries of the result")
	if err != nil {
		return nil, err
	}
	ptrBuf := newBuffer(mem, pt, major+1)
	defer ptrBuf.Release()
	// The lanes' ends, moved with their runs and written as pt, each run
	// its own.
	ptr := ends
	ptr[0] = 0
	writeInts(ptrBuf.Bytes(), pt, 0, ptr[:1])
	par.Do(w, func(c int) {
		d := shift[c] + base
		for k := r[c]; k < r[c+1]; k++ {
			ptr[k+1] -= d
		}
		writeInts(ptrBuf.Bytes(), pt, r[c]+1, ptr[r[c]+1:r[c+1]+1])
	})
	// Canonical by construction (each lane merges two strictly increasing
	// lanes): trusted, which saves New a serial pass over every index.
	return gcs.New(vt, pt, it, a.Shape(), a.Axis(), ptrBuf, idxBuf, valBuf, n,
		gcs.WithDimNames(a.DimNames()...), gcs.WithTrusted(), gcs.WithCanonicalClaim(true))
}

// fillRun writes a p b for the lanes [k0, k1) of a and b into their room
// [from, to) of oi and ov, forwards from from or, if back, backwards from
// to, leaving out zero values unless keep. It writes where each lane k
// ends to ends[k+1], and returns the span [lo, hi) of what it wrote.
func fillRun[I arrowsparse.Index, T arrowsparse.Number](p op, keep bool, a, b laneSet[I, T], k0, k1, from, to int64, back bool, oi []I, ov []T, ends []int64) (lo, hi int64) {
	if !back {
		pos := from
		for k := k0; k < k1; k++ {
			pa, pb, qa, qb := a.ptr[k], b.ptr[k], a.ptr[k+1], b.ptr[k+1]
			if pa == qa && pb == qb {
				ends[k+1] = pos // empty in both: most lanes of a very sparse shape
				continue
			}
			pos += fillLane(p, keep, a.idx[pa:qa], b.idx[pb:qb], a.val[pa:qa], b.val[pb:qb], oi[pos:to], ov[pos:to])
			ends[k+1] = pos
		}
		return from, pos
	}
	// Backwards: each lane merges forwards into the top of what is left
	// of the room, and moves up (within the cache) only when it left
	// something out.
	pos := to
	for k := k1 - 1; k >= k0; k-- {
		ends[k+1] = pos
		pa, pb, qa, qb := a.ptr[k], b.ptr[k], a.ptr[k+1], b.ptr[k+1]
		if pa == qa && pb == qb {
			continue
		}
		room := min(qa-pa, qb-pb)
		if p.union() {
			room = qa - pa + qb - pb
		}
		s := pos - room
		c := fillLane(p, keep, a.idx[pa:qa], b.idx[pb:qb], a.val[pa:qa], b.val[pb:qb], oi[s:pos], ov[s:pos])
		if c < room {
			copy(oi[pos-c:pos], oi[s:s+c])
			copy(ov[pos-c:pos], ov[s:s+c])
		}
		pos -= c
	}
	return pos, to
}

// fillLane writes the entries of one lane of a p b, from the lanes' indices
// ai and bi and values av and bv, to oi and ov (which have room for the
// union, or for a product the intersection), leaving out zero values
// unless keep, and returns how many it wrote.
func fillLane[I arrowsparse.Index, T arrowsparse.Number](p op, keep bool, ai, bi []I, av, bv []T, oi []I, ov []T) int64 {
	switch p {
	case opAdd, opSub:
		return int64(sumLane(p == opSub, keep, ai, bi, av, bv, oi, ov))
	case opMul:
		return int64(intersectLane(keep, ai, bi, av, bv, oi, ov))
	}
	return int64(mergeLane(p, keep, ai, bi, av, bv, oi, ov))
}

// The merge loops below are written so that the compiler turns their
// decisions into conditional moves: on lanes whose indices interleave at
// random, a branch per entry would be mispredicted half the time.

// sumLane is fillLane for the sum and, if neg, the difference: the hot
// loop of A + B, kept to few enough live values that the compiler holds
// them all in registers. oi and ov must have room for len(ai)+len(bi)
// entries; the loop writes them through unchecked pointers.
func sumLane[I arrowsparse.Index, T arrowsparse.Number](neg, keep bool, ai, bi []I, av, bv []T, oi []I, ov []T) int {
	n := len(ai) + len(bi)
	if n == 0 {
		return 0
	}
	av, bv, oi, ov = av[:len(ai)], bv[:len(bi)], oi[:n], ov[:n]
	po, pv := unsafe.Pointer(unsafe.SliceData(oi)), unsafe.Pointer(unsafe.SliceData(ov))
	iw, vw := unsafe.Sizeof(oi[0]), unsafe.Sizeof(ov[0])
	sign := T(1)
	if neg {
		sign = 0
		sign-- // -1 for every type, wrapping for the unsigned ones
	}
	var pos uintptr
	i, j := 0, 0
	for i < len(ai) && j < len(bi) {
		c, sa, sb := step(ai[i], bi[j])
		xs, ys := [2]T{0, av[i]}, [2]T{0, sign * bv[j]}
		v := xs[sa] + ys[sb]
		*(*I)(unsafe.Add(po, pos*iw)) = c
		*(*T)(unsafe.Add(pv, pos*vw)) = v
		i += sa
		j += sb
		if keep || v != 0 {
			pos++
		}
	}
	k := int(pos)
	for ; i < len(ai); i++ {
		if v := av[i]; keep || v != 0 {
			oi[k], ov[k] = ai[i], v
			k++
		}
	}
	for ; j < len(bi); j++ {
		if v := sign * bv[j]; keep || v != 0 {
			oi[k], ov[k] = bi[j], v
			k++
		}
	}
	return k
}

// step is one step of a union's merge: the smaller of the next indices
// ca and cb, and for each side 1 if it holds that index (it advances),
// else 0.
func step[I arrowsparse.Index](ca, cb I) (c I, sa, sb int) {
	c = min(ca, cb)
	if ca == c {
		sa = 1
	}
	if cb == c {
		sb = 1
	}
	return c, sa, sb
}

// mergeLane is fillLane for the union of any operation.
func mergeLane[I arrowsparse.Index, T arrowsparse.Number](p op, keep bool, ai, bi []I, av, bv []T, oi []I, ov []T) int {
	av, bv = av[:len(ai)], bv[:len(bi)]
	pos, i, j := 0, 0, 0
	for i < len(ai) && j < len(bi) {
		// An operand without an entry at c contributes its implicit
		// zero: p(x, 0) and p(0, y) are what left and right give.
		c, sa, sb := step(ai[i], bi[j])
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
	return pos
}

// intersectLane is fillLane for the product, over the intersection.
func intersectLane[I arrowsparse.Index, T arrowsparse.Number](keep bool, ai, bi []I, av, bv []T, oi []I, ov []T) int {
	av, bv = av[:len(ai)], bv[:len(bi)]
	pos, i, j := 0, 0, 0
	for i < len(ai) && j < len(bi) {
		ca, cb := ai[i], bi[j]
		if ca == cb {
			if v := av[i] * bv[j]; keep || v != 0 {
				oi[pos], ov[pos] = ca, v
				pos++
			}
		}
		di, dj := 0, 0
		if ca <= cb {
			di = 1
		}
		if cb <= ca {
			dj = 1
		}
		i += di
		j += dj
	}
	return pos
}

// samePattern computes a p b entry by entry when a and b have the same
// index pointers and, as it checks on the way, the same indices: then the
// result has their pattern, shares a's index buffers and needs only new
// values. It reports false (and has allocated nothing that it keeps) when
// the indices differ somewhere or, unless keep, a result is zero.
func samePattern[I arrowsparse.Index, T arrowsparse.Number](mem memory.Allocator, a, b *gcs.Matrix, la, lb laneSet[I, T], p op, keep bool, workers int) (*gcs.Matrix, bool, error) {
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
	// Operands whose indices are the same memory (a matrix and a scaled
	// or mapped copy of it) need no comparison.
	shared := sameMemory(a.IndicesBuffer(), b.IndicesBuffer())
	failed := make([]bool, w)
	par.Do(w, func(c int) {
		lo, hi := n*int64(c)/int64(w), n*int64(c+1)/int64(w)
		failed[c] = !sameRange(p, keep, shared, la.idx[lo:hi], lb.idx[lo:hi], la.val[lo:hi], lb.val[lo:hi], out[lo:hi])
	})
	if slices.Contains(failed, true) {
		return nil, false, nil
	}
	r, err := a.WithValues(a.DataType(), vb)
	return r, true, err
}

// sameRange writes out[i] = av[i] p bv[i] and reports whether the indices
// ai and bi were equal (not compared if shared) and, unless keep, no
// result was zero. It works in blocks, so that the loops stay simple
// enough to run at memory speed.
func sameRange[I arrowsparse.Index, T arrowsparse.Number](p op, keep, shared bool, ai, bi []I, av, bv, out []T) bool {
	const block = 4096
	for lo := 0; lo < len(ai); lo += block {
		hi := min(lo+block, len(ai))
		if !shared {
			x, y := ai[lo:hi], bi[lo:hi]
			y = y[:len(x)]
			for i := range x {
				if x[i] != y[i] {
					return false
				}
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

// sameMemory reports whether two buffers hold the same bytes of memory.
func sameMemory(x, y *memory.Buffer) bool {
	if x == nil || y == nil {
		return false
	}
	bx, by := x.Bytes(), y.Bytes()
	return len(bx) == len(by) && len(bx) > 0 && unsafe.SliceData(bx) == unsafe.SliceData(by)
}
