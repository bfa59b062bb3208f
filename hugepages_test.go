package arrowsparse

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

func TestHugePageAllocator(t *testing.T) {
	a := NewHugePageAllocator()
	for _, size := range []int{0, 1, 100, mapThreshold - 1, mapThreshold, mapThreshold + 4097, HugePageThreshold - 1, HugePageThreshold, HugePageThreshold + 12345, 3 * hugePage} {
		b := a.Allocate(size)
		require.Len(t, b, size)
		if size > 0 {
			require.Zero(t, uintptr(unsafe.Pointer(&b[0]))%64, "alignment of %d bytes", size)
		}
		for i, v := range b {
			if v != 0 {
				t.Fatalf("byte %d of %d not zero", i, size)
			}
		}
		for i := range b {
			b[i] = byte(i)
		}
		mapped := size >= mapThreshold && runtime.GOOS == "linux"
		require.Equal(t, mapped, a.mapping(b) != nil, "size %d", size)
		a.Free(b)
		require.Empty(t, a.maps)
		a.Close()
		require.Empty(t, a.free)
	}
}

func TestHugePageAllocatorReallocate(t *testing.T) {
	a := NewHugePageAllocator()
	b := a.Allocate(1000)
	for i := range b {
		b[i] = byte(i * 7)
	}
	for _, size := range []int{5000, HugePageThreshold + 1, HugePageThreshold + 100, 3 * HugePageThreshold, 2000, HugePageThreshold * 2} {
		keep := min(len(b), size)
		want := append([]byte(nil), b[:keep]...)
		b = a.Reallocate(size, b)
		require.Len(t, b, size)
		require.Equal(t, want, b[:keep], "after reallocating to %d", size)
		for i := keep; i < size; i++ {
			b[i] = byte(i * 7)
		}
	}
	a.Free(b)
	require.Empty(t, a.maps)
	a.Close()
	require.Empty(t, a.free)
}

// TestHugePageAllocatorBuffers: Arrow buffers from the allocator, checked,
// come back to zero bytes, from many goroutines.
func TestHugePageAllocatorBuffers(t *testing.T) {
	mem := memory.NewCheckedAllocator(NewHugePageAllocator())
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 20 {
				buf := memory.NewResizableBuffer(mem)
				buf.Resize(1 << (10 + (i+g)%14))
				buf.Bytes()[0] = 1
				buf.Resize(buf.Len() * 3)
				require.Equal(t, byte(1), buf.Bytes()[0])
				buf.Release()
			}
		})
	}
	wg.Wait()
	mem.AssertSize(t, 0)
}

// TestHugePageAllocatorHugePages: where the system offers transparent huge
// pages (always or on madvise), a large allocation is backed by them.
func TestHugePageAllocatorHugePages(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if runtime.GOOS != "linux" || err != nil || strings.Contains(string(mode), "[never]") {
		t.Logf("no transparent huge pages here (%s, %q): the allocator gives ordinary pages", runtime.GOOS, strings.TrimSpace(string(mode)))
		return
	}
	// The kernel falls back to ordinary pages when it finds no free huge
	// page at fault time: three tries.
	a := NewHugePageAllocator()
	kb := 0
	for range 3 {
		b := a.Allocate(16 << 20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		kb = max(kb, hugeKB(t, uintptr(unsafe.Pointer(&b[0]))))
		a.Free(b)
	}
	require.Greater(t, kb, 0, "the mapping has no huge pages (mode %q)", strings.TrimSpace(string(mode)))
}

// hugeKB returns the AnonHugePages of the mapping holding address p, from
// /proc/self/smaps.
func hugeKB(t *testing.T, p uintptr) int {
	f, err := os.Open("/proc/self/smaps")
	require.NoError(t, err)
	defer f.Close()
	in := false
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := s.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x", &lo, &hi); n == 2 && strings.Contains(line, " ") {
			in = lo <= p && p < hi
			continue
		}
		if in && strings.HasPrefix(line, "AnonHugePages:") {
			v, err := strconv.Atoi(strings.Fields(line)[1])
			require.NoError(t, err)
			return v
		}
	}
	t.Fatalf("no mapping holds %#x", p)
	return 0
}

