package compute

import (
	"github.com/arrowsparse/arrowsparse/internal/par"
)

// maxDigit is the widest radix digit, in bits: 2048 counters per worker.
const maxDigit = 11

// sortWords sorts words stably by their bits [lo, hi) with an LSD radix
// sort on w workers, using tmp (as long as words) as scratch. It returns
// the slice holding the result, words or tmp. Bits below lo ride along
// (the reductions keep the entry number there); bits at and above hi must
// be zero. Passes whose digit is the same for every word are skipped.
func sortWords(words, tmp []uint64, lo, hi uint, w int) []uint64 {
	n := len(words)
	if n < 2 || hi <= lo {
		return words
	}
	passes := (hi - lo + maxDigit - 1) / maxDigit
	width := (hi - lo + passes - 1) / passes
	buckets := 1 << width
	w = max(1, min(w, n/4096+1))
	counts := make([][]int, w)
	for c := range counts {
		counts[c] = make([]int, buckets)
	}
	bound := func(c int) (int, int) { return n * c / w, n * (c + 1) / w }
	src, dst := words, tmp
	for shift := lo; shift < hi; shift += width {
		mask := uint64(buckets - 1)
		par.Do(w, func(c int) {
			h := counts[c]
			clear(h)
			a, b := bound(c)
			for _, x := range src[a:b] {
				h[(x>>shift)&mask]++
			}
		})
		// Skip a pass in which every word has the same digit.
		single := false
		for d := range buckets {
			t := 0
			for c := range w {
				t += counts[c][d]
			}
			if t == n {
				single = true
			}
			if t != 0 {
				break
			}
		}
		if single {
			continue
		}
		// Exclusive offsets, digit-major then worker: stable.
		off := 0
		for d := range buckets {
			for c := range w {
				t := counts[c][d]
				counts[c][d] = off
				off += t
			}
		}
		par.Do(w, func(c int) {
			h := counts[c]
			a, b := bound(c)
			for _, x := range src[a:b] {
				d := (x >> shift) & mask
				dst[h[d]] = x
				h[d]++
			}
		})
		src, dst = dst, src
	}
	return src
}
