package keysort

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// run sorts keys with values of width vw (the value of entry i is i+1) and
// returns the output keys and values, merging equal keys by summing when
// merge is set.
func runCarry(t *testing.T, keys []uint64, keyBits uint, vw, workers int, merge, lend bool) ([]uint64, []uint64) {
	t.Helper()
	n := len(keys)
	in := make([]byte, vw*n)
	for i := range n {
		put(in, vw, i, uint64(i+1))
	}
	outKeys := make([]uint64, n)
	outVals := make([]byte, vw*n)
	s := Carry{
		N:       n,
		KeyBits: keyBits,
		Workers: workers,
		Keys: func(lo, hi int, dst []uint64) {
			copy(dst[:hi-lo], keys[lo:hi])
		},
		In: in,
		VW: vw,
		Reduce: func(pos int, base uint64, tab []uint64, words []uint64, ib uint, vals []byte) int {
			mask := uint64(1)<<ib - 1
			u := -1
			last := uint64(0)
			for q, w := range words {
				k := base + w>>ib
				if tab != nil {
					k = tab[w>>ib]
				}
				v := get(vals, vw, int(w&mask))
				if merge && q > 0 && k == last {
					put(outVals, vw, pos+u, get(outVals, vw, pos+u)+v)
					continue
				}
				u++
				last = k
				outKeys[pos+u] = k
				put(outVals, vw, pos+u, v)
			}
			return u + 1
		},
		Move: func(dst, src, m int) {
			copy(outKeys[dst:], outKeys[src:src+m])
			copy(outVals[dst*vw:], outVals[src*vw:(src+m)*vw])
		},
	}
	if lend {
		s.StageVals = outVals
		s.StageKeys, s.StageKeyWidth = castBytes(outKeys), 8
		if vw == 4 {
			// A 4-byte array, which serves only when low keys fit.
			s.StageKeys, s.StageKeyWidth = alloc(4*n), 4
		}
	}
	u := s.Run()
	vs := make([]uint64, u)
	for i := range vs {
		vs[i] = get(outVals, vw, i)
	}
	return outKeys[:u], vs
}

func put(b []byte, w, i int, v uint64) {
	switch w {
	case 1:
		b[i] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
	default:
		binary.LittleEndian.PutUint64(b[8*i:], v)
	}
}

func get(b []byte, w, i int) uint64 {
	switch w {
	case 1:
		return uint64(b[i])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b[2*i:]))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return binary.LittleEndian.Uint64(b[8*i:])
}

// reference sorts stably and merges like run.
func referenceCarry(keys []uint64, vw int, merge bool) ([]uint64, []uint64) {
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
	mask := uint64(1)<<(8*vw) - 1
	if vw == 8 {
		mask = ^uint64(0)
	}
	var ok, ov []uint64
	for q, i := range idx {
		v := uint64(i+1) & mask
		if merge && q > 0 && keys[i] == ok[len(ok)-1] {
			ov[len(ov)-1] = (ov[len(ov)-1] + v) & mask
			continue
		}
		ok = append(ok, keys[i])
		ov = append(ov, v)
	}
	return ok, ov
}

func TestCarry(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 120 {
		n := []int{0, 1, 2, 7, 100, 5000, 20000, 70000}[trial%8]
		keyBits := []uint{0, 1, 8, 20, 33, 40, 52, 63, 64}[r.IntN(9)]
		vw := []int{1, 2, 4, 8}[r.IntN(4)]
		workers := 1 + r.IntN(3)
		merge := r.IntN(2) == 0
		lend := r.IntN(2) == 0
		keys := make([]uint64, n)
		base := uint64(0)
		if keyBits < 64 && r.IntN(3) == 0 {
			base = r.Uint64() >> keyBits << keyBits // keys sharing high bits
		}
		for i := range keys {
			var k uint64
			switch {
			case keyBits == 64:
				k = r.Uint64()
			case keyBits > 0:
				k = r.Uint64() & (uint64(1)<<keyBits - 1)
			}
			if i > 0 && r.IntN(4) == 0 {
				k = keys[r.IntN(i)] - base // a duplicate
			}
			if r.IntN(5) == 0 { // a skewed cluster
				k &= 0xff
			}
			keys[i] = base + k
		}
		kb := keyBits
		if base != 0 {
			kb = 64
		}
		t.Run(fmt.Sprintf("n=%d/bits=%d/base=%x/vw=%d/w=%d/merge=%v/lend=%v", n, keyBits, base, vw, workers, merge, lend), func(t *testing.T) {
			gk, gv := runCarry(t, keys, kb, vw, workers, merge, lend)
			wk, wv := referenceCarry(keys, vw, merge)
			require.Equal(t, len(wk), len(gk))
			if len(wk) > 0 {
				require.Equal(t, wk, gk)
				require.Equal(t, wv, gv)
			}
		})
	}
}

// A bucket whose low keys and positions do not fit in one word takes the
// comparison path.
func TestCarryWideBuckets(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	n := 30000
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = r.Uint64()
		if i%3 == 0 {
			keys[i] = keys[i/2]
		}
	}
	for _, workers := range []int{1, 2} {
		gk, gv := runCarry(t, keys, 64, 8, workers, true, true)
		wk, wv := referenceCarry(keys, 8, true)
		require.Equal(t, wk, gk)
		require.Equal(t, wv, gv)
	}
}

// Keys whose low bits are already in order (a row number in a CSR walked
// row by row, under a column number) sort the same with SortedBits.
func TestCarrySortedBits(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{40, 3000, 50000} {
		keys := make([]uint64, 0, n)
		row := uint64(0)
		for len(keys) < n {
			for range r.IntN(8) {
				keys = append(keys, uint64(r.IntN(5000))<<16|row)
			}
			row++
		}
		keys = keys[:n]
		for _, sb := range []uint{0, 16} {
			for _, workers := range []int{1, 2} {
				s := Carry{N: n, KeyBits: 29, SortedBits: sb, Workers: workers, In: make([]byte, n), VW: 1,
					Keys: func(lo, hi int, dst []uint64) { copy(dst, keys[lo:hi]) }}
				var got []uint64
				var mu sync.Mutex
				s.Reduce = func(pos int, base uint64, tab []uint64, words []uint64, ib uint, vals []byte) int {
					mu.Lock()
					defer mu.Unlock()
					for q, w := range words {
						if q > 0 && base+w>>ib < got[len(got)-1] {
							t.Errorf("bucket not sorted at %d", q)
						}
						got = append(got, base+w>>ib)
					}
					return len(words)
				}
				s.Move = func(int, int, int) {}
				s.Run()
				want := slices.Clone(keys)
				slices.Sort(want)
				slices.Sort(got) // buckets may be reduced in any order across workers
				require.Equal(t, want, got)
			}
		}
	}
}
