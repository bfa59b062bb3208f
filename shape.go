package arrowsparse

import (
	"math"
	"math/bits"
	"slices"
)

// NumElements returns the product of the dimensions: the number of elements
// of a dense tensor of this shape (1 for a 0-d tensor). It returns an error
// wrapping ErrShape if a dimension is negative, or ErrOverflow if the product
// does not fit in int64.
func NumElements(shape []int64) (int64, error) {
	if err := checkShape(shape); err != nil {
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
		if n, ok = mulInt64(n, d); !ok {
			return 0, errorf(ErrOverflow, "shape %v has more than 2^63-1 elements", shape)
		}
	}
	return n, nil
}

// RowMajorStrides returns the row-major (C order) strides of shape, counted
// in elements: the last dimension has stride 1. For a shape with a zero-size
// dimension the strides are still the products of the following dimensions
// (as NumPy's), except that, since such a tensor addresses no element, a
// product that would overflow int64 stops growing there. Otherwise it returns
// an error wrapping ErrOverflow if a stride overflows int64.
func RowMajorStrides(shape []int64) ([]int64, error) {
	if err := checkShape(shape); err != nil {
		return nil, err
	}
	empty := slices.Contains(shape, 0)
	st := make([]int64, len(shape))
	s := int64(1)
	for i := len(shape) - 1; i >= 0; i-- {
		st[i] = s
		if shape[i] > 0 {
			p, ok := mulInt64(s, shape[i])
			switch {
			case ok:
				s = p
			case empty:
				// No element is ever addressed: the strides of the outer
				// dimensions stay at the last one that fits.
			case i > 0:
				return nil, errorf(ErrOverflow, "row-major strides of shape %v overflow int64", shape)
			}
		}
	}
	return st, nil
}

// mulInt64 returns a*b and whether it fits in int64; a and b are ≥ 0.
func mulInt64(a, b int64) (int64, bool) {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	return int64(lo), true
}

// checkShape returns an error wrapping ErrShape if a dimension is negative.
func checkShape(shape []int64) error {
	for i, d := range shape {
		if d < 0 {
			return errorf(ErrShape, "dimension %d has negative size %d", i, d)
		}
	}
	return nil
}
