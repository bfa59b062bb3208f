package gcs

import (
	"math/bits"
	"slices"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/divide"
)

// Mapping is the dimensionality reduction of the GCS introduction: it maps the index of
// an N-d tensor onto a (row, column) pair of a 2-d matrix, and back.
//
// Dims is a permutation of the axes and Partitioning splits it: the axes
// Dims[:Partitioning] are the row dimensions, Dims[Partitioning:] the
// column dimensions. Within each group the axes are linearised in C order
// (the last one varies fastest):
//
//	row = Σ_i RowStrides[i]·idx[RowDims[i]],  RowStrides[i] = Π_{k>i} shape[RowDims[k]]
//	col = Σ_j ColStrides[j]·idx[ColDims[j]],  ColStrides[j] = Π_{k>j} shape[ColDims[k]]
//
// and back: idx[RowDims[i]] = (row / RowStrides[i]) mod shape[RowDims[i]],
// and likewise for the columns. The reduced matrix has
// Π shape[RowDims] rows and Π shape[ColDims] columns.
//
// A Mapping is a small immutable value. The zero Mapping is not usable:
// build one with NewMapping, IdentityMapping or FromCompressedAxes.
type Mapping struct {
	shape      []int64
	dims       []int
	split      int
	strides    []int64 // per position in dims: row strides, then column strides
	rows, cols int64
}

// NewMapping returns the mapping of a tensor of the given shape under the
// axis permutation dims and the partitioning p: the first p axes of dims
// are the row dimensions, the others the column dimensions.
//
// The GCS introduction takes 0 < p < N; NewMapping also accepts p = 0 (every axis a
// column dimension, one row) and p = N (one column), so that 0-d and 1-d
// tensors have a mapping too. It returns an error wrapping arrowsparse.ErrStructure
// if dims is not a permutation of 0..N-1 or p is outside [0, N],
// arrowsparse.ErrShape for a negative dimension, and arrowsparse.ErrOverflow
// if the number of rows or columns does not fit in int64. (Whether the
// storage matrix can hold that many index pointers is for the matrix to
// check.)
func NewMapping(shape []int64, dims []int, p int) (Mapping, error) {
	if err := core.CheckShape(shape); err != nil {
		return Mapping{}, err
	}
	n := len(shape)
	if err := core.CheckPermutation(dims, n, "gcs: dimensions"); err != nil {
		return Mapping{}, err
	}
	if p < 0 || p > n {
		return Mapping{}, core.Errorf(arrowsparse.ErrStructure, "gcs: partitioning %d is outside [0, %d] for a %d-d tensor", p, n, n)
	}
	mp := Mapping{
		shape:   slices.Clone(shape),
		dims:    slices.Clone(dims),
		split:   p,
		strides: make([]int64, n),
	}
	var err error
	if mp.rows, err = groupStrides(shape, dims[:p], mp.strides[:p]); err != nil {
		return Mapping{}, err
	}
	if mp.cols, err = groupStrides(shape, dims[p:], mp.strides[p:]); err != nil {
		return Mapping{}, err
	}
	return mp, nil
}

// IdentityMapping returns the mapping of a tensor of the given shape with
// dims 0, 1, …, N-1 and the last axis alone in the columns (partitioning
// N-1; 0 for a 0-d tensor): for a matrix, its plain CSR layout.
func IdentityMapping(shape []int64) (Mapping, error) {
	dims := make([]int, len(shape))
	for k := range dims {
		dims[k] = k
	}
	return NewMapping(shape, dims, max(len(shape)-1, 0))
}

// groupStrides writes the C-order strides of the axes of a group and
// returns the group's size, or an error if it overflows int64.
func groupStrides(shape []int64, axes []int, strides []int64) (int64, error) {
	s := int64(1)
	for i := len(axes) - 1; i >= 0; i-- {
		strides[i] = s
		var ok bool
		if s, ok = core.MulInt64(s, shape[axes[i]]); !ok {
			return 0, core.Errorf(arrowsparse.ErrOverflow, "gcs: the product of the sizes of dimensions %v of shape %v overflows int64", axes, shape)
		}
	}
	return s, nil
}

// FromCompressedAxes returns the mapping of pydata/sparse's GCXS format
// with the given compressed_axes: the compressed axes, in the order given,
// are the row dimensions, and the other axes, in increasing order, the
// column dimensions. GCXS(compressed_axes=[0]) of a matrix is CSR, and
// compressed_axes=[1] the CSR of its transpose, which is its CSC.
func FromCompressedAxes(shape []int64, compressedAxes []int) (Mapping, error) {
	n := len(shape)
	dims := make([]int, 0, n)
	seen := make([]bool, n)
	for _, a := range compressedAxes {
		if a < 0 || a >= n || seen[a] {
			return Mapping{}, core.Errorf(arrowsparse.ErrStructure, "gcs: compressed axes %v are not distinct axes of a %d-d tensor", compressedAxes, n)
		}
		seen[a] = true
		dims = append(dims, a)
	}
	for a := range n {
		if !seen[a] {
			dims = append(dims, a)
		}
	}
	return NewMapping(shape, dims, len(compressedAxes))
}

