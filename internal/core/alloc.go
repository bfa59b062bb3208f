package core

import (
	"runtime/debug"
	"sync"

	"github.com/arrowsparse/arrowsparse"
)

// CheckAlloc returns an error wrapping arrowsparse.ErrOverflow if an output
// of n bytes cannot be allocated at all: more than MaxBufferBytes, more
// than the machine's physical memory, or more than the Go memory limit
// (debug.SetMemoryLimit) when one is set. Functions whose output size comes
// from the data (a dense copy of a shape, the non-zeros of a broadcast view,
// the index pointers of a hypersparse shape) call it before allocating, so
// that an impossible request is an error instead of a crash. what names the
// output in the message.
func CheckAlloc(n int64, what string) error {
	if n < 0 || n > MaxBufferBytes {
		return Errorf(arrowsparse.ErrOverflow, "%s would take %d bytes, more than any machine holds", what, n)
	}
	if lim := allocLimit(); n > lim {
		return Errorf(arrowsparse.ErrOverflow, "%s would take %d bytes, more than the %d bytes of memory available to the process", what, n, lim)
	}
	return nil
}

var (
	ramOnce sync.Once
	ram     int64
)

// allocLimit returns the smaller of the physical memory and the Go memory
// limit.
func allocLimit() int64 {
	ramOnce.Do(func() { ram = physicalMemory() })
	lim := debug.SetMemoryLimit(-1)
	if ram > 0 && ram < lim {
		lim = ram
	}
	return lim
}
