package keysort

import (
	"math/bits"
	"slices"
	"unsafe"

	"github.com/arrowsparse/arrowsparse/internal/par"
)

// Sort sorts words key<<ib | entry and leaves the
// reducer to read the values in[entry] in key order: for 10M entries that
// is 10M cache and TLB misses, half of the time of a COO→CSR conversion.
// Carry instead scatters the values together with the keys:
//
//  1. Each worker computes the keys of its chunk of entries, the bits in
//     which they differ, and a histogram of the top varying bits (phase 1;
//     the histogram is redone, from recomputed keys, if the guess of which
//     bits vary was wrong).
//  2. Each worker computes its keys again and scatters, stably, the low
//     bits of each key and the entry's value into the bucket of its top
//     bits: two staging arrays in bucket order (phase 2). The caller may
//     lend the output buffers as staging.
//  3. Buckets are split among workers by size. For each bucket a worker
//     copies its keys and values into cache-resident buffers, sorts words
//     lowkey<<ib | j (j the position in the bucket) with an LSD radix sort,
//     and hands them to Reduce with the bucket's values (phase 3). Reduce
//     writes the output compactly from the worker's first position, which
//     never overtakes the staging data still to be read.
//  4. The workers' output ranges are moved together when Reduce merged
//     entries (phase 4).
//
// Compared with Sort, phase 2 moves 8 more bytes per entry sequentially
// per bucket, and phase 3 reads them in cache instead of gathering them.
//
// Carry describes one sort. Fill in the fields and call Run.
type Carry struct {
	// N is the number of entries.
	N int
	// KeyBits bounds the keys: every key is < 1<<KeyBits (≤ 64).
	KeyBits uint
	// SortedBits says that the lowest SortedBits bits of the keys are
	// already ascending, in entry order, among the entries whose other key
	// bits are equal (a CSR's row numbers when it is sorted by column for
	// a transpose): the sort skips them.
	SortedBits uint
	// Workers is the number of goroutines; 0 means runtime.GOMAXPROCS(0).
	Workers int
	// Keys writes the key of entry i to dst[i-lo] for every i in [lo, hi).
	// It is called twice per entry, concurrently for disjoint ranges, and
	// must give the same keys each time.
	Keys func(lo, hi int, dst []uint64)
	// In holds the values of the entries, VW bytes each (1, 2, 4 or 8), in
	// entry order.
	In []byte
	VW int

	// Reduce receives the entries of one bucket in ascending key order,
	// ties in entry order: word w stands for the entry whose value is
	// vals[j·VW:(j+1)·VW], j = w & (1<<ib - 1), and whose key is
	// keys[w >> ib] if keys is not nil and base + w>>ib otherwise. Reduce
	// writes the output entries for the bucket from position pos and
	// returns how many it wrote (fewer than len(words) when it merges equal
	// keys). Equal keys never straddle two buckets. Reduce is called
	// concurrently for disjoint output ranges, in ascending key order within
	// one worker; words, keys and vals are valid only during the call.
	Reduce func(pos int, base uint64, keys []uint64, words []uint64, ib uint, vals []byte) int

	// Move moves output entries [src, src+n) to [dst, dst+n), dst < src
	// (ranges may overlap, as with copy). It is called from one goroutine
	// after every Reduce call has returned, only if some Reduce merged.
	Move func(dst, src, n int)

	// StageKeys, if not nil, is used instead of allocating the staged low
	// keys: StageKeyWidth (4 or 8) bytes per entry, N entries at least. An
	// 8-byte array always serves; a 4-byte one only when the low keys fit
	// in 32 bits, and is otherwise replaced by an allocation. StageVals, if
	// not nil, must have length ≥ VW·N and is used instead of allocating the
	// staged values. Reduce may write output entry p in either, at bytes
	// [p·w, (p+1)·w) for the width w of the array (StageKeyWidth, VW): by
	// then the staged data there has been read.
	StageKeys     []byte
	StageKeyWidth int
	StageVals     []byte
}

// carrySmallN is the size below which Carry.Run sorts all entries as one
// bucket.
const carrySmallN = 1 << 12

