package keysort

import (
	"sync/atomic"
	"unsafe"
)

// pairLines scatters entries, a staged key and a value each, into buckets
// through one cache line per bucket for the keys and one for the values
// (software write-combining). An entry's key and value go to their
// bucket's line buffers; a line buffer that completes a whole, aligned
// line of the destination inside this worker's range of the bucket goes
// to memory at once, with non-temporal stores where the platform has them
// (streamLine). The lines at the ends of a range, which it may share with
// another worker or bucket, are written element by element. A direct
// scatter into hundreds of buckets reads every destination line from
// memory before its first store (more streams than the prefetchers
// follow); these stores read nothing.
//
// One loop does each entry's bucket, position, both stores and the lines
// they complete. (Two passes, keys then values, each over positions
// computed and stored beforehand, took 10 ns an entry where this takes 6,
// 10M entries into 512 buckets on one core; a direct scatter took 13–15.)
type pairLines[K, V uint32 | uint64] struct {
	sk    []K   // staged keys
	sv    []V   // staged values
	lk    []K   // bucket b's key line buffer is lk[b·LK : (b+1)·LK]
	lv    []V   // and its value line buffer lv[b·LV : (b+1)·LV]
	lo    []int // this worker's range of bucket b starts at lo[b]
	sh    uint  // an entry's bucket is (key>>sh)&bmask
	bmask uint64
	low   K // the staged key is K(key)&low
}

// streamMinBuckets and streamMaxBuckets bound the number of buckets for
// which Transpose and Carry scatter through pairLines. With fewer, the
// direct scatter's streams are few enough for the prefetchers. The upper
// bound is the most buckets either engine makes (2^12): their line
// buffers, 128 bytes a bucket, then take 512 KiB, which the L2 cache
// holds. (One core, ns per entry, line buffers against direct: Transpose
// at 40M entries into 2^11 buckets 20.5–24.6 against 25.5–30.5; Carry at
// 40M into 2^11 buckets 24.8–26.7 against 25.9–29.9.)
const (
	streamMinBuckets = 64
	streamMaxBuckets = 1 << 12
)

// streamMinBytes is the size of the staged keys and values below which the
// scatter is direct: staging that the caches can hold is read back from
// them in the next phase, and non-temporal stores would send it to memory
// instead. On the machine measured, a direct scatter's time per entry
// rises by half between 24 and 30 MB of staging, and the line buffers
// take over there. (Transpose, one core, 12-byte entries, ns per entry,
// line buffers against direct: 2M entries 19–22 against 16–21; 2.25M
// 17–23 against 20–22; 2.75M 16–18 against 21–24; 4M 17–20 against 23–27.
// Carry, 16-byte entries, 2M: 21–27 against 27–31.) A variable, so that
// the tests can lower it.
var streamMinBytes = 28 << 20

// streamWorth reports whether a scatter into nb buckets staging the given
// number of bytes should go through line buffers (both engines' rule).
func streamWorth(nb, staged int) bool {
	return !noStream && nb >= streamMinBuckets && nb <= streamMaxBuckets && staged >= streamMinBytes
}

// noStream turns the line buffers off, for the benchmarks that compare
// them with the direct scatter.
var noStream bool

// streamedRuns counts the Transpose and Carry runs that scattered through
// line buffers, for the tests.
var streamedRuns atomic.Int64

// lineLen returns the number of elements of T in a 64-byte line.
func lineLen[T uint32 | uint64]() int {
	var t T
	return 64 / int(unsafe.Sizeof(t))
}

// newPairLines prepares a worker's scatter into sk and sv, which must both
// start 64-byte aligned (aligned64), the worker's range of bucket b
// starting at next[b]. The bucket of key k is (k>>sh)&bmask, and the key
// staged is its bits under low.
func newPairLines[K, V uint32 | uint64](sk []K, sv []V, next []int, sh uint, bmask, low uint64) *pairLines[K, V] {
	return &pairLines[K, V]{
		sk: sk, sv: sv,
		lk: make([]K, len(next)*lineLen[K]()), lv: make([]V, len(next)*lineLen[V]()),
		lo: append([]int(nil), next...),
		sh: sh, bmask: bmask, low: K(low),
	}
}

