// Package keysort sorts sparse entries by a 64-bit linear key and hands
// the sorted entries, bucket by bucket, to a reducer that merges duplicates
// and writes the output. It is the engine behind COO canonicalisation and
// the COO→CSR/CSC, COO→GCS, CSR→CSC and COO→CSF conversions.
//
// Both engines are MSD radix sorts: one stable parallel scatter of the
// entries into buckets by the top varying key bits, then, per bucket and in
// cache, an LSD radix sort of the remaining bits, and a Reduce call that
// writes the bucket's output compactly. Buckets are split among workers by
// size; the workers' output ranges are moved together at the end when
// Reduce merged entries. Results never depend on the number of workers.
//
// They differ in what travels with the keys:
//
//   - Sort moves words key<<ib | entry: eight bytes per entry, so both of
//     its arrays can live in the caller's output buffers (COO
//     canonicalisation of int64/float64 data needs no memory beyond its
//     output). Reduce reads the values at random positions.
//   - Carry moves each entry's value along with the low bits of its key,
//     so Reduce reads values in cache; it is about twice as fast when the
//     values are what dominates, and needs staging arrays for keys and
//     values (which the caller may lend when its outputs have the right
//     widths). Keys may use all 64 bits.
//
// Transpose is a third engine for keys whose low part is already in order
// within each high part, as the (column, row) keys of a CSR walked in
// storage order are: a stable sort by the high part alone is then a
// counting sort. It scatters entries into buckets of consecutive high
// parts like the others, then counts and places each bucket in cache and
// writes compressed output (pointers, low parts, values) directly, with
// neither an LSD sort nor a reducer.
package keysort

import (
	"math/bits"
	"slices"

	"github.com/arrowsparse/arrowsparse/internal/par"
)

// Sort describes one sort. Fill in the fields and call Run.
type Sort struct {
	// N is the number of entries.
	N int
	// KeyBits bounds the keys: every key is < 1<<KeyBits. Fits(KeyBits, N)
	// must hold.
	KeyBits uint
	// Workers is the number of goroutines; 0 means runtime.GOMAXPROCS(0).
	Workers int

	// Keys writes key(i) to dst[i-lo] for every i in [lo, hi). It is called
	// concurrently for disjoint ranges.
	Keys func(lo, hi int, dst []uint64)

	// Reduce receives one group of words in ascending order. Word w stands
	// for the entry w & (1<<ib - 1) with key w >> ib. Reduce writes the
	// output entries for the group from position pos and returns how many it
	// wrote (fewer than len(words) when it merges equal keys). Equal keys
	// never straddle two groups. Reduce is called concurrently for disjoint
	// output ranges, and in ascending key order within one worker.
	Reduce func(pos int, words []uint64, ib uint) int

	// Move moves output entries [src, src+n) to [dst, dst+n), dst < src
	// (ranges may overlap, as with copy). It is called from one goroutine
	// after every Reduce call has returned, only if some Reduce merged.
	Move func(dst, src, n int)

	// Scratch1 and Scratch2, if not nil, must have length ≥ N and are used
	// instead of allocating the word arrays. Scratch1 is dead once phase 2
	// ends, so it may be memory that Reduce later writes. Scratch2 holds the
	// words Reduce reads; it may be memory that Reduce writes, provided that
	// for output entry p Reduce writes only the bytes [8p, 8p+8) of it (for
	// example a float64 value output).
	Scratch1, Scratch2 []uint64
}

// IndexBits returns the number of bits needed for entry indices below n.
func IndexBits(n int) uint {
	if n <= 1 {
		return 0
	}
	return uint(bits.Len64(uint64(n - 1)))
}

// Fits reports whether keys of keyBits bits and entry indices below n fit
// together in one 64-bit word.
func Fits(keyBits uint, n int) bool { return keyBits+IndexBits(n) <= 64 }

// smallN is the size below which Run sorts the words with one pdqsort.
const smallN = 1 << 14

