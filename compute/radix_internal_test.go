package compute

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSortKeys checks the radix sort against a stable comparison sort,
// for several key widths (some passes skipped), workers and sizes.
func TestSortKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 11))
	for _, n := range []int{0, 1, 2, 100, 5000, 70000} {
		for _, bits := range []uint{1, 7, 11, 12, 23, 40, 64} {
			for _, w := range []int{1, 2, 3} {
				keys := make([]uint64, n)
				vals := make([]int64, n)
				for i := range keys {
					keys[i] = r.Uint64() >> (64 - bits)
					if bits > 20 && i%3 == 0 {
						keys[i] &^= 0xfff000 // a digit shared by many keys
					}
					vals[i] = int64(i)
				}
				type kv struct {
					k uint64
					v int64
				}
				want := make([]kv, n)
				for i := range want {
					want[i] = kv{keys[i], vals[i]}
				}
				slices.SortStableFunc(want, func(a, b kv) int {
					if a.k < b.k {
						return -1
					}
					if a.k > b.k {
						return 1
					}
					return 0
				})
				in := slices.Clone(vals)
				gk, gv := sortKeys(keys, vals, bits, w)
				require.Equal(t, in, vals, "the values are not modified")
				for i := range want {
					require.Equal(t, want[i].k, gk[i], "n=%d bits=%d w=%d key %d", n, bits, w, i)
					require.Equal(t, want[i].v, gv[i], "n=%d bits=%d w=%d value %d", n, bits, w, i)
				}
			}
		}
	}
}
