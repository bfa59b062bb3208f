package compute

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/views"
)

// Add returns a + b, element by element, for two tensors of the same shape
// and value type in any formats. See the package documentation for the
// formats, orders and types of the result, and for integer overflow. The
// result must be released by the caller.
func Add(mem memory.Allocator, a, b arrowsparse.Tensor, o Options) (arrowsparse.Tensor, error) {
	return binary(mem, a, b, opAdd, o)
}

// Subtract returns a - b, element by element, as Add does.
func Subtract(mem memory.Allocator, a, b arrowsparse.Tensor, o Options) (arrowsparse.Tensor, error) {
	return binary(mem, a, b, opSub, o)
}

// Multiply returns a * b, element by element (scipy's A.multiply(B), not
// the matrix product), as Add does. The result stores at most the entries
// stored in both operands.
func Multiply(mem memory.Allocator, a, b arrowsparse.Tensor, o Options) (arrowsparse.Tensor, error) {
	return binary(mem, a, b, opMul, o)
}

// Minimum returns the element-wise minimum of a and b, implicit zeros
// included, as NumPy's minimum (NaN propagates; of -0 and +0 either may
// come out), and in the manner of Add otherwise.
func Minimum(mem memory.Allocator, a, b arrowsparse.Tensor, o Options) (arrowsparse.Tensor, error) {
	return binary(mem, a, b, opMin, o)
}

// Maximum returns the element-wise maximum of a and b, as Minimum does.
func Maximum(mem memory.Allocator, a, b arrowsparse.Tensor, o Options) (arrowsparse.Tensor, error) {
	return binary(mem, a, b, opMax, o)
}

func binary(mem memory.Allocator, a, b arrowsparse.Tensor, p op, o Options) (arrowsparse.Tensor, error) {
	shape := a.Shape()
	if !slices.Equal(shape, b.Shape()) {
		return nil, core.Errorf(arrowsparse.ErrShape, "compute: %s of tensors of shapes %v and %v", p, shape, b.Shape())
	}
	vt := a.DataType()
	if err := core.CheckValueType(vt); err != nil {
		return nil, err
	}
	if !arrow.TypeEqual(vt, b.DataType()) {
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "compute: %s of %s and %s values (convert one with AsType)", p, vt, b.DataType())
	}
	if err := checkRequest(o.IndexType, o.IndptrType); err != nil {
		return nil, err
	}
	tg, err := targetOf(a, o.Format, shape)
	if err != nil {
		return nil, err
	}
	ca, err := conform(mem, a, tg, o.Workers)
	if err != nil {
		return nil, err
	}
	defer ca.Release()
	cb, err := conform(mem, b, tg, o.Workers)
	if err != nil {
		return nil, err
	}
	defer cb.Release()
	if vt.ID() == arrow.FLOAT16 {
		// Compute in float32, where every result is exact or rounded once
		// to float16's precision and then rounded to float16, then drop
		// the results that round to zero.
		wa, err := widenHalf(mem, ca)
		if err != nil {
			return nil, err
		}
		defer wa.Release()
		wb, err := widenHalf(mem, cb)
		if err != nil {
			return nil, err
		}
		defer wb.Release()
		keep := o
		keep.KeepZeros = true
		r, err := merge(mem, wa, wb, tg, p, keep)
		if err != nil {
			return nil, err
		}
		defer r.Release()
		h, err := narrowHalf(mem, r)
		if err != nil || o.KeepZeros {
			return h, err
		}
		defer h.Release()
		return EliminateZeros(mem, h, o)
	}
	return merge(mem, ca, cb, tg, p, o)
}

// checkRequest checks requested index types.
func checkRequest(types ...arrow.DataType) error {
	for _, dt := range types {
		if dt != nil {
			if err := core.CheckIndexType(dt); err != nil {
				return err
			}
		}
	}
	return nil
}

