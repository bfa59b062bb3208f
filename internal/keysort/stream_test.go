package keysort

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// TestLineScatter scatters random entries into buckets whose ranges, split
// among several workers, start and end anywhere in a line, through line
// buffers of both widths, and compares every element with a direct
// scatter. No element outside the ranges may be written.
func TestLineScatter(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		nb := 1 + r.IntN(80)
		workers := 1 + r.IntN(3)
		n := r.IntN(3000)
		if trial%5 == 0 {
			n = r.IntN(40) // buckets of a few entries, within one line
		}
		bk := make([]int32, n)
		src := make([]uint64, n)
		who := make([]int, n)
		for j := range n {
			bk[j] = int32(r.IntN(nb))
			if r.IntN(3) == 0 {
				bk[j] = 0 // a crowded bucket
			}
			src[j] = r.Uint64()
			who[j] = r.IntN(workers)
		}
		// Bucket b holds its entries of worker 0, then of worker 1, ...,
		// after a gap of pad elements that nobody writes.
		pad := r.IntN(20)
		next := make([][]int, workers)
		pos := pad
		for b := range nb {
			for c := range workers {
				if b == 0 {
					next[c] = make([]int, nb)
				}
				next[c][b] = pos
				for j := range n {
					if int(bk[j]) == b && who[j] == c {
						pos++
					}
				}
			}
		}
		total := pos + pad
		for _, width := range []int{4, 8} {
			t.Run(fmt.Sprintf("%d/nb=%d/workers=%d/n=%d/w=%d", trial, nb, workers, n, width), func(t *testing.T) {
				const guard = 0x5a5a5a5a5a5a5a5a
				want := make([]uint64, total)
				for i := range want {
					want[i] = guard
				}
				got := alignedWords(total)
				copy(got, want)
				mask := ^uint64(0)
				if width == 4 {
					mask = 1<<32 - 1
					for i := range want {
						want[i] &= mask
					}
				}
				for c := range workers {
					nx := append([]int(nil), next[c]...)
					var idx []int
					for j := range n {
						if who[j] == c {
							want[nx[bk[j]]] = src[j] & mask
							nx[bk[j]]++
							idx = append(idx, j)
						}
					}
					// The worker's entries, in chunks of random size.
					nx = append([]int(nil), next[c]...)
					if width == 8 {
						w := newLineScatter(got, nx)
						scatterChunks(r, w, idx, src, bk, nx, ^uint64(0))
						w.flush(nx)
					} else {
						g32 := unsafe.Slice((*uint32)(unsafe.Pointer(&got[0])), 2*len(got))
						w := newLineScatter(g32, nx)
						scatterChunks(r, w, idx, src, bk, nx, mask)
						w.flush(nx)
					}
				}
				if width == 4 {
					g32 := unsafe.Slice((*uint32)(unsafe.Pointer(&got[0])), 2*len(got))
					for i := range want {
						require.Equal(t, want[i], uint64(g32[i]), "element %d", i)
					}
					return
				}
				for i := range want {
					require.Equal(t, want[i], got[i], "element %d", i)
				}
			})
		}
	}
}

// scatterChunks puts the entries idx of one worker through w, a chunk of
// random size at a time, as the scatters do.
func scatterChunks[T uint32 | uint64](r *rand.Rand, w *lineScatter[T], idx []int, src []uint64, bk []int32, next []int, mask uint64) {
	for len(idx) > 0 {
		k := min(len(idx), 1+r.IntN(50))
		var s []uint64
		var b []int32
		var p []int
		for _, j := range idx[:k] {
			s = append(s, src[j])
			b = append(b, bk[j])
			p = append(p, next[bk[j]])
			next[bk[j]]++
		}
		lineScatterPut(w, s, mask, p, b)
		idx = idx[k:]
	}
}

// alignedWords returns n words starting on a 64-byte boundary.
func alignedWords(n int) []uint64 {
	b := make([]uint64, n+8)
	off := int(uintptr(unsafe.Pointer(&b[0]))%64) / 8
	if off != 0 {
		off = 8 - off
	}
	return b[off : off+n]
}

