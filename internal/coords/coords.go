// Package coords holds the kernels over an nnz × ndim coordinate matrix
// that the sparse formats share: bounds and order checks, linear sort keys
// under any axis order, and writing coordinates back from keys.
package coords

import (
	"cmp"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
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
	// Keys returns a keysort key function writing len(strides) words per
	// entry: word q is Σ coord[k]·strides[q][k] (mod 2^64).
	Keys(m Matrix, strides [][]uint64) func(lo, hi int, dst []uint64)
	// Emit writes the coordinates of the distinct keys of a sorted bucket
	// (keys of lin) to out, row-major, from entry pos; it returns their
	// count.
	Emit(out []byte, lin *Linearization, pos int, b *keysort.Bucket) int
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

func (iops[I]) Keys(m Matrix, strides [][]uint64) func(lo, hi int, dst []uint64) {
	if len(strides) == 1 {
		return keys1[I](m, strides[0])
	}
	c, si, sk := matrix[I](m)
	w := len(strides)
	// Each word's axes with their strides, zero strides left out.
	type term struct {
		at int64 // element offset of the axis
		s  uint64
	}
	terms := make([][]term, w)
	for q, st := range strides {
		for k, v := range st {
			if v != 0 {
				terms[q] = append(terms[q], term{int64(k) * sk, v})
			}
		}
	}
	if sk > 1 {
		// Column-major: one contiguous pass per axis and word.
		return func(lo, hi int, dst []uint64) {
			out := dst[:(hi-lo)*w]
			clear(out)
			for q, ts := range terms {
				for _, t := range ts {
					for i, v := range c[t.at+int64(lo) : t.at+int64(hi)] {
						out[i*w+q] += uint64(v) * t.s
					}
				}
			}
		}
	}
	return func(lo, hi int, dst []uint64) {
		for i := lo; i < hi; i++ {
			row := c[int64(i)*si:]
			out := dst[(i-lo)*w : (i-lo+1)*w]
			for q, ts := range terms {
				var key uint64
				for _, t := range ts {
					key += uint64(row[t.at]) * t.s
				}
				out[q] = key
			}
		}
	}
}

// keys1 is Keys for one word per key, with fast paths for ranks 2 and 3.
func keys1[I arrowsparse.Index](m Matrix, strides []uint64) func(lo, hi int, dst []uint64) {
	c, si, sk := matrix[I](m)
	nd := len(m.Shape)
	return func(lo, hi int, dst []uint64) {
		dst = dst[:hi-lo]
		switch {
		case nd == 0:
			clear(dst)
		case nd == 2 && si == 2 && strides[1] == 1:
			s0 := strides[0]
			src := c[2*lo : 2*hi]
			for i := range dst {
				dst[i] = uint64(src[2*i])*s0 + uint64(src[2*i+1])
			}
		case nd == 2 && si == 2:
			s0, s1 := strides[0], strides[1]
			src := c[2*lo : 2*hi]
			for i := range dst {
				dst[i] = uint64(src[2*i])*s0 + uint64(src[2*i+1])*s1
			}
		case nd == 3 && si == 3:
			s0, s1, s2 := strides[0], strides[1], strides[2]
			src := c[3*lo : 3*hi]
			for i := range dst {
				dst[i] = uint64(src[3*i])*s0 + uint64(src[3*i+1])*s1 + uint64(src[3*i+2])*s2
			}
		case nd == 2 && si == 1:
			a, b := c[lo:hi], c[sk+int64(lo):sk+int64(hi)]
			s0, s1 := strides[0], strides[1]
			for i := range dst {
				dst[i] = uint64(a[i])*s0 + uint64(b[i])*s1
			}
		case nd == 3 && si == 1:
			a, b, e := c[lo:hi], c[sk+int64(lo):sk+int64(hi)], c[2*sk+int64(lo):2*sk+int64(hi)]
			s0, s1, s2 := strides[0], strides[1], strides[2]
			for i := range dst {
				dst[i] = uint64(a[i])*s0 + uint64(b[i])*s1 + uint64(e[i])*s2
			}
		case sk > 1:
			// Column-major: one contiguous pass per dimension.
			s := strides[0]
			for i, v := range c[lo:hi] {
				dst[i] = uint64(v) * s
			}
			for k := 1; k < nd; k++ {
				s = strides[k]
				for i, v := range c[int64(k)*sk+int64(lo) : int64(k)*sk+int64(hi)] {
					dst[i] += uint64(v) * s
				}
			}
		default:
			for i := range dst {
				var key uint64
				base := int64(lo+i) * si
				for k := range nd {
					key += uint64(c[base+int64(k)*sk]) * strides[k]
				}
				dst[i] = key
			}
		}
	}
}

func (iops[I]) Emit(outb []byte, lin *Linearization, pos int, b *keysort.Bucket) int {
	out := core.MustSliceBytes[I](outb)
	nd := len(lin.Axes)
	o := out[nd*pos:]
	u := 0
	var last uint64
	if len(lin.KeyBits) > 1 {
		for q, x := range b.Words {
			if kn := x >> b.IB; q > 0 && kn == last {
				continue
			}
			last = x >> b.IB
			decodeWords(lin, b.KeyWords(x), o[nd*u:nd*u+nd])
			u++
		}
		return u
	}
	switch {
	case nd == 1:
		for q, x := range b.Words {
			if kn := x >> b.IB; q == 0 || kn != last {
				last = kn
				o[u] = I(b.Key(x))
				u++
			}
		}
	case nd == 2 && lin.Axes[0] == 0:
		d := lin.Divs[1]
		for q, x := range b.Words {
			if kn := x >> b.IB; q == 0 || kn != last {
				last = kn
				hi, lo := d.DivMod(b.Key(x))
				o[2*u], o[2*u+1] = I(hi), I(lo)
				u++
			}
		}
	case nd == 3 && lin.Axes[0] == 0 && lin.Axes[1] == 1:
		d1, d2 := lin.Divs[1], lin.Divs[2]
		for q, x := range b.Words {
			if kn := x >> b.IB; q == 0 || kn != last {
				last = kn
				hi, c2 := d2.DivMod(b.Key(x))
				c0, c1 := d1.DivMod(hi)
				o[3*u], o[3*u+1], o[3*u+2] = I(c0), I(c1), I(c2)
				u++
			}
		}
	default:
		for q, x := range b.Words {
			if kn := x >> b.IB; q > 0 && kn == last {
				continue
			}
			last = x >> b.IB
			decodePart(lin, 0, b.Key(x), o[nd*u:nd*u+nd])
			u++
		}
	}
	return u
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
