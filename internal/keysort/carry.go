package keysort

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/internal/par"
)

// Carry describes one sort of entries by keys of any width, moving each
// entry's value with its key. Fill in the fields and call Run.
type Carry struct {
	// N is the number of entries.
	N int
	// KeyBits has one element per key word (a key is len(KeyBits) words,
	// the first most significant, compared lexicographically), and bounds
	// the words: word q of every key is < 1<<KeyBits[q] (64 bounds
	// nothing). The bounds are a guess at which bits vary: a wrong guess
	// costs one more call of Keys per entry, never a wrong result, but a
	// bound that a key exceeds is an error.
	KeyBits []uint
	// SortedBits says that the lowest SortedBits bits of the keys are
	// already ascending, in entry order, among the entries whose other key
	// bits are equal (a CSR's row numbers when it is sorted by column for a
	// transpose): the sort skips them. Single-word keys only.
	SortedBits uint
	// Workers is the number of goroutines; 0 means all cores.
	Workers int
	// Keys writes the key words of entry i to dst[(i-lo)·W : (i-lo+1)·W]
	// for every i in [lo, hi), W = len(KeyBits). It is called two or three
	// times per entry, concurrently for disjoint ranges, and must give the
	// same keys each time.
	Keys func(lo, hi int, dst []uint64)
	// In holds the values of the entries, VW bytes each (1, 2, 4 or 8), in
	// entry order.
	In []byte
	VW int

	// Reduce receives the entries of one bucket in ascending key order,
	// ties in entry order (see Bucket). It writes the output entries for
	// the bucket from position pos and returns how many it wrote (fewer
	// than the bucket's entries when it merges equal keys). Equal keys never
	// straddle two buckets. Reduce is called concurrently for disjoint
	// output ranges, in ascending key order within one worker; the bucket
	// and its slices are valid only during the call.
	Reduce func(pos int, b *Bucket) int

	// Move moves output entries [src, src+n) to [dst, dst+n), dst < src
	// (ranges may overlap, as with copy). It is called from one goroutine
	// after every Reduce call has returned, only if some Reduce merged.
	Move func(dst, src, n int)

	// StageKeys, if not nil, is used instead of allocating the staged key
	// bits: entry p's at byte p·StageKeyStride, which must leave room for
	// them (4 bytes when they fit in 32 bits, 8 per word otherwise) and be
	// a multiple of their element width; otherwise it is not used.
	// StageVals, if not nil, must have length ≥ VW·N and is used instead of
	// allocating the staged values. Reduce may write output entry p in
	// either, at bytes [p·w, (p+1)·w) for the stride w of the array
	// (StageKeyStride, VW): by then the staged data there has been read.
	StageKeys      []byte
	StageKeyStride int
	StageVals      []byte

	// Mem, if not nil, supplies the staging arrays that are not lent (the
	// caller's allocator, so that they come from huge pages or are
	// accounted for like its other memory); they are released before Run
	// returns. With nil they come from the Go heap.
	Mem memory.Allocator
}

// Bucket is one bucket of sorted entries handed to Carry.Reduce. Word x of
// Words stands for the entry whose value is Vals[j·VW : (j+1)·VW], j =
// x & (1<<IB - 1), and whose key number is x >> IB: words are ascending, so
// entries with equal keys are adjacent, in entry order, and have equal key
// numbers. The key itself is Base + x>>IB (single-word keys) when Tab is
// nil, and otherwise the W words Tab[(x>>IB)·W : (x>>IB+1)·W].
type Bucket struct {
	Words []uint64
	IB    uint
	Base  uint64
	Tab   []uint64
	W     int
	Vals  []byte
}

// Entry returns the position in the bucket's values of the entry of word x.
func (b *Bucket) Entry(x uint64) int { return int(x & (uint64(1)<<b.IB - 1)) }

// Key returns the key of word x, for single-word keys.
func (b *Bucket) Key(x uint64) uint64 {
	if b.Tab != nil {
		return b.Tab[x>>b.IB]
	}
	return b.Base + x>>b.IB
}

// KeyWords returns the key words of word x; Tab must not be nil.
func (b *Bucket) KeyWords(x uint64) []uint64 {
	r := int(x >> b.IB)
	return b.Tab[r*b.W : (r+1)*b.W]
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
	if n < carrySmallN {
		return 0
	}
	b := bits.Len(uint(n))
	return uint(min(max(b-15, 0), maxSplitBits))
}