// CompressedAxes returns the pydata/sparse GCXS compressed_axes of the
// mapping, and whether the mapping is a GCXS mapping at all: its column
// dimensions must be in increasing order.
func (mp Mapping) CompressedAxes() ([]int, bool) {
	if !slices.IsSorted(mp.dims[mp.split:]) {
		return nil, false
	}
	return slices.Clone(mp.dims[:mp.split]), true
}

// Shape returns a copy of the tensor shape.
func (mp Mapping) Shape() []int64 { return append([]int64(nil), mp.shape...) }

// NumDims returns the rank N of the tensor.
func (mp Mapping) NumDims() int { return len(mp.shape) }

// Dims returns a copy of the axis permutation.
func (mp Mapping) Dims() []int { return slices.Clone(mp.dims) }

// Partitioning returns the number of row dimensions: the GCS introduction's
// partitioning tuple (p,).
func (mp Mapping) Partitioning() int { return mp.split }

// RowDims returns a copy of the row dimensions: Dims()[:Partitioning()].
func (mp Mapping) RowDims() []int { return slices.Clone(mp.dims[:mp.split]) }

// ColDims returns a copy of the column dimensions: Dims()[Partitioning():].
func (mp Mapping) ColDims() []int { return slices.Clone(mp.dims[mp.split:]) }

// RowStrides returns a copy of the row strides, one per row dimension.
func (mp Mapping) RowStrides() []int64 { return slices.Clone(mp.strides[:mp.split]) }

// ColStrides returns a copy of the column strides, one per column
// dimension.
func (mp Mapping) ColStrides() []int64 { return slices.Clone(mp.strides[mp.split:]) }

// ReducedShape returns the shape of the reduced matrix: (rows, columns).
func (mp Mapping) ReducedShape() (rows, cols int64) { return mp.rows, mp.cols }

// IsIdentity reports whether the reduced matrix is the tensor itself: a
// 2-d tensor with dims (0, 1) and partitioning 1.
func (mp Mapping) IsIdentity() bool {
	return len(mp.dims) == 2 && mp.dims[0] == 0 && mp.dims[1] == 1 && mp.split == 1
}

// Equal reports whether two mappings are the same: same shape, dims and
// partitioning.
func (mp Mapping) Equal(o Mapping) bool {
	return slices.Equal(mp.shape, o.shape) && slices.Equal(mp.dims, o.dims) && mp.split == o.split
}

// Swapped returns the mapping whose rows are the receiver's columns and
// whose columns are its rows: dims[p:] ++ dims[:p] with partitioning N-p.
// Its reduced matrix is the transpose of the receiver's.
func (mp Mapping) Swapped() Mapping {
	n := len(mp.dims)
	s := Mapping{
		shape:   mp.shape,
		dims:    append(slices.Clone(mp.dims[mp.split:]), mp.dims[:mp.split]...),
		split:   n - mp.split,
		strides: append(slices.Clone(mp.strides[mp.split:]), mp.strides[:mp.split]...),
		rows:    mp.cols,
		cols:    mp.rows,
	}
	return s
}

// Permuted returns the mapping of the tensor whose axis k is axis perm[k]
// of the receiver's tensor, with the same reduced matrix: every element
// keeps its (row, column). perm must be a permutation (checked by the
// caller).
func (mp Mapping) Permuted(perm []int) Mapping {
	inv := make([]int, len(perm))
	for k, p := range perm {
		inv[p] = k
	}
	out := Mapping{
		shape:   make([]int64, len(perm)),
		dims:    make([]int, len(perm)),
		split:   mp.split,
		strides: mp.strides,
		rows:    mp.rows,
		cols:    mp.cols,
	}
	for k, p := range perm {
		out.shape[k] = mp.shape[p]
	}
	for i, d := range mp.dims {
		out.dims[i] = inv[d]
	}
	return out
}

// ToRowCol returns the (row, column) of the element at idx. It panics with
// an arrowsparse.PanicError if idx has the wrong rank or an entry outside the shape.
func (mp Mapping) ToRowCol(idx ...int64) (row, col int64) {
	mp.checkIndex(idx)
	for i, d := range mp.dims {
		if i < mp.split {
			row += mp.strides[i] * idx[d]
		} else {
			col += mp.strides[i] * idx[d]
		}
	}
	return row, col
}

