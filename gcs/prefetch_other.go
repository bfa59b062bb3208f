//go:build !amd64 || purego

package gcs

import "unsafe"

// canPrefetch reports whether the prefetches are instructions here: not on
// this platform, where they do nothing.
const canPrefetch = false

func prefetchRows32(ks unsafe.Pointer, n int, pb unsafe.Pointer, npb int, bi unsafe.Pointer, bshift uint, vb unsafe.Pointer, vshift uint) {
}

func prefetchRows64(ks unsafe.Pointer, n int, pb unsafe.Pointer, npb int, bi unsafe.Pointer, bshift uint, vb unsafe.Pointer, vshift uint) {
}

func prefetchPointers32(ks unsafe.Pointer, n int, pb unsafe.Pointer) {}

func prefetchPointers64(ks unsafe.Pointer, n int, pb unsafe.Pointer) {}