// bucketBits returns the number of key bits used to pick the bucket of n
// entries: buckets of 2^14 to 2^15 entries, whose words, sort buffer and
// values (24 bytes an entry) stay in a 1 MiB L2 cache, and at most 2^12
// buckets so that the scatter's write streams stay within the TLB. (On
// the 10M-entry workloads 512 buckets sort 10 % faster than 1024 and 20 %
// faster than 4096.)
func bucketBits(n int) uint {
	b := bits.Len(uint(n))
	return uint(min(max(b-15, 0), 12))
}

// Run sorts and reduces, and returns the number of output entries.
func (s *Carry) Run() int {
	n := s.N
	if n == 0 {
		return 0
	}
	workers := par.Workers(s.Workers)
	if n < carrySmallN {
		workers = 1
	}
	chunks := split(n, workers)

	// Phase 1: varying bits and histogram of the guessed top bits.
	d1 := bucketBits(n)
	if n < carrySmallN {
		d1 = 0
	}
	guess := uint(0)
	if s.KeyBits > d1 {
		guess = s.KeyBits - d1
	}
	nb := 1 << d1
	mask := uint64(nb - 1)
	hist := make([][]int, workers)
	diffs := make([]uint64, workers)
	firsts := make([]uint64, workers)
	par.Do(workers, func(c int) {
		h := make([]int, nb)
		buf := make([]uint64, chunk)
		lo, hi := chunks[c], chunks[c+1]
		var diff, first uint64
		for a := lo; a < hi; a += chunk {
			b := min(a+chunk, hi)
			s.Keys(a, b, buf)
			if a == lo {
				first = buf[0]
			}
			for _, k := range buf[:b-a] {
				diff |= k ^ first
				h[(k>>guess)&mask]++
			}
		}
		hist[c], diffs[c], firsts[c] = h, diff, first
	})
	var diff uint64
	ref := firsts[workers-1] // the last chunk is never empty
	for c, d := range diffs {
		if chunks[c] < chunks[c+1] {
			diff |= d | (firsts[c] ^ ref)
		}
	}
	top := uint(bits.Len64(diff)) // key bits that vary: [0, top)
	d1 = min(d1, top)
	shift := top - d1 // low key bits: [0, shift)
	nb = 1 << d1
	mask = uint64(nb - 1)
	high := ref &^ (uint64(1)<<top - 1) // the bits every key shares
	if top == 64 {
		high = 0
	}
	if shift != guess || nb != len(hist[0]) {
		par.Do(workers, func(c int) {
			h := make([]int, nb)
			buf := make([]uint64, chunk)
			for a := chunks[c]; a < chunks[c+1]; a += chunk {
				b := min(a+chunk, chunks[c+1])
				s.Keys(a, b, buf)
				for _, k := range buf[:b-a] {
					h[(k>>shift)&mask]++
				}
			}
			hist[c] = h
		})
	}
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

	// Phase 2: scatter the low keys and the values into the buckets.
	lowMask := uint64(1)<<shift - 1
	if shift == 64 {
		lowMask = ^uint64(0)
	}
	kw := 8
	if shift <= 32 {
		kw = 4
	}
	sk := s.StageKeys
	switch {
	case s.StageKeyWidth == 8 && len(sk) >= 8*n:
		kw = 8
	case s.StageKeyWidth == 4 && kw == 4 && len(sk) >= 4*n:
	default:
		sk = alloc(kw * n)
	}
	vw := s.VW
	sv := s.StageVals
	if len(sv) < vw*n {
		sv = alloc(vw * n)
	}
	par.Do(workers, func(c int) {
		next := hist[c]
		buf := make([]uint64, chunk)
		pos := make([]int, chunk)
		for a := chunks[c]; a < chunks[c+1]; a += chunk {
			b := min(a+chunk, chunks[c+1])
			s.Keys(a, b, buf)
			keys := buf[:b-a]
			for j, k := range keys {
				bk := (k >> shift) & mask
				pos[j] = next[bk]
				next[bk]++
			}
			scatterKeys(sk, kw, pos[:b-a], keys, lowMask)
			scatterVals(sv, s.In, vw, a, pos[:b-a])
		}
	})

	// Phase 3: sort and reduce each bucket in cache.
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
		ib := uint(bits.Len(uint(max(largest-1, 0))))
		words := make([]uint64, largest)
		tmp := make([]uint64, largest)
		vals := make([]byte, largest*vw)
		var keys []uint64
		pos := starts[b0]
		for b := b0; b < b1; b++ {
			lo, hi := starts[b], starts[b+1]
			m := hi - lo
			if m == 0 {
				continue
			}
			copy(vals, sv[lo*vw:hi*vw])
			base := high | uint64(b)<<shift
			var sorted []uint64
			var tab []uint64
			if shift+ib <= 64 {
				w := words[:m]
				loadWords(w, sk, kw, lo, ib)
				skip := min(s.SortedBits, shift)
				sorted = sortBucket(w, tmp[:m], ib+skip, shift-skip)
			} else {
				// Low keys and positions do not fit in a word together:
				// sort positions by comparison and key the words by rank.
				sorted, tab = rankWords(words[:m], &keys, sk, kw, lo, base, ib)
			}
			pos += s.Reduce(pos, base, tab, sorted, ib, vals[:m*vw])
		}
		counts[c] = pos - starts[b0]
	})

	// Phase 4: close the gaps left by merged entries.
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

