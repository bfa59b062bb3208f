// Package coords holds the kernels over an nnz × ndim coordinate matrix
// that the sparse formats share: bounds and order checks, linear sort keys
// under any axis order, and writing coordinates back from keys.
package coords

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/divide"
	"github.com/arrowsparse/arrowsparse/internal/keysort"
)

// Matrix describes a coordinate matrix: N entries of len(Shape) coordinates
// of one index type, stored row-major (entry i's coordinate k at element
// i·ndim+k) or column-major (at k·N+i).
type Matrix struct {
	Type     arrow.DataType
	Data     []byte // at least N·ndim elements, aligned
	N        int64
	Shape    []int64
	ColMajor bool
}

// Ops returns the kernels for the matrix's index type.
func (m Matrix) Ops() Ops { return For(m.Type) }

// Ops are the coordinate kernels for one index type. For picks them once
// per call; each method then runs typed loops.
type Ops interface {
	// At returns coordinate k of entry i.
	At(m Matrix, i int64, k int) int64
	// CheckBounds returns an error wrapping arrowsparse.ErrOutOfRange unless every
	// coordinate lies in [0, Shape[k]).
	CheckBounds(m Matrix) error
	// IsSorted reports whether entries are strictly increasing in
	// row-major order of their coordinates.
	IsSorted(m Matrix) bool
	// Fill writes the coordinates of entries [lo, hi) to dst, row-major.
	Fill(m Matrix, lo, hi int64, dst []int64)
	// Keys returns a keysort key function: Σ coord[k]·strides[k].
	Keys(m Matrix, strides []uint64) func(lo, hi int, dst []uint64)
	// EmitKeys writes the coordinates of the distinct keys among words
	// (ascending) to out, row-major, from entry pos; it returns their count.
	EmitKeys(out []byte, nd int, divs []divide.Divider, pos int, words []uint64, ib uint) int
	// SortPerm sorts perm by coordinates, ties by entry number, and returns
	// the start of each run of equal coordinates plus a final len(perm).
	SortPerm(m Matrix, perm []int64) []int64
	// GatherRuns writes the coordinates of entry perm[starts[r]] to out,
	// row-major, at entry r.
	GatherRuns(m Matrix, out []byte, perm, starts []int64)
	// Put writes the int64 coordinates src to out (as the index type) from
	// element position at.
	Put(out []byte, at int64, src []int64)
	// Search returns the range of entries whose coordinates equal idx, in a
	// canonical tensor.
	Search(m Matrix, idx []int64) (int64, int64)
	// TransposeLayout copies the matrix into out in the other layout.
	TransposeLayout(m Matrix, out []byte)
}

// For returns the kernels for an index type.
func For(dt arrow.DataType) Ops {
	switch dt.ID() {
	case arrow.INT8:
		return iops[int8]{}
	case arrow.INT16:
		return iops[int16]{}
	case arrow.INT32:
		return iops[int32]{}
	case arrow.INT64:
		return iops[int64]{}
	case arrow.UINT8:
		return iops[uint8]{}
	case arrow.UINT16:
		return iops[uint16]{}
	case arrow.UINT32:
		return iops[uint32]{}
	}
	panic(arrowsparse.PanicError{Msg: "coords: " + dt.String() + " is not an index type"})
}

type iops[I arrowsparse.Index] struct{}

// matrix returns the coordinates and the element strides (entry, dimension)
// of the coordinate matrix.
func matrix[I arrowsparse.Index](m Matrix) (c []I, si, sk int64) {
	nd := int64(len(m.Shape))
	c = core.MustSliceBytes[I](m.Data)[:m.N*nd]
	if m.ColMajor {
		return c, 1, m.N
	}
	return c, nd, 1
}

func (iops[I]) At(m Matrix, i int64, k int) int64 {
	c, si, sk := matrix[I](m)
	return int64(c[i*si+int64(k)*sk])
}