// maxSplitBits bounds the bucket bits: at most 2^12 buckets.
const maxSplitBits = 12

// splitBits returns the number of top bits of k-bit effective keys that
// pick the bucket of n entries: bucketBits(n), or more, up to
// maxSplitBits, when that lets the bits below a bucket's fit beside a
// position in the bucket in one word (no comparisons of rests), or failing
// that in one staged word. Among the choices that fit, a few more bits are
// taken when that saves an LSD pass per bucket (buckets of 2^12 entries or
// more).
func splitBits(n int, k uint) uint {
	d0 := min(bucketBits(n), k)
	if n < carrySmallN {
		return d0
	}
	top := min(maxSplitBits, k)
	fits := func(d uint) bool { return k-d+posBits(n, d) <= 64 }
	d := d0
	for d <= top && !fits(d) {
		d++
	}
	if d > top {
		for d = d0; d < top && k-d > 64; d++ {
		}
		return d
	}
	best := d
	for e := d + 1; e <= min(d+3, top) && n>>e >= 1<<12; e++ {
		if lsdPasses(k-e) < lsdPasses(k-best) {
			best = e
		}
	}
	return best
}

// lsdPasses returns the number of radix passes of sortBucket over r bits.
func lsdPasses(r uint) uint { return (r + 10) / 11 }

// posBits estimates the bits of a position in one of 2^d buckets of n
// entries: room for twice the average bucket.
func posBits(n int, d uint) uint { return uint(bits.Len(uint(n>>d))) + 1 }

// carryRun is the state of one Carry.Run.
type carryRun struct {
	s       *Carry
	n, w    int // entries, words per key
	workers int
	chunks  []int // worker c's entries in phases 1 and 2: [chunks[c], chunks[c+1])

	lay    layout
	d1, r  uint // bucket bits (the top of the effective key) and low bits below them
	hist   [][]int
	starts []int // bucket b is [starts[b], starts[b+1])

	kw, ws int        // a staged key is ws elements of kw bytes (4, or 8 per word)
	ke     int        // staged key elements from one entry to the next
	sk, sv []byte     // staged keys and values, in bucket order
	lines  lineStager // phase 2 through line buffers, when not nil
}

// Run sorts and reduces, and returns the number of output entries.
//
//  1. Each worker computes the keys of its chunk of entries, the bits in
//     which they differ, and a histogram of the buckets given by the bits
//     that KeyBits says vary; the histogram is redone, from recomputed
//     keys, if that guess was wrong (survey).
//  2. Each worker computes its keys again and scatters, stably, the bits
//     of each key below its bucket's and the entry's value into the bucket
//     (scatter): two staging arrays in bucket order, which the caller may
//     lend. Into 64 buckets or more, when the staging takes 28 MiB or
//     more, the entries go through line buffers written to memory with
//     non-temporal stores (pairLines), as in Transpose.
//  3. Buckets are split among workers by size. For each bucket a worker
//     copies its staged keys and values into cache-resident buffers and
//     sorts words key<<ib | j (j the position in the bucket) with an LSD
//     radix sort. When the staged key bits and ib do not fit in a word,
//     the words hold the key's top bits (at most 64-ib, and about
//     2·log2(bucket size)+8, which few distinct keys share), and runs of
//     equal words are put in order by comparing the rest (ties). The
//     number of bucket bits is chosen to avoid this where it can
//     (splitBits). The words go to Reduce with the bucket's values
//     (sortBuckets); Reduce writes the output compactly from the worker's
//     first position, which never overtakes the staging data still to be
//     read.
//  4. The workers' output ranges are moved together when Reduce merged
//     entries (compact).
func (s *Carry) Run() int {
	if s.N == 0 {
		return 0
	}
	r := &carryRun{s: s, n: s.N, w: len(s.KeyBits), workers: par.Workers(s.Workers)}
	if r.w == 0 {
		panic("keysort: Carry without key words")
	}
	if r.w > 1 && s.SortedBits > 0 {
		panic("keysort: SortedBits with multi-word keys")
	}
	if r.n < carrySmallN {
		r.workers = 1
	}
	r.chunks = split(r.n, r.workers)
	r.survey()
	defer r.stage()()
	r.scatter()
	segs, counts := r.sortBuckets()
	return r.compact(segs, counts)
}

