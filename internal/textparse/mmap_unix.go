//go:build unix

package textparse

import (
	"os"
	"syscall"
)

// mapFile maps size bytes of f read-only. unmap releases the mapping.
func mapFileOS(f *os.File, size int64) (data []byte, unmap func() error, err error) {
	if size <= 0 || int64(int(size)) != size {
		return nil, nil, syscall.EINVAL
	}
	data, err = syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return data, func() error { return syscall.Munmap(data) }, nil
}

// dropPages tells the kernel that this process is done with the whole
// pages of data[lo:hi] (a parsed chunk of a mapped file), so that they
// leave its resident set; they stay in the page cache.
func dropPages(data []byte, lo, hi int64) {
	page := int64(syscall.Getpagesize())
	lo = (lo + page - 1) / page * page
	hi = hi / page * page
	if hi > lo {
		_ = syscall.Madvise(data[lo:hi], syscall.MADV_DONTNEED)
	}
}