func (iops[I]) CheckBounds(m Matrix) error {
	c, si, sk := matrix[I](m)
	for k, d := range m.Shape {
		base := int64(k) * sk
		for i := int64(0); i < m.N; i++ {
			if v := int64(c[base+i*si]); v < 0 || v >= d {
				return core.Errorf(arrowsparse.ErrOutOfRange, "coordinate %d of entry %d is %d, outside [0, %d)", k, i, v, d)
			}
		}
	}
	return nil
}

func (iops[I]) IsSorted(m Matrix) bool {
	c, si, sk := matrix[I](m)
	nd := int64(len(m.Shape))
	for i := int64(1); i < m.N; i++ {
		p, q := (i-1)*si, i*si
		r := 0
		for k := int64(0); k < nd; k++ {
			if a, b := c[p+k*sk], c[q+k*sk]; a != b {
				r = cmp.Compare(a, b)
				break
			}
		}
		if r >= 0 {
			return false
		}
	}
	return true
}

func (iops[I]) Fill(m Matrix, lo, hi int64, dst []int64) {
	c, si, sk := matrix[I](m)
	nd := int64(len(m.Shape))
	j := 0
	for i := lo; i < hi; i++ {
		for k := int64(0); k < nd; k++ {
			dst[j] = int64(c[i*si+k*sk])
			j++
		}
	}
}

func (iops[I]) Keys(m Matrix, strides []uint64) func(lo, hi int, dst []uint64) {
	c, si, sk := matrix[I](m)
	nd := len(m.Shape)
	return func(lo, hi int, dst []uint64) {
		switch {
		case nd == 2 && si == 2 && strides[1] == 1:
			s0 := strides[0]
			for i := lo; i < hi; i++ {
				dst[i-lo] = uint64(c[2*i])*s0 + uint64(c[2*i+1])
			}
		case nd == 2 && si == 2:
			s0, s1 := strides[0], strides[1]
			for i := lo; i < hi; i++ {
				dst[i-lo] = uint64(c[2*i])*s0 + uint64(c[2*i+1])*s1
			}
		case nd == 3 && si == 3:
			s0, s1, s2 := strides[0], strides[1], strides[2]
			for i := lo; i < hi; i++ {
				dst[i-lo] = uint64(c[3*i])*s0 + uint64(c[3*i+1])*s1 + uint64(c[3*i+2])*s2
			}
		case sk > 1:
			// Column-major: one contiguous pass per dimension.
			out := dst[:hi-lo]
			col := c[lo:hi]
			s := strides[0]
			for i, v := range col {
				out[i] = uint64(v) * s
			}
			for k := 1; k < nd; k++ {
				col = c[int64(k)*sk+int64(lo) : int64(k)*sk+int64(hi)]
				s = strides[k]
				for i, v := range col {
					out[i] += uint64(v) * s
				}
			}
		default:
			for i := lo; i < hi; i++ {
				var key uint64
				for k := range nd {
					key += uint64(c[int64(i)*si+int64(k)*sk]) * strides[k]
				}
				dst[i-lo] = key
			}
		}
	}
}

func (iops[I]) EmitKeys(outb []byte, nd int, divs []divide.Divider, pos int, words []uint64, ib uint) int {
	out := core.MustSliceBytes[I](outb)
	u := 0
	last := ^uint64(0)
	switch nd {
	case 1:
		for _, w := range words {
			if key := w >> ib; key != last {
				last = key
				out[pos+u] = I(key)
				u++
			}
		}
	case 2:
		d := divs[1]
		o := out[2*pos:]
		for _, w := range words {
			if key := w >> ib; key != last {
				last = key
				q, r := d.DivMod(key)
				o[2*u], o[2*u+1] = I(q), I(r)
				u++
			}
		}
	default:
		o := out[nd*pos:]
		for _, w := range words {
			key := w >> ib
			if key == last {
				continue
			}
			last = key
			row := o[nd*u : nd*u+nd]
			for k := nd - 1; k > 0; k-- {
				q, r := divs[k].DivMod(key)
				row[k] = I(r)
				key = q
			}
			row[0] = I(key)
			u++
		}
	}
	return u
}

