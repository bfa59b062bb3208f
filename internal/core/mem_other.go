//go:build !linux

package core

// physicalMemory returns 0: unknown on this platform, so only
// MaxBufferBytes and the Go memory limit bound allocations.
func physicalMemory() int64 { return 0 }
