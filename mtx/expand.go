package mtx

import (
	"unsafe"

	"github.com/arrowsparse/arrowsparse/internal/par"
	"github.com/arrowsparse/arrowsparse/internal/textparse"
)

// lane is the set of unsigned types of the element widths.
type lane interface {
	uint8 | uint16 | uint32 | uint64
}

// view returns the first n elements of b as a []E.
func view[E lane](b []byte, n int64) []E {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*E)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// mirror appends, after the n stored entries, the mirror image (c, r) of
// every off-diagonal entry (r, c), in order, with the value negated for a
// skew-symmetric matrix. It returns the new number of entries and the
// number added. The work is split among workers goroutines.
func mirror(coords, values *textparse.Column, n int64, vals textparse.Values, skew bool, workers int) (total, added int64) {
	if n == 0 {
		return 0, 0
	}
	k := int(min(int64(workers), max(n/(1<<16), 1)))
	bounds := make([]int64, k+1)
	for c := range k + 1 {
		bounds[c] = n * int64(c) / int64(k)
	}
	counts := make([]int64, k+1)
	cb := coords.Bytes(0, 2*n)
	par.Do(k, func(c int) {
		counts[c+1] = countOffDiag(cb, coords.Width, bounds[c], bounds[c+1])
	})
	for c := range k {
		counts[c+1] += counts[c]
	}
	added = counts[k]
	total = n + added
	coords.Reserve(2 * total)
	values.Reserve(total)
	cb = coords.Bytes(0, 2*total)
	vb := values.Bytes(0, total)
	neg := negation(vals, skew)
	par.Do(k, func(c int) {
		writeMirrors(cb, coords.Width, vb, values.Width, neg, bounds[c], bounds[c+1], n+counts[c])
	})
	return total, added
}

// negation says how to negate a value lane: 0 copies it, a mask flips the
// sign bit of a float, and intNegate negates a two's complement integer.
func negation(vals textparse.Values, skew bool) uint64 {
	if !skew {
		return 0
	}
	if textparse.IsFloat(vals.Type) {
		return 1 << (8*vals.Width - 1)
	}
	return intNegate
}

const intNegate = ^uint64(0)

func countOffDiag(cb []byte, iw int, lo, hi int64) int64 {
	switch iw {
	case 1:
		return countOff(view[uint8](cb, 2*hi), lo, hi)
	case 2:
		return countOff(view[uint16](cb, 2*hi), lo, hi)
	case 4:
		return countOff(view[uint32](cb, 2*hi), lo, hi)
	}
	return countOff(view[uint64](cb, 2*hi), lo, hi)
}

func countOff[I lane](c []I, lo, hi int64) int64 {
	var m int64
	for i := lo; i < hi; i++ {
		if c[2*i] != c[2*i+1] {
			m++
		}
	}
	return m
}

func writeMirrors(cb []byte, iw int, vb []byte, vw int, neg uint64, lo, hi, at int64) {
	switch iw {
	case 1:
		writeMirrorsV(view[uint8](cb, int64(len(cb))), vb, vw, neg, lo, hi, at)
	case 2:
		writeMirrorsV(view[uint16](cb, int64(len(cb)/2)), vb, vw, neg, lo, hi, at)
	case 4:
		writeMirrorsV(view[uint32](cb, int64(len(cb)/4)), vb, vw, neg, lo, hi, at)
	default:
		writeMirrorsV(view[uint64](cb, int64(len(cb)/8)), vb, vw, neg, lo, hi, at)
	}
}

func writeMirrorsV[I lane](c []I, vb []byte, vw int, neg uint64, lo, hi, at int64) {
	switch vw {
	case 1:
		writeMirrorsT(c, view[uint8](vb, int64(len(vb))), uint8(neg), neg == intNegate, lo, hi, at)
	case 2:
		writeMirrorsT(c, view[uint16](vb, int64(len(vb)/2)), uint16(neg), neg == intNegate, lo, hi, at)
	case 4:
		writeMirrorsT(c, view[uint32](vb, int64(len(vb)/4)), uint32(neg), neg == intNegate, lo, hi, at)
	default:
		writeMirrorsT(c, view[uint64](vb, int64(len(vb)/8)), neg, neg == intNegate, lo, hi, at)
	}
}

func writeMirrorsT[I, V lane](c []I, v []V, mask V, intNeg bool, lo, hi, at int64) {
	for i := lo; i < hi; i++ {
		r, col := c[2*i], c[2*i+1]
		if r == col {
			continue
		}
		c[2*at], c[2*at+1] = col, r
		x := v[i]
		switch {
		case intNeg:
			x = -x
		default:
			x ^= mask
		}
		v[at] = x
		at++
	}
}
