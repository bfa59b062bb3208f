package main

import (
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// compressedIndexType returns the indices type of a CSR, CSC, GCS or CSF
// tensor, or nil.
func compressedIndexType(t arrowsparse.Tensor) arrow.DataType {
	switch x := t.(type) {
	case *csf.Tensor:
		return x.IndexType(0)
	case *gcs.Matrix:
		return x.IndexType()
	case *gcs.Tensor:
		return x.Storage().IndexType()
	}
	return nil
}

// compressedIndptrType returns the indptr type of a CSR, CSC, GCS or CSF
// tensor, or nil.
func compressedIndptrType(t arrowsparse.Tensor) arrow.DataType {
	switch x := t.(type) {
	case *csf.Tensor:
		return x.IndptrType(0)
	case *gcs.Matrix:
		return x.IndptrType()
	case *gcs.Tensor:
		return x.Storage().IndptrType()
	}
	return nil
}

// compressedToCOO converts a CSR, CSC, GCS or CSF tensor to canonical COO
// with the index type it.
func compressedToCOO(mem memory.Allocator, t arrowsparse.Tensor, it arrow.DataType) (*coo.Tensor, error) {
	var c *coo.Tensor
	var err error
	switch x := t.(type) {
	case *csf.Tensor:
		c, err = x.ToCOO(mem, csf.ConvertOptions{IndexType: it})
	case *gcs.Matrix:
		c, err = x.ToCOO(mem, gcs.ConvertOptions{IndexType: it})
	case *gcs.Tensor:
		c, err = x.ToCOO(mem, gcs.ConvertOptions{IndexType: it})
	default:
		return nil, fmt.Errorf("cannot convert a %s tensor", t.Format())
	}
	if err != nil {
		return nil, err
	}
	defer c.Release()
	return c.Canonicalize(mem, coo.ConvertOptions{})
}

// fit returns dt if it holds every value in 0..need, else the narrowest
// signed type that does.
func fit(dt arrow.DataType, need int64) arrow.DataType {
	if dt != nil && arrowsparse.IndexMax(dt) >= need {
		return dt
	}
	return arrowsparse.SmallestIndexType(need)
}

// indexTypes picks the indices and indptr types of a compressed result
// whose indices go up to needIdx and whose indptr arrays have up to needPtr
// entries (Arrow C++ checks both counts against the types). --index-type
// sets both, unless --indptr-type is given too. Otherwise the source's
// types are kept when they fit and widened when they do not; a dense source
// gets int64, as in Arrow C++.
func indexTypes(src arrowsparse.Tensor, o *convertOpts, needIdx, needPtr int64) (it, pt arrow.DataType) {
	if o.indexType != nil {
		it = o.indexType
		pt = o.indptrType
		if pt == nil {
			pt = it
		}
		return it, pt
	}
	it = fit(defaultIndexType(src, nil), needIdx)
	pt = o.indptrType
	if pt == nil {
		pt = compressedIndptrType(src)
		if pt == nil || arrowsparse.IndexMax(pt) < needPtr {
			pt = fit(it, needPtr)
		}
	}
	return it, pt
}

// checkIndptrSize refuses an indptr array of lanes+1 entries of type pt
// larger than the limit on materialised results: a hypersparse shape can
// ask for far more memory than the input holds.
func checkIndptrSize(lanes int64, pt arrow.DataType) error {
	w := int64(arrowsparse.ByteWidth(pt))
	if lanes >= maxDenseBytes/w {
		return fmt.Errorf("the result's indptr array would take %d entries of %d bytes, more than the limit of %d bytes", lanes+1, w, maxDenseBytes)
	}
	return nil
}

// retypeInPlace reports whether convert may give a canonical source of the
// result's format new index types in storage order (WithIndexTypes), which
// gives the bytes the way through COO gives. Tests turn it off to compare.
var retypeInPlace = true

// convertCompressed converts t to CSR, CSC, CSF or GCS: a canonical source
// of that format with the same layout by retyping its index arrays, anything
// else through canonical COO.
func convertCompressed(mem memory.Allocator, t arrowsparse.Tensor, to string, o *convertOpts) (arrowsparse.Tensor, error) {
	if r, ok, err := retype(mem, t, to, o); ok {
		return r, err
	}
	x, err := toCOO(mem, t, nil)
	if err != nil {
		return nil, err
	}
	defer x.Release()
	switch to {
	case "csf":
		return toCSF(mem, t, x, o)
	case "csr", "csc":
		if x.NumDims() != 2 {
			return nil, core.Errorf(arrowsparse.ErrShape, "a %s matrix needs 2 dimensions, not %d; --to gcs stores N-d tensors in CSR/CSC form", to, x.NumDims())
		}
		shape := x.Shape()
		axis, lanes, minor := gcs.Rows, shape[0], shape[1]
		if to == "csc" {
			axis, lanes, minor = gcs.Cols, shape[1], shape[0]
		}
		it, pt := indexTypes(t, o, max(x.NNZ(), minor-1), max(x.NNZ(), lanes+1))
		if err := checkIndptrSize(lanes, pt); err != nil {
			return nil, err
		}
		return gcs.MatrixFromCOO(mem, x, axis, gcs.ConvertOptions{IndexType: it, IndptrType: pt})
	case "gcs":
		return toGCS(mem, t, x, o)
	}
	return nil, fmt.Errorf("conversion to %s is not available", to)
}

// retype gives a canonical source that keeps its format and layout the
// index types of the result; ok is false when it does not apply.
func retype(mem memory.Allocator, t arrowsparse.Tensor, to string, o *convertOpts) (arrowsparse.Tensor, bool, error) {
	if !retypeInPlace || formatOf(t) != to {
		return nil, false, nil
	}
	switch x := t.(type) {
	case *gcs.Matrix:
		if !x.IsCanonical() {
			return nil, false, nil
		}
		lanes, minor := x.Rows(), x.Cols()
		if x.Axis() == gcs.Cols {
			lanes, minor = minor, lanes
		}
		it, pt := indexTypes(t, o, max(x.NNZ(), minor-1), max(x.NNZ(), lanes+1))
		r, err := x.WithIndexTypes(mem, pt, it)
		return r, true, err
	case *csf.Tensor:
		if !x.IsCanonical() || (o.axisOrder != nil && !slices.Equal(o.axisOrder, x.AxisOrder())) {
			return nil, false, nil
		}
		it, pt := indexTypes(t, o, max(x.NNZ(), maxDim(x.Shape())-1), x.NNZ()+1)
		r, err := x.WithIndexTypes(mem, pt, it)
		return r, true, err
	case *gcs.Tensor:
		st := x.Storage()
		if !x.IsCanonical() || (o.dimensions != nil && !slices.Equal(o.dimensions, x.Dims())) ||
			(o.partitioning != nil && o.partitioning[0] != x.Partitioning()) {
			return nil, false, nil
		}
		rows, cols := x.Mapping().ReducedShape()
		needIdx, needPtr := max(x.NNZ(), cols-1), max(x.NNZ(), rows+1)
		if st.Axis() == gcs.Cols {
			needIdx, needPtr = max(needIdx, rows-1), max(needPtr, cols+1)
		}
		it, pt := indexTypes(t, o, needIdx, needPtr)
		r, err := x.WithStorage(mem, st.Axis(), gcs.ConvertOptions{IndexType: it, IndptrType: pt})
		return r, true, err
	}
	return nil, false, nil
}

func maxDim(shape []int64) int64 {
	m := int64(0)
	for _, d := range shape {
		m = max(m, d)
	}
	return m
}

func toCSF(mem memory.Allocator, src arrowsparse.Tensor, x *coo.Tensor, o *convertOpts) (arrowsparse.Tensor, error) {
	nd := x.NumDims()
	if nd < 2 {
		return nil, core.Errorf(arrowsparse.ErrShape, "a CSF tensor needs at least 2 dimensions, not %d", nd)
	}
	order := o.axisOrder // checked against the rank already
	if order == nil {
		if s, ok := src.(*csf.Tensor); ok {
			order = s.AxisOrder()
		}
	}
	it, pt := indexTypes(src, o, max(x.NNZ(), maxDim(x.Shape())-1), x.NNZ()+1)
	return csf.FromCOO(mem, x, csf.ConvertOptions{AxisOrder: order, IndexType: it, IndptrType: pt})
}

// toGCS stores x as a GCS tensor. The mapping is --dimensions and
// --partitioning, else the source's (a GCS source also keeps its storage
// axis), else the identity with every dimension but the last as a row
// dimension.
func toGCS(mem memory.Allocator, src arrowsparse.Tensor, x *coo.Tensor, o *convertOpts) (arrowsparse.Tensor, error) {
	nd := x.NumDims()
	dims, p := o.dimensions, -1
	if o.partitioning != nil {
		p = o.partitioning[0]
	}
	axis := gcs.Rows
	if s, ok := src.(*gcs.Tensor); ok {
		if dims == nil {
			dims = s.Dims()
		}
		if p < 0 {
			p = s.Partitioning()
		}
		axis = s.Storage().Axis()
	}
	if dims == nil {
		dims = make([]int, nd)
		for k := range dims {
			dims[k] = k
		}
	}
	if p < 0 {
		p = max(nd-1, 0)
	}
	mp, err := gcs.NewMapping(x.Shape(), dims, p)
	if err != nil {
		return nil, err
	}
	rows, cols := mp.ReducedShape()
	// A CSC storage is built as CSR first, then transposed: the types
	// must suit both.
	needIdx, needPtr := max(x.NNZ(), cols-1), max(x.NNZ(), rows+1)
	if axis == gcs.Cols {
		needIdx, needPtr = max(needIdx, rows-1), max(needPtr, cols+1)
	}
	it, pt := indexTypes(src, o, needIdx, needPtr)
	if err := checkIndptrSize(max(rows, cols), pt); err != nil {
		return nil, err
	}
	opts := gcs.ConvertOptions{IndexType: it, IndptrType: pt, Mapping: mp}
	g, err := gcs.FromCOO(mem, x, opts)
	if err != nil || axis == gcs.Rows {
		return g, err
	}
	defer g.Release()
	return g.WithStorage(mem, axis, opts)
}
