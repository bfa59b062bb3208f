package arrowsparse

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow/float16"
)

// HalfToFloat32 returns the exact float32 value of a float16. Unlike
// float16.Num.Float32 of arrow-go v18, it handles subnormal numbers.
func HalfToFloat32(h float16.Num) float32 {
	b := h.Uint16()
	sign := uint32(b&0x8000) << 16
	exp := uint32(b>>10) & 0x1f
	mant := uint32(b & 0x3ff)
	switch exp {
	case 0:
		// ±0 and subnormals: mant × 2^-24, exact in float32.
		f := float32(mant) * (1.0 / (1 << 24))
		return math.Float32frombits(math.Float32bits(f) | sign)
	case 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}

// Float32ToHalf rounds a float32 to the nearest float16, ties to even, with
// overflow to infinity, gradual underflow to subnormals and NaN kept NaN.
// Unlike float16.New of arrow-go v18, it rounds instead of truncating and
// produces subnormals.
func Float32ToHalf(f float32) float16.Num {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23) & 0xff
	mant := b & 0x7fffff
	if exp == 0xff {
		if mant == 0 {
			return float16.FromBits(sign | 0x7c00)
		}
		return float16.FromBits(sign | 0x7e00 | uint16(mant>>13)) // quiet NaN
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return float16.FromBits(sign | 0x7c00)
	}
	if e <= 0 {
		if e < -10 {
			return float16.FromBits(sign)
		}
		m := mant | 0x800000
		shift := uint32(14 - e)
		r := m >> shift
		rem := m & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || rem == half && r&1 == 1 {
			r++
		}
		return float16.FromBits(sign | uint16(r))
	}
	r := uint32(e)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || rem == 0x1000 && r&1 == 1 {
		r++ // may carry into the exponent, up to infinity, as it should
	}
	return float16.FromBits(sign | uint16(r))
}
