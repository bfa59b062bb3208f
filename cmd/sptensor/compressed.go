package main

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	as "github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
)

// compressedIndexType returns the indices type of a CSR, CSC, GCS or CSF
// tensor, or nil.
func compressedIndexType(t as.Tensor) arrow.DataType {
	switch x := t.(type) {
	case *csf.Tensor:
		return x.IndicesType(0)
	}
	return nil
}

// compressedIndptrType returns the indptr type of a CSR, CSC, GCS or CSF
// tensor, or nil.
func compressedIndptrType(t as.Tensor) arrow.DataType {
	switch x := t.(type) {
	case *csf.Tensor:
		return x.IndptrType(0)
	}
	return nil
}

// compressedToCOO converts a CSR, CSC, GCS or CSF tensor to canonical COO.
func compressedToCOO(mem memory.Allocator, t as.Tensor, it arrow.DataType) (*coo.Tensor, error) {
	switch x := t.(type) {
	case *csf.Tensor:
		return x.ToCOO(mem)
	}
	return nil, fmt.Errorf("cannot convert a %s tensor", t.Format())
}

// indptrTypeFor picks the indptr type of a conversion's result: want if
// given, else the source's indptr type when it holds need, else the
// indices type it.
func indptrTypeFor(t as.Tensor, want, it arrow.DataType, need int64) arrow.DataType {
	if want != nil {
		return want
	}
	if src := compressedIndptrType(t); src != nil && as.IndexMax(src) >= need {
		return src
	}
	return it
}

// convertCompressed converts t to CSR, CSC, CSF or GCS.
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
