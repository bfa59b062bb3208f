package arrowsparse

import (
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// HugePageThreshold is the size, in bytes, from which a HugePageAllocator
// backs an allocation with transparent huge pages (NumPy's threshold).
const HugePageThreshold = 4 << 20

// HugePageAllocator is a memory.Allocator that gives allocations of at
// least HugePageThreshold bytes their own memory mapping, advised to the
// kernel for transparent huge pages (2 MiB pages on x86-64). Allocations
// from 1 MiB up to that threshold get a mapping of ordinary pages, so that
// they too are reused after Release rather than cleared and collected by
// the Go heap (the 4 MB index arrays of a 1M-entry int32 matrix, results
// of a call made in a loop), and smaller ones come from the Go heap. NumPy does the same for its arrays, so
// scipy's kernels run on huge pages by default; Go's heap does not use
// them when the system leaves huge pages to madvise, as most distributions
// do. Kernels that gather from or scatter into large arrays (SpMV's reads of
// x, radix sorts, transposes) take fewer TLB misses with them, and
// sequential streams get hardware prefetching across what would be 4 KiB
// page boundaries: SpMV on workload a runs 5 to 10% faster.
//
// Large allocations are not garbage collected: their memory comes back to
// the allocator when the buffer's reference count reaches zero (Release),
// as with Arrow C++'s allocators and arrow-go's mallocator, and is lost if
// a buffer is dropped without Release. Up to 1 GiB of released mappings is
// kept for reuse (a fresh mapping costs a page fault per huge page); the
// rest, and on Close all of it, goes back to the system. Allocate's memory
// comes zeroed; AllocateUninitialized's, which the module's kernels ask
// for, may hold what a released buffer left (see UninitializedAllocator).
// On systems other than Linux, and when a mapping cannot be made,
// allocations come from the Go heap. Safe for concurrent use.
type HugePageAllocator struct {
	heap memory.Allocator
	mu   sync.Mutex
	maps map[uintptr]hugeMapping // each large allocation, by address
	// free keeps mappings released by Free for reuse, up to
	// hugePageRetain bytes in all: a new mapping costs a page fault per
	// huge page, taken under the process's memory-map lock (results
	// allocated and dropped call after call, on several cores, ran 1.5
	// times slower than from the Go heap without this).
	free     []hugeMapping
	retained int
}

// hugeMapping is a mapping and its usable bytes (whole pages, huge or not).
type hugeMapping struct {
	whole, usable []byte
}

// hugePageRetain bounds the bytes of freed mappings a HugePageAllocator
// keeps for reuse.
const hugePageRetain = 1 << 30

// mapThreshold is the size from which a HugePageAllocator maps an
// allocation rather than taking it from the Go heap (ordinary pages below
// HugePageThreshold).
const mapThreshold = 1 << 20

// NewHugePageAllocator returns an allocator that backs large allocations
// with transparent huge pages.
func NewHugePageAllocator() *HugePageAllocator {
	return &HugePageAllocator{heap: memory.NewGoAllocator(), maps: make(map[uintptr]hugeMapping)}
}

// UninitializedAllocator is a memory.Allocator that can also return
// memory without clearing it. The module's kernels ask for memory that way
// when they write every byte of it (the indices and values of a result),
// which spares them a pass over memory that is about to be overwritten:
// NumPy's np.empty gives scipy the same. HugePageAllocator implements it;
// with any other allocator, results come from Allocate.
type UninitializedAllocator interface {
	memory.Allocator
	// AllocateUninitialized returns size bytes, aligned to 64 bytes, whose
	// content is unspecified (it may hold what earlier allocations
	// wrote). They go back through Free, as Allocate's do.
	AllocateUninitialized(size int) []byte
}

// Allocate returns size zeroed bytes, aligned to 64 bytes.
func (a *HugePageAllocator) Allocate(size int) []byte {
	return a.allocate(size, true)
}

// AllocateUninitialized returns size bytes, aligned to 64 bytes, without
// clearing a reused mapping (a fresh mapping and the Go heap give zeroed
// memory anyway).
func (a *HugePageAllocator) AllocateUninitialized(size int) []byte {
	return a.allocate(size, false)
}

// allocate is Allocate, which clears reused memory if zero.
func (a *HugePageAllocator) allocate(size int, zero bool) []byte {
	if size < mapThreshold {
		return a.heap.Allocate(size)
	}
	if b := a.reuse(size); b != nil {
		if zero {
			clear(b)
		}
		return b
	}
	m, b := mapRegion(size, size >= HugePageThreshold)
	if b == nil {
		return a.heap.Allocate(size)
	}
	a.mu.Lock()
	a.maps[uintptr(unsafe.Pointer(unsafe.SliceData(b)))] = hugeMapping{m, b[:cap(b)]}
	a.mu.Unlock()
	return b
}

// reuse returns size bytes, as they were left, from the smallest retained
// mapping that holds them without wasting more than half of it, or nil.
func (a *HugePageAllocator) reuse(size int) []byte {
	a.mu.Lock()
	best := -1
	for i, m := range a.free {
		if c := len(m.usable); c >= size && c/2 <= size && (best < 0 || c < len(a.free[best].usable)) {
			best = i
		}
	}
	if best < 0 {
		a.mu.Unlock()
		return nil
	}
	m := a.free[best]
	a.free = append(a.free[:best], a.free[best+1:]...)
	a.retained -= len(m.usable)
	a.maps[uintptr(unsafe.Pointer(unsafe.SliceData(m.usable)))] = m
	a.mu.Unlock()
	return m.usable[:size]
}

// Reallocate returns size bytes that begin with the first min(size,
// len(b)) bytes of b, which it frees when they move.
func (a *HugePageAllocator) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) && a.mapping(b) != nil {
		return b[:size]
	}
	if size < mapThreshold && a.mapping(b) == nil {
		return a.heap.Reallocate(size, b)
	}
	nb := a.Allocate(size)
	copy(nb, b)
	a.Free(b)
	return nb
}

// Free returns b, from Allocate or Reallocate, to the system (a large
// allocation) or to the garbage collector.
func (a *HugePageAllocator) Free(b []byte) {
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	a.mu.Lock()
	m, ok := a.maps[p]
	delete(a.maps, p)
	if ok && a.retained+len(m.usable) <= hugePageRetain {
		a.free = append(a.free, m)
		a.retained += len(m.usable)
		a.mu.Unlock()
		return
	}
	a.mu.Unlock()
	if ok {
		unmapRegion(m.whole)
		return
	}
	a.heap.Free(b)
}

// Close returns the mappings kept for reuse to the system. The allocator
// stays usable.
func (a *HugePageAllocator) Close() {
	a.mu.Lock()
	free := a.free
	a.free, a.retained = nil, 0
	a.mu.Unlock()
	for _, m := range free {
		unmapRegion(m.whole)
	}
}

// mapping returns the mapping of a large allocation b, or nil.
func (a *HugePageAllocator) mapping(b []byte) []byte {
	if cap(b) == 0 {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.maps[uintptr(unsafe.Pointer(unsafe.SliceData(b)))].whole
}
