// Package strided walks the index space of a strided layout: the one
// odometer that the dense conversions of coo, csf and gcs and the copy
// kernels of views share. Positions and strides are counted in elements.
package strided

// inline is the rank up to which Walk keeps its index on the stack.
const inline = 8

// Walk calls f(idx, p) for every index idx of shape in row-major order,
// where p = off + Σ idx[k]·strides[k]. idx is reused between calls and must
// not be kept or modified. A shape with a zero dimension calls nothing; a
// 0-d shape calls f once, with an empty idx. Walk stops early when f
// returns false, and reports whether it ran to the end.
func Walk(shape, strides []int64, off int64, f func(idx []int64, p int64) bool) bool {
	for _, n := range shape {
		if n == 0 {
			return true
		}
	}
	nd := len(shape)
	var arr [inline]int64
	idx := arr[:0]
	if nd > inline {
		idx = make([]int64, nd)
	} else {
		idx = arr[:nd]
	}
	p := off
	for {
		if !f(idx, p) {
			return false
		}
		k := nd - 1
		for ; k >= 0; k-- {
			idx[k]++
			p += strides[k]
			if idx[k] < shape[k] {
				break
			}
			p -= idx[k] * strides[k]
			idx[k] = 0
		}
		if k < 0 {
			return true
		}
	}
}

// Each calls f(p) with p = off + Σ idx[k]·strides[k] for every index of
// shape in row-major order. It is Walk without the index, and allocates
// nothing up to rank 8.
func Each(shape, strides []int64, off int64, f func(p int64)) {
	Walk2(shape, strides, strides, off, off, func(p, _ int64) { f(p) })
}

// Walk2 is Walk over two layouts of one shape at once: it calls f(p1, p2)
// with p1 = off1 + Σ idx[k]·s1[k] and p2 = off2 + Σ idx[k]·s2[k] for every
// index of shape in row-major order.
func Walk2(shape, s1, s2 []int64, off1, off2 int64, f func(p1, p2 int64)) {
	for _, n := range shape {
		if n == 0 {
			return
		}
	}
	nd := len(shape)
	var arr [inline]int64
	idx := arr[:0]
	if nd > inline {
		idx = make([]int64, nd)
	} else {
		idx = arr[:nd]
	}
	p1, p2 := off1, off2
	for {
		f(p1, p2)
		k := nd - 1
		for ; k >= 0; k-- {
			idx[k]++
			p1 += s1[k]
			p2 += s2[k]
			if idx[k] < shape[k] {
				break
			}
			p1 -= idx[k] * s1[k]
			p2 -= idx[k] * s2[k]
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// Rows calls f(outer, start, n, stride) for every row of the layout along
// its last axis, in row-major order: outer is the index of the row in the
// leading axes (reused between calls), start the position of its first
// element, n the length of the last axis and stride its stride. A 0-d
// layout is one row of one element. It stops early when f returns false.
func Rows(shape, strides []int64, off int64, f func(outer []int64, start, n, stride int64) bool) bool {
	nd := len(shape)
	if nd == 0 {
		return f(nil, off, 1, 1)
	}
	n, s := shape[nd-1], strides[nd-1]
	if n == 0 {
		return true
	}
	return Walk(shape[:nd-1], strides[:nd-1], off, func(outer []int64, p int64) bool {
		return f(outer, p, n, s)
	})
}
