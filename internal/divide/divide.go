// Package divide divides by a fixed divisor without hardware division. The
// sparse formats turn linear keys back into coordinates this way (coo and
// csf keys, gcs lane and index numbers).
package divide

import "math/bits"

// Divider divides uint64 values by a fixed divisor with one multiply-high
// instead of a hardware division, which costs 20–40 cycles. It is exact for
// every dividend.
type Divider struct {
	d uint64
	m uint64 // floor((2^64-1)/d); 0 when d is a power of two
	s uint   // log2(d) when d is a power of two
}

// New returns a Divider for d, which must be positive.
func New(d uint64) Divider {
	if d == 0 {
		panic("divide: division by zero")
	}
	if d&(d-1) == 0 {
		return Divider{d: d, s: uint(bits.TrailingZeros64(d))}
	}
	return Divider{d: d, m: ^uint64(0) / d}
}

// Divisor returns d.
func (v Divider) Divisor() uint64 { return v.d }

// DivMod returns x/d and x%d: a shift and a mask when d is a power of two.
//
// Otherwise q = hi(x·m) underestimates x/d by at most 2 because m·d >
// 2^64-1-d, so at most two corrections are needed.
func (v Divider) DivMod(x uint64) (q, r uint64) {
	if v.m == 0 {
		return x >> v.s, x & (v.d - 1)
	}
	q, _ = bits.Mul64(x, v.m)
	r = x - q*v.d
	for r >= v.d {
		q++
		r -= v.d
	}
	return q, r
}
