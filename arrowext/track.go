package arrowext

import (
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// trackingAllocator is the allocator a reader or an IPC writer hands to
// arrow-go: it forwards to the caller's and remembers what is outstanding,
// so that when a read or a write fails, whatever arrow-go allocated and
// dropped on its error path (its IPC reader does not release the body of a
// message it failed to decode, and a panic it raises, reading or
// encoding, releases nothing) goes back to the caller's allocator. Nothing
// allocated through it during a failed read or write reaches the caller,
// so all of it is garbage by then. The buffers of a table read without
// error keep using it: each Free forwards and forgets.
type trackingAllocator struct {
	mem  memory.Allocator
	mu   sync.Mutex
	live map[*byte][]byte
}

func newTrackingAllocator(mem memory.Allocator) *trackingAllocator {
	return &trackingAllocator{mem: mem, live: make(map[*byte][]byte)}
}

// Allocate implements memory.Allocator.
func (a *trackingAllocator) Allocate(size int) []byte {
	b := a.mem.Allocate(size)
	a.remember(b)
	return b
}

// Reallocate implements memory.Allocator.
func (a *trackingAllocator) Reallocate(size int, b []byte) []byte {
	a.forget(b)
	b = a.mem.Reallocate(size, b)
	a.remember(b)
	return b
}

// Free implements memory.Allocator.
func (a *trackingAllocator) Free(b []byte) {
	a.forget(b)
	a.mem.Free(b)
}

func (a *trackingAllocator) remember(b []byte) {
	if p := unsafe.SliceData(b); p != nil {
		a.mu.Lock()
		a.live[p] = b
		a.mu.Unlock()
	}
}

func (a *trackingAllocator) forget(b []byte) {
	if p := unsafe.SliceData(b); p != nil {
		a.mu.Lock()
		delete(a.live, p)
		a.mu.Unlock()
	}
}

// releaseAll frees every allocation still outstanding. Call it only when
// nothing allocated through a is reachable any more (a failed read or
// write).
func (a *trackingAllocator) releaseAll() {
	a.mu.Lock()
	live := a.live
	a.live = make(map[*byte][]byte)
	a.mu.Unlock()
	for _, b := range live {
		a.mem.Free(b)
	}
}
