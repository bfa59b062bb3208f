//go:build unix && !linux

package textparse

// dropPages does nothing on the Unix systems whose syscall package has no
// madvise (macOS, the BSDs): the parsed pages of a mapped file stay
// resident until the mapping is released, as they are on the systems
// without mappings.
func dropPages([]byte, int64, int64) {}
