package keysort

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reference sorts entries by key (stably) and merges equal keys by summing.
func reference(keys []uint64, vals []int64) ([]uint64, []int64) {
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case keys[a] < keys[b]:
			return -1
		case keys[a] > keys[b]:
			return 1
		}
		return 0
	})
	ok := []uint64{}
	ov := []int64{}
	for _, i := range idx {
		if len(ok) > 0 && ok[len(ok)-1] == keys[i] {
			ov[len(ov)-1] = ov[len(ov)-1]*31 + vals[i] // order-sensitive merge
			continue
		}
		ok = append(ok, keys[i])
		ov = append(ov, vals[i])
	}
	return ok, ov
}

func run(t *testing.T, keys []uint64, keyBits uint, workers int, lend bool) {
	t.Helper()
	n := len(keys)
	vals := make([]int64, n)
	for i := range vals {
		vals[i] = int64(i)
	}
	outK := make([]uint64, n)
	outV := make([]int64, n)
	s := &Sort{
		N: n, KeyBits: keyBits, Workers: workers,
		Keys: func(lo, hi int, dst []uint64) { copy(dst, keys[lo:hi]) },
		Reduce: func(pos int, words []uint64, ib uint) int {
			mask := uint64(1)<<ib - 1
			u := -1
			var last uint64
			for _, w := range words {
				k, i := w>>ib, int(w&mask)
				if u >= 0 && k == last {
					outV[pos+u] = outV[pos+u]*31 + vals[i]
					continue
				}
				u++
				last = k
				outK[pos+u] = k
				outV[pos+u] = vals[i]
			}
			return u + 1
		},
		Move: func(dst, src, m int) {
			copy(outK[dst:dst+m], outK[src:src+m])
			copy(outV[dst:dst+m], outV[src:src+m])
		},
	}
	if lend {
		s.Scratch1 = make([]uint64, n)
	}
	u := s.Run()
	wk, wv := reference(keys, vals)
	require.Equal(t, len(wk), u)
	assert.Equal(t, wk, outK[:u])
	assert.Equal(t, wv, outV[:u])
}

func TestSortMatchesStableSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 47, 1000, smallN - 1, smallN, 100_000, 300_000} {
		for _, kb := range []uint{1, 7, 20, 40} {
			if !Fits(kb, n) {
				continue
			}
			keys := make([]uint64, n)
			for i := range keys {
				keys[i] = r.Uint64N(1 << kb)
			}
			for _, w := range []int{1, 2, 3} {
				run(t, keys, kb, w, w == 2)
			}
		}
	}
}

func TestSortSkewedAndShifted(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	n := 200_000
	keys := make([]uint64, n)
	for i := range keys {
		// a narrow range high up, with heavy duplication of a few keys
		keys[i] = 1<<38 + r.Uint64N(5000)
		if i%3 == 0 {
			keys[i] = 1<<38 + 17
		}
	}
	run(t, keys, 40, 2, false)
	for i := range keys {
		keys[i] = 12345 // all equal
	}
	run(t, keys, 40, 2, true)
}