// chunk is the number of keys a worker computes at a time.
const chunk = 2048

// bucketOf returns the bucket of key words k under layout l with r low
// bits and d bucket bits.
func bucketOf(l *layout, k []uint64, r, d uint) uint64 {
	if len(k) == 2 {
		hi, lo := l.pack2(k[0], k[1])
		return shr128(hi, lo, r) & lowMask(d)
	}
	return l.bitsAt(k, r, d)
}

// bitsAt returns bits [lo, lo+n) (n ≤ 64) of the effective key of the key
// words k.
func (l *layout) bitsAt(k []uint64, lo, n uint) uint64 {
	var v uint64
	hi := lo + n
	for q := len(l.tops) - 1; q >= 0; q-- {
		o, t := l.off[q], l.tops[q]
		if o >= hi {
			break
		}
		if o+t <= lo {
			continue
		}
		a, e := max(lo, o), min(hi, o+t)
		v |= (k[q] >> (a - o)) & lowMask(e-a) << (a - lo)
	}
	return v
}

// survey is phase 1: the layout of the keys and the bucket histograms.
func (r *carryRun) survey() {
	s, w := r.s, r.w
	guess := guessLayout(s.KeyBits)
	gd := splitBits(r.n, guess.k)
	gr := guess.k - gd
	hist := make([][]int, r.workers)
	firsts := make([][]uint64, r.workers)
	diffs := make([][]uint64, r.workers)
	par.Do(r.workers, func(c int) {
		h := make([]int, 1<<gd)
		buf := make([]uint64, chunk*w)
		first, diff := make([]uint64, w), make([]uint64, w)
		lo, hi := r.chunks[c], r.chunks[c+1]
		for a := lo; a < hi; a += chunk {
			b := min(a+chunk, hi)
			s.Keys(a, b, buf)
			if a == lo {
				copy(first, buf[:w])
			}
			if w == 1 {
				f, d := first[0], diff[0]
				mask := uint64(len(h) - 1)
				for _, k := range buf[:b-a] {
					d |= k ^ f
					h[(k>>gr)&mask]++
				}
				diff[0] = d
				continue
			}
			for j := range b - a {
				k := buf[j*w : (j+1)*w]
				for q, x := range k {
					diff[q] |= x ^ first[q]
				}
				h[bucketOf(&guess, k, gr, gd)]++
			}
		}
		hist[c], firsts[c], diffs[c] = h, first, diff
	})
	ref := firsts[r.workers-1] // the last chunk is never empty
	diff := make([]uint64, w)
	for c := range r.workers {
		if r.chunks[c] == r.chunks[c+1] {
			continue
		}
		for q := range w {
			diff[q] |= diffs[c][q] | (firsts[c][q] ^ ref[q])
		}
	}
	r.lay = surveyLayout(ref, diff)
	r.d1 = splitBits(r.n, r.lay.k)
	r.r = r.lay.k - r.d1
	if r.d1 != gd || !r.lay.sameSplit(&guess) {
		par.Do(r.workers, func(c int) {
			h := make([]int, 1<<r.d1)
			buf := make([]uint64, chunk*w)
			for a := r.chunks[c]; a < r.chunks[c+1]; a += chunk {
				b := min(a+chunk, r.chunks[c+1])
				s.Keys(a, b, buf)
				if w == 1 {
					mask := uint64(len(h) - 1)
					for _, k := range buf[:b-a] {
						h[(k>>r.r)&mask]++
					}
					continue
				}
				for j := range b - a {
					h[bucketOf(&r.lay, buf[j*w:(j+1)*w], r.r, r.d1)]++
				}
			}
			hist[c] = h
		})
	}
	r.hist = hist
	r.starts = bucketStarts(hist)
}