// merge combines two operands that conform to the target, whose values
// have a Number type.
func merge(mem memory.Allocator, a, b arrowsparse.Tensor, tg target, p op, o Options) (arrowsparse.Tensor, error) {
	switch tg.format {
	case CSR, CSC:
		return mergeMatrix(mem, a.(*gcs.Matrix), b.(*gcs.Matrix), p, o)
	case GCS:
		ga, gb := a.(*gcs.Tensor), b.(*gcs.Tensor)
		m, err := mergeMatrix(mem, ga.Storage(), gb.Storage(), p, o)
		if err != nil {
			return nil, err
		}
		defer m.Release()
		return wrapGCS(ga, m)
	case COO:
		return mergeCOO(mem, a.(*coo.Tensor), b.(*coo.Tensor), p, o)
	case CSF:
		return mergeCSF(mem, a.(*csf.Tensor), b.(*csf.Tensor), p, o)
	}
	return mergeDense(mem, a.(*views.View), b.(*views.View), p)
}

// mergeMatrix combines two matrices of the same shape and axis with sorted
// lanes.
func mergeMatrix(mem memory.Allocator, a, b *gcs.Matrix, p op, o Options) (*gcs.Matrix, error) {
	a, err := canonicalMatrix(mem, a, o.Workers)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	b, err = canonicalMatrix(mem, b, o.Workers)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	if hypersparse(a, b) {
		return mergeHypersparse(mem, a, b, p, o)
	}
	it := wider(a.IndexType(), b.IndexType())
	if a, err = a.WithIndexTypes(mem, nil, it); err != nil {
		return nil, err
	}
	defer a.Release()
	if b, err = b.WithIndexTypes(mem, nil, it); err != nil {
		return nil, err
	}
	defer b.Release()
	r, err := mergeByValue(mem, a, b, p, o)
	if err != nil || o.IndexType == nil || arrow.TypeEqual(o.IndexType, it) {
		return r, err
	}
	defer r.Release()
	return r.WithIndexTypes(mem, nil, o.IndexType)
}

// hypersparse reports whether two matrices have many more lanes than
// entries: then the lane merge's arrays per lane (widened pointers and
// ends, 8 bytes a lane each) would dwarf the entries, up to gigabytes for
// a shape of 2^31 rows holding a handful of values.
func hypersparse(a, b *gcs.Matrix) bool {
	return a.Lanes() > 4*(a.NNZ()+b.NNZ())+1<<16
}

// mergeHypersparse is mergeMatrix for hypersparse canonical operands: it
// merges their entries by coordinates, in memory in proportion to the
// entries, and compresses the result once (its pointers are the only
// array per lane).
func mergeHypersparse(mem memory.Allocator, a, b *gcs.Matrix, p op, o Options) (*gcs.Matrix, error) {
	it, err := chooseIndex(o.IndexType, wider(a.IndexType(), b.IndexType()), maxDim(a.Shape())-1, "the indices of the result")
	if err != nil {
		return nil, err
	}
	// A CSR's entries come row-major, which buildCOO can claim; a CSC's
	// come column by column, and the compression sorts them.
	order, rowMajor := []int{0, 1}, true
	if a.Axis() == gcs.Cols {
		order, rowMajor = []int{1, 0}, false
	}
	r, err := withEntries(a, b, order, p, o.KeepZeros, func(coords []int64, vals []byte, n int64) (arrowsparse.Tensor, error) {
		pt, err := chooseIndex(o.IndptrType, wider(a.IndptrType(), b.IndptrType()), n, "the number of entries of the result")
		if err != nil {
			return nil, err
		}
		c, err := buildCOO(mem, a.Shape(), a.DimNames(), coords, a.DataType(), vals, n, it, rowMajor)
		if err != nil {
			return nil, err
		}
		defer c.Release()
		return gcs.MatrixFromCOO(mem, c, a.Axis(), gcs.ConvertOptions{Workers: o.Workers, IndexType: it, IndptrType: pt})
	})
	if err != nil {
		return nil, err
	}
	return r.(*gcs.Matrix), nil
}

// canonicalMatrix returns m if it is canonical (retained), and otherwise
// its canonical form along the same axis.
func canonicalMatrix(mem memory.Allocator, m *gcs.Matrix, workers int) (*gcs.Matrix, error) {
	if m.IsCanonical() {
		m.Retain()
		return m, nil
	}
	c, err := m.ToCOO(mem, gcs.ConvertOptions{Workers: workers})
	if err != nil {
		return nil, err
	}
	defer c.Release()
	return gcs.MatrixFromCOO(mem, c, m.Axis(), gcs.ConvertOptions{Workers: workers, IndexType: m.IndexType(), IndptrType: m.IndptrType()})
}

