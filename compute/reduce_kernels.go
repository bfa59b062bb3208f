package compute

import (
	"math/bits"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/par"
	"github.com/arrowsparse/arrowsparse/views"
)

// reduceAs runs the reduction with accumulator type A over the entries of
// c.
func reduceAs[A arrowsparse.Number](mem memory.Allocator, p *plan, c *coo.Tensor) (arrowsparse.Tensor, error) {
	var vals []A
	if p.kind != rCount {
		vals = loadValues[A](c.DataType(), c.ValueBytes())
	}
	var kr keyer
	if p.outElems >= 0 {
		kr = p.linearKeyer(c)
	} else {
		kr = p.rankKeyer(c)
	}
	if p.format == Dense {
		return denseReduce(mem, p, kr, vals)
	}
	return sparseReduce(mem, p, kr, vals)
}

// loadValues returns the values in b, of type dt, converted to A (float16
// exactly to float32, for which A is float32). Values already of type A
// are returned in place.
func loadValues[A arrowsparse.Number](dt arrow.DataType, b []byte) []A {
	if arrowsparse.TypeMatches[A](dt) {
		return core.MustSliceBytes[A](b)
	}
	n := len(b) / arrowsparse.ByteWidth(dt)
	d := make([]A, n)
	switch dt.ID() {
	case arrow.INT8:
		convertAll(core.MustSliceBytes[int8](b), d)
	case arrow.INT16:
		convertAll(core.MustSliceBytes[int16](b), d)
	case arrow.INT32:
		convertAll(core.MustSliceBytes[int32](b), d)
	case arrow.INT64:
		convertAll(core.MustSliceBytes[int64](b), d)
	case arrow.UINT8:
		convertAll(core.MustSliceBytes[uint8](b), d)
	case arrow.UINT16:
		convertAll(core.MustSliceBytes[uint16](b), d)
	case arrow.UINT32:
		convertAll(core.MustSliceBytes[uint32](b), d)
	case arrow.UINT64:
		convertAll(core.MustSliceBytes[uint64](b), d)
	case arrow.FLOAT16:
		halfToSingle(any(d).([]float32), core.MustSliceBytes[float16.Num](b))
	case arrow.FLOAT32:
		convertAll(core.MustSliceBytes[float32](b), d)
	case arrow.FLOAT64:
		convertAll(core.MustSliceBytes[float64](b), d)
	}
	return d
}

// storeValues writes vals, of the accumulator type A, to out as values of
// type ot: A itself, or float16 from float32.
func storeValues[A arrowsparse.Number](ot arrow.DataType, vals []A, out []byte) {
	if ot.ID() == arrow.FLOAT16 {
		singleToHalf(core.MustSliceBytes[float16.Num](out), any(vals).([]float32))
		return
	}
	copy(core.MustSliceBytes[A](out), vals)
}

// finalValue completes the reduction of one result element from its
// accumulated value and the number of stored values reduced into it:
// implicit zeros for Prod, Min and Max, the division of Mean.
func finalValue[A arrowsparse.Number](p *plan, v A, cnt int64) A {
	switch p.kind {
	case rProd:
		if cnt < p.r {
			v *= 0 // NaN and ±Inf times the implicit zero give NaN
		}
	case rMin:
		if cnt < p.r {
			v = min(v, 0)
		}
	case rMax:
		if cnt < p.r {
			v = max(v, 0)
		}
	case rMean:
		v /= A(p.rf)
	}
	return v
}

// denseReduce scatters the entries into a dense result, in storage order.
func denseReduce[A arrowsparse.Number](mem memory.Allocator, p *plan, kr keyer, vals []A) (arrowsparse.Tensor, error) {
	v, err := views.Alloc(mem, p.ot, p.outShape)
	if err != nil {
		return nil, err
	}
	ob, _ := storedValues(v)
	var out []A
	if arrow.TypeEqual(p.at, p.ot) {
		out = core.MustSliceBytes[A](ob)
	} else {
		out = make([]A, p.outElems)
	}
	keys := kr.keys
	var cnt []int64
	switch p.kind {
	case rSum, rMean:
		for i, k := range keys {
			out[k] += vals[i]
		}
	case rCount:
		for _, k := range keys {
			out[k]++
		}
	case rProd:
		cnt = make([]int64, p.outElems)
		for i := range out {
			out[i] = 1
		}
		for i, k := range keys {
			out[k] *= vals[i]
			cnt[k]++
		}
	case rMin, rMax:
		cnt = make([]int64, p.outElems)
		for i, k := range keys {
			x := vals[i]
			switch {
			case cnt[k] == 0:
				out[k] = x
			case p.kind == rMin:
				out[k] = min(out[k], x)
			default:
				out[k] = max(out[k], x)
			}
			cnt[k]++
		}
	}
	if p.kind != rSum && p.kind != rCount {
		for e := range out {
			c := int64(0)
			if cnt != nil {
				c = cnt[e]
			}
			out[e] = finalValue(p, out[e], c)
		}
	}
	if !arrow.TypeEqual(p.at, p.ot) {
		storeValues(p.ot, out, ob)
	}
	return p.finish(mem, v)
}

