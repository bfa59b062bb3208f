//go:build unix

package ipc

import (
	"os"
	"syscall"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// mapFile maps the whole file read-only. The returned buffer unmaps it when
// its reference count reaches zero.
func mapFile(path string) (*memory.Buffer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	if size == 0 {
		return memory.NewBufferBytes(nil), nil
	}
	if int64(int(size)) != size {
		return nil, core.Errorf(arrowsparse.ErrBufferSize, "ipc: %s is too large to map (%d bytes)", path, size)
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
