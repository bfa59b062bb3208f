package compute

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// target is a format together with the order its entries are stored in.
type target struct {
	format  Format
	mapping gcs.Mapping // GCS: the mapping
	axis    gcs.Axis    // GCS: the storage's compressed axis
	order   []int       // CSF: the axis order
}

// formatOf returns the format of x as a result format, and false for a
// tensor no result can have (a DM, a remapped view, a foreign type).
func formatOf(x arrowsparse.Tensor) (Format, bool) {
	switch t := x.(type) {
	case *coo.Tensor:
		return COO, true
	case *gcs.Matrix:
		if t.Axis() == gcs.Cols {
			return CSC, true
		}
		return CSR, true
	case *gcs.Tensor:
		return GCS, true
	case *csf.Tensor:
		return CSF, true
	case arrowsparse.Dense:
		return Dense, true
	}
	return Auto, false
}

// targetOf returns the target for a result of format f and shape shape:
// x's own order when x has format f, the format's default order otherwise.
// An unknown x or an Auto f gives x's format, or COO.
func targetOf(x arrowsparse.Tensor, f Format, shape []int64) (target, error) {
	xf, ok := formatOf(x)
	if f == Auto {
		f = COO
		if ok {
			f = xf
		}
	}
	tg := target{format: f}
	switch f {
	case CSR, CSC:
		if len(shape) != 2 {
			return tg, core.Errorf(arrowsparse.ErrShape, "compute: a %s result must be 2-d, not of shape %v", f, shape)
		}
	case CSF:
		if len(shape) < 2 {
			return tg, core.Errorf(arrowsparse.ErrShape, "compute: a CSF result needs 2 dimensions or more, not shape %v", shape)
		}
		if t, isCSF := x.(*csf.Tensor); isCSF && xf == f {
			tg.order = t.AxisOrder()
		} else {
			tg.order = csf.DefaultAxisOrder(shape)
		}
	case GCS:
		if t, isGCS := x.(*gcs.Tensor); isGCS && xf == f {
			tg.mapping = t.Mapping()
			tg.axis = t.Storage().Axis()
			break
		}
		var err error
		if len(shape) == 0 {
			tg.mapping, err = gcs.IdentityMapping(shape)
		} else {
			tg.mapping, err = gcs.FromCompressedAxes(shape, []int{0})
		}
		if err != nil {
			return tg, err
		}
	case Dense, COO:
	default:
		return tg, core.Errorf(arrowsparse.ErrStructure, "compute: unknown result format %d", f)
	}
	return tg, nil
}

// conform returns x in the target's format and order, with sorted entries
// (for CSR, CSC and GCS, sorted lanes that may hold duplicates; for COO
// and CSF, canonical). It returns x itself, retained, when it conforms
// already. The result must be released by the caller.
func conform(mem memory.Allocator, x arrowsparse.Tensor, tg target, workers int) (arrowsparse.Tensor, error) {
	switch tg.format {
	case Dense:
		return denseOf(mem, x)
	case COO:
		return toCOO(mem, x, workers, true)
	case CSR, CSC:
		axis := gcs.Rows
		if tg.format == CSC {
			axis = gcs.Cols
		}
		return toMatrix(mem, x, axis, workers)
	case GCS:
		return toGCS(mem, x, tg.mapping, tg.axis, workers)
	case CSF:
		return toCSF(mem, x, tg.order, workers)
	}
	return nil, core.Errorf(arrowsparse.ErrStructure, "compute: unknown result format %d", tg.format)
}

