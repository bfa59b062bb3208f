package coords

import (
	"math/bits"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/divide"
)

// Linearization describes the sort keys of coordinate tuples when the axes
// are taken in a given order, the first most significant. The order is cut
// into parts, runs of consecutive axes whose mixed-radix numbers fit in 64
// bits, and a key has one word per part: word q is Σ coord[k]·Strides[q][k]
// over the axes of part q. Compared word by word, keys order entries as
// their coordinate tuples in axis order, and equal keys are equal tuples.
// A shape with at most 2^64 elements has one part, the usual linear index.
type Linearization struct {
	// Axes is the axis order.
	Axes []int
	// Bounds cuts Axes into parts: part q is Axes[Bounds[q]:Bounds[q+1]].
	Bounds []int
	// Strides[q][k] is the weight of axis k in word q, 0 outside part q.
	Strides [][]uint64
	// Divs[k] divides by Shape[k] (by 1 for an empty dimension), to
	// recover coordinates from keys.
	Divs []divide.Divider
	// KeyBits[q] bounds word q: it is below 1<<KeyBits[q].
	KeyBits []uint
}

// Linearize returns the linearization of shape under the axis order (nil
// means 0, 1, …, ndim-1). Parts are cut from the last axis up, each as long
// as its number of keys is below 2^64. A 0-d shape has one part with
// no axes, whose keys are all 0.
func Linearize(shape []int64, order []int) Linearization {
	nd := len(shape)
	l := Linearization{Axes: make([]int, nd), Divs: make([]divide.Divider, nd)}
	for j := range nd {
		l.Axes[j] = j
		if order != nil {
			l.Axes[j] = order[j]
		}
	}
	for k, d := range shape {
		l.Divs[k] = divide.New(uint64(max(d, 1)))
	}
	// Cut from the last axis up; size is the current part's number of
	// keys, below 2^64 (the csf builder's node ranges [base, base+span)
	// must not wrap).
	bounds := []int{nd}
	var sizes []uint64 // per part, from the last
	size := uint64(1)
	for j := nd - 1; j >= 0; j-- {
		d := uint64(max(shape[l.Axes[j]], 1))
		if hi, lo := bits.Mul64(size, d); hi == 0 {
			size = lo
			continue
		}
		bounds = append(bounds, j+1)
		sizes = append(sizes, size)
		size = d
	}
	bounds = append(bounds, 0)
	sizes = append(sizes, size)
	parts := len(sizes)
	l.Bounds = make([]int, parts+1)
	l.Strides = make([][]uint64, parts)
	l.KeyBits = make([]uint, parts)
	for q := range parts {
		l.Bounds[q] = bounds[parts-q]
		l.KeyBits[q] = uint(bits.Len64(sizes[parts-1-q] - 1))
	}
	l.Bounds[parts] = nd
	for q := range parts {
		st := make([]uint64, nd)
		s := uint64(1)
		for j := l.Bounds[q+1] - 1; j >= l.Bounds[q]; j-- {
			k := l.Axes[j]
			st[k] = s
			s *= uint64(max(shape[k], 1))
		}
		l.Strides[q] = st
	}
	return l
}

// decodePart writes the coordinates of part q's axes encoded in key to
// row (in axis numbering).
func decodePart[I arrowsparse.Index](l *Linearization, q int, key uint64, row []I) {
	lo, hi := l.Bounds[q], l.Bounds[q+1]
	if lo == hi {
		return
	}
	for j := hi - 1; j > lo; j-- {
		k := l.Axes[j]
		quo, rem := l.Divs[k].DivMod(key)
		row[k] = I(rem)
		key = quo
	}
	row[l.Axes[lo]] = I(key)
}

// decodeWords writes the coordinates encoded in the key words to row.
func decodeWords[I arrowsparse.Index](l *Linearization, words []uint64, row []I) {
	for q, key := range words {
		decodePart(l, q, key, row)
	}
}
