package keysort

import (
	"math/bits"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/internal/par"
)

// Transpose is a stable counting sort for keys major<<MinorBits | minor
// whose minor parts already ascend, in entry order, among the entries of
// each major: the (column, row) keys of a CSR walked in storage order, for
// its transpose. Only the majors need sorting, and a stable sort by major
// leaves the minors ascending within each major, so Transpose writes the
// compressed result (pointers, minors, values) directly, with no LSD sort
// and no reducer:
//
//  1. Each worker counts the entries of its chunk per bucket, a bucket
//     being a run of 2^L consecutive majors (phase 1; Count sees only the
//     majors, which is cheaper than the full keys).
//  2. Each worker scatters, stably, the key bits below the bucket (the
//     major's low L bits and the minor) and the value of each entry of its
//     chunk into the bucket's range of the outputs, which serve as staging
//     (phase 2): written sequentially per bucket, the keys of a chunk of
//     entries first and then their values, so that at most 2^12 streams
//     are open at a time rather than twice that. Into 64 buckets or more,
//     when the staged entries take 28 MiB or more, the writes go through
//     line buffers (pairLines).
//  3. Buckets are split among workers by size. For each bucket a worker
//     copies its staged keys and values into cache-resident buffers while
//     counting the entries of each of its 2^L majors, writes the majors'
//     pointers, and places every entry at its final position in the
//     bucket's range: the minor into Idx, the value into Out (phase 3).
//
// L is chosen so that a bucket holds some 2^14 entries (its keys, values
// and the counters stay in L2) and there are at most 2^12 buckets (the
// scatter's write streams stay within the TLB). Every byte of the outputs,
// pointers included, is written, so they need no zeroing. The result never
// depends on the number of workers.
//
// Transpose describes one sort. Fill in the fields and call Run after
// checking Fits.
type Transpose struct {
	// N is the number of entries.
	N int
	// Majors bounds the majors: every key is < Majors<<MinorBits.
	Majors int
	// MinorBits is the width of the minor part of the keys.
	MinorBits uint
	// Workers is the number of goroutines; 0 means runtime.GOMAXPROCS(0).
	Workers int

	// Count adds one to h[key>>(MinorBits+sh)] (the entry's major shifted
	// right by sh) for every entry of [lo, hi), and Keys writes the key of
	// entry i to dst[i-lo] for every i in [lo, hi). Each is called once per
	// entry, concurrently for disjoint ranges, and they must agree.
	Count func(lo, hi int, sh uint, h []int)
	Keys  func(lo, hi int, dst []uint64)

	// In holds the values of the entries, VW bytes each (1, 2, 4 or 8), in
	// entry order; Out receives them in key order (N values).
	In, Out []byte
	VW      int
	// Ptr receives Majors+1 pointers of PW bytes (1, 2, 4 or 8): Ptr[k] is
	// the position of the first entry of major k, Ptr[Majors] = N. Idx
	// receives the minors in key order, IW bytes each (1, 2, 4 or 8). The
	// pointers and minors are written as unsigned integers of that width,
	// which is also the two's-complement form of any wider signed type
	// holding them.
	Ptr, Idx []byte
	PW, IW   int

	// Mem, if not nil, supplies the staging array of the keys when Idx
	// is too narrow to hold them (see Carry.Mem).
	Mem memory.Allocator
}

// Transpose aims at transposeBucketEntries entries per bucket, with at
// most transposeLowBits major bits per bucket (fewer when that lets a
// staged key fit in 4 bytes) unless there would be more than 2^12 buckets,
// and never more than transposeMaxLowBits (2^20 counters of 8 bytes per
// worker).
const (
	transposeBucketEntries = 1 << 14
	transposeLowBits       = 16
	transposeMaxLowBits    = 20
)

// lowBits returns L, the number of major bits sorted per bucket.
func (t *Transpose) lowBits() uint {
	mb := uint(bits.Len(uint(max(t.Majors-1, 0)))) // major bits
	// 2^L majors hold about 2^L·N/Majors entries.
	per := max(t.N, 1)
	l := uint(0)
	for l < min(mb, transposeLowBits) && (uint64(per)<<l)/uint64(t.Majors) < transposeBucketEntries {
		l++
	}
	if t.IW != 8 && t.MinorBits <= 32 && l+t.MinorBits > 32 {
		// Fewer majors per bucket let a staged key fit in 4 bytes, in
		// Idx itself when it is 4 bytes wide: half the staging traffic.
		l = max(32-t.MinorBits, min(l, 4))
	}
	if mb > 12 {
		l = max(l, mb-12) // at most 2^12 buckets
	}
	return l
}

