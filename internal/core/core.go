// Package core holds the plumbing every package of the module shares:
// argument checks that return the root package's error categories,
// overflow-checked integer arithmetic, and unsafe conversions between
// buffers, bytes and typed slices. Users never see it; the root package
// arrowsparse keeps only the vocabulary.
package core

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
)

// Errorf formats an error of the given category (one of the sentinels of the
// root package). The format may use %w to wrap causes as well; the result
// unwraps to the category and to every wrapped cause.
func Errorf(kind error, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &arrowsparse.Error{Kind: kind, Msg: err.Error(), Err: unwrapAll(err)}
}

// unwrapAll returns the error(s) a fmt.Errorf result wraps, or nil.
func unwrapAll(err error) error {
	if u, ok := err.(interface{ Unwrap() []error }); ok {
		return errors.Join(u.Unwrap()...)
	}
	return errors.Unwrap(err)
}

func typeName(dt arrow.DataType) string {
	if dt == nil {
		return "<nil>"
	}
	return dt.String()
}

// CheckValueType returns nil if dt is a tensor value type, and an error
// wrapping arrowsparse.ErrUnsupportedType otherwise.
func CheckValueType(dt arrow.DataType) error {
	if arrowsparse.IsValueType(dt) {
		return nil
	}
	return Errorf(arrowsparse.ErrUnsupportedType, "%s is not a tensor value type (want int8…int64, uint8…uint64, float16, float32 or float64)", typeName(dt))
}

// CheckIndexType returns nil if dt is a sparse index type, and an error
// wrapping arrowsparse.ErrUnsupportedType otherwise. uint64 is rejected as Arrow C++ does.
func CheckIndexType(dt arrow.DataType) error {
	if arrowsparse.IsIndexType(dt) {
		return nil
	}
	if dt != nil && dt.ID() == arrow.UINT64 {
		return Errorf(arrowsparse.ErrUnsupportedType, "uint64 cannot be a sparse index type (Arrow C++ rejects it); use int64")
	}
	return Errorf(arrowsparse.ErrUnsupportedType, "%s is not a sparse index type (want int8…int64 or uint8…uint32)", typeName(dt))
}

// CheckIndexFits returns an error wrapping arrowsparse.ErrUnsupportedType unless every
// value in 0..max fits the index type dt. what names the quantity for the
// message ("nnz", "rows+1", …).
func CheckIndexFits(dt arrow.DataType, max int64, what string) error {
	if err := CheckIndexType(dt); err != nil {
		return err
	}
	if max > arrowsparse.IndexMax(dt) {
		return Errorf(arrowsparse.ErrUnsupportedType, "index type %s is too narrow for %s = %d (max %d)", dt, what, max, arrowsparse.IndexMax(dt))
	}
	return nil
}

// MustSlice is arrowsparse.AsSlice for buffers whose size and alignment the caller has
// already checked; it panics if they are wrong.
func MustSlice[T arrowsparse.Value](buf *memory.Buffer, n int64) []T {
	s, err := arrowsparse.AsSlice[T](buf, n)
	if err != nil {
		panic(arrowsparse.PanicError{Msg: "arrowsparse: " + err.Error()})
	}
	return s
}

// BytesOf returns the bytes of s, aliasing its memory.
func BytesOf[T arrowsparse.Value](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}

// Aligned reports whether the buffer's address is a multiple of w.
func Aligned(buf *memory.Buffer, w int) bool {
	if buf == nil || buf.Len() == 0 || w <= 1 {
		return true
	}
	return uintptr(unsafe.Pointer(unsafe.SliceData(buf.Bytes())))%uintptr(w) == 0
}

// MustSliceBytes returns b as a []T aliasing it; len(b) must be a multiple
// of T's size and b must be aligned for T, or it panics.
func MustSliceBytes[T arrowsparse.Value](b []byte) []T {
	var z T
	w := int(unsafe.Sizeof(z))
	if len(b) == 0 {
		return nil
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	if len(b)%w != 0 || uintptr(p)%uintptr(w) != 0 {
		panic(arrowsparse.PanicError{Msg: "arrowsparse: byte slice is not a whole number of aligned elements"})
	}
	return unsafe.Slice((*T)(p), len(b)/w)
}

// CheckBuffer returns nil if buf holds at least n elements of type dt
// (buffers may be longer) at an address aligned for dt. Otherwise it returns
// an error wrapping arrowsparse.ErrOverflow, arrowsparse.ErrBufferSize or arrowsparse.ErrAlignment whose message
// starts with what, such as "coo: value" or "csf: level 1 indices". A nil
// buffer holds zero bytes.
func CheckBuffer(buf *memory.Buffer, n int64, dt arrow.DataType, what string) error {
	w := int64(arrowsparse.ByteWidth(dt))
	need, ok := MulInt64(n, w)
	if !ok {
		return Errorf(arrowsparse.ErrOverflow, "%s buffer: %d elements of %d bytes overflow int64", what, n, w)
	}
	have := int64(0)
	if buf != nil {
		have = int64(buf.Len())
	}
	if have < need {
		return Errorf(arrowsparse.ErrBufferSize, "%s buffer has %d bytes, need %d (%d × %s)", what, have, need, n, dt)
	}
	if need > 0 && !Aligned(buf, int(w)) {
		return Errorf(arrowsparse.ErrAlignment, "%s buffer address is not a multiple of %d", what, w)
	}
	return nil
}

// MulInt64 returns a*b and whether the product fits in int64 without
// overflow. Both operands may be negative.
func MulInt64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	c := a * b
	if c/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return c, true
}

