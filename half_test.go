package arrowsparse

import (
	"math"
	"math/big"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// halfValue decodes a float16 bit pattern exactly, from its definition.
func halfValue(b uint16) float64 {
	sign := 1.0
	if b&0x8000 != 0 {
		sign = -1
	}
	exp := int(b>>10) & 0x1f
	mant := float64(b & 0x3ff)
	switch exp {
	case 0:
		return sign * mant * math.Pow(2, -24)
	case 0x1f:
		if mant != 0 {
			return math.NaN()
		}
		return sign * math.Inf(1)
	}
	return sign * (1 + mant/1024) * math.Pow(2, float64(exp-15))
}

func TestHalfToFloat32Exhaustive(t *testing.T) {
	for b := range 1 << 16 {
		want := halfValue(uint16(b))
		got := HalfToFloat32(float16.FromBits(uint16(b)))
		if math.IsNaN(want) {
			require.True(t, math.IsNaN(float64(got)), "bits %#04x", b)
			continue
		}
		require.Equal(t, want, float64(got), "bits %#04x", b)
		require.Equal(t, math.Signbit(want), math.Signbit(float64(got)), "bits %#04x", b)
		// And back, exactly.
		require.Equal(t, uint16(b), Float32ToHalf(got).Uint16(), "bits %#04x", b)
	}
}

// Float32ToHalf rounds to nearest, ties to even: check against exact
// arithmetic on the midpoints between consecutive halves and their
// neighbours.
func TestFloat32ToHalfRounding(t *testing.T) {
	for b := uint16(0); b < 0x7bff; b++ {
		lo, hi := halfValue(b), halfValue(b+1)
		mid := new(big.Float).SetPrec(100).Add(big.NewFloat(lo), big.NewFloat(hi))
		mid.Quo(mid, big.NewFloat(2))
		m32, acc := mid.Float32()
		if acc == big.Exact {
			want := b
			if b&1 == 1 {
				want = b + 1
			}
			assert.Equal(t, want, Float32ToHalf(m32).Uint16(), "tie between %#04x and %#04x", b, b+1)
			assert.Equal(t, b, Float32ToHalf(math.Nextafter32(m32, float32(math.Inf(-1)))).Uint16())
			assert.Equal(t, b+1, Float32ToHalf(math.Nextafter32(m32, float32(math.Inf(1)))).Uint16())
		}
	}
	assert.Equal(t, uint16(0x7c00), Float32ToHalf(65520).Uint16()) // rounds up to infinity
	assert.Equal(t, uint16(0x7bff), Float32ToHalf(65519).Uint16())
	assert.Equal(t, uint16(0), Float32ToHalf(math.Float32frombits(1)).Uint16())
	assert.Equal(t, uint16(0x8000), Float32ToHalf(float32(math.Copysign(0, -1))).Uint16())
	assert.True(t, HalfToFloat32(Float32ToHalf(float32(math.NaN()))) != HalfToFloat32(Float32ToHalf(float32(math.NaN()))))
	assert.Equal(t, uint16(0xfc00), Float32ToHalf(float32(math.Inf(-1))).Uint16())
	assert.Equal(t, uint16(1), Float32ToHalf(float32(math.Pow(2, -24)*0.75)).Uint16())
	assert.Equal(t, uint16(0), Float32ToHalf(float32(math.Pow(2, -25))).Uint16()) // tie to even
}
