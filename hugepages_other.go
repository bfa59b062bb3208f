//go:build !linux

package arrowsparse

// mapHuge has no mappings to offer here: allocations come from the heap.
func mapHuge(int) (mapping, b []byte) { return nil, nil }

// unmapHuge is never called here.
func unmapHuge([]byte) {}