// TestTransposeStreamed runs Transpose on inputs (2M entries) large enough for the
// scatter through line buffers (streamMinBuckets buckets or more), with
// both staged key widths and value widths it takes and one to three
// workers, against the reference.
func TestTransposeStreamed(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("two million entries: not with -short or -race, where TestLineScatter covers the scatter")
	}
	defer func(b int) { streamMinBytes = b }(streamMinBytes)
	streamMinBytes = 0 // 2M entries stage less than the threshold
	r := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct {
		majors, minors, iw, vw, workers int
	}{
		{1 << 20, 1 << 18, 8, 8, 1},
		{1 << 16, 1 << 18, 4, 4, 2},
		{1<<17 + 5, 3000, 4, 8, 3},
		{1 << 20, 1 << 18, 8, 4, 2},
	} {
		minorBits := uint(bitsFor(c.minors))
		maj, mnr := transposeInput(r, 1<<21, c.majors, c.minors, c.workers == 2)
		s := Transpose{N: len(maj), Majors: c.majors, MinorBits: minorBits, IW: c.iw}
		nb := (c.majors-1)>>s.lowBits() + 1
		require.GreaterOrEqual(t, nb, streamMinBuckets, "%+v", c)
		t.Run(fmt.Sprintf("%+v", c), func(t *testing.T) {
			before := streamedRuns.Load()
			gp, gi, gv := runTranspose(t, maj, mnr, c.majors, minorBits, 8, c.iw, c.vw, c.workers, true)
			if canStream {
				require.Equal(t, before+1, streamedRuns.Load(), "the scatter went through line buffers")
			} else {
				require.Equal(t, before, streamedRuns.Load(), "line buffers without non-temporal stores")
			}
			wp, wi, wv := referenceTranspose(maj, mnr, c.majors, 8, c.vw)
			sameWords(t, "pointers", wp, gp)
			sameWords(t, "minors", wi, gi)
			sameWords(t, "values", wv, gv)
		})
	}
}

// bitsFor returns the bits of the largest of n values from 0, at least 1.
func bitsFor(n int) int {
	b := 1
	for 1<<b < n {
		b++
	}
	return b
}

// BenchmarkTransposeScatter transposes random CSRs of 2.5M and 10M
// entries, with 2^20 and 2^24 rows and columns (128 to 512 buckets), 8-byte
// minors and values, on one core, with the scatter through line buffers
// and directly; ns/entry must stay flat across the sizes. Run with -count
// to interleave the two.
func BenchmarkTransposeScatter(b *testing.B) {
	for _, c := range []struct{ n, bits int }{{2_500_000, 20}, {10_000_000, 20}, {10_000_000, 24}} {
		side := 1 << c.bits
		r := rand.New(rand.NewPCG(5, 6))
		maj, mnr := transposeInput(r, c.n, side, side, false)
		in := make([]byte, 8*len(maj))
		out := alignedBytes(8 * len(maj))
		idx := alignedBytes(8 * len(maj))
		ptr := make([]byte, 8*(side+1))
		minorBits := uint(c.bits)
		for _, lines := range []bool{true, false} {
			b.Run(fmt.Sprintf("n=%d/side=2^%d/lines=%v", c.n, c.bits, lines), func(b *testing.B) {
				noStream = !lines
				defer func() { noStream = false }()
				s := transposeOf(maj, mnr, side, minorBits)
				s.Workers = 1
				s.In, s.Out, s.VW, s.Ptr, s.PW, s.Idx, s.IW = in, out, 8, ptr, 8, idx, 8
				b.ReportAllocs()
				for b.Loop() {
					s.Run()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(maj)), "ns/entry")
			})
		}
	}
}

// alignedBytes returns n bytes starting on a 64-byte boundary.
func alignedBytes(n int) []byte {
	w := alignedWords((n + 7) / 8)
	return unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), n)
}
