package main

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	as "github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/gcs"
)

// compressedIndexType returns the indices type of a CSR, CSC, GCS or CSF
// tensor, or nil.
func compressedIndexType(t as.Tensor) arrow.DataType {
	switch x := t.(type) {
	case *csf.Tensor:
		return x.IndicesType(0)
	case *gcs.Matrix:
		return x.IndicesType()
	case *gcs.Tensor:
		return x.Storage().IndicesType()
	}
	return nil
}

// compressedIndptrType returns the indptr type of a CSR, CSC, GCS or CSF
// tensor, or nil.
func compressedIndptrType(t as.Tensor) arrow.DataType {
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
// with (if it can hold every coordinate) the index type it.
func compressedToCOO(mem memory.Allocator, t as.Tensor, it arrow.DataType) (*coo.Tensor, error) {
	var c *coo.Tensor
	var err error
	switch x := t.(type) {
	case *csf.Tensor:
		c, err = x.ToCOO(mem)
	case *gcs.Matrix:
		c, err = x.ToCOO(mem, gcs.Options{IndicesType: it})
	case *gcs.Tensor:
		c, err = x.ToCOO(mem, gcs.Options{IndicesType: it})
	default:
		return nil, fmt.Errorf("cannot convert a %s tensor", t.Format())
	}
	if err != nil {
		return nil, err
	}
	defer c.Release()
	return c.Canonicalize(mem)
}

// indptrTypeFor picks the indptr type of a conversion's result: want if
// given, else the source's indptr type when it holds need, else def.
func indptrTypeFor(t as.Tensor, want, def arrow.DataType, need int64) arrow.DataType {
	if want != nil {
		return want
	}
	if src := compressedIndptrType(t); src != nil && as.IndexMax(src) >= need {
		return src
	}
	return def
}

// convertCompressed converts t to CSR, CSC, CSF or GCS, through COO.
func convertCompressed(mem memory.Allocator, t as.Tensor, to string, o *convertOpts) (as.Tensor, error) {
	it := defaultIndexType(t, o.indexType)
	c, err := toCOO(mem, t, it)
	if err != nil {
		return nil, err
	}
	defer c.Release()
	x := c.(*coo.Tensor)
	switch to {
	case "csf":
		return toCSF(mem, t, x, o, it)
	case "csr", "csc":
		if x.NumDims() != 2 {
			return nil, as.Errorf(as.ErrShape, "a %s matrix needs 2 dimensions, not %d; --to gcs stores N-d tensors in CSR/CSC form", to, x.NumDims())
		}
		axis := gcs.Rows
		if to == "csc" {
			axis = gcs.Cols
		}
		opts := gcs.Options{IndicesType: o.indexType, IndptrType: indptrTypeFor(t, o.indptrType, nil, x.NNZ())}
		return gcs.FromCOO(mem, x, axis, opts)
	case "gcs":
		return toGCS(mem, t, x, o)
	}
	return nil, fmt.Errorf("conversion to %s is not available", to)
}

func toCSF(mem memory.Allocator, src as.Tensor, x *coo.Tensor, o *convertOpts, it arrow.DataType) (as.Tensor, error) {
	nd := x.NumDims()
	if nd < 2 {
		return nil, as.Errorf(as.ErrShape, "a CSF tensor needs at least 2 dimensions, not %d", nd)
	}
	order := o.axisOrder
	if order == nil {
		if s, ok := src.(*csf.Tensor); ok {
			order = s.AxisOrder()
		}
	}
	if order != nil {
		if err := as.CheckPermutation(order, nd, "--axis-order"); err != nil {
			return nil, err
		}
	}
	pt := indptrTypeFor(src, o.indptrType, it, x.NNZ()+1)
	opts := csf.Options{AxisOrder: order, IndicesTypes: make([]arrow.DataType, nd), IndptrTypes: make([]arrow.DataType, nd-1)}
	for l := range nd {
		opts.IndicesTypes[l] = it
		if l < nd-1 {
			opts.IndptrTypes[l] = pt
		}
	}
	return csf.FromCOO(mem, x, opts)
}

// toGCS stores x as a GCS tensor. The mapping is --dimensions and
// --partitioning, else the source's (a GCS source also keeps its storage
// axis), else the identity with every dimension but the last as a row
// dimension.
func toGCS(mem memory.Allocator, src as.Tensor, x *coo.Tensor, o *convertOpts) (as.Tensor, error) {
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
	opts := gcs.Options{IndicesType: o.indexType, IndptrType: indptrTypeFor(src, o.indptrType, nil, x.NNZ())}
	g, err := gcs.TensorFromCOO(mem, x, dims, p, opts)
	if err != nil || axis == gcs.Rows {
		return g, err
	}
	defer g.Release()
	return g.WithStorage(mem, axis, opts)
}
