package compute

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// entries are stored entries as int64 coordinate tuples (nd per entry, in
// dimension order) and typed values.
type entries[T arrowsparse.Number] struct {
	nd     int
	coords []int64
	vals   []T
}

func (e entries[T]) len() int { return len(e.vals) }

// compareAt compares tuple i of x with tuple j of y, taking the dimensions
// in the given order.
func compareAt(x []int64, i int, y []int64, j int, nd int, order []int) int {
	a, b := x[i*nd:i*nd+nd], y[j*nd:j*nd+nd]
	for _, k := range order {
		if a[k] != b[k] {
			if a[k] < b[k] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// mergeEntries returns a p b for entries sorted without duplicates in the
// lexicographic order of their coordinates taken in the given order; the
// result is sorted the same way.
func mergeEntries[T arrowsparse.Number](a, b entries[T], order []int, p op, keep bool) entries[T] {
	nd := a.nd
	n := a.len() + b.len()
	if !p.union() {
		n = min(a.len(), b.len())
	}
	out := entries[T]{nd: nd, coords: make([]int64, 0, n*nd), vals: make([]T, 0, n)}
	put := func(c []int64, v T) {
		if keep || v != 0 {
			out.coords = append(out.coords, c...)
			out.vals = append(out.vals, v)
		}
	}
	i, j := 0, 0
	for i < a.len() && j < b.len() {
		switch compareAt(a.coords, i, b.coords, j, nd, order) {
		case -1:
			if p.union() {
				put(a.coords[i*nd:i*nd+nd], left(p, a.vals[i]))
			}
			i++
		case 1:
			if p.union() {
				put(b.coords[j*nd:j*nd+nd], right(p, b.vals[j]))
			}
			j++
		default:
			put(a.coords[i*nd:i*nd+nd], both(p, a.vals[i], b.vals[j]))
			i++
			j++
		}
	}
	if p.union() {
		for ; i < a.len(); i++ {
			put(a.coords[i*nd:i*nd+nd], left(p, a.vals[i]))
		}
		for ; j < b.len(); j++ {
			put(b.coords[j*nd:j*nd+nd], right(p, b.vals[j]))
		}
	}
	return out
}

// entriesOf returns the stored entries of a sparse tensor, in storage
// order; T must be its value type.
func entriesOf[T arrowsparse.Number](x arrowsparse.Sparse) entries[T] {
	return entries[T]{nd: x.NumDims(), coords: x.AppendCoords(nil), vals: core.MustSliceBytes[T](x.ValueBytes())}
}

// buildCOO returns a COO tensor of the given shape holding n entries:
// coordinates (nd int64s per entry, in dimension order) and the bytes of n
// values of type vt, row-major, with index type it. The entries must be in
// row-major order without duplicates (the result is then canonical) unless
// canonical is false.
func buildCOO(mem memory.Allocator, shape []int64, names []string, coords []int64, vt arrow.DataType, vals []byte, n int64, it arrow.DataType, canonical bool) (*coo.Tensor, error) {
	nd := int64(len(shape))
	cb, err := checkedBuffer(mem, it, n*nd, "the coordinates of the result")
	if err != nil {
		return nil, err
	}
	defer cb.Release()
	writeInts(cb.Bytes(), it, 0, coords[:n*nd])
	vb := newBuffer(mem, vt, n)
	defer vb.Release()
	copy(vb.Bytes(), vals)
	opts := []coo.Option{coo.WithDimNames(names...)}
	if canonical {
		opts = append(opts, coo.WithCanonicalClaim(true))
	}
	return coo.New(vt, it, shape, cb, coo.RowMajor, vb, n, opts...)
}

// buildCSF returns the CSF tensor with the given axis order holding n
// entries (coordinates in dimension order, nd per entry; the bytes of n
// values of type vt), which must be sorted without duplicates in the
// lexicographic order of their coordinates taken in axis order. Every
// level gets index type it and indptr type pt (nil: the narrowest signed
// type that holds the level's positions).
func buildCSF(mem memory.Allocator, shape []int64, names []string, order []int, coords []int64, vt arrow.DataType, vals []byte, n int64, it, pt arrow.DataType) (*csf.Tensor, error) {
	nd := len(shape)
	idx := make([][]int64, nd)
	ptr := make([][]int64, nd-1)
	for e := int64(0); e < n; e++ {
		c := coords[e*int64(nd) : (e+1)*int64(nd)]
		// d is the first level on which entry e differs from entry e-1.
		d := 0
		if e > 0 {
			p := coords[(e-1)*int64(nd) : e*int64(nd)]
			for d < nd-1 && p[order[d]] == c[order[d]] {
				d++
			}
		}
		for l := d; l < nd; l++ {
			if l < nd-1 {
				ptr[l] = append(ptr[l], int64(len(idx[l+1])))
			}
			idx[l] = append(idx[l], c[order[l]])
		}
	}
	for l := range ptr {
		ptr[l] = append(ptr[l], int64(len(idx[l+1])))
	}
	if pt == nil {
		pt = arrowsparse.SmallestIndexType(n)
	}
	levels := make([]csf.Level, nd)
	var bufs []*memory.Buffer
	defer func() {
		for _, b := range bufs {
			b.Release()
		}
	}()
	for l := range nd {
		ib := newBuffer(mem, it, int64(len(idx[l])))
		bufs = append(bufs, ib)
		writeInts(ib.Bytes(), it, 0, idx[l])
		levels[l] = csf.Level{Indices: ib, IndexType: it, Len: int64(len(idx[l]))}
		if l < nd-1 {
			pb := newBuffer(mem, pt, int64(len(ptr[l])))
			bufs = append(bufs, pb)
			writeInts(pb.Bytes(), pt, 0, ptr[l])
			levels[l].Indptr, levels[l].IndptrType = pb, pt
		}
	}
	vb := newBuffer(mem, vt, n)
	bufs = append(bufs, vb)
	copy(vb.Bytes(), vals)
	return csf.New(vt, shape, order, levels, vb, n, csf.WithDimNames(names...))
}

// csfTypes returns the index and indptr types of a CSF result: the
// requested ones, or the widest of t's levels.
func csfTypes(ts []*csf.Tensor, it, pt arrow.DataType) (arrow.DataType, arrow.DataType) {
	if it == nil {
		for _, t := range ts {
			for l := range t.NumDims() {
				it = wider(it, t.IndexType(l))
			}
		}
	}
	if pt == nil {
		for _, t := range ts {
			for l := range t.NumDims() - 1 {
				pt = wider(pt, t.IndptrType(l))
			}
		}
	}
	return it, pt
}

// compactRuns copies the blocks of bs bytes of src whose keep flag is set
// to dst, in order, and returns the number of bytes written.
func compactRuns(dst, src []byte, bs int, keep []bool) int {
	w := 0
	for i := 0; i < len(keep); {
		if !keep[i] {
			i++
			continue
		}
		j := i + 1
		for j < len(keep) && keep[j] {
			j++
		}
		w += copy(dst[w:], src[i*bs:j*bs])
		i = j
	}
	return w
}
