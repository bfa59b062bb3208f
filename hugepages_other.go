//go:build !linux

package arrowsparse

// mapRegion has no mappings to offer here: allocations come from the heap.
func mapRegion(int, bool) (mapping, b []byte) { return nil, nil }

// unmapRegion is never called here.
func unmapRegion([]byte) {}
