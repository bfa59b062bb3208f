package gcs

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
)

// TestSpMVAssemblyBits checks that the assembly dot-product kernels give
// the bits of the Go kernel, for every type they cover, on random lanes
// (empty ones included) with values of mixed magnitudes, over random
// ranges of lanes. Under the purego tag, or off amd64, it checks that
// there are none.
func TestSpMVAssemblyBits(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	spmvBits[int32, int32, float64](t, r)
	spmvBits[int32, int64, float64](t, r)
	spmvBits[int64, int32, float64](t, r)
	spmvBits[int64, int64, float64](t, r)
	spmvBits[int32, int32, float32](t, r)
	spmvBits[int32, int64, float32](t, r)
	spmvBits[int64, int32, float32](t, r)
	spmvBits[int64, int64, float32](t, r)
}

func spmvBits[P, I int32 | int64, T arrowsparse.Float](t *testing.T, r *rand.Rand) {
	k := asmGather[P, I, T]()
	if k == nil {
		t.Skip("no assembly kernels in this build (purego, or not amd64)")
	}
	for range 20 {
		lanes := 1 + r.IntN(300)
		cols := 1 + r.IntN(5000)
		ptr := make([]P, lanes+1)
		var idx []I
		for l := range lanes {
			n := 0
			if r.IntN(4) > 0 {
				n = r.IntN(40)
			}
			for range n {
				idx = append(idx, I(r.IntN(cols)))
			}
			ptr[l+1] = P(len(idx))
		}
		v := make([]T, len(idx))
		for i := range v {
			v[i] = T(r.NormFloat64() * math.Pow(10, float64(r.IntN(16)-8)))
		}
		x := make([]T, cols)
		for i := range x {
			x[i] = T(r.NormFloat64() * math.Pow(10, float64(r.IntN(16)-8)))
		}
		if len(idx) == 0 {
			continue
		}
		k0 := r.IntN(lanes)
		k1 := k0 + r.IntN(lanes-k0+1)
		want := make([]T, lanes)
		got := make([]T, lanes)
		gatherLanesUnchecked(ptr, idx, v, x, want, int64(k0), int64(k1))
		k(unsafe.Pointer(&ptr[0]), unsafe.Pointer(&idx[0]), unsafe.Pointer(&v[0]), unsafe.Pointer(&x[0]), unsafe.Pointer(&got[0]), int64(k0), int64(k1), int64(len(idx)))
		for i := range want {
			require.Equal(t, math.Float64bits(float64(want[i])), math.Float64bits(float64(got[i])), "lane %d of [%d, %d): %v and %v", i, k0, k1, want[i], got[i])
		}
	}
}
