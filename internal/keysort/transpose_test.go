package keysort

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// transposeInput returns the (major, minor) keys of a random CSR of
// minors rows (walked row by row, so the minors ascend) with majors
// columns and about n entries; a row may repeat a column (duplicates), and
// skew crowds the entries into a few columns.
func transposeInput(r *rand.Rand, n, majors, minors int, skew bool) (maj, mnr []uint64) {
	for row := 0; row < minors && len(maj) < n; row++ {
		k := r.IntN(2 * max(n/minors, 1))
		for range k {
			c := r.IntN(majors)
			if skew && r.IntN(2) == 0 {
				c = r.IntN(min(majors, 3))
			}
			maj = append(maj, uint64(c))
			mnr = append(mnr, uint64(row))
		}
	}
	return maj, mnr
}

func runTranspose(t *testing.T, maj, mnr []uint64, majors int, minorBits uint, pw, iw, vw, workers int, useMem bool) (ptr, idx, vals []uint64) {
	t.Helper()
	n := len(maj)
	in := make([]byte, vw*n)
	for i := range n {
		put(in, vw, i, uint64(i+1))
	}
	ptrB := make([]byte, pw*(majors+1))
	for i := range ptrB {
		ptrB[i] = 0xa5 // every pointer must be written
	}
	idxB, out := make([]byte, iw*n), make([]byte, vw*n)
	s := transposeOf(maj, mnr, majors, minorBits)
	s.Workers = workers
	s.In, s.Out, s.VW = in, out, vw
	s.Ptr, s.PW = ptrB, pw
	s.Idx, s.IW = idxB, iw
	require.True(t, s.Fits())
	mem, check := withChecked(t, useMem)
	s.Mem = mem
	s.Run()
	check(iw < 4 && n > 0) // staged keys are 4 or 8 bytes wide
	for k := range majors + 1 {
		ptr = append(ptr, get(ptrB, pw, k))
	}
	for i := range n {
		idx = append(idx, get(idxB, iw, i))
		vals = append(vals, get(out, vw, i))
	}
	return ptr, idx, vals
}

// transposeOf returns a Transpose of the keys major<<minorBits | minor,
// with N, Majors, MinorBits, Count and Keys set.
func transposeOf(maj, mnr []uint64, majors int, minorBits uint) Transpose {
	return Transpose{
		N:         len(maj),
		Majors:    majors,
		MinorBits: minorBits,
		Count: func(lo, hi int, sh uint, h []int) {
			for _, k := range maj[lo:hi] {
				h[k>>sh]++
			}
		},
		Keys: func(lo, hi int, dst []uint64) {
			for i := lo; i < hi; i++ {
				dst[i-lo] = maj[i]<<minorBits | mnr[i]
			}
		},
	}
}

// referenceTranspose sorts stably by major.
func referenceTranspose(maj, mnr []uint64, majors, pw, vw int) (ptr, idx, vals []uint64) {
	n := len(maj)
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	slices.SortStableFunc(perm, func(a, b int) int {
		switch {
		case maj[a] < maj[b]:
			return -1
		case maj[a] > maj[b]:
			return 1
		}
		return 0
	})
	ptr = make([]uint64, majors+1)
	for _, k := range maj {
		ptr[k+1]++
	}
	for k := range majors {
		ptr[k+1] += ptr[k]
	}
	mask := func(w int) uint64 {
		if w == 8 {
			return ^uint64(0)
		}
		return uint64(1)<<(8*w) - 1
	}
	for k := range ptr {
		ptr[k] &= mask(pw)
	}
	for _, i := range perm {
		idx = append(idx, mnr[i])
		vals = append(vals, uint64(i+1)&mask(vw))
	}
	return ptr, idx, vals
}

func TestTranspose(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for trial := range 120 {
		n := []int{0, 1, 5, 300, 5000, 30000, 100000}[trial%7]
		majors := []int{1, 2, 7, 1000, 1 << 16}[r.IntN(5)]
		if trial%10 == 9 {
			majors = []int{1<<20 + 3, 3 << 20}[r.IntN(2)] // past 2^12 buckets of 2^8
		}
		minors := []int{1, 3, 200, 40000, 1 << 20}[r.IntN(5)]
		iw := []int{1, 2, 4, 8}[r.IntN(4)]
		for uint64(minors-1) > uint64(1)<<(8*iw-1)-1 {
			iw *= 2
		}
		pw := []int{1, 2, 4, 8}[r.IntN(4)]
		vw := []int{1, 2, 4, 8}[r.IntN(4)]
		workers := 1 + r.IntN(3)
		skew := r.IntN(3) == 0
		useMem := r.IntN(2) == 0
		minorBits := uint(max(bits.Len(uint(minors-1)), 1))
		maj, mnr := transposeInput(r, n, majors, minors, skew)
		t.Run(fmt.Sprintf("%d:n=%d/majors=%d/minors=%d/pw=%d/iw=%d/vw=%d/w=%d/skew=%v/mem=%v", trial, len(maj), majors, minors, pw, iw, vw, workers, skew, useMem), func(t *testing.T) {
			gp, gi, gv := runTranspose(t, maj, mnr, majors, minorBits, pw, iw, vw, workers, useMem)
			wp, wi, wv := referenceTranspose(maj, mnr, majors, pw, vw)
			sameWords(t, "pointers", wp, gp)
			sameWords(t, "minors", wi, gi)
			sameWords(t, "values", wv, gv)
		})
	}
}

// sameWords fails at the first difference (require.Equal is slow on
// millions of words).
func sameWords(t *testing.T, what string, want, got []uint64) {
	t.Helper()
	require.Len(t, got, len(want), what)
	for i := range want {
		if want[i] != got[i] {
			t.Fatalf("%s[%d] = %d, want %d", what, i, got[i], want[i])
		}
	}
}

// Fits refuses majors beyond 2^32 and staged keys beyond 64 bits, and
// bounds the counters per bucket.
func TestTransposeFits(t *testing.T) {
	for _, c := range []struct {
		n         int
		majors    int64
		minorBits uint
		fits      bool
	}{
		{10, 1, 1, true},
		{10, 0, 1, false},
		{10_000_000, 1_000_000, 20, true},
		{10, 1 << 32, 30, true},
		{10, 1<<32 + 1, 30, false},
		{10, 1 << 32, 45, false},
		{1 << 30, 1 << 20, 44, true},
		{1 << 30, 1 << 20, 61, false},
	} {
		if int64(int(c.majors)) != c.majors {
			continue // beyond int on 32-bit platforms
		}
		s := Transpose{N: c.n, Majors: int(c.majors), MinorBits: c.minorBits}
		require.Equal(t, c.fits, s.Fits(), "%+v", c)
		if c.fits {
			require.LessOrEqual(t, s.lowBits(), uint(transposeMaxLowBits))
			require.LessOrEqual(t, (c.majors-1)>>s.lowBits()+1, int64(1<<12))
		}
	}
}