// order is the entries in the order of their keys: the storage order
// (when the keys never decrease), words from sortWords (key above ib
// bits, entry number below), or a permutation.
type order struct {
	words []uint64
	ib    uint
	mask  uint64
	keys  []uint64
	perm  []int64
	n     int
}

// at returns the key and the entry number of position j.
func (s *order) at(j int) (uint64, int) {
	switch {
	case s.words != nil:
		w := s.words[j]
		return w >> s.ib, int(w & s.mask)
	case s.perm != nil:
		e := s.perm[j]
		return s.keys[e], int(e)
	}
	return s.keys[j], j
}

// sortedOrder returns the entries in key order.
func sortedOrder(kr keyer, workers int) order {
	n := len(kr.keys)
	s := order{keys: kr.keys, n: n}
	if kr.sorted {
		return s
	}
	ib := uint(bits.Len64(uint64(max(n-1, 0))))
	if ib+kr.bits <= 64 {
		words := make([]uint64, n)
		w := workersFor(workers, int64(n))
		par.Do(w, func(c int) {
			for i := n * c / w; i < n*(c+1)/w; i++ {
				words[i] = kr.keys[i]<<ib | uint64(i)
			}
		})
		s.words = sortWords(words, make([]uint64, n), ib, ib+kr.bits, w)
		s.ib, s.mask = ib, uint64(1)<<ib-1
		return s
	}
	s.perm = make([]int64, n)
	for i := range s.perm {
		s.perm[i] = int64(i)
	}
	slices.SortStableFunc(s.perm, func(a, b int64) int {
		ka, kb := kr.keys[a], kr.keys[b]
		if ka < kb {
			return -1
		}
		if ka > kb {
			return 1
		}
		return 0
	})
	return s
}

// sparseReduce groups the entries by key and reduces each group, then
// builds the sparse result from the groups whose value is not zero.
func sparseReduce[A arrowsparse.Number](mem memory.Allocator, p *plan, kr keyer, vals []A) (arrowsparse.Tensor, error) {
	s := sortedOrder(kr, p.o.Workers)
	n := s.n
	w := workersFor(p.o.Workers, int64(n))
	// Cut the order into w ranges at key changes.
	cut := make([]int, w+1)
	cut[w] = n
	for c := 1; c < w; c++ {
		j := max(n*c/w, cut[c-1])
		for j > cut[c-1] && j < n {
			k0, _ := s.at(j - 1)
			k1, _ := s.at(j)
			if k0 != k1 {
				break
			}
			j++
		}
		cut[c] = j
	}
	keys := make([][]uint64, w)
	outs := make([][]A, w)
	par.Do(w, func(c int) {
		keys[c], outs[c] = reduceRuns(p, &s, vals, cut[c], cut[c+1])
	})
	total := 0
	for c := range w {
		total += len(keys[c])
	}
	od := len(p.outShape)
	coords := make([]int64, total*od)
	res := make([]A, 0, total)
	at := 0
	for c := range w {
		for _, k := range keys[c] {
			kr.coords(k, coords[at*od:(at+1)*od])
			at++
		}
		res = append(res, outs[c]...)
	}
	vb := make([]byte, total*arrowsparse.ByteWidth(p.ot))
	storeValues(p.ot, res, vb)
	it, err := chooseIndex(p.o.IndexType, p.indexType(), max(maxDim(p.outShape)-1, 0), "the coordinates of the result")
	if err != nil {
		return nil, err
	}
	r, err := buildCOO(mem, p.outShape, p.outNames, coords, p.ot, vb, int64(total), it, true)
	if err != nil || p.format == COO {
		return r, err
	}
	defer r.Release()
	return p.sparse(mem, r)
}

// reduceRuns reduces the runs of equal keys in positions [lo, hi) of the
// order, returning the key and value of each result kept.
func reduceRuns[A arrowsparse.Number](p *plan, s *order, vals []A, lo, hi int) ([]uint64, []A) {
	var keys []uint64
	var out []A
	keep := p.o.KeepZeros
	for j := lo; j < hi; {
		k, e := s.at(j)
		var acc A
		if p.kind != rCount {
			acc = vals[e]
		}
		j++
		cnt := int64(1)
		for j < hi {
			k1, e1 := s.at(j)
			if k1 != k {
				break
			}
			switch p.kind {
			case rSum, rMean:
				acc += vals[e1]
			case rProd:
				acc *= vals[e1]
			case rMin:
				acc = min(acc, vals[e1])
			case rMax:
				acc = max(acc, vals[e1])
			}
			cnt++
			j++
		}
		if p.kind == rCount {
			acc = A(cnt)
		} else {
			acc = finalValue(p, acc, cnt)
		}
		if keep || !(acc == 0 || p.halfOut && arrowsparse.Float32ToHalf(float32(acc)).Uint16()&0x7fff == 0) {
			keys = append(keys, k)
			out = append(out, acc)
		}
	}
	return keys, out
}