func (iops[I]) SortPerm(m Matrix, perm []int64) []int64 {
	c, si, sk := matrix[I](m)
	nd := int64(len(m.Shape))
	compare := func(a, b int64) int {
		for k := int64(0); k < nd; k++ {
			if x, y := c[a*si+k*sk], c[b*si+k*sk]; x != y {
				return cmp.Compare(x, y)
			}
		}
		return 0
	}
	slices.SortFunc(perm, func(a, b int64) int {
		if r := compare(a, b); r != 0 {
			return r
		}
		return cmp.Compare(a, b)
	})
	starts := make([]int64, 0, len(perm)+1)
	for j := range perm {
		if j == 0 || compare(perm[j-1], perm[j]) != 0 {
			starts = append(starts, int64(j))
		}
	}
	return append(starts, int64(len(perm)))
}

func (iops[I]) GatherRuns(m Matrix, outb []byte, perm, starts []int64) {
	c, si, sk := matrix[I](m)
	out := core.MustSliceBytes[I](outb)
	nd := int64(len(m.Shape))
	for r := 0; r+1 < len(starts); r++ {
		e := perm[starts[r]]
		for k := int64(0); k < nd; k++ {
			out[int64(r)*nd+k] = c[e*si+k*sk]
		}
	}
}

func (iops[I]) Put(outb []byte, at int64, src []int64) {
	out := core.MustSliceBytes[I](outb)[at:]
	for j, v := range src {
		out[j] = I(v)
	}
}

func (iops[I]) Search(m Matrix, idx []int64) (int64, int64) {
	c, si, sk := matrix[I](m)
	nd := int64(len(m.Shape))
	compare := func(i int64) int {
		for k := int64(0); k < nd; k++ {
			if x, y := int64(c[i*si+k*sk]), idx[k]; x != y {
				return cmp.Compare(x, y)
			}
		}
		return 0
	}
	lo, hi := int64(0), m.N
	for lo < hi {
		mid := int64(uint64(lo+hi) >> 1)
		if compare(mid) < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < m.N && compare(lo) == 0 {
		return lo, lo + 1
	}
	return lo, lo
}

func (iops[I]) TransposeLayout(m Matrix, outb []byte) {
	c, si, sk := matrix[I](m)
	out := core.MustSliceBytes[I](outb)
	nd := int64(len(m.Shape))
	oi, ok := int64(1), m.N // out is column-major…
	if m.ColMajor {
		oi, ok = nd, 1 // …or row-major
	}
	for i := int64(0); i < m.N; i++ {
		for k := int64(0); k < nd; k++ {
			out[i*oi+k*ok] = c[i*si+k*sk]
		}
	}
}

// Linearization describes how coordinates map to one 64-bit key when the
// axes are taken in a given order, the first most significant: key =
// Σ coord[k]·Strides[k]. Divs[k] divides by Shape[k], to recover
// coordinates from keys.
type Linearization struct {
	Strides []uint64 // per axis, in axis numbering
	Divs    []divide.Divider
	KeyBits uint // every key is below 1<<KeyBits
}

// Linearize returns the linearization of shape under the axis order (nil
// means 0, 1, …, ndim-1), and false when the number of elements does not fit
// in 64 bits or, together with the index bits of n entries, in one keysort
// word. Every dimension must be positive when n > 0.
func Linearize(shape []int64, order []int, n int64) (Linearization, bool) {
	nd := len(shape)
	size, ok := core.SizeUint64(shape)
	if !ok || nd == 0 {
		return Linearization{}, false
	}
	kb := uint(0)
	if size > 1 {
		kb = uint(bits.Len64(size - 1))
	}
	if !keysort.Fits(kb, int(n)) {
		return Linearization{}, false
	}
	l := Linearization{Strides: make([]uint64, nd), Divs: make([]divide.Divider, nd), KeyBits: kb}
	s := uint64(1)
	for j := nd - 1; j >= 0; j-- {
		k := j
		if order != nil {
			k = order[j]
		}
		l.Strides[k] = s
		s *= uint64(max(shape[k], 1))
		l.Divs[k] = divide.New(uint64(max(shape[k], 1)))
	}
	return l, true
}
