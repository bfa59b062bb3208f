package coo

import (
	"cmp"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	as "github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/keysort"
)

// indexOps are the coordinate kernels for one index type. indexOpsFor picks
// them once per call; each method then runs typed loops.
type indexOps interface {
	at(t *Tensor, i int64, k int) int64
	checkBounds(t *Tensor) error
	isSorted(t *Tensor) bool
	// fill writes the coordinates of entries [lo, hi) to dst, row-major.
	fill(t *Tensor, lo, hi int64, dst []int64)
	// keys returns a keysort key function: Σ coord[k]·strides[k].
	keys(t *Tensor, strides []uint64) func(lo, hi int, dst []uint64)
	// emitKeys writes the coordinates of the distinct keys among words
	// (ascending) to out, row-major, from entry pos; it returns their count.
	emitKeys(out []byte, nd int, divs []keysort.Divider, pos int, words []uint64, ib uint) int
	// sortPerm sorts perm by coordinates, ties by entry number, and returns
	// the start of each run of equal coordinates plus a final len(perm).
	sortPerm(t *Tensor, perm []int64) []int64
	// gatherRuns writes the coordinates of entry perm[starts[r]] to out,
	// row-major, at entry r.
	gatherRuns(t *Tensor, out []byte, perm, starts []int64)
	// put writes the int64 coordinates src to out (as the index type) from
	// element position at.
	put(out []byte, at int64, src []int64)
	// search returns the range of entries whose coordinates equal idx, in a
	// canonical tensor.
	search(t *Tensor, idx []int64) (int64, int64)
	// transposeLayout copies the coordinate matrix of t into out in the
	// other layout.
	transposeLayout(t *Tensor, out []byte)
}

func indexOpsFor(dt arrow.DataType) indexOps {
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
	panic(as.PanicError{Msg: "coo: " + dt.String() + " is not an index type"})
}

type iops[I as.Index] struct{}

// matrix returns the coordinates and the element strides (entry, dimension)
// of the coordinate matrix.
func matrix[I as.Index](t *Tensor) (c []I, si, sk int64) {
	nd := int64(len(t.shape))
	c = as.MustSlice[I](t.coords, t.nnz*nd)
	if t.layout == ColMajor {
		return c, 1, t.nnz
	}
	return c, nd, 1
}

func (iops[I]) at(t *Tensor, i int64, k int) int64 {
	c, si, sk := matrix[I](t)
	return int64(c[i*si+int64(k)*sk])
}

func (iops[I]) checkBounds(t *Tensor) error {
	c, si, sk := matrix[I](t)
	for k, d := range t.shape {
		base := int64(k) * sk
		for i := int64(0); i < t.nnz; i++ {
			if v := int64(c[base+i*si]); v < 0 || v >= d {
				return as.Errorf(as.ErrOutOfRange, "coo: coordinate %d of entry %d is %d, outside [0, %d)", k, i, v, d)
			}
		}
	}
	return nil
}

func (iops[I]) isSorted(t *Tensor) bool {
	c, si, sk := matrix[I](t)
	nd := int64(len(t.shape))
	for i := int64(1); i < t.nnz; i++ {
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

func (iops[I]) fill(t *Tensor, lo, hi int64, dst []int64) {
	c, si, sk := matrix[I](t)
	nd := int64(len(t.shape))
	j := 0
	for i := lo; i < hi; i++ {
		for k := int64(0); k < nd; k++ {
			dst[j] = int64(c[i*si+k*sk])
			j++
		}
	}
}

func (iops[I]) keys(t *Tensor, strides []uint64) func(lo, hi int, dst []uint64) {
	c, si, sk := matrix[I](t)
	nd := len(t.shape)
	return func(lo, hi int, dst []uint64) {
		switch {
		case nd == 2 && si == 2:
			s0 := strides[0]
			for i := lo; i < hi; i++ {
				dst[i-lo] = uint64(c[2*i])*s0 + uint64(c[2*i+1])
			}
		case nd == 3 && si == 3:
			s0, s1 := strides[0], strides[1]
			for i := lo; i < hi; i++ {
				dst[i-lo] = uint64(c[3*i])*s0 + uint64(c[3*i+1])*s1 + uint64(c[3*i+2])
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

func (iops[I]) emitKeys(outb []byte, nd int, divs []keysort.Divider, pos int, words []uint64, ib uint) int {
	out := as.MustSliceBytes[I](outb)
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

func (iops[I]) sortPerm(t *Tensor, perm []int64) []int64 {
	c, si, sk := matrix[I](t)
	nd := int64(len(t.shape))
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

func (iops[I]) gatherRuns(t *Tensor, outb []byte, perm, starts []int64) {
	c, si, sk := matrix[I](t)
	out := as.MustSliceBytes[I](outb)
	nd := int64(len(t.shape))
	for r := 0; r+1 < len(starts); r++ {
		e := perm[starts[r]]
		for k := int64(0); k < nd; k++ {
			out[int64(r)*nd+k] = c[e*si+k*sk]
		}
	}
}

func (iops[I]) put(outb []byte, at int64, src []int64) {
	out := as.MustSliceBytes[I](outb)[at:]
	for j, v := range src {
		out[j] = I(v)
	}
}

func (iops[I]) search(t *Tensor, idx []int64) (int64, int64) {
	c, si, sk := matrix[I](t)
	nd := int64(len(t.shape))
	compare := func(i int64) int {
		for k := int64(0); k < nd; k++ {
			if x, y := int64(c[i*si+k*sk]), idx[k]; x != y {
				return cmp.Compare(x, y)
			}
		}
		return 0
	}
	lo, hi := int64(0), t.nnz
	for lo < hi {
		mid := int64(uint64(lo+hi) >> 1)
		if compare(mid) < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < t.nnz && compare(lo) == 0 {
		return lo, lo + 1
	}
	return lo, lo
}

func (iops[I]) transposeLayout(t *Tensor, outb []byte) {
	c, si, sk := matrix[I](t)
	out := as.MustSliceBytes[I](outb)
	nd := int64(len(t.shape))
	oi, ok := int64(1), t.nnz // out is column-major…
	if t.layout == ColMajor {
		oi, ok = nd, 1 // …or row-major
	}
	for i := int64(0); i < t.nnz; i++ {
		for k := int64(0); k < nd; k++ {
			out[i*oi+k*ok] = c[i*si+k*sk]
		}
	}
}
