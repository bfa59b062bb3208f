package gcs

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/divide"
	"github.com/arrowsparse/arrowsparse/internal/keysort"
)

// emit, run concurrently on consecutive pieces of sorted keys, writes the
// indices of the distinct keys (all keys with keepDups) and counts each
// lane's entries, lanes shared between pieces included: lanes of one entry,
// long lanes spanning several pieces, empty lanes, runs of duplicates, one-
// and two-word keys, and spans that are and are not powers of two.
func TestEmitPieces(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		lanes := []int{1, 2, 50, 5000}[r.IntN(4)]
		span := []uint64{1, 3, 8, 1000, 1024}[r.IntN(5)]
		n := r.IntN(3000)
		keepDups := r.IntN(2) == 0
		wide := r.IntN(3) == 0
		dense := r.IntN(2) == 0 // most keys in a few lanes
		keys := make([]uint64, n)
		for i := range keys {
			lane := uint64(r.IntN(lanes))
			if dense {
				lane = uint64(r.IntN(min(lanes, 3)))
			}
			keys[i] = lane*span + r.Uint64N(span)
			if i > 0 && r.IntN(4) == 0 {
				keys[i] = keys[r.IntN(i)] // a duplicate
			}
		}
		slices.Sort(keys)

		// The reference: indices of the kept keys and counts per lane.
		wantPtr := make([]int64, lanes+1)
		var wantIdx []int64
		for i, k := range keys {
			if !keepDups && i > 0 && k == keys[i-1] {
				continue
			}
			wantPtr[k/span+1]++
			wantIdx = append(wantIdx, int64(k%span))
		}

		// Pieces end anywhere with keepDups, and only between distinct
		// keys otherwise (as Carry's buckets do).
		var cuts []int
		for i := 1; i < n; i++ {
			if r.IntN(40) == 0 && (keepDups || keys[i] != keys[i-1]) {
				cuts = append(cuts, i)
			}
		}
		cuts = append(append([]int{0}, cuts...), n)

		// Two-word keys come as numbers of rows of a table of the
		// distinct keys (lane, index), as Carry gives them.
		var tab []uint64
		words := make([]uint64, n)
		for i, k := range keys {
			if i == 0 || k != keys[i-1] {
				tab = append(tab, k/span, k%span)
			}
			words[i] = k
			if wide {
				words[i] = uint64(len(tab)/2 - 1)
			}
		}
		ptr := make([]int64, lanes+1)
		idx := make([]int64, n)
		c := comp[int64, int64]{}
		div := divide.New(span)
		var mu sync.Mutex
		var wg sync.WaitGroup
		got := make([]int, len(cuts)-1)
		pos := 0
		for p := range len(cuts) - 1 {
			lo, hi := cuts[p], cuts[p+1]
			b := &keysort.Bucket{Words: words[lo:hi], W: 1}
			if wide {
				b.Tab, b.W = tab, 2
			}
			at := pos
			for i := lo; i < hi; i++ {
				if keepDups || i == 0 || keys[i] != keys[i-1] {
					pos++
				}
			}
			wg.Go(func() {
				got[p] = c.emit(core.BytesOf(ptr), core.BytesOf(idx), &mu, at, b, div, keepDups)
			})
		}
		wg.Wait()
		name := fmt.Sprintf("%d: lanes=%d span=%d n=%d keepDups=%v wide=%v pieces=%d", trial, lanes, span, n, keepDups, wide, len(cuts)-1)
		total := 0
		for _, u := range got {
			total += u
		}
		require.Equal(t, len(wantIdx), total, name)
		require.Equal(t, wantPtr, ptr, name)
		require.Equal(t, wantIdx, idx[:total], name)
	}
}