// FromRowCol writes the index of the element at (row, col) to dst, which
// must have length N, and returns it; with a nil dst it allocates. It
// panics with an arrowsparse.PanicError if row or col is outside the reduced shape.
func (mp Mapping) FromRowCol(row, col int64, dst []int64) []int64 {
	r, c := mp.ReducedShape()
	if uint64(row) >= uint64(r) || uint64(col) >= uint64(c) {
		panic(arrowsparse.PanicError{Msg: "gcs: (row, column) outside the reduced shape"})
	}
	if dst == nil {
		dst = make([]int64, len(mp.shape))
	}
	if len(dst) != len(mp.shape) {
		panic(arrowsparse.PanicError{Msg: "gcs: index buffer has the wrong rank"})
	}
	for i, d := range mp.dims {
		x := row
		if i >= mp.split {
			x = col
		}
		dst[d] = x / mp.strides[i] % mp.shape[d]
	}
	return dst
}

func (mp Mapping) checkIndex(idx []int64) {
	if len(idx) != len(mp.shape) {
		panic(arrowsparse.PanicError{Msg: "gcs: index rank does not match the tensor's rank"})
	}
	for k, i := range idx {
		if uint64(i) >= uint64(mp.shape[k]) {
			panic(arrowsparse.PanicError{Msg: "gcs: index out of range"})
		}
	}
}

// keyStrides returns per-axis multipliers giving the linear key
// row·span + col, which orders entries as the C-order linearisation of the
// axes in dims order, with span, and kb, the width of the keys. span is
// cols rounded up to a power of two when that does not widen the keys (a
// key then splits into row and column with a shift), and cols otherwise.
// ok is false if the key range does not fit in 64 bits.
func (mp Mapping) keyStrides() (mul []uint64, span uint64, kb uint, ok bool) {
	size, ok := core.SizeUint64([]int64{mp.rows, mp.cols})
	if !ok {
		return nil, 0, 0, false
	}
	if size > 1 {
		kb = uint(bits.Len64(size - 1))
	}
	span = uint64(mp.cols)
	rb, cb := uint(bits.Len64(uint64(max(mp.rows-1, 0)))), uint(bits.Len64(uint64(max(mp.cols-1, 0))))
	if rb+cb <= kb {
		span = uint64(1) << cb
	}
	mul = make([]uint64, len(mp.dims))
	for i, d := range mp.dims {
		s := uint64(mp.strides[i])
		if i < mp.split {
			s *= span
		}
		mul[d] = s
	}
	return mul, span, kb, true
}

// rowColStrides returns per-axis multipliers giving the row and the column.
func (mp Mapping) rowColStrides() (r, c []uint64) {
	r, c = make([]uint64, len(mp.dims)), make([]uint64, len(mp.dims))
	for i, d := range mp.dims {
		if i < mp.split {
			r[d] = uint64(mp.strides[i])
		} else {
			c[d] = uint64(mp.strides[i])
		}
	}
	return r, c
}

// radix decomposes the row or column numbers of a group into the indices
// of its axes, least significant axis first, with multiply-high divisions.
type radix struct {
	axes []int // the group's axes, most significant first
	divs []divide.Divider
}

func newRadix(shape []int64, axes []int) radix {
	r := radix{axes: axes, divs: make([]divide.Divider, len(axes))}
	for i, a := range axes {
		r.divs[i] = divide.New(uint64(max(shape[a], 1)))
	}
	return r
}

// split writes the index of each axis of the group encoded in x to idx.
func (r radix) split(x uint64, idx []int64) {
	for i := len(r.axes) - 1; i >= 0; i-- {
		q, d := r.divs[i].DivMod(x)
		idx[r.axes[i]] = int64(d)
		x = q
	}
}

// dot returns Σ index(axis)·mul[axis] over the axes of the group encoded
// in x.
func (r radix) dot(x uint64, mul []int64) int64 {
	var s int64
	for i := len(r.axes) - 1; i >= 0; i-- {
		q, d := r.divs[i].DivMod(x)
		s += int64(d) * mul[r.axes[i]]
		x = q
	}
	return s
}

// rowRadix and colRadix decompose rows and columns.
func (mp Mapping) rowRadix() radix { return newRadix(mp.shape, mp.dims[:mp.split]) }
func (mp Mapping) colRadix() radix { return newRadix(mp.shape, mp.dims[mp.split:]) }

// IsZero reports whether mp is the zero Mapping, which no constructor
// returns: ConvertOptions reads it as "the default mapping".
func (mp Mapping) IsZero() bool { return mp.strides == nil }
