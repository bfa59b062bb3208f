//go:build amd64 && !purego

package gcs

import "unsafe"

// The prefetches of SpGEMM's rows of B (prefetch_amd64.s): they load
// nothing, so a row of B that is not in cache is on its way while the
// rows before it are computed, instead of stalling its merge.

//go:noescape
func prefetchRows32(ks unsafe.Pointer, n int, pb unsafe.Pointer, npb int, bi unsafe.Pointer, bshift uint, vb unsafe.Pointer, vshift uint)

//go:noescape
func prefetchRows64(ks unsafe.Pointer, n int, pb unsafe.Pointer, npb int, bi unsafe.Pointer, bshift uint, vb unsafe.Pointer, vshift uint)

//go:noescape
func prefetchPointers32(ks unsafe.Pointer, n int, pb unsafe.Pointer)

//go:noescape
func prefetchPointers64(ks unsafe.Pointer, n int, pb unsafe.Pointer)

// canPrefetch reports whether the prefetches are instructions here.
const canPrefetch = true