// Fits reports whether Transpose can sort these keys: the majors must be
// few enough for buckets of at most 2^20 majors each (Majors ≤ 2^32), and
// a staged key (low major bits and minor) must fit in 64 bits.
func (t *Transpose) Fits() bool {
	if t.Majors <= 0 || uint64(t.Majors) > 1<<32 || t.MinorBits > 64 {
		return false
	}
	l := t.lowBits()
	return l <= transposeMaxLowBits && l+t.MinorBits <= 64
}

// Run sorts the entries and writes Ptr, Idx and Out.
func (t *Transpose) Run() {
	n := t.N
	workers := par.Workers(t.Workers)
	if n < carrySmallN {
		workers = 1
	}
	chunks := split(n, workers)
	l := t.lowBits()
	nb := (t.Majors-1)>>l + 1
	span := 1 << l // majors per bucket

	// Phase 1: bucket histograms.
	hist := make([][]int, workers)
	par.Do(workers, func(c int) {
		h := make([]int, nb)
		t.Count(chunks[c], chunks[c+1], l, h)
		hist[c] = h
	})
	starts := bucketStarts(hist) // bucket b is [starts[b], starts[b+1])

	// Phase 2: stage the low key bits and the values in bucket order. The
	// staged keys live in Idx when it is as wide as they need; a narrower
	// Idx gets its own staging array.
	kw := 8
	if l+t.MinorBits <= 32 {
		kw = 4
	}
	if t.IW == 8 {
		kw = 8 // staging in Idx beats a fresh 4-byte array
	}
	sk := t.Idx
	if t.IW != kw {
		var release func()
		sk, release = scratch(t.Mem, kw*n)
		defer release()
	}
	sh := l + t.MinorBits
	lowMask := uint64(1)<<sh - 1
	if sh == 64 {
		lowMask = ^uint64(0)
	}
	stage := stager(kw, t.VW)
	lines := streamStager(kw, t.VW)
	if !streamWorth(nb, n*(kw+t.VW)) || !aligned64(sk) || !aligned64(t.Out) {
		lines = nil
	} else if lines != nil {
		streamedRuns.Add(1)
	}
	par.Do(workers, func(c int) {
		next := hist[c]
		if lines != nil {
			lines(sk, t.Out, t.In, t.Keys, chunks[c], chunks[c+1], next, sh, ^uint64(0), lowMask)
			return
		}
		buf := make([]uint64, chunk)
		pos := make([]int, chunk)
		for a := chunks[c]; a < chunks[c+1]; a += chunk {
			b := min(a+chunk, chunks[c+1])
			t.Keys(a, b, buf)
			stage(sk, t.Out, t.In[a*t.VW:b*t.VW], buf[:b-a], pos, next, sh, lowMask)
		}
	})

	// Phase 3: count and place each bucket in cache.
	segs := splitBuckets(starts, workers)
	place := placer(kw, t.IW, t.VW)
	minorMask := uint64(1)<<t.MinorBits - 1
	if t.MinorBits == 64 {
		minorMask = ^uint64(0)
	}
	par.Do(workers, func(c int) {
		b0, b1 := segs[c], segs[c+1]
		if b0 == b1 {
			return
		}
		largest := 0
		for b := b0; b < b1; b++ {
			largest = max(largest, starts[b+1]-starts[b])
		}
		keys := alloc(largest * kw)
		vals := alloc(largest * t.VW)
		next := make([]int, span)
		for b := b0; b < b1; b++ {
			lo, hi := starts[b], starts[b+1]
			k0 := b << l
			nk := min(span, t.Majors-k0)
			cnt := next[:nk]
			clear(cnt)
			copy(vals, t.Out[lo*t.VW:hi*t.VW])
			countKeys(cnt, keys, sk, kw, lo, hi, t.MinorBits)
			offsetsPut(cnt, lo, t.Ptr, t.PW, k0)
			place(t.Idx, t.Out, keys[:(hi-lo)*kw], vals, cnt, t.MinorBits, minorMask)
		}
	})
	offsetsPut([]int{0}, n, t.Ptr, t.PW, t.Majors) // Ptr[Majors] = N
}

// countKeys copies the staged keys [lo, hi) of width kw into keys and
// counts them by their bits above sh.
func countKeys(cnt []int, keys, sk []byte, kw, lo, hi int, sh uint) {
	if kw == 4 {
		src := castU32(sk)[lo:hi]
		dst := castU32(keys)[:len(src)]
		for j, k := range src {
			dst[j] = k
			cnt[k>>sh]++
		}
		return
	}
	src := castU64(sk)[lo:hi]
	dst := castU64(keys)[:len(src)]
	for j, k := range src {
		dst[j] = k
		cnt[k>>sh]++
	}
}