// stage picks the staging arrays of phase 2 and returns the function that
// releases those it allocated.
func (r *carryRun) stage() (release func()) {
	s, n := r.s, r.n
	r.kw, r.ws = 4, 1
	if r.r > 32 {
		r.kw, r.ws = 8, int(r.r+63)/64
	}
	st := s.StageKeyStride
	stream := r.streams()
	if stream && r.kw == 4 && st == 8 && len(s.StageKeys) >= 8*n {
		// A line buffer needs the staged keys contiguous: 8 bytes each
		// in a lent array of that stride (a dense array of our own would
		// take 4).
		r.kw = 8
	}
	need := r.kw * r.ws
	var rk, rv func()
	if s.StageKeys != nil && st >= need && st <= 2*need && st%r.kw == 0 && len(s.StageKeys) >= st*(n-1)+need {
		r.sk, r.ke = s.StageKeys, st/r.kw
	} else {
		r.sk, rk = scratch(s.Mem, need*n)
		r.ke = r.ws
	}
	r.sv = s.StageVals
	if len(r.sv) < s.VW*n {
		r.sv, rv = scratch(s.Mem, s.VW*n)
	}
	if stream && r.ke == 1 && aligned64(r.sk) && aligned64(r.sv) {
		r.lines = streamStager(r.kw, s.VW)
	}
	return func() {
		for _, f := range []func(){rk, rv} {
			if f != nil {
				f()
			}
		}
	}
}

// streams reports whether phase 2 should scatter through line buffers, as
// Transpose's does: with one-word keys, 64 buckets or more, values of 4 or
// 8 bytes, a platform with non-temporal stores, and staging of
// streamMinBytes or more (8 bytes of key counted, the most a one-word key
// is staged in).
func (r *carryRun) streams() bool {
	return r.w == 1 && streamWorth(1<<r.d1, r.n*(8+r.s.VW)) && streamStager(4, r.s.VW) != nil
}

// scatter is phase 2: the low key bits and the values go to their buckets.
func (r *carryRun) scatter() {
	if r.lines != nil {
		streamedRuns.Add(1)
		mask := uint64(1)<<r.d1 - 1
		par.Do(r.workers, func(c int) {
			r.lines(r.sk, r.sv, r.s.In, r.s.Keys, r.chunks[c], r.chunks[c+1], r.hist[c], r.r, mask, lowMask(r.r))
		})
		return
	}
	s, w := r.s, r.w
	mask := uint64(1)<<r.d1 - 1
	low := lowMask(r.r)
	par.Do(r.workers, func(c int) {
		next := r.hist[c]
		buf := make([]uint64, chunk*w)
		pos := make([]int, chunk)
		for a := r.chunks[c]; a < r.chunks[c+1]; a += chunk {
			b := min(a+chunk, r.chunks[c+1])
			s.Keys(a, b, buf)
			p := pos[:b-a]
			if w == 1 {
				keys := buf[:b-a]
				for j, k := range keys {
					bk := (k >> r.r) & mask
					p[j] = next[bk]
					next[bk]++
				}
				scatterKeys(r.sk, r.kw, r.ke, p, keys, low)
			} else if w == 2 {
				r.scatter2(buf[:2*(b-a)], p, next)
			} else {
				for j := range p {
					k := buf[j*w : (j+1)*w]
					bk := bucketOf(&r.lay, k, r.r, r.d1)
					p[j] = next[bk]
					next[bk]++
					r.stageWide(p[j], k)
				}
			}
			scatterVals(r.sv, s.In, s.VW, a, p)
		}
	})
}

// scatter2 is scatter's key half for two-word keys: it gives each entry
// its position in its bucket and stages the entry's low key bits there.
func (r *carryRun) scatter2(keys []uint64, pos, next []int) {
	mask := lowMask(r.d1)
	sk, ke := castU64(r.sk), r.ke
	for j := range pos {
		hi, lo := r.lay.pack2(keys[2*j], keys[2*j+1])
		bk := shr128(hi, lo, r.r) & mask
		p := next[bk]
		next[bk]++
		pos[j] = p
		switch {
		case r.kw == 4:
			castU32(r.sk)[p*ke] = uint32(lo & lowMask(r.r))
		case r.ws == 1:
			sk[p*ke] = lo & lowMask(r.r)
		default:
			sk[p*ke], sk[p*ke+1] = lo, hi&lowMask(r.r-64)
		}
	}
}

// stageWide stages the low bits of the multi-word key k at position p.
func (r *carryRun) stageWide(p int, k []uint64) {
	if r.kw == 4 {
		castU32(r.sk)[p*r.ke] = uint32(r.lay.bitsAt(k, 0, r.r))
		return
	}
	dst := castU64(r.sk)[p*r.ke : p*r.ke+r.ws]
	for i := range dst {
		lo := uint(64 * i)
		dst[i] = r.lay.bitsAt(k, lo, min(64, r.r-lo))
	}
}

