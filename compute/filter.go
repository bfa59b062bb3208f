package compute

import (
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/views"
)

// EliminateZeros returns x without its explicitly stored zeros, as scipy's
// eliminate_zeros: entries whose value is zero (negative zero included;
// NaN is not zero) are removed, and everything else, duplicates and order
// included, is kept. The result has x's format and index types. A tensor
// without stored zeros, and a dense view, are returned themselves,
// retained. A format this package does not know is an error wrapping
// arrowsparse.ErrUnsupportedType. The result must be released by the
// caller.
func EliminateZeros(mem memory.Allocator, x arrowsparse.Tensor, o Options) (arrowsparse.Tensor, error) {
	if _, ok := x.(arrowsparse.Dense); ok {
		x.Retain()
		return x, nil
	}
	s, ok := x.(arrowsparse.Sparse)
	if !ok {
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "compute: EliminateZeros of a %s tensor of type %T", x.Format(), x)
	}
	keep := make([]bool, x.NNZ())
	if nonzeroMask(x.DataType(), s.ValueBytes(), keep) == x.NNZ() {
		x.Retain()
		return x, nil
	}
	switch t := x.(type) {
	case *coo.Tensor:
		return filterCOO(mem, t, keep)
	case *gcs.Matrix:
		return filterMatrix(mem, t, keep)
	case *gcs.Tensor:
		m, err := filterMatrix(mem, t.Storage(), keep)
		if err != nil {
			return nil, err
		}
		defer m.Release()
		return wrapGCS(t, m)
	case *csf.Tensor:
		return filterCSF(mem, t, keep)
	}
	return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "compute: EliminateZeros of a %s tensor of type %T", x.Format(), x)
}

// wrapGCS returns the GCS tensor with t's mapping and names over storage.
func wrapGCS(t *gcs.Tensor, storage *gcs.Matrix) (*gcs.Tensor, error) {
	mp := t.Mapping()
	g, err := gcs.NewTensor(mp.Shape(), mp.Dims(), mp.Partitioning(), storage)
	if err != nil || t.DimNames() == nil {
		return g, err
	}
	defer g.Release()
	return g.WithDimNames(t.DimNames()...)
}

// filterMatrix returns m with the entries whose keep flag is set.
func filterMatrix(mem memory.Allocator, m *gcs.Matrix, keep []bool) (*gcs.Matrix, error) {
	major := m.Lanes()
	ptr := readInts(bytesOf(m.IndptrBuffer()), m.IndptrType(), major+1)
	out := make([]int64, major+1)
	n := int64(0)
	for k := range major {
		for p := ptr[k]; p < ptr[k+1]; p++ {
			if keep[p] {
				n++
			}
		}
		out[k+1] = n
	}
	pt, it, vt := m.IndptrType(), m.IndexType(), m.DataType()
	pb := newBuffer(mem, pt, major+1)
	defer pb.Release()
	writeInts(pb.Bytes(), pt, 0, out)
	ib := newBuffer(mem, it, n)
	defer ib.Release()
	compactRuns(bytesOf(ib), bytesOf(m.IndicesBuffer()), arrowsparse.ByteWidth(it), keep)
	vb := newBuffer(mem, vt, n)
	defer vb.Release()
	compactRuns(bytesOf(vb), bytesOf(m.ValuesBuffer()), arrowsparse.ByteWidth(vt), keep)
	return gcs.New(vt, pt, it, m.Shape(), m.Axis(), pb, ib, vb, n, gcs.WithDimNames(m.DimNames()...))
}

// filterCOO returns t with the entries whose keep flag is set.
func filterCOO(mem memory.Allocator, t *coo.Tensor, keep []bool) (*coo.Tensor, error) {
	nnz, nd := t.NNZ(), int64(t.NumDims())
	n := int64(0)
	for _, k := range keep {
		if k {
			n++
		}
	}
	it, vt := t.IndexType(), t.DataType()
	iw, vw := int64(arrowsparse.ByteWidth(it)), int64(arrowsparse.ByteWidth(vt))
	cb := newBuffer(mem, it, n*nd)
	defer cb.Release()
	src := bytesOf(t.CoordsBuffer())
	if t.Layout() == coo.RowMajor {
		compactRuns(bytesOf(cb), src, int(nd*iw), keep)
	} else {
		for k := range nd {
			compactRuns(bytesOf(cb)[k*n*iw:], src[k*nnz*iw:(k+1)*nnz*iw], int(iw), keep)
		}
	}
	vb := newBuffer(mem, vt, n)
	defer vb.Release()
	compactRuns(bytesOf(vb), t.ValueBytes(), int(vw), keep)
	return coo.New(vt, it, t.Shape(), cb, t.Layout(), vb, n, coo.WithDimNames(t.DimNames()...))
}

// filterCSF returns t with the entries whose keep flag is set, pruning
// the nodes left without children.
func filterCSF(mem memory.Allocator, t *csf.Tensor, keep []bool) (*csf.Tensor, error) {
	nd := t.NumDims()
	coords := t.AppendCoords(nil)
	vt := t.DataType()
	vw := arrowsparse.ByteWidth(vt)
	n := 0
	for i, k := range keep {
		if k {
			copy(coords[n*nd:(n+1)*nd], coords[i*nd:(i+1)*nd])
			n++
		}
	}
	vals := make([]byte, n*vw)
	compactRuns(vals, t.ValueBytes(), vw, keep)
	it, pt := csfTypes([]*csf.Tensor{t}, nil, nil)
	return buildCSF(mem, t.Shape(), t.DimNames(), t.AxisOrder(), coords, vt, vals, int64(n), it, pt)
}

// denseOf returns x as a C-contiguous view: x itself, retained, when it
// is one, else a copy. The result must be released by the caller.
func denseOf(mem memory.Allocator, x arrowsparse.Tensor) (*views.View, error) {
	if v, ok := x.(*views.View); ok && v.IsCContiguous() {
		v.Retain()
		return v, nil
	}
	if d, ok := x.(arrowsparse.Dense); ok {
		v, err := views.Of(d)
		if err != nil {
			return nil, err
		}
		defer v.Release()
		return v.Copy(mem, views.CopyOptions{})
	}
	d, err := x.ToDense(mem)
	if err != nil {
		return nil, err
	}
	defer d.Release()
	return views.Of(d)
}
