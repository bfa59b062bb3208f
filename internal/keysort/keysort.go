package keysort

import (
	"slices"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/internal/core"
)

// sortBucket sorts words by bits [ib, ib+r) (the higher bits are equal in a
// bucket, the lower bits are the already ascending entry indices) and
// returns the slice holding the result: words itself or a prefix of tmp.
// Passes whose digit is the same for every word are skipped.
func sortBucket(words, tmp []uint64, ib, r uint) []uint64 {
	m := len(words)
	if m <= 48 {
		finishSort(words, len(words)*len(words))
		return words
	}
	if r == 0 {
		return words
	}
	passes := lsdPasses(r)
	dw := (r + passes - 1) / passes
	if m < 1<<(dw-1) {
		// The histograms would dwarf the data.
		slices.Sort(words)
		return words
	}
	var cnt [1 << 11]int
	nbk := 1 << dw
	mask := uint64(nbk - 1)
	src, dst := words, tmp[:m]
	for p := range passes {
		sh := ib + p*dw
		c := cnt[:nbk]
		clear(c)
		for _, w := range src {
			c[(w>>sh)&mask]++
		}
		if c[(src[0]>>sh)&mask] == m {
			continue // one digit for all: the pass would copy
		}
		offsets(c, 0)
		for _, w := range src {
			d := (w >> sh) & mask
			dst[c[d]] = w
			c[d]++
		}
		src, dst = dst, src
	}
	return src
}

// maxPasses is the most LSD passes whose digits loadCount counts in one
// reading. With more, each count is its own loop: five or six counts per
// word in one loop measured slower (10M entries of 60-bit keys, 2^12
// buckets of 2,400 entries each).
const maxPasses = 3

// digitCount counts the words of each digit value (at most 11 bits) in one
// pass of an LSD sort; digitCounts holds one per pass.
type (
	digitCount  [1 << 11]uint32
	digitCounts [maxPasses]digitCount
)

// loadCount writes w[j] = src[(lo+j)·ke]<<ib | j for every j and counts, for
// each pass p of len(cnt), the words by their digit p: bits [sh+p·dw,
// sh+(p+1)·dw), dw ≤ 11.
func loadCount[K uint32 | uint64](w []uint64, src []K, ke, lo int, ib, sh, dw uint, cnt []digitCount) {
	src = src[lo*ke:]
	mask := uint64(1)<<dw - 1
	switch len(cnt) {
	case 2:
		c0, c1 := &cnt[0], &cnt[1]
		for j := range w {
			x := uint64(src[j*ke])<<ib | uint64(j)
			w[j] = x
			c0[(x>>sh)&mask&2047]++
			c1[(x>>(sh+dw))&mask&2047]++
		}
	case 3:
		c0, c1, c2 := &cnt[0], &cnt[1], &cnt[2]
		for j := range w {
			x := uint64(src[j*ke])<<ib | uint64(j)
			w[j] = x
			c0[(x>>sh)&mask&2047]++
			c1[(x>>(sh+dw))&mask&2047]++
			c2[(x>>(sh+2*dw))&mask&2047]++
		}
	default:
		c0 := &cnt[0]
		for j := range w {
			x := uint64(src[j*ke])<<ib | uint64(j)
			w[j] = x
			c0[(x>>sh)&mask&2047]++
		}
	}
}

// radixCounted sorts words by bits [sh, sh+len(cnt)·dw) with one LSD pass
// per element of cnt, which holds each pass's digit counts (loadCount), and
// returns the slice holding the result: words itself or a prefix of tmp.
// Passes whose digit is the same for every word are skipped.
func radixCounted(words, tmp []uint64, sh, dw uint, cnt []digitCount) []uint64 {
	m := len(words)
	mask := uint64(1)<<dw - 1
	src, dst := words, tmp[:m]
	for p := range cnt {
		s := sh + uint(p)*dw
		c := &cnt[p]
		if int(c[(src[0]>>s)&mask&2047]) == m {
			continue // one digit for all: the pass would copy
		}
		var sum uint32
		for d := range 1 << dw {
			v := c[d]
			c[d] = sum
			sum += v
		}
		for _, w := range src {
			d := (w >> s) & mask & 2047
			dst[c[d]] = w
			c[d]++
		}
		src, dst = dst, src
	}
	return src
}

// finishSort sorts w by insertion, stably, when that takes at most budget
// moves (len(w)² always suffices), and reports whether it did; otherwise w
// is left a permutation of itself, in which words with equal bits above
// their positions are still in position order.
func finishSort(w []uint64, budget int) bool {
	for i := 1; i < len(w); i++ {
		x := w[i]
		if w[i-1] <= x {
			continue
		}
		j := i
		for ; j > 0 && w[j-1] > x; j-- {
			w[j] = w[j-1]
		}
		w[j] = x
		if budget -= i - j; budget < 0 {
			return false
		}
	}
	return true
}

// split cuts [0, n) into k nearly equal chunks: chunk c is [r[c], r[c+1]).
func split(n, k int) []int {
	r := make([]int, k+1)
	for c := range k + 1 {
		r[c] = n / k * c
		if c == k {
			r[c] = n
		}
	}
	return r
}

// offsets turns counts into the positions where each count's run starts,
// the first at start: c[i] becomes start + c[0] + … + c[i-1].
func offsets(c []int, start int) {
	for i, v := range c {
		c[i] = start
		start += v
	}
}

// bucketStarts turns per-worker bucket counts (hist[c][b]: entries of
// worker c in bucket b) into positions: bucket b is [starts[b],
// starts[b+1]), and worker c's entries of bucket b go, in order, from
// hist[c][b] on (each worker's after the previous workers'), which
// bucketStarts writes over the counts.
func bucketStarts(hist [][]int) []int {
	nb := len(hist[0])
	starts := make([]int, nb+1)
	sum := 0
	for b := range nb {
		starts[b] = sum
		for _, h := range hist {
			cnt := h[b]
			h[b] = sum
			sum += cnt
		}
	}
	starts[nb] = sum
	return starts
}

// splitBuckets cuts the buckets into k runs holding nearly equal numbers of
// elements: run c is buckets [r[c], r[c+1]).
func splitBuckets(starts []int, k int) []int {
	nb := len(starts) - 1
	n := starts[nb]
	r := make([]int, k+1)
	b := 0
	for c := 1; c < k; c++ {
		target := n / k * c
		for b < nb && starts[b+1] <= target {
			b++
		}
		r[c] = b
	}
	r[k] = nb
	return r
}

// alloc returns n bytes of 8-aligned memory.
func alloc(n int) []byte {
	return castBytes(make([]uint64, (n+7)/8))[:n]
}

// scratch returns n bytes of 64-aligned memory from mem, uncleared when mem
// offers that, and the function that releases them; from the Go heap (and
// a release that does nothing) when mem is nil.
func scratch(mem memory.Allocator, n int) ([]byte, func()) {
	if mem == nil || n == 0 {
		return alloc(n), func() {}
	}
	b := core.NewBuffer(mem, int64(n))
	return b.Bytes(), b.Release
}

func castBytes(s []uint64) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), 8*len(s))
}

// castU64, castU32 and castU16 view aligned bytes as whole elements.
func castU64(b []byte) []uint64 {
	if len(b) < 8 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/8)
}

func castU32(b []byte) []uint32 {
	if len(b) < 4 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/4)
}

func castU16(b []byte) []uint16 {
	if len(b) < 2 {
		return nil
	}
	return unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/2)
}