// chunk is the number of keys a worker computes at a time.
const chunk = 2048

func scatterKeys(sk []byte, kw int, pos []int, keys []uint64, lowMask uint64) {
	if kw == 4 {
		dst := castU32(sk)
		for j, k := range keys {
			dst[pos[j]] = uint32(k & lowMask)
		}
		return
	}
	dst := castU64(sk)
	for j, k := range keys {
		dst[pos[j]] = k & lowMask
	}
}

func scatterVals(sv, in []byte, vw, lo int, pos []int) {
	switch vw {
	case 8:
		dst, src := castU64(sv), castU64(in)[lo:]
		for j, p := range pos {
			dst[p] = src[j]
		}
	case 4:
		dst, src := castU32(sv), castU32(in)[lo:]
		for j, p := range pos {
			dst[p] = src[j]
		}
	case 2:
		dst, src := castU16(sv), castU16(in)[lo:]
		for j, p := range pos {
			dst[p] = src[j]
		}
	default:
		src := in[lo:]
		for j, p := range pos {
			sv[p] = src[j]
		}
	}
}

// loadWords writes lowkey<<ib | j for the staged low keys [lo, lo+len(w)).
func loadWords(w []uint64, sk []byte, kw, lo int, ib uint) {
	if kw == 4 {
		for j, k := range castU32(sk)[lo : lo+len(w)] {
			w[j] = uint64(k)<<ib | uint64(j)
		}
		return
	}
	for j, k := range castU64(sk)[lo : lo+len(w)] {
		w[j] = k<<ib | uint64(j)
	}
}

// rankWords sorts the staged entries [lo, lo+len(w)) by (low key, j) by
// comparison and returns words rank<<ib | j in that order, and the table of
// absolute keys by rank.
func rankWords(w []uint64, keys *[]uint64, sk []byte, kw, lo int, base uint64, ib uint) ([]uint64, []uint64) {
	m := len(w)
	low := make([]uint64, m)
	for j := range m {
		if kw == 4 {
			low[j] = uint64(castU32(sk)[lo+j])
		} else {
			low[j] = castU64(sk)[lo+j]
		}
	}
	perm := make([]int, m)
	for j := range perm {
		perm[j] = j
	}
	slices.SortStableFunc(perm, func(a, b int) int {
		switch {
		case low[a] < low[b]:
			return -1
		case low[a] > low[b]:
			return 1
		}
		return 0
	})
	tab := (*keys)[:0]
	for q, j := range perm {
		if q == 0 || low[j] != low[perm[q-1]] {
			tab = append(tab, base+low[j])
		}
		w[q] = uint64(len(tab)-1)<<ib | uint64(j)
	}
	*keys = tab
	return w, tab
}

// alloc returns n bytes of 8-aligned memory.
func alloc(n int) []byte {
	return castBytes(make([]uint64, (n+7)/8))[:n]
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