// Run sorts and reduces, and returns the number of output entries.
func (s *Sort) Run() int {
	n := s.N
	if n == 0 {
		return 0
	}
	ib := IndexBits(n)
	if !Fits(s.KeyBits, n) {
		panic("keysort: keys and indices do not fit in 64 bits")
	}
	workers := par.Workers(s.Workers)
	if n < smallN {
		workers = 1
	}
	k1 := s.Scratch1
	if k1 == nil {
		k1 = make([]uint64, n)
	}
	k1 = k1[:n]

	// Phase 1: words, and the highest key bit that varies.
	chunks := split(n, workers)
	diffs := make([]uint64, workers)
	firsts := make([]uint64, workers)
	par.Do(workers, func(c int) {
		lo, hi := chunks[c], chunks[c+1]
		if lo == hi {
			return
		}
		dst := k1[lo:hi]
		s.Keys(lo, hi, dst)
		first := dst[0]
		var diff uint64
		for j, k := range dst {
			diff |= k ^ first
			dst[j] = k<<ib | uint64(lo+j)
		}
		diffs[c], firsts[c] = diff, first
	})
	var diff uint64
	ref := firsts[workers-1] // the last chunk is never empty
	for c, d := range diffs {
		if chunks[c] < chunks[c+1] {
			diff |= d | (firsts[c] ^ ref)
		}
	}
	top := uint(bits.Len64(diff)) // key bits that vary: [0, top)

	k2 := s.Scratch2
	if k2 == nil {
		k2 = make([]uint64, n)
	}
	k2 = k2[:n]
	if n < smallN || top == 0 {
		// Reduce may overwrite Scratch1, so it reads from k2.
		copy(k2, k1)
		slices.Sort(k2)
		return s.Reduce(0, k2, ib)
	}

	// Phase 2: stable MSD scatter on the top d1 varying bits.
	d1 := uint(bits.Len(uint(n))) - 11
	d1 = min(max(4, min(d1, 16)), top)
	shift := ib + top - d1
	nb := 1 << d1
	mask := uint64(nb - 1)
	hist := make([][]int, workers)
	par.Do(workers, func(c int) {
		h := make([]int, nb)
		for _, w := range k1[chunks[c]:chunks[c+1]] {
			h[(w>>shift)&mask]++
		}
		hist[c] = h
	})
	starts := make([]int, nb+1) // bucket b is [starts[b], starts[b+1])
	sum := 0
	for b := range nb {
		starts[b] = sum
		for c := range workers {
			cnt := hist[c][b]
			hist[c][b] = sum // becomes chunk c's write position in bucket b
			sum += cnt
		}
	}
	starts[nb] = sum
	par.Do(workers, func(c int) {
		next := hist[c]
		for _, w := range k1[chunks[c]:chunks[c+1]] {
			b := (w >> shift) & mask
			k2[next[b]] = w
			next[b]++
		}
	})

	// Phase 3: sort and reduce buckets; each worker owns a run of buckets.
	segs := splitBuckets(starts, workers)
	counts := make([]int, workers)
	par.Do(workers, func(c int) {
		b0, b1 := segs[c], segs[c+1]
		if b0 == b1 {
			return
		}
		largest := 0
		for b := b0; b < b1; b++ {
			largest = max(largest, starts[b+1]-starts[b])
		}
		tmp := make([]uint64, largest)
		pos := starts[b0]
		for b := b0; b < b1; b++ {
			words := k2[starts[b]:starts[b+1]]
			if len(words) == 0 {
				continue
			}
			words = sortBucket(words, tmp, ib, shift-ib)
			pos += s.Reduce(pos, words, ib)
		}
		counts[c] = pos - starts[b0]
	})

	// Phase 4: close the gaps left by merged duplicates.
	out := 0
	for c := range workers {
		src := starts[segs[c]]
		if counts[c] > 0 && src != out {
			s.Move(out, src, counts[c])
		}
		out += counts[c]
	}
	return out
}

// sortBucket sorts words by bits [ib, ib+r) (the higher bits are equal in a
// bucket, the lower bits are the already ascending entry indices) and
// returns the slice holding the result: words itself or a prefix of tmp.
func sortBucket(words, tmp []uint64, ib, r uint) []uint64 {
	m := len(words)
	if m <= 48 {
		insertion(words)
		return words
	}
	if r == 0 {
		return words
	}
	passes := (r + 10) / 11
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
		sum := 0
		for i, v := range c {
			c[i] = sum
			sum += v
		}
		for _, w := range src {
			d := (w >> sh) & mask
			dst[c[d]] = w
			c[d]++
		}
		src, dst = dst, src
	}
	return src
}

func insertion(a []uint64) {
	for i := 1; i < len(a); i++ {
		x := a[i]
		j := i
		for ; j > 0 && a[j-1] > x; j-- {
			a[j] = a[j-1]
		}
		a[j] = x
	}
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