// put stages the entries with the given keys and values, in order, next[b]
// being the next position of bucket b in this worker's range.
func (w *pairLines[K, V]) put(keys []uint64, vals []V, next []int) {
	LK, LV := lineLen[K](), lineLen[V]()
	mk, mv := LK-1, LV-1
	lk, lv, sh, bmask, low := w.lk, w.lv, w.sh, w.bmask, w.low
	vals = vals[:len(keys)]
	for j, k := range keys {
		b := int((k >> sh) & bmask)
		p := next[b]
		next[b] = p + 1
		lk[b*LK+p&mk] = K(k) & low
		lv[b*LV+p&mv] = vals[j]
		if p&mk == mk {
			lineOut(w.sk, lk[b*LK:b*LK+LK], p, w.lo[b])
		}
		if p&mv == mv {
			lineOut(w.sv, lv[b*LV:b*LV+LV], p, w.lo[b])
		}
	}
}

// lineOut writes the line buffer l, complete up to position p, to dst: as
// a whole line with non-temporal stores when the line lies in this
// worker's range (from lo), element by element otherwise.
func lineOut[T uint32 | uint64](dst, l []T, p, lo int) {
	m := len(l) - 1
	if q := p - m; q >= lo {
		_ = dst[q : q+len(l)]
		streamLine(unsafe.Pointer(&dst[q]), unsafe.Pointer(&l[0]))
		return
	}
	for k := lo; k <= p; k++ {
		dst[k] = l[k&m]
	}
}

// flush writes what the line buffers still hold, next[b] being the end of
// this worker's range of bucket b, and orders the non-temporal stores
// before whatever follows.
func (w *pairLines[K, V]) flush(next []int) {
	streamFence()
	LK, LV := lineLen[K](), lineLen[V]()
	for b, p := range next {
		for k := max(p&^(LK-1), w.lo[b]); k < p; k++ {
			w.sk[k] = w.lk[b*LK+k&(LK-1)]
		}
		for k := max(p&^(LV-1), w.lo[b]); k < p; k++ {
			w.sv[k] = w.lv[b*LV+k&(LV-1)]
		}
	}
}

// lineStager is the scatter of one worker through line buffers: the
// entries [a0, a1), whose keys keys writes, go to their buckets, the key
// bits under low to sk and the values in to sv (see newPairLines).
type lineStager func(sk, sv, in []byte, keys func(lo, hi int, dst []uint64), a0, a1 int, next []int, sh uint, bmask, low uint64)

// streamStager returns the lineStager for staged keys of kw bytes and
// values of vw, or nil if there is none for those widths or on this
// platform.
func streamStager(kw, vw int) lineStager {
	if !canStream {
		return nil
	}
	return pairStager(kw, vw)
}

// pairStager is streamStager on any platform (the tests): without
// non-temporal stores, streamLine is a plain copy.
func pairStager(kw, vw int) lineStager {
	if (kw != 4 && kw != 8) || (vw != 4 && vw != 8) {
		return nil
	}
	switch {
	case kw == 4 && vw == 4:
		return stageLines[uint32, uint32]
	case kw == 4:
		return stageLines[uint32, uint64]
	case vw == 4:
		return stageLines[uint64, uint32]
	}
	return stageLines[uint64, uint64]
}

// stageLines is the lineStager for keys staged as K and values of V.
func stageLines[K, V uint32 | uint64](sk, sv, in []byte, keys func(lo, hi int, dst []uint64), a0, a1 int, next []int, sh uint, bmask, low uint64) {
	w := newPairLines(castW[K](sk), castW[V](sv), next, sh, bmask, low)
	buf := make([]uint64, chunk)
	src := castW[V](in)
	for a := a0; a < a1; a += chunk {
		b := min(a+chunk, a1)
		k := buf[:b-a]
		keys(a, b, k)
		w.put(k, src[a:b], next)
	}
	w.flush(next)
}

// aligned64 reports whether s starts on a 64-byte boundary.
func aligned64(s []byte) bool {
	return len(s) > 0 && uintptr(unsafe.Pointer(unsafe.SliceData(s)))%64 == 0
}
