package keysort

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// TestPairLines scatters random entries into buckets whose ranges, split
// among several workers, start and end anywhere in a line, through line
// buffers of every pair of key and value widths, and compares every
// element with a direct scatter. No element outside the ranges may be
// written. In odd trials the keys carry other bits above the bucket's,
// which the bucket mask must drop (as Carry's keys can).
func TestPairLines(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const sh = 40 // keys are [other bits | ] bucket<<sh | low bits
	for trial := range 200 {
		nb := 1 + r.IntN(80)
		bmask, above := ^uint64(0), uint64(0)
		if trial%2 == 1 {
			bb := uint(bitsFor(nb))
			bmask = lowMask(bb)
			above = r.Uint64() << (sh + bb) // the same for every key
		}
		workers := 1 + r.IntN(3)
		n := r.IntN(3000)
		if trial%5 == 0 {
			n = r.IntN(40) // buckets of a few entries, within one line
		}
		keys := make([]uint64, n)
		vals := make([]uint64, n)
		who := make([]int, n)
		for j := range n {
			b := uint64(r.IntN(nb))
			if r.IntN(3) == 0 {
				b = 0 // a crowded bucket
			}
			keys[j] = above | b<<sh | r.Uint64()&lowMask(sh)
			vals[j] = r.Uint64()
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
					if int(keys[j]>>sh&bmask) == b && who[j] == c {
						pos++
					}
				}
			}
		}
		total := pos + pad
		for _, kw := range []int{4, 8} {
			for _, vw := range []int{4, 8} {
				t.Run(fmt.Sprintf("%d/nb=%d/workers=%d/n=%d/kw=%d/vw=%d", trial, nb, workers, n, kw, vw), func(t *testing.T) {
					low := lowMask(min(sh, uint(8*kw)))
					wantK, wantV := guarded(total, kw), guarded(total, vw)
					gotK, gotV := guarded(total, kw), guarded(total, vw)
					stage := pairStager(kw, vw)
					for c := range workers {
						nx := append([]int(nil), next[c]...)
						var mine []int
						for j := range n {
							if who[j] == c {
								b := keys[j] >> sh & bmask
								put(wantK, kw, nx[b], keys[j]&low)
								put(wantV, vw, nx[b], vals[j])
								nx[b]++
								mine = append(mine, j)
							}
						}
						// The worker's entries, numbered from a random first.
						nx = append([]int(nil), next[c]...)
						a0 := r.IntN(5000)
						wk, in := make([]uint64, a0+len(mine)), make([]byte, vw*(a0+len(mine)))
						for q, j := range mine {
							wk[a0+q] = keys[j]
							put(in, vw, a0+q, vals[j])
						}
						stage(gotK, gotV, in, func(lo, hi int, dst []uint64) { copy(dst, wk[lo:hi]) }, a0, a0+len(mine), nx, sh, bmask, low)
					}
					require.Equal(t, wantK, gotK, "keys")
					require.Equal(t, wantV, gotV, "values")
				})
			}
		}
	}
}

// guarded returns n elements of w bytes, 64-byte aligned, each holding a
// guard pattern.
func guarded(n, w int) []byte {
	b := alignedBytes(n * w)
	for i := range b {
		b[i] = 0x5a
	}
	return b
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
	streamedTest(t)
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

// streamedTest skips a test of two million entries under -short and
// -race, where TestPairLines covers the scatter through line buffers, and
// otherwise lowers streamMinBytes for the test so that every case streams.
func streamedTest(t *testing.T) {
	t.Helper()
	if testing.Short() || raceEnabled {
		t.Skip("two million entries: not with -short or -race, where TestPairLines covers the scatter")
	}
	old := streamMinBytes
	streamMinBytes = 0
	t.Cleanup(func() { streamMinBytes = old })
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
