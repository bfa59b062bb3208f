package gcs_test

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/gcs"
)

// Short names for the types the tests use most.
var (
	i32 = arrow.PrimitiveTypes.Int32
	i64 = arrow.PrimitiveTypes.Int64
	f64 = arrow.PrimitiveTypes.Float64
)

// mapped returns o with the mapping (dims, p) of shape.
func mapped(shape []int64, dims []int, p int, o gcs.ConvertOptions) (gcs.ConvertOptions, error) {
	mp, err := gcs.NewMapping(shape, dims, p)
	o.Mapping = mp
	return o, err
}

// fromCOOMapped is gcs.FromCOO with the mapping (dims, p).
func fromCOOMapped(mem memory.Allocator, x *coo.Tensor, dims []int, p int, o gcs.ConvertOptions) (*gcs.Tensor, error) {
	o, err := mapped(x.Shape(), dims, p, o)
	if err != nil {
		return nil, err
	}
	return gcs.FromCOO(mem, x, o)
}

// fromDenseMapped is gcs.FromDense with the mapping (dims, p).
func fromDenseMapped(mem memory.Allocator, d arrowsparse.Dense, dims []int, p int, o gcs.ConvertOptions) (*gcs.Tensor, error) {
	o, err := mapped(d.Shape(), dims, p, o)
	if err != nil {
		return nil, err
	}
	return gcs.FromDense(mem, d, o)
}

// remapTo is Tensor.Remap to the mapping (dims, p).
func remapTo(mem memory.Allocator, g *gcs.Tensor, dims []int, p int, o gcs.ConvertOptions) (*gcs.Tensor, error) {
	mp, err := gcs.NewMapping(g.Shape(), dims, p)
	if err != nil {
		return nil, err
	}
	return g.Remap(mem, mp, o)
}

// toGCSMapped is DM.ToGCS with the mapping (dims, p).
func toGCSMapped(mem memory.Allocator, d *gcs.DM, dims []int, p int, o gcs.ConvertOptions) (*gcs.Tensor, error) {
	o, err := mapped(d.Shape(), dims, p, o)
	if err != nil {
		return nil, err
	}
	return d.ToGCS(mem, o)
}
