package compute

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/float16"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// op is an element-wise binary operation.
type op int8

const (
	opAdd op = iota
	opSub
	opMul
	opMin
	opMax
)

var opNames = [...]string{"Add", "Subtract", "Multiply", "Minimum", "Maximum"}

func (p op) String() string { return opNames[p] }

// union reports whether the result is stored where either operand is (the
// result of the operation with an implicit zero may be non-zero), and not
// only where both are.
func (p op) union() bool { return p != opMul }

// both is the result where both operands store a value. Integer
// arithmetic wraps as Go's does; min and max propagate NaN, as NumPy's
// minimum and maximum do.
func both[T arrowsparse.Number](p op, a, b T) T {
	switch p {
	case opAdd:
		return a + b
	case opSub:
		return a - b
	case opMul:
		return a * b
	case opMin:
		return min(a, b)
	}
	return max(a, b)
}

// left is the result where only the first operand stores a value.
func left[T arrowsparse.Number](p op, a T) T {
	switch p {
	case opMin:
		return min(a, 0)
	case opMax:
		return max(a, 0)
	}
	return a // add, sub (mul never asks)
}

// right is the result where only the second operand stores a value.
func right[T arrowsparse.Number](p op, b T) T {
	switch p {
	case opSub:
		return -b
	case opMin:
		return min(0, b)
	case opMax:
		return max(0, b)
	}
	return b
}

// zeroMask returns keep[i] = (value i of b, of type dt, is not zero).
// Negative zero is zero; NaN is not.
func nonzeroMask(dt arrow.DataType, b []byte, keep []bool) int64 {
	switch dt.ID() {
	case arrow.INT8, arrow.UINT8:
		return maskOf(core.MustSliceBytes[uint8](b), keep, 0xff)
	case arrow.INT16, arrow.UINT16:
		return maskOf(core.MustSliceBytes[uint16](b), keep, 0xffff)
	case arrow.FLOAT16:
		return maskOf(core.MustSliceBytes[uint16](b), keep, 0x7fff)
	case arrow.INT32, arrow.UINT32:
		return maskOf(core.MustSliceBytes[uint32](b), keep, 0xffffffff)
	case arrow.FLOAT32:
		return maskOf(core.MustSliceBytes[uint32](b), keep, 0x7fffffff)
	case arrow.INT64, arrow.UINT64:
		return maskOf(core.MustSliceBytes[uint64](b), keep, 0xffffffffffffffff)
	}
	return maskOf(core.MustSliceBytes[uint64](b), keep, 0x7fffffffffffffff)
}

// maskOf sets keep[i] when s[i]&m is not zero and returns how many it set.
func maskOf[E uint8 | uint16 | uint32 | uint64](s []E, keep []bool, m E) int64 {
	n := int64(0)
	keep = keep[:len(s)]
	for i, x := range s {
		k := x&m != 0
		keep[i] = k
		if k {
			n++
		}
	}
	return n
}

// halfToSingle converts float16 values to float32.
func halfToSingle(dst []float32, src []float16.Num) {
	dst = dst[:len(src)]
	for i, h := range src {
		dst[i] = arrowsparse.HalfToFloat32(h)
	}
}

// singleToHalf rounds float32 values to float16, to nearest, ties to even.
func singleToHalf(dst []float16.Num, src []float32) {
	dst = dst[:len(src)]
	for i, f := range src {
		dst[i] = arrowsparse.Float32ToHalf(f)
	}
}