// sortBuckets is phase 3: each worker sorts and reduces a run of buckets.
// It returns the runs (worker c has buckets [segs[c], segs[c+1])) and the
// number of entries each worker wrote.
func (r *carryRun) sortBuckets() (segs, counts []int) {
	segs = splitBuckets(r.starts, r.workers)
	counts = make([]int, r.workers)
	par.Do(r.workers, func(c int) {
		b0, b1 := segs[c], segs[c+1]
		if b0 == b1 {
			return
		}
		largest := 0
		for b := b0; b < b1; b++ {
			largest = max(largest, r.starts[b+1]-r.starts[b])
		}
		bs := r.newBucketSorter(largest)
		pos := r.starts[b0]
		for b := b0; b < b1; b++ {
			lo, hi := r.starts[b], r.starts[b+1]
			if lo == hi {
				continue
			}
			pos += r.s.Reduce(pos, bs.sort(uint64(b), lo, hi))
		}
		counts[c] = pos - r.starts[b0]
	})
	return segs, counts
}

// compact is phase 4: it closes the gaps left by merged entries and
// returns the number of output entries.
func (r *carryRun) compact(segs, counts []int) int {
	out := 0
	for c := range r.workers {
		src := r.starts[segs[c]]
		if counts[c] > 0 && src != out {
			r.s.Move(out, src, counts[c])
		}
		out += counts[c]
	}
	return out
}

// bucketSorter holds one worker's cache-resident buffers for phase 3.
type bucketSorter struct {
	r      *carryRun
	ib     uint     // bits of a position in the bucket
	words  []uint64 // sort words, then the words handed to Reduce
	tmp    []uint64
	vals   []byte
	lows   []uint64 // staged key bits, ws words per entry, least significant first (ties and multi-word keys)
	tab    []uint64 // keys by key number
	e      []uint64 // one effective key
	cnt    *digitCounts
	bucket Bucket

	skipPartial int // buckets still to sort by all bits (partialPause)
}

func (r *carryRun) newBucketSorter(largest int) *bucketSorter {
	ib := uint(bits.Len(uint(max(largest-1, 0))))
	bs := &bucketSorter{
		r:     r,
		ib:    ib,
		words: make([]uint64, largest),
		tmp:   make([]uint64, largest),
		vals:  make([]byte, largest*r.s.VW),
	}
	if r.r > 64-ib || r.w > 1 {
		bs.lows = make([]uint64, largest*r.ws)
		bs.tab = make([]uint64, 0, largest*r.w)
		bs.e = make([]uint64, (r.lay.k+63)/64+1)
	}
	return bs
}

// sort sorts bucket b, staged at [lo, hi), and returns it for Reduce.
func (bs *bucketSorter) sort(b uint64, lo, hi int) *Bucket {
	r := bs.r
	vw := r.s.VW
	m := hi - lo
	copy(bs.vals, r.sv[lo*vw:hi*vw])
	ib := bs.ib
	bk := &bs.bucket
	*bk = Bucket{IB: ib, W: r.w, Vals: bs.vals[:m*vw]}
	room := 64 - ib // key bits that fit beside a position
	w := bs.words[:m]
	if r.r <= room {
		skip := min(r.s.SortedBits, r.r)
		w = bs.loadSort(w, lo, ib, ib+skip, r.r-skip)
		bk.Words = w
		if r.w == 1 {
			bk.Base = r.lay.high[0] | b<<r.r
			if r.r == 64 {
				bk.Base = r.lay.high[0]
			}
			return bk
		}
		bs.rankNarrow(b, w)
		return bk
	}
	// Ties: sort by the top bits of the staged key, then put runs of equal
	// top bits in order by the rest. Some 2·log2(m) + 8 top bits leave few
	// ties among m distinct keys, so the radix sort takes no more bits than
	// that.
	ws := r.ws
	lows := bs.lows[:m*ws]
	loadLows(lows, r.sk, r.ke, ws, lo) // 8-byte: r.r > room > 32
	top := min(room, 2*uint(bits.Len(uint(m)))+8)
	cut := r.r - top
	for j := range m {
		w[j] = extract(lows[j*ws:(j+1)*ws], cut, top)<<ib | uint64(j)
	}
	skip := uint(0)
	if r.s.SortedBits > cut {
		skip = min(r.s.SortedBits-cut, top)
	}
	w = sortBucket(w, bs.tmp[:m], ib+skip, top-skip)
	bs.ties(w, lows)
	bk.Words = w
	bs.rankWide(b, w, lows)
	return bk
}

