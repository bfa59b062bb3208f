package arrowsparse

import (
	"syscall"
	"unsafe"
)

// hugePage is the size of an x86-64 (and arm64 with 4 KiB base pages)
// transparent huge page.
const hugePage = 2 << 20

// mapHuge maps an anonymous private region of at least size bytes whose
// usable part starts on a huge-page boundary, and advises huge pages for
// it. It returns the whole mapping and the usable bytes (capacity rounded
// up to whole huge pages), or nils.
func mapHuge(size int) (mapping, b []byte) {
	if size <= 0 || size > 1<<62 {
		return nil, nil
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

// unmapHuge returns a mapping from mapHuge to the system.
func unmapHuge(m []byte) { _ = syscall.Munmap(m) }
