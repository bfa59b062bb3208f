package arrowsparse

import (
	"syscall"
	"unsafe"
)

// hugePage is the size of an x86-64 (and arm64 with 4 KiB base pages)
// transparent huge page.
const hugePage = 2 << 20

// basePage is the size of an ordinary page (a multiple of it on systems
// with larger pages, which mmap rounds up to).
const basePage = 4 << 10

// mapRegion maps an anonymous private region of at least size bytes. With
// huge, its usable part starts on a huge-page boundary and is advised for
// huge pages, and its capacity is rounded up to whole huge pages; without,
// it is rounded up to whole ordinary pages. It returns the whole mapping
// and the usable bytes, or nils.
func mapRegion(size int, huge bool) (mapping, b []byte) {
	if size <= 0 || uint64(size) > 1<<62 {
		return nil, nil
	}
	if !huge {
		n := (size + basePage - 1) &^ (basePage - 1)
		m, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
		if err != nil {
			return nil, nil
		}
		return m, m[:size:n]
	}
	n := (size + hugePage - 1) &^ (hugePage - 1)
	m, err := syscall.Mmap(-1, 0, n+hugePage, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, nil
	}
	off := int(-uintptr(unsafe.Pointer(unsafe.SliceData(m))) & (hugePage - 1))
	b = m[off : off+n : off+n]
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE) // advice: without it, ordinary pages
	return m, b[:size]
}

// unmapRegion returns a mapping from mapRegion to the system.
func unmapRegion(m []byte) { _ = syscall.Munmap(m) }