func mergeByValue(mem memory.Allocator, a, b *gcs.Matrix, p op, o Options) (*gcs.Matrix, error) {
	switch a.DataType().ID() {
	case arrow.INT8:
		return mergeByIndex[int8](mem, a, b, p, o)
	case arrow.INT16:
		return mergeByIndex[int16](mem, a, b, p, o)
	case arrow.INT32:
		return mergeByIndex[int32](mem, a, b, p, o)
	case arrow.INT64:
		return mergeByIndex[int64](mem, a, b, p, o)
	case arrow.UINT8:
		return mergeByIndex[uint8](mem, a, b, p, o)
	case arrow.UINT16:
		return mergeByIndex[uint16](mem, a, b, p, o)
	case arrow.UINT32:
		return mergeByIndex[uint32](mem, a, b, p, o)
	case arrow.UINT64:
		return mergeByIndex[uint64](mem, a, b, p, o)
	case arrow.FLOAT32:
		return mergeByIndex[float32](mem, a, b, p, o)
	case arrow.FLOAT64:
		return mergeByIndex[float64](mem, a, b, p, o)
	}
	return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "compute: %s of %s values", p, a.DataType())
}

func mergeByIndex[T arrowsparse.Number](mem memory.Allocator, a, b *gcs.Matrix, p op, o Options) (*gcs.Matrix, error) {
	switch a.IndexType().ID() {
	case arrow.INT8:
		return mergeMatrices[int8, T](mem, a, b, p, o.KeepZeros, o.Workers, o.IndptrType)
	case arrow.INT16:
		return mergeMatrices[int16, T](mem, a, b, p, o.KeepZeros, o.Workers, o.IndptrType)
	case arrow.INT32:
		return mergeMatrices[int32, T](mem, a, b, p, o.KeepZeros, o.Workers, o.IndptrType)
	case arrow.INT64:
		return mergeMatrices[int64, T](mem, a, b, p, o.KeepZeros, o.Workers, o.IndptrType)
	case arrow.UINT8:
		return mergeMatrices[uint8, T](mem, a, b, p, o.KeepZeros, o.Workers, o.IndptrType)
	case arrow.UINT16:
		return mergeMatrices[uint16, T](mem, a, b, p, o.KeepZeros, o.Workers, o.IndptrType)
	}
	return mergeMatrices[uint32, T](mem, a, b, p, o.KeepZeros, o.Workers, o.IndptrType)
}

// mergeCOO combines two canonical COO tensors.
func mergeCOO(mem memory.Allocator, a, b *coo.Tensor, p op, o Options) (*coo.Tensor, error) {
	it, err := chooseIndex(o.IndexType, wider(a.IndexType(), b.IndexType()), maxDim(a.Shape())-1, "the coordinates of the result")
	if err != nil {
		return nil, err
	}
	order := identity(a.NumDims())
	r, err := withEntries(a, b, order, p, o.KeepZeros, func(coords []int64, vals []byte, n int64) (arrowsparse.Tensor, error) {
		return buildCOO(mem, a.Shape(), a.DimNames(), coords, a.DataType(), vals, n, it, true)
	})
	if err != nil {
		return nil, err
	}
	return r.(*coo.Tensor), nil
}

// mergeCSF combines two CSF tensors with the same axis order.
func mergeCSF(mem memory.Allocator, a, b *csf.Tensor, p op, o Options) (*csf.Tensor, error) {
	it, pt := csfTypes([]*csf.Tensor{a, b}, nil, nil)
	it, err := chooseIndex(o.IndexType, it, maxDim(a.Shape())-1, "the indices of the result")
	if err != nil {
		return nil, err
	}
	r, err := withEntries(a, b, a.AxisOrder(), p, o.KeepZeros, func(coords []int64, vals []byte, n int64) (arrowsparse.Tensor, error) {
		pt, err := chooseIndex(o.IndptrType, pt, n, "the positions of the result")
		if err != nil {
			return nil, err
		}
		return buildCSF(mem, a.Shape(), a.DimNames(), a.AxisOrder(), coords, a.DataType(), vals, n, it, pt)
	})
	if err != nil {
		return nil, err
	}
	return r.(*csf.Tensor), nil
}

