package compute

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestDivider(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	ds := []uint64{1, 2, 3, 5, 7, 10, 641, 10000, 1 << 31, 1<<32 + 1, math.MaxInt64, 1 << 63, 1<<63 + 1, math.MaxUint64 - 1, math.MaxUint64}
	for range 200 {
		ds = append(ds, r.Uint64()>>r.UintN(64), r.Uint64N(1000)+1)
	}
	for _, d := range ds {
		if d == 0 {
			continue
		}
		v := newDivider(d)
		ns := []uint64{0, 1, d - 1, d, d + 1, math.MaxUint64, math.MaxUint64 - 1, math.MaxInt64}
		for range 200 {
			ns = append(ns, r.Uint64(), r.Uint64()>>r.UintN(64))
		}
		for _, n := range ns {
			q, m := v.divMod(n)
			if q != n/d || m != n%d {
				t.Fatalf("%d / %d: got %d r %d, want %d r %d", n, d, q, m, n/d, n%d)
			}
		}
	}
}