// loadSort loads the staged keys of the bucket's entries, from position
// lo, as words lowkey<<ib | j, sorts them by bits [sh, sh+rb) and returns
// the slice holding the result (w or a prefix of bs.tmp). The digits of
// every LSD pass are counted while the words are loaded, which saves each
// pass a reading of the bucket.
func (bs *bucketSorter) loadSort(w []uint64, lo int, ib, sh, rb uint) []uint64 {
	r := bs.r
	m := len(w)
	top := rb
	switch {
	case bs.skipPartial > 0:
		bs.skipPartial--
	case !noPartial:
		top = partialTop(m, rb)
	}
	passes := lsdPasses(top)
	if m <= 48 || rb == 0 || passes > maxPasses || m < 1<<((top+passes-1)/passes-1) || uint64(m) >= 1<<32 {
		loadWords(w, r.sk, r.kw, r.ke, lo, ib)
		return sortBucket(w, bs.tmp[:m], sh, rb)
	}
	cut := sh + rb - top
	dw := (top + passes - 1) / passes
	if bs.cnt == nil {
		bs.cnt = new(digitCounts)
	}
	cnt := bs.cnt[:passes]
	for p := range cnt {
		clear(cnt[p][:1<<dw])
	}
	if r.kw == 4 {
		loadCount(w, castU32(r.sk), r.ke, lo, ib, cut, dw, cnt)
	} else {
		loadCount(w, castU64(r.sk), r.ke, lo, ib, cut, dw, cnt)
	}
	w = radixCounted(w, bs.tmp[:m], cut, dw, cnt)
	if top < rb {
		other := bs.tmp
		if &w[0] == &other[0] {
			other = bs.words
		}
		if !finishSort(w, m) {
			// Clustered keys: the words that agree in the sorted bits are
			// too many to put in order one by one. Sorting all bits again
			// is stable, so it puts them in order from where they are.
			// The next buckets, likely alike, are sorted whole at once.
			bs.skipPartial = partialPause
			return sortBucket(w, other[:m], sh, rb)
		}
	}
	return w
}

// noPartial turns partialTop off (benchmarks).
var noPartial bool

// partialPause is the number of buckets a worker sorts by all their bits
// after a bucket whose keys were too clustered for partialTop.
const partialPause = 16

// partialTop returns how many of the top bits of rb-bit keys loadSort
// sorts by radix in a bucket of m entries: rb, or, when rb is much wider
// than log2(m), some log2(m)+7 bits, below which few keys agree, so that
// finishSort has little left to do. They are a whole number of equal
// digits, as narrow as the passes allow, so that a small bucket (a
// thousand entries) does not fall back to a comparison sort for want of
// entries to fill 11-bit histograms.
func partialTop(m int, rb uint) uint {
	need := uint(bits.Len(uint(m))) + 7
	p := lsdPasses(need)
	return min(p*((need+p-1)/p), rb)
}

// ties orders each run of words with equal top bits by the entries'
// staged keys, ties in position order.
func (bs *bucketSorter) ties(w, lows []uint64) {
	ib, ws := bs.ib, bs.r.ws
	mask := uint64(1)<<ib - 1
	low := func(x uint64) []uint64 {
		j := int(x & mask)
		return lows[j*ws : (j+1)*ws]
	}
	for i := 0; i < len(w); {
		top := w[i] >> ib
		j := i + 1
		for j < len(w) && w[j]>>ib == top {
			j++
		}
		if j-i > 1 {
			run := w[i:j]
			sorted := true
			for q := 1; q < len(run) && sorted; q++ {
				sorted = compareLE(low(run[q-1]), low(run[q])) <= 0
			}
			if !sorted {
				slices.SortFunc(run, func(x, y uint64) int {
					if c := compareLE(low(x), low(y)); c != 0 {
						return c
					}
					return cmp.Compare(x&mask, y&mask)
				})
			}
		}
		i = j
	}
}

// rankNarrow turns words lowkey<<ib | j of bucket b into rank<<ib | j and
// fills the key table, for multi-word keys whose staged bits fit beside j.
func (bs *bucketSorter) rankNarrow(b uint64, w []uint64) {
	ib := bs.ib
	mask := uint64(1)<<ib - 1
	tab := bs.tab[:0]
	rank := -1
	var last uint64
	for q, x := range w {
		if l := x >> ib; rank < 0 || l != last {
			last = l
			rank++
			bs.lows[0] = l
			tab = bs.appendKey(tab, b, bs.lows[:1])
		}
		w[q] = uint64(rank)<<ib | x&mask
	}
	bs.bucket.Tab = tab
}