// withEntries merges the entries of a and b, sorted in the given order,
// under p, and passes the result to build.
func withEntries[X arrowsparse.Sparse](a, b X, order []int, p op, keep bool, build func(coords []int64, vals []byte, n int64) (arrowsparse.Tensor, error)) (arrowsparse.Tensor, error) {
	switch a.DataType().ID() {
	case arrow.INT8:
		return mergeAndBuild[int8](a, b, order, p, keep, build)
	case arrow.INT16:
		return mergeAndBuild[int16](a, b, order, p, keep, build)
	case arrow.INT32:
		return mergeAndBuild[int32](a, b, order, p, keep, build)
	case arrow.INT64:
		return mergeAndBuild[int64](a, b, order, p, keep, build)
	case arrow.UINT8:
		return mergeAndBuild[uint8](a, b, order, p, keep, build)
	case arrow.UINT16:
		return mergeAndBuild[uint16](a, b, order, p, keep, build)
	case arrow.UINT32:
		return mergeAndBuild[uint32](a, b, order, p, keep, build)
	case arrow.UINT64:
		return mergeAndBuild[uint64](a, b, order, p, keep, build)
	case arrow.FLOAT32:
		return mergeAndBuild[float32](a, b, order, p, keep, build)
	case arrow.FLOAT64:
		return mergeAndBuild[float64](a, b, order, p, keep, build)
	}
	return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "compute: %s of %s values", p, a.DataType())
}

func mergeAndBuild[T arrowsparse.Number](a, b arrowsparse.Sparse, order []int, p op, keep bool, build func(coords []int64, vals []byte, n int64) (arrowsparse.Tensor, error)) (arrowsparse.Tensor, error) {
	r := mergeEntries(entriesOf[T](a), entriesOf[T](b), order, p, keep)
	return build(r.coords, core.BytesOf(r.vals), int64(r.len()))
}

// mergeDense combines two dense views, element by element, into a new
// row-major view.
func mergeDense(mem memory.Allocator, a, b *views.View, p op) (*views.View, error) {
	da, err := denseOf(mem, a)
	if err != nil {
		return nil, err
	}
	defer da.Release()
	db, err := denseOf(mem, b)
	if err != nil {
		return nil, err
	}
	defer db.Release()
	out, err := views.Alloc(mem, a.DataType(), a.Shape())
	if err != nil {
		return nil, err
	}
	if names := a.DimNames(); names != nil {
		defer out.Release()
		if out, err = out.WithDimNames(names...); err != nil {
			return nil, err
		}
	}
	x, _ := storedValues(da)
	y, _ := storedValues(db)
	z, _ := storedValues(out)
	denseOp(a.DataType(), p, x, y, z)
	return out, nil
}

func denseOp(dt arrow.DataType, p op, x, y, z []byte) {
	switch dt.ID() {
	case arrow.INT8:
		denseTyped[int8](p, x, y, z)
	case arrow.INT16:
		denseTyped[int16](p, x, y, z)
	case arrow.INT32:
		denseTyped[int32](p, x, y, z)
	case arrow.INT64:
		denseTyped[int64](p, x, y, z)
	case arrow.UINT8:
		denseTyped[uint8](p, x, y, z)
	case arrow.UINT16:
		denseTyped[uint16](p, x, y, z)
	case arrow.UINT32:
		denseTyped[uint32](p, x, y, z)
	case arrow.UINT64:
		denseTyped[uint64](p, x, y, z)
	case arrow.FLOAT32:
		denseTyped[float32](p, x, y, z)
	case arrow.FLOAT64:
		denseTyped[float64](p, x, y, z)
	}
}

func denseTyped[T arrowsparse.Number](p op, xb, yb, zb []byte) {
	x, y, z := core.MustSliceBytes[T](xb), core.MustSliceBytes[T](yb), core.MustSliceBytes[T](zb)
	y, z = y[:len(x)], z[:len(x)]
	for i := range x {
		z[i] = both(p, x[i], y[i])
	}
}

// identity returns 0, 1, …, n-1.
func identity(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return p
}

// maxDim returns the largest dimension of shape, or 1 for a 0-d shape.
func maxDim(shape []int64) int64 {
	m := int64(1)
	for _, d := range shape {
		m = max(m, d)
	}
	return m
}
