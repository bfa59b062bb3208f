//go:build !amd64 || purego

package keysort

import "unsafe"

// canStream reports whether streamLine is a non-temporal store here: not
// on this platform, where the scatter writes its elements directly.
const canStream = false

// streamLine copies the 64 bytes at src to dst.
func streamLine(dst, src unsafe.Pointer) {
	*(*[64]byte)(dst) = *(*[64]byte)(src)
}

// streamFence does nothing: there are no non-temporal stores to order.
func streamFence() {}
