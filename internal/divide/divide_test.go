package divide

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDivMod(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	divs := []uint64{1, 2, 3, 4, 7, 10, 1000, 1 << 20, 1_000_000, 1 << 32, 1<<32 + 1, 1 << 63, 1<<63 + 5, ^uint64(0)}
	for range 50 {
		divs = append(divs, r.Uint64N(1<<20)+1, r.Uint64()|1)
	}
	for _, d := range divs {
		v := New(d)
		require.Equal(t, d, v.Divisor())
		xs := []uint64{0, 1, d - 1, d, d + 1, ^uint64(0), ^uint64(0) - 1}
		for range 200 {
			xs = append(xs, r.Uint64(), r.Uint64N(1<<40))
		}
		for _, x := range xs {
			q, rem := v.DivMod(x)
			require.Equal(t, x/d, q, "x=%d d=%d", x, d)
			require.Equal(t, x%d, rem, "x=%d d=%d", x, d)
		}
	}
}

func TestZeroPanics(t *testing.T) {
	require.Panics(t, func() { New(0) })
}
