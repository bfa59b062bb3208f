package arrowsparse

import (
	"math"
	"math/bits"
)

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

// CheckShape returns an error wrapping ErrShape if any dimension is negative.
// It does not require the element count to fit in int64: a sparse tensor may
// have a shape whose dense size overflows (see NumElements).
func CheckShape(shape []int64) error {
	for i, d := range shape {
		if d < 0 {
			return Errorf(ErrShape, "dimension %d has negative size %d", i, d)
		}
	}
	return nil
}

// NumElements returns the product of the dimensions: the number of elements
// of a dense tensor of this shape (1 for a 0-d tensor). It returns an error
// wrapping ErrShape if a dimension is negative, or ErrOverflow if the product
// does not fit in int64.
func NumElements(shape []int64) (int64, error) {
	if err := CheckShape(shape); err != nil {
		return 0, err
	}
	n := int64(1)
	zero := false
	for _, d := range shape {
		if d == 0 {
			zero = true
		}
	}
	if zero {
		return 0, nil
	}
	for _, d := range shape {
		var ok bool
		if n, ok = MulInt64(n, d); !ok {
			return 0, Errorf(ErrOverflow, "shape %v has more than 2^63-1 elements", shape)
		}
	}
	return n, nil
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

// RowMajorStrides returns the row-major (C order) strides of shape, counted
// in elements: the last dimension has stride 1. For a shape with a zero-size
// dimension the strides are still the products of the following dimensions.
// It returns an error wrapping ErrOverflow if a stride overflows int64.
func RowMajorStrides(shape []int64) ([]int64, error) {
	if err := CheckShape(shape); err != nil {
		return nil, err
	}
	st := make([]int64, len(shape))
	s := int64(1)
	for i := len(shape) - 1; i >= 0; i-- {
		st[i] = s
		if shape[i] > 0 {
			var ok bool
			if s, ok = MulInt64(s, shape[i]); !ok && i > 0 {
				return nil, Errorf(ErrOverflow, "row-major strides of shape %v overflow int64", shape)
			}
		}
	}
	return st, nil
}

// CheckDimNames returns an error wrapping ErrShape unless names is empty or
// has one name per dimension.
func CheckDimNames(names []string, ndim int) error {
	if len(names) != 0 && len(names) != ndim {
		return Errorf(ErrShape, "%d dim names for %d dimensions", len(names), ndim)
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

// CheckPermutation returns an error wrapping ErrStructure unless perm is a
// permutation of 0..n-1. what names the parameter in the message.
func CheckPermutation(perm []int, n int, what string) error {
	if len(perm) != n {
		return Errorf(ErrStructure, "%s has %d entries, want %d", what, len(perm), n)
	}
	var seen [64]bool
	var seenBig []bool
	if n > len(seen) {
		seenBig = make([]bool, n)
	}
	for i, p := range perm {
		if p < 0 || p >= n {
			return Errorf(ErrStructure, "%s %v is not a permutation of 0..%d: entry %d is %d", what, perm, n-1, i, p)
		}
		var s *bool
		if seenBig != nil {
			s = &seenBig[p]
		} else {
			s = &seen[p]
		}
		if *s {
			return Errorf(ErrStructure, "%s %v is not a permutation of 0..%d: %d appears twice", what, perm, n-1, p)
		}
		*s = true
	}
	return nil
}