// offsetsPut is offsets, writing each position also to ptr[k0+i] with
// width pw: the pointers of the majors that c counts, in the same pass
// (with many more majors than entries, the passes over the counters are
// most of the work).
func offsetsPut(c []int, start int, ptr []byte, pw, k0 int) {
	switch pw {
	case 1:
		offsetsTo(c, start, ptr[k0:k0+len(c)])
	case 2:
		offsetsTo(c, start, castU16(ptr)[k0:k0+len(c)])
	case 4:
		offsetsTo(c, start, castU32(ptr)[k0:k0+len(c)])
	default:
		offsetsTo(c, start, castU64(ptr)[k0:k0+len(c)])
	}
}

func offsetsTo[W word](c []int, start int, dst []W) {
	dst = dst[:len(c)]
	for i, v := range c {
		c[i] = start
		dst[i] = W(start)
		start += v
	}
}

// word is the unsigned integer types that hold keys, minors and values of
// each width.
type word interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64
}

// castW views aligned bytes as whole words.
func castW[W word](b []byte) []W {
	var z W
	w := int(unsafe.Sizeof(z))
	if len(b) < w {
		return nil
	}
	return unsafe.Slice((*W)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/w)
}

// stageFunc scatters a chunk of entries into the staging arrays: entry j
// goes to position next[key>>sh] (which is then incremented), its key bits
// below sh to sk and its value in[j] to sv. pos, of at least len(keys)
// elements, is scratch.
type stageFunc func(sk, sv, in []byte, keys []uint64, pos, next []int, sh uint, lowMask uint64)

func stager(kw, vw int) stageFunc {
	if kw == 4 {
		return stagerK[uint32](vw)
	}
	return stagerK[uint64](vw)
}

func stagerK[K word](vw int) stageFunc {
	switch vw {
	case 1:
		return stageKV[K, uint8]
	case 2:
		return stageKV[K, uint16]
	case 4:
		return stageKV[K, uint32]
	}
	return stageKV[K, uint64]
}

// stageKV takes the positions first, then scatters the keys, then the
// values: one loop writing both would keep twice as many write streams
// open (one per bucket and array), more than the cache holds lines for.
func stageKV[K, V word](skb, svb, inb []byte, keys []uint64, pos, next []int, sh uint, lowMask uint64) {
	sk, sv, in := castW[K](skb), castW[V](svb), castW[V](inb)
	in = in[:len(keys)]
	pos = pos[:len(keys)]
	for j, k := range keys {
		b := k >> sh
		d := next[b]
		next[b] = d + 1
		pos[j] = d
	}
	for j, k := range keys {
		sk[pos[j]] = K(k & lowMask)
	}
	for j, d := range pos {
		sv[d] = in[j]
	}
}

// placeFunc writes the entries of one bucket at their final positions:
// entry j, whose key is keys[j] and value vals[j], goes to position
// next[keys[j]>>sh] (then incremented), its minor to idx and its value to
// out.
type placeFunc func(idx, out, keys, vals []byte, next []int, sh uint, minorMask uint64)

func placer(kw, iw, vw int) placeFunc {
	if kw == 4 {
		return placerK[uint32](iw, vw)
	}
	return placerK[uint64](iw, vw)
}

func placerK[K word](iw, vw int) placeFunc {
	switch iw {
	case 1:
		return placerKI[K, uint8](vw)
	case 2:
		return placerKI[K, uint16](vw)
	case 4:
		return placerKI[K, uint32](vw)
	}
	return placerKI[K, uint64](vw)
}

func placerKI[K, I word](vw int) placeFunc {
	switch vw {
	case 1:
		return placeKIV[K, I, uint8]
	case 2:
		return placeKIV[K, I, uint16]
	case 4:
		return placeKIV[K, I, uint32]
	}
	return placeKIV[K, I, uint64]
}

func placeKIV[K, I, V word](idxb, outb, keysb, valsb []byte, next []int, sh uint, minorMask uint64) {
	idx, out, keys, vals := castW[I](idxb), castW[V](outb), castW[K](keysb), castW[V](valsb)
	vals = vals[:len(keys)]
	for j, k := range keys {
		c := k >> sh
		d := next[c]
		next[c] = d + 1
		idx[d] = I(uint64(k) & minorMask)
		out[d] = vals[j]
	}
}
