//go:build unix

package ipc

import (
	"os"
	"syscall"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// mapFile maps size bytes of the open file f read-only. The returned buffer
// unmaps them when its reference count reaches zero. The caller falls back
// to reading f when mapping fails.
func mapFile(f *os.File, size int64) (*memory.Buffer, error) {
	if int64(int(size)) != size {
		return nil, syscall.EFBIG
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	return memory.NewBufferWithAllocator(data, unmapper{}), nil
}

// unmapper is the "allocator" of a mapped file's buffer: freeing unmaps.
type unmapper struct{}

func (unmapper) Allocate(int) []byte           { panic("ipc: unmapper cannot allocate") }
func (unmapper) Reallocate(int, []byte) []byte { panic("ipc: unmapper cannot allocate") }
func (unmapper) Free(b []byte)                 { _ = syscall.Munmap(b) }
