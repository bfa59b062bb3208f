//go:build amd64 && !purego

package keysort

import "unsafe"

// streamLine copies the 64 bytes at src to dst, which must be 16-byte
// aligned, with non-temporal stores (stream_amd64.s): the line goes to
// memory without first being read into the cache.
//
//go:noescape
func streamLine(dst, src unsafe.Pointer)

// streamFence orders the non-temporal stores before every later store.
func streamFence()

// canStream reports whether streamLine is a non-temporal store here.
const canStream = true