// AddInt64 returns a+b and whether the sum fits in int64.
func AddInt64(a, b int64) (int64, bool) {
	c := a + b
	if (c > a) != (b > 0) {
		return 0, false
	}
	return c, true
}

// CheckShape returns an error wrapping arrowsparse.ErrShape if any dimension is negative.
// It does not require the element count to fit in int64: a sparse tensor may
// have a shape whose dense size overflows (see NumElements).
func CheckShape(shape []int64) error {
	for i, d := range shape {
		if d < 0 {
			return Errorf(arrowsparse.ErrShape, "dimension %d has negative size %d", i, d)
		}
	}
	return nil
}

// SizeUint64 returns the product of the dimensions as a uint64 and whether it
// fits. Sparse kernels use it to decide whether coordinates can be linearised
// into one 64-bit key. The shape must already be checked with CheckShape.
func SizeUint64(shape []int64) (uint64, bool) {
	n := uint64(1)
	for _, d := range shape {
		if d == 0 {
			return 0, true
		}
	}
	for _, d := range shape {
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 {
			return 0, false
		}
		n = lo
	}
	return n, true
}

// CheckDimNames returns an error wrapping arrowsparse.ErrShape unless names is empty or
// has one name per dimension.
func CheckDimNames(names []string, ndim int) error {
	if len(names) != 0 && len(names) != ndim {
		return Errorf(arrowsparse.ErrShape, "%d dim names for %d dimensions", len(names), ndim)
	}
	return nil
}

// CloneDimNames returns a copy of names, or nil if names is empty or holds
// only empty strings (Arrow C++ writes "" for every unnamed dimension).
func CloneDimNames(names []string) []string {
	for _, n := range names {
		if n != "" {
			return append([]string(nil), names...)
		}
	}
	return nil
}

// CheckPermutation returns an error wrapping arrowsparse.ErrStructure unless perm is a
// permutation of 0..n-1. what names the parameter in the message.
func CheckPermutation(perm []int, n int, what string) error {
	if len(perm) != n {
		return Errorf(arrowsparse.ErrStructure, "%s has %d entries, want %d", what, len(perm), n)
	}
	var seen [64]bool
	var seenBig []bool
	if n > len(seen) {
		seenBig = make([]bool, n)
	}
	for i, p := range perm {
		if p < 0 || p >= n {
			return Errorf(arrowsparse.ErrStructure, "%s %v is not a permutation of 0..%d: entry %d is %d", what, perm, n-1, i, p)
		}
		var s *bool
		if seenBig != nil {
			s = &seenBig[p]
		} else {
			s = &seen[p]
		}
		if *s {
			return Errorf(arrowsparse.ErrStructure, "%s %v is not a permutation of 0..%d: %d appears twice", what, perm, n-1, p)
		}
		*s = true
	}
	return nil
}

// MaxBufferBytes is the size of the largest buffer the module allocates:
// 2^46 bytes (64 TiB), below the Go runtime's limit on one allocation (2^48
// on 64-bit platforms), past which make panics instead of failing, and far
// beyond any machine's memory. Functions that size an output from a shape
// check against it and return an error instead.
const MaxBufferBytes = 1 << 46

// NewBuffer returns a buffer of n bytes from mem whose content the caller
// overwrites, every byte of it: when mem is an
// arrowsparse.UninitializedAllocator, the bytes come uncleared. n must be
// at most MaxBufferBytes. The buffer must be released by the caller.
func NewBuffer(mem memory.Allocator, n int64) *memory.Buffer {
	if u, ok := mem.(arrowsparse.UninitializedAllocator); ok && n > 0 {
		// Whole 64-byte blocks, as a resizable buffer reserves them, so
		// that Free gets back the length Allocate gave.
		b := memory.NewBufferWithAllocator(u.AllocateUninitialized(int((n+63)&^63)), mem)
		b.ResizeNoShrink(int(n))
		return b
	}
	b := memory.NewResizableBuffer(mem)
	b.Resize(int(n))
	return b
}

// NewZeroedBuffer returns NewBuffer(mem, n) with every byte cleared.
func NewZeroedBuffer(mem memory.Allocator, n int64) *memory.Buffer {
	b := NewBuffer(mem, n)
	clear(b.Bytes())
	return b
}

// ExactBuffer returns buf cut to exactly n bytes, as constructors store the
// buffers they adopt: the rule that trailing bytes are allowed on input
// (IPC pads buffers) but never seen by later code. The result is buf
// itself, retained, when it has exactly n bytes; a slice of it that retains
// it when it is longer; and an empty buffer without memory when n is 0.
// buf must hold at least n bytes (CheckBuffer). The caller releases the
// result.
func ExactBuffer(buf *memory.Buffer, n int64) *memory.Buffer {
	if n == 0 {
		return memory.NewBufferBytes(nil)
	}
	if int64(buf.Len()) == n {
		buf.Retain()
		return buf
	}
	return memory.SliceBuffer(buf, 0, int(n))
}

// AdoptExact replaces *buf, a reference the caller owns, with
// ExactBuffer(*buf, n), releasing the original reference.
func AdoptExact(buf **memory.Buffer, n int64) {
	e := ExactBuffer(*buf, n)
	if *buf != nil {
		(*buf).Release()
	}
	*buf = e
}

// ChunkEntries returns how many entries of ndim coordinates a kernel
// stages at a time: up to 1024, fewer for high ranks so that a stage holds
// at most 64Ki coordinates, at least 1, and never more than the n entries
// there are. Stages sized by it are bounded by the data, not by the rank.
func ChunkEntries(ndim int, n int64) int64 {
	c := int64(1024)
	if ndim > 64 {
		c = max(1, (1<<16)/int64(ndim))
	}
	return max(1, min(c, n))
}
