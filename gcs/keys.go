package gcs

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
)

// cooForms computes linear forms of the coordinates of a COO tensor: the
// sort keys and (row, column) pairs of a mapping.
type cooForms interface {
	// keys returns a sort key function: Σ coord[k]·mul[k] (mod 2^64).
	keys(mul []uint64) func(lo, hi int, dst []uint64)
	// pairs returns a function writing Σ coord[k]·a[k] and Σ coord[k]·b[k].
	pairs(a, b []int64) func(lo, hi int, x, y []int64)
	// coords writes the coordinates of entries [lo, hi) row-major to dst.
	coords(lo, hi int, dst []int64)
}

func formsOf(t *coo.Tensor) cooForms {
	switch t.IndexType().ID() {
	case arrow.INT8:
		return newForms[int8](t)
	case arrow.INT16:
		return newForms[int16](t)
	case arrow.INT32:
		return newForms[int32](t)
	case arrow.INT64:
		return newForms[int64](t)
	case arrow.UINT8:
		return newForms[uint8](t)
	case arrow.UINT16:
		return newForms[uint16](t)
	case arrow.UINT32:
		return newForms[uint32](t)
	}
	panic(arrowsparse.PanicError{Msg: "gcs: " + t.IndexType().String() + " is not an index type"})
}

type forms[C arrowsparse.Index] struct {
	c      []C
	nd     int
	si, sk int // element strides between entries and between dimensions
}

func newForms[C arrowsparse.Index](t *coo.Tensor) forms[C] {
	c, err := coo.Coords[C](t)
	if err != nil {
		panic(arrowsparse.PanicError{Msg: err.Error()})
	}
	nd := t.NumDims()
	f := forms[C]{c: c, nd: nd, si: nd, sk: 1}
	if t.Layout() == coo.ColMajor {
		f.si, f.sk = 1, int(t.NNZ())
	}
	return f
}

func (f forms[C]) keys(mul []uint64) func(lo, hi int, dst []uint64) {
	c, nd, si, sk := f.c, f.nd, f.si, f.sk
	return func(lo, hi int, dst []uint64) {
		dst = dst[:hi-lo]
		switch {
		case nd == 0:
			clear(dst)
		case nd == 2 && si == 2:
			m0, m1 := mul[0], mul[1]
			src := c[2*lo : 2*hi]
			for i := range dst {
				dst[i] = uint64(src[2*i])*m0 + uint64(src[2*i+1])*m1
			}
		case nd == 3 && si == 3:
			m0, m1, m2 := mul[0], mul[1], mul[2]
			src := c[3*lo : 3*hi]
			for i := range dst {
				dst[i] = uint64(src[3*i])*m0 + uint64(src[3*i+1])*m1 + uint64(src[3*i+2])*m2
			}
		case nd == 2 && si == 1:
			a, b := c[lo:hi], c[sk+lo:sk+hi]
			m0, m1 := mul[0], mul[1]
			for i := range dst {
				dst[i] = uint64(a[i])*m0 + uint64(b[i])*m1
			}
		case nd == 3 && si == 1:
			a, b, e := c[lo:hi], c[sk+lo:sk+hi], c[2*sk+lo:2*sk+hi]
			m0, m1, m2 := mul[0], mul[1], mul[2]
			for i := range dst {
				dst[i] = uint64(a[i])*m0 + uint64(b[i])*m1 + uint64(e[i])*m2
			}
		case si == 1:
			// Column-major: one contiguous pass per dimension.
			m := mul[0]
			for i, v := range c[lo:hi] {
				dst[i] = uint64(v) * m
			}
			for k := 1; k < nd; k++ {
				m = mul[k]
				for i, v := range c[k*sk+lo : k*sk+hi] {
					dst[i] += uint64(v) * m
				}
			}
		default:
			for i := range dst {
				var key uint64
				base := (lo + i) * si
				for k := range nd {
					key += uint64(c[base+k*sk]) * mul[k]
				}
				dst[i] = key
			}
		}
	}
}

func (f forms[C]) pairs(a, b []int64) func(lo, hi int, x, y []int64) {
	c, nd, si, sk := f.c, f.nd, f.si, f.sk
	return func(lo, hi int, x, y []int64) {
		for i := lo; i < hi; i++ {
			var p, q int64
			for k := range nd {
				v := int64(c[i*si+k*sk])
				p += v * a[k]
				q += v * b[k]
			}
			x[i-lo], y[i-lo] = p, q
		}
	}
}

func (f forms[C]) coords(lo, hi int, dst []int64) {
	j := 0
	for i := lo; i < hi; i++ {
		for k := range f.nd {
			dst[j] = int64(f.c[i*f.si+k*f.sk])
			j++
		}
	}
}