// TestHugePageAllocatorReuse: a released mapping serves the next large
// allocation that fits it, zeroed; Close returns the kept ones.
func TestHugePageAllocatorReuse(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Logf("no mappings on %s", runtime.GOOS)
		return
	}
	a := NewHugePageAllocator()
	b := a.Allocate(6 << 20)
	for i := range b {
		b[i] = 0xff
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	a.Free(b)
	require.Len(t, a.free, 1)
	c := a.Allocate(5 << 20)
	require.Equal(t, p, uintptr(unsafe.Pointer(unsafe.SliceData(c))), "the kept mapping is reused")
	for i, v := range c {
		if v != 0 {
			t.Fatalf("byte %d of a reused mapping not zero", i)
		}
	}
	d := a.Allocate(20 << 20) // too large for it: a new mapping
	require.NotEqual(t, p, uintptr(unsafe.Pointer(unsafe.SliceData(d))))
	a.Free(c)
	a.Free(d)
	require.Len(t, a.free, 2)
	e := a.Allocate(HugePageThreshold) // would waste more than half of the 20 MiB one
	require.Equal(t, p, uintptr(unsafe.Pointer(unsafe.SliceData(e))))
	a.Free(e)
	a.Close()
	require.Empty(t, a.free)
	require.Zero(t, a.retained)
}

// TestHugePageAllocatorMidSize: allocations from mapThreshold up to
// HugePageThreshold are mapped with ordinary pages, reused after Free by
// the next one that fits, and never serve an allocation of huge-page size.
func TestHugePageAllocatorMidSize(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Logf("no mappings on %s", runtime.GOOS)
		return
	}
	a := NewHugePageAllocator()
	defer a.Close()
	b := a.AllocateUninitialized(4_000_004) // the pointers of a 1M-row int32 CSR
	require.Len(t, b, 4_000_004)
	m := a.mapping(b)
	require.NotNil(t, m)
	require.Equal(t, 4_001_792, len(m), "whole ordinary pages, no huge-page slack")
	b[0], b[len(b)-1] = 7, 9
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	a.Free(b)
	require.Len(t, a.free, 1)
	c := a.AllocateUninitialized(3_000_000)
	require.Equal(t, p, uintptr(unsafe.Pointer(unsafe.SliceData(c))), "the kept mapping is reused")
	require.Equal(t, byte(7), c[0], "not cleared")
	a.Free(c)
	d := a.Allocate(3_000_000)
	require.Equal(t, p, uintptr(unsafe.Pointer(unsafe.SliceData(d))))
	require.Zero(t, d[0], "Allocate clears a reused mapping")
	a.Free(d)
	e := a.Allocate(HugePageThreshold) // larger than the kept mapping: a new, huge one
	require.NotEqual(t, p, uintptr(unsafe.Pointer(unsafe.SliceData(e))))
	require.Zero(t, uintptr(unsafe.Pointer(unsafe.SliceData(e)))%hugePage, "huge-page aligned")
	a.Free(e)
	f := a.Allocate(mapThreshold - 1)
	require.Nil(t, a.mapping(f), "below mapThreshold: the Go heap")
	a.Free(f)
}

// TestHugePageAllocatorUninitialized: AllocateUninitialized reuses a kept
// mapping as it was left (no clearing pass), gives small sizes from the Go
// heap, and its memory goes back through Free like Allocate's.
func TestHugePageAllocatorUninitialized(t *testing.T) {
	var _ UninitializedAllocator = NewHugePageAllocator()
	if runtime.GOOS != "linux" {
		t.Logf("no mappings on %s", runtime.GOOS)
		return
	}
	a := NewHugePageAllocator()
	defer a.Close()
	small := a.AllocateUninitialized(1000)
	require.Len(t, small, 1000)
	a.Free(small)
	b := a.AllocateUninitialized(6 << 20)
	require.Len(t, b, 6<<20)
	for i := range b {
		b[i] = 0xff
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	a.Free(b)
	c := a.AllocateUninitialized(5 << 20)
	require.Equal(t, p, uintptr(unsafe.Pointer(unsafe.SliceData(c))), "the kept mapping is reused")
	require.Equal(t, byte(0xff), c[0], "not cleared")
	require.Equal(t, byte(0xff), c[len(c)-1], "not cleared")
	a.Free(c)
	d := a.Allocate(5 << 20) // Allocate still clears
	require.Equal(t, p, uintptr(unsafe.Pointer(unsafe.SliceData(d))))
	require.Zero(t, d[0])
	require.Zero(t, d[len(d)-1])
	a.Free(d)
}
