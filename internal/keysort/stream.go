package keysort

import (
	"sync/atomic"
	"unsafe"
)

// lineScatter scatters elements into buckets through one cache line per
// bucket (software write-combining): an element goes to its bucket's line
// buffer, and a line buffer that completes a whole, aligned line of the
// destination inside this worker's range of the bucket goes to memory at
// once, with non-temporal stores where the platform has them
// (streamLine). The lines at the ends of a range, which it may share with
// another worker or bucket, are written element by element. A direct
// scatter into hundreds of buckets reads every destination line from
// memory before its first store (more streams than the prefetchers
// follow); these stores read nothing.
type lineScatter[T uint32 | uint64] struct {
	dst   []T
	lines []T   // bucket b's line buffer is lines[b·L : (b+1)·L]
	lo    []int // this worker's range of bucket b starts at lo[b]
}

// streamMinBuckets and streamMaxBuckets bound the number of buckets for
// which Transpose scatters through lineScatter: with fewer, the direct
// scatter's streams are few enough for the prefetchers; with more, the
// line buffers (64 bytes a bucket per array) no longer fit in the L1 cache
// and the gain is gone. (A scatter of 10M 8-byte values alone, one core:
// 40 % faster into 512 buckets, no faster into 2048.)
const (
	streamMinBuckets = 64
	streamMaxBuckets = 1024
)

// streamMinBytes is the size of the staged keys and values below which
// Transpose scatters directly: staging that the caches can hold is read
// back from them in phase 3, and non-temporal stores would send it to
// memory instead. (BenchmarkTransposeScatter at 2.5M entries, 40 MB
// staged: up to 18 % slower through line buffers; at 10M, 160 MB: 6–18 %
// faster.) A variable, so that the tests can lower it.
var streamMinBytes = 64 << 20

// noStream turns lineScatter off, for the benchmarks that compare it with
// the direct scatter.
var noStream bool

// streamedRuns counts the Transpose runs that scattered through
// lineScatter, for the tests.
var streamedRuns atomic.Int64

// lineLen returns the number of elements of T in a 64-byte line.
func lineLen[T uint32 | uint64]() int {
	var t T
	return 64 / int(unsafe.Sizeof(t))
}

// newLineScatter prepares a scatter into dst, whose start must be 64-byte
// aligned (aligned64), by a worker whose range of bucket b starts at
// next[b].
func newLineScatter[T uint32 | uint64](dst []T, next []int) *lineScatter[T] {
	return &lineScatter[T]{dst: dst, lines: make([]T, len(next)*lineLen[T]()), lo: append([]int(nil), next...)}
}

// lineScatterPut writes T(src[j]&mask) to dst[pos[j]], pos[j] being the
// next position of bucket bk[j] in this worker's range.
func lineScatterPut[S, T uint32 | uint64](w *lineScatter[T], src []S, mask S, pos []int, bk []int32) {
	L := lineLen[T]()
	m := L - 1
	dst, lines, lo := w.dst, w.lines, w.lo
	src = src[:len(pos)]
	bk = bk[:len(pos)]
	for j, p := range pos {
		b := int(bk[j])
		l := lines[b*L : b*L+L]
		l[p&m] = T(src[j] & mask)
		if p&m != m {
			continue
		}
		if q := p - m; q >= lo[b] {
			_ = dst[q : q+L]
			streamLine(unsafe.Pointer(&dst[q]), unsafe.Pointer(&l[0]))
		} else {
			for k := lo[b]; k <= p; k++ {
				dst[k] = l[k&m]
			}
		}
	}
}

// flush writes what the line buffers still hold, next[b] being the end of
// this worker's range of bucket b, and orders the non-temporal stores
// before whatever follows.
func (w *lineScatter[T]) flush(next []int) {
	streamFence()
	m := lineLen[T]() - 1
	for b, p := range next {
		l := w.lines[b*(m+1) : (b+1)*(m+1)]
		for k := max(p&^m, w.lo[b]); k < p; k++ {
			w.dst[k] = l[k&m]
		}
	}
}

// aligned64 reports whether s starts on a 64-byte boundary.
func aligned64(s []byte) bool {
	return len(s) > 0 && uintptr(unsafe.Pointer(unsafe.SliceData(s)))%64 == 0
}
