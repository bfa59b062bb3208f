package compute

import (
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
	var cnt []int64
	switch p.kind {
	case rSum, rMean:
		for i, k := range kr.keys {
			out[k] += vals[i]
		}
	case rCount:
		for _, k := range kr.keys {
			out[k]++
		}
	case rProd:
		cnt = make([]int64, p.outElems)
		for i := range out {
			out[i] = 1
		}
		for i, k := range kr.keys {
			out[k] *= vals[i]
			cnt[k]++
		}
	case rMin, rMax:
		cnt = make([]int64, p.outElems)
		for i, k := range kr.keys {
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

// sparseReduce groups the entries by key and reduces each group, then
// builds the sparse result from the groups whose value is not zero: a
// first pass counts the groups of each worker's range of the order, a
// second writes the results straight into the result's buffers.
func sparseReduce[A arrowsparse.Number](mem memory.Allocator, p *plan, kr keyer, vals []A) (arrowsparse.Tensor, error) {
	// Sort the keys, carrying the values along: the runs are then read
	// in sequence, where gathering the values of sorted entry numbers
	// would miss the cache on nearly every one.
	n := len(kr.keys)
	w := workersFor(p.o.Workers, int64(n))
	keys, svals := kr.keys, vals
	if !kr.sorted {
		keys, svals = sortKeys(kr.keys, vals, kr.bits, w)
	}
	// Cut the order into w ranges at key changes.
	cut := make([]int, w+1)
	cut[w] = n
	for c := 1; c < w; c++ {
		j := max(n*c/w, cut[c-1])
		for j > cut[c-1] && j < n && keys[j-1] == keys[j] {
			j++
		}
		cut[c] = j
	}
	runs := make([]int, w+1)
	par.Do(w, func(c int) {
		u := 0
		if lo, hi := cut[c], cut[c+1]; lo < hi {
			u = 1
			ks := keys[lo:hi]
			for j := 1; j < len(ks); j++ {
				if ks[j] != ks[j-1] {
					u++
				}
			}
		}
		runs[c+1] = u
	})
	for c := range w {
		runs[c+1] += runs[c]
	}
	total := int64(runs[w])
	od := int64(len(p.outShape))
	it, err := chooseIndex(p.o.IndexType, p.indexType(), max(maxDim(p.outShape)-1, 0), "the coordinates of the result")
	if err != nil {
		return nil, err
	}
	cb, err := checkedBuffer(mem, it, total*od, "the coordinates of the result")
	if err != nil {
		return nil, err
	}
	defer cb.Release()
	vb, err := checkedBuffer(mem, p.ot, total, "the values of the result")
	if err != nil {
		return nil, err
	}
	defer vb.Release()
	written := make([]int64, w)
	par.Do(w, func(c int) {
		written[c] = reduceRuns(p, keys, kr.coords, svals, cut[c], cut[c+1], int64(runs[c]), it, cb.Bytes(), vb.Bytes())
	})
	kept := int64(0)
	for _, x := range written {
		kept += x
	}
	if kept != total {
		// Zero results were left out: move each range down to its place
		// in exact buffers.
		cb2, err := checkedBuffer(mem, it, kept*od, "the coordinates of the result")
		if err != nil {
			return nil, err
		}
		defer cb2.Release()
		vb2, err := checkedBuffer(mem, p.ot, kept, "the values of the result")
		if err != nil {
			return nil, err
		}
		defer vb2.Release()
		iw, vw := int64(arrowsparse.ByteWidth(it))*od, int64(arrowsparse.ByteWidth(p.ot))
		at := int64(0)
		for c := range w {
			r0 := int64(runs[c])
			copy(cb2.Bytes()[at*iw:], cb.Bytes()[r0*iw:(r0+written[c])*iw])
			copy(vb2.Bytes()[at*vw:], vb.Bytes()[r0*vw:(r0+written[c])*vw])
			at += written[c]
		}
		cb, vb = cb2, vb2
	}
	r, err := coo.New(p.ot, it, p.outShape, cb, coo.RowMajor, vb, kept,
		coo.WithDimNames(p.outNames...), coo.WithTrusted(), coo.WithCanonicalClaim(true))
	if err != nil || p.format == COO {
		return r, err
	}
	defer r.Release()
	return p.sparse(mem, r)
}

// reduceRun reduces the values of one run, in order.
func reduceRun[A arrowsparse.Number](k reduction, vs []A) A {
	acc := vs[0]
	switch k {
	case rSum, rMean:
		for _, x := range vs[1:] {
			acc += x
		}
	case rProd:
		for _, x := range vs[1:] {
			acc *= x
		}
	case rMin:
		for _, x := range vs[1:] {
			acc = min(acc, x)
		}
	case rMax:
		for _, x := range vs[1:] {
			acc = max(acc, x)
		}
	}
	return acc
}

// reduceRuns reduces the runs of equal keys in positions [lo, hi) of the
// order and writes the results that are kept (not zero, unless KeepZeros)
// to the coordinates cb (of type it, row-major) and values vb (of the
// result type) from result position at. It returns how many it wrote.
func reduceRuns[A arrowsparse.Number](p *plan, keys []uint64, coords func(uint64, []int64), vals []A, lo, hi int, at int64, it arrow.DataType, cb, vb []byte) int64 {
	const stage = 512
	od := len(p.outShape)
	cs := make([]int64, 0, stage*od)
	vs := make([]A, 0, stage)
	pos := at
	flush := func() {
		writeInts(cb, it, pos*int64(od), cs)
		if p.halfOut {
			singleToHalf(core.MustSliceBytes[float16.Num](vb)[pos:], any(vs).([]float32))
		} else {
			copy(core.MustSliceBytes[A](vb)[pos:], vs)
		}
		pos += int64(len(vs))
		cs, vs = cs[:0], vs[:0]
	}
	keep := p.o.KeepZeros
	for j := lo; j < hi; {
		k, start := keys[j], j
		j++
		for j < hi && keys[j] == k {
			j++
		}
		cnt := int64(j - start)
		var acc A
		if p.kind != rCount {
			acc = reduceRun(p.kind, vals[start:j])
		}
		if p.kind == rCount {
			acc = A(cnt)
		} else {
			acc = finalValue(p, acc, cnt)
		}
		if keep || !(acc == 0 || p.halfOut && arrowsparse.Float32ToHalf(float32(acc)).Uint16()&0x7fff == 0) {
			cs = cs[:len(cs)+od]
			coords(k, cs[len(cs)-od:])
			vs = append(vs, acc)
			if len(vs) == stage {
				flush()
			}
		}
	}
	flush()
	return pos - at
}
