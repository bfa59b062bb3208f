package compute

import "math/bits"

// divider divides unsigned 64-bit integers by a fixed divisor d ≥ 1 with a
// multiplication, a subtraction and shifts (Granlund and Montgomery,
// "Division by invariant integers using multiplication", 1994, figure
// 4.1), which is exact for every dividend: with 2^(l-1) < d ≤ 2^l and
// m = ⌊2^64·(2^l − d)/d⌋ + 1, t = ⌊m·n/2^64⌋, n/d = (t + (n−t)/2) >> (l−1).
// Unlinearising keys divides once per result and dimension, which the
// hardware divider would make the slowest step of a reduction.
type divider struct {
	d     uint64
	m     uint64
	shift uint // l-1
}

func newDivider(d uint64) divider {
	if d <= 1 {
		return divider{d: 1}
	}
	l := uint(bits.Len64(d - 1))
	var hi uint64
	if l < 64 {
		hi = uint64(1)<<l - d
	} else {
		hi = -d // 2^64 - d
	}
	q, _ := bits.Div64(hi, 0, d)
	return divider{d: d, m: q + 1, shift: l - 1}
}

// divMod returns n/d and n%d.
func (v divider) divMod(n uint64) (uint64, uint64) {
	if v.d == 1 {
		return n, 0
	}
	t, _ := bits.Mul64(v.m, n)
	q := (t + (n-t)>>1) >> v.shift
	return q, n - q*v.d
}