// rankWide turns sorted words top<<ib | j of bucket b into rank<<ib | j and
// fills the key table from the staged keys.
func (bs *bucketSorter) rankWide(b uint64, w, lows []uint64) {
	ib, ws := bs.ib, bs.r.ws
	mask := uint64(1)<<ib - 1
	tab := bs.tab[:0]
	rank := -1
	var last []uint64
	for q, x := range w {
		j := int(x & mask)
		l := lows[j*ws : (j+1)*ws]
		if rank < 0 || compareLE(l, last) != 0 {
			last = l
			rank++
			tab = bs.appendKey(tab, b, l)
		}
		w[q] = uint64(rank)<<ib | uint64(j)
	}
	bs.bucket.Tab = tab
}

// appendKey appends to tab the key words of the entry in bucket b whose
// staged key bits are low (least significant word first).
func (bs *bucketSorter) appendKey(tab []uint64, b uint64, low []uint64) []uint64 {
	r := bs.r
	if r.w == 1 {
		k := r.lay.high[0] | low[0]
		if r.r < 64 {
			k |= b << r.r
		}
		return append(tab, k)
	}
	if r.w == 2 {
		var hi, lo uint64
		switch {
		case r.r < 64:
			hi, lo = shl128(b, r.r)
			lo |= low[0]
		case len(low) == 1:
			hi, lo = b<<(r.r-64), low[0]
		default:
			hi, lo = low[1]|b<<(r.r-64), low[0]
		}
		k0, k1 := r.lay.unpack2(hi, lo)
		return append(tab, k0, k1)
	}
	e := bs.e
	clear(e)
	copy(e, low)
	i, s := r.r/64, r.r%64
	e[i] |= b << s
	if s > 0 && s+r.d1 > 64 {
		e[i+1] |= b >> (64 - s)
	}
	n := len(tab)
	tab = append(tab, make([]uint64, r.w)...)
	r.lay.unpack(e, tab[n:])
	return tab
}

// shl128 returns x << s as a 128-bit number hi:lo, s < 64.
func shl128(x uint64, s uint) (hi, lo uint64) {
	if s == 0 {
		return 0, x
	}
	return x >> (64 - s), x << s
}

// loadWords writes lowkey<<ib | j for the staged keys [lo, lo+len(w)) of
// one word or less.
func loadWords(w []uint64, sk []byte, kw, ke, lo int, ib uint) {
	if kw == 4 {
		src := castU32(sk)
		for j := range w {
			w[j] = uint64(src[(lo+j)*ke])<<ib | uint64(j)
		}
		return
	}
	src := castU64(sk)
	for j := range w {
		w[j] = src[(lo+j)*ke]<<ib | uint64(j)
	}
}

// loadLows copies the staged 8-byte keys [lo, lo+len(lows)/ws) into lows,
// ws words each.
func loadLows(lows []uint64, sk []byte, ke, ws, lo int) {
	src := castU64(sk)
	switch ws {
	case 1:
		for j := range lows {
			lows[j] = src[(lo+j)*ke]
		}
	case 2:
		for j := range len(lows) / 2 {
			s := src[(lo+j)*ke:]
			lows[2*j], lows[2*j+1] = s[0], s[1]
		}
	default:
		for j := range len(lows) / ws {
			copy(lows[j*ws:(j+1)*ws], src[(lo+j)*ke:])
		}
	}
}

func scatterKeys(sk []byte, kw, ke int, pos []int, keys []uint64, lowMask uint64) {
	if kw == 4 {
		dst := castU32(sk)
		if ke == 1 {
			for j, k := range keys {
				dst[pos[j]] = uint32(k & lowMask)
			}
			return
		}
		for j, k := range keys {
			dst[pos[j]*ke] = uint32(k & lowMask)
		}
		return
	}
	dst := castU64(sk)
	if ke == 1 {
		for j, k := range keys {
			dst[pos[j]] = k & lowMask
		}
		return
	}
	for j, k := range keys {
		dst[pos[j]*ke] = k & lowMask
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