// toCOO returns x as a COO tensor, canonical if canon is set. The result
// must be released by the caller.
func toCOO(mem memory.Allocator, x arrowsparse.Tensor, workers int, canon bool) (*coo.Tensor, error) {
	var c *coo.Tensor
	var err error
	switch t := x.(type) {
	case *coo.Tensor:
		t.Retain()
		c = t
	case *gcs.Matrix:
		c, err = t.ToCOO(mem, gcs.ConvertOptions{Workers: workers})
	case *gcs.Tensor:
		c, err = t.ToCOO(mem, gcs.ConvertOptions{Workers: workers})
	case *csf.Tensor:
		c, err = t.ToCOO(mem, csf.ConvertOptions{Workers: workers})
	case *gcs.DM:
		c, err = t.ToCOO(mem, gcs.ConvertOptions{Workers: workers})
	case arrowsparse.Dense:
		// coo.FromDense drops zeros; a dense operand's zeros are implicit.
		return coo.FromDense(mem, t, coo.ConvertOptions{Workers: workers})
	default:
		d, derr := x.ToDense(mem)
		if derr != nil {
			return nil, derr
		}
		defer d.Release()
		return coo.FromDense(mem, d, coo.ConvertOptions{Workers: workers})
	}
	if err != nil {
		return nil, err
	}
	if !canon || c.IsCanonical() {
		return c, nil
	}
	defer c.Release()
	return c.Canonicalize(mem, coo.ConvertOptions{Workers: workers})
}

// toMatrix returns x as a matrix compressed along axis with sorted lanes.
// The result must be released by the caller.
func toMatrix(mem memory.Allocator, x arrowsparse.Tensor, axis gcs.Axis, workers int) (*gcs.Matrix, error) {
	o := gcs.ConvertOptions{Workers: workers}
	switch t := x.(type) {
	case *gcs.Matrix:
		if !t.IsSorted() {
			break
		}
		if t.Axis() == axis {
			t.Retain()
			return t, nil
		}
		if axis == gcs.Rows {
			return t.ToCSR(mem, o)
		}
		return t.ToCSC(mem, o)
	case *gcs.Tensor:
		if m, err := t.AsMatrix(); err == nil {
			defer m.Release()
			return toMatrix(mem, m, axis, workers)
		}
	}
	c, err := toCOO(mem, x, workers, false)
	if err != nil {
		return nil, err
	}
	defer c.Release()
	if c.NumDims() != 2 {
		return nil, core.Errorf(arrowsparse.ErrShape, "compute: a %d-d tensor cannot be a matrix", c.NumDims())
	}
	return gcs.MatrixFromCOO(mem, c, axis, o)
}

// toGCS returns x as a GCS tensor with mapping mp over a storage with
// sorted lanes compressed along axis. The result must be released by the
// caller.
func toGCS(mem memory.Allocator, x arrowsparse.Tensor, mp gcs.Mapping, axis gcs.Axis, workers int) (*gcs.Tensor, error) {
	o := gcs.ConvertOptions{Workers: workers}
	var g *gcs.Tensor
	switch t := x.(type) {
	case *gcs.Tensor:
		if t.Storage().IsSorted() {
			var err error
			if g, err = t.Remap(mem, mp, o); err != nil {
				return nil, err
			}
		}
	case *gcs.Matrix:
		if t.IsSorted() {
			f := gcs.FromMatrix(t)
			defer f.Release()
			return toGCS(mem, f, mp, axis, workers)
		}
	}
	if g == nil || !g.Storage().IsSorted() {
		if g != nil {
			g.Release()
		}
		c, err := toCOO(mem, x, workers, false)
		if err != nil {
			return nil, err
		}
		defer c.Release()
		o.Mapping = mp
		if g, err = gcs.FromCOO(mem, c, o); err != nil {
			return nil, err
		}
	}
	if g.Storage().Axis() == axis {
		return g, nil
	}
	defer g.Release()
	return g.WithStorage(mem, axis, o)
}

// toCSF returns x as a CSF tensor with the given axis order. The result
// must be released by the caller.
func toCSF(mem memory.Allocator, x arrowsparse.Tensor, order []int, workers int) (*csf.Tensor, error) {
	if t, ok := x.(*csf.Tensor); ok && t.IsCanonical() {
		if slices.Equal(t.AxisOrder(), order) {
			t.Retain()
			return t, nil
		}
		return t.WithAxisOrder(mem, order...)
	}
	c, err := toCOO(mem, x, workers, false)
	if err != nil {
		return nil, err
	}
	defer c.Release()
	return csf.FromCOO(mem, c, csf.ConvertOptions{Workers: workers, AxisOrder: order})
}
