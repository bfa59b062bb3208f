package textparse

import "syscall"

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
