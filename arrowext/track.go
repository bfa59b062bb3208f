package arrowext

import (
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// readAllocator is the allocator a reader hands to arrow-go: it forwards to
// the caller's and remembers what is outstanding, so that when a read
// fails, whatever arrow-go allocated and dropped on its error path (it
// does not release the body of a message it failed to decode, and a panic
// it raises releases nothing) goes back to the caller's allocator. Nothing
// of a failed read reaches the caller, so all of it is garbage by then.
// The buffers of a table read without error keep using it: each Free
// forwards and forgets.
type readAllocator struct {
	mem  memory.Allocator
	mu   sync.Mutex
	live map[*byte][]byte
}

func newReadAllocator(mem memory.Allocator) *readAllocator {
	return &readAllocator{mem: mem, live: make(map[*byte][]byte)}
}

// Allocate implements memory.Allocator.
func (a *readAllocator) Allocate(size int) []byte {
	b := a.mem.Allocate(size)
	a.remember(b)
	return b
}

// Reallocate implements memory.Allocator.
func (a *readAllocator) Reallocate(size int, b []byte) []byte {
	a.forget(b)
	b = a.mem.Reallocate(size, b)
	a.remember(b)
	return b
}

// Free implements memory.Allocator.
func (a *readAllocator) Free(b []byte) {
	a.forget(b)
	a.mem.Free(b)
}

func (a *readAllocator) remember(b []byte) {
	if p := unsafe.SliceData(b); p != nil {
		a.mu.Lock()
		a.live[p] = b
		a.mu.Unlock()
	}
}

func (a *readAllocator) forget(b []byte) {
	if p := unsafe.SliceData(b); p != nil {
		a.mu.Lock()
		delete(a.live, p)
		a.mu.Unlock()
	}
}

// releaseAll frees every allocation still outstanding. Call it only when
// nothing allocated through a is reachable any more (a failed read).
func (a *readAllocator) releaseAll() {
	a.mu.Lock()
	live := a.live
	a.live = make(map[*byte][]byte)
	a.mu.Unlock()
	for _, b := range live {
		a.mem.Free(b)
	}
}
