package csf

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/coords"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/par"
	"github.com/arrowsparse/arrowsparse/views"
)

// TTV multiplies the tensor by the vector v along dimension mode (the
// tensor-times-vector product):
//
//	y[c without c[mode]] = Σ_i x[c with c[mode] = i] · v[i]
//
// and returns y as a CSF tensor of rank NumDims()-1 over the other
// dimensions (in their order, with their names), whose axis order is the
// receiver's with mode removed. The tensor needs at least 3 dimensions (see
// TTVDense for matrices). Arithmetic is in T, the value type; integers
// wrap around.
//
// The structure is the structural product: a fiber or coordinate appears
// in y if x stores something there, even if the sum is zero.
//
// When mode is the leaf level, y shares every buffer of the receiver but
// the last indices and the values: its levels are the receiver's upper
// levels, and its values (one per fiber, the fiber's dot product with v,
// computed in parallel) are a new buffer from mem. For any other level
// the contributions x·v[i] are sorted into the new tree as FromCOO sorts
// entries, summing those that meet, into new buffers from mem; indptr
// types stay by level position (widened to the narrowest signed type that
// holds NNZ where needed), indices types follow their dimension. The
// result does not depend on o.Workers. It must be released by the caller.
//
// It returns an error wrapping arrowsparse.ErrUnsupportedType if T is not the
// value type, and arrowsparse.ErrShape if mode is not a dimension, the tensor has
// fewer than 3 dimensions or len(v) differs from the size of mode.
func TTV[T arrowsparse.Number](mem memory.Allocator, t *Tensor, mode int, v []T, o KernelOptions) (*Tensor, error) {
	vs, err := t.ttvCheck(mode, len(v), arrowsparse.DataTypeOf[T]())
	if err != nil {
		return nil, err
	}
	nl := len(t.levels)
	if nl < 3 {
		return nil, core.Errorf(arrowsparse.ErrShape, "csf: TTV of a %d-d tensor has fewer than 2 dimensions; use TTVDense", nl)
	}
	vals := core.MustSliceBytes[T](vs)
	d := slices.Index(t.order, mode)
	// The result's dimensions and axis order.
	shape := slices.Delete(slices.Clone(t.shape), mode, mode+1)
	var names []string
	if t.names != nil {
		names = core.CloneDimNames(slices.Delete(slices.Clone(t.names), mode, mode+1))
	}
	order := make([]int, 0, nl-1)
	for _, k := range t.order {
		switch {
		case k < mode:
			order = append(order, k)
		case k > mode:
			order = append(order, k-1)
		}
	}
	workers := par.Workers(o.Workers)
	leafLo, leafHi := t.leafRange()

	if d == nl-1 {
		fib := &t.levels[nl-2]
		y := &Tensor{valueType: t.valueType, shape: shape, names: names, order: order, levels: make([]level, nl-1), unchecked: t.unchecked}
		copy(y.levels, t.levels[:nl-1])
		y.levels[nl-2].ptr, y.levels[nl-2].ptrType = nil, nil
		y.nnz = fib.n
		y.vshift = fib.off
		y.values = core.NewBuffer(mem, fib.n*int64(arrowsparse.ByteWidth(t.valueType)))
		out := core.MustSliceBytes[T](y.values.Bytes())
		if t.nnz < 1<<12 {
			workers = 1
		}
		cuts := splitLeaves(fib.off, fib.off+fib.n, workers)
		par.Do(workers, func(c int) {
			w := newWalker(t)
			fp, li := &w.ptr[nl-2], &w.idx[nl-1]
			for i := cuts[c]; i < cuts[c+1]; i++ {
				s, e := fp.at(i), fp.at(i+1)
				var acc T
				for j, x := range li.span(s, e) {
					acc += vals[s-leafLo+int64(j)] * v[x]
				}
				out[i-fib.off] = acc
			}
		})
		vb := y.values
		y.values = nil
		y.retainBuffers() // the shared levels
		y.values = vb
		y.refCount.Store(1)
		return y, nil
	}

	// Sort the contributions into a new tree.
	spec := &buildSpec{
		valueType: t.valueType,
		shape:     shape,
		names:     names,
		order:     order,
		idxTypes:  make([]arrow.DataType, 0, nl-1),
		ptrTypes:  make([]arrow.DataType, 0, nl-2),
		workers:   workers,
	}
	for l := range t.levels {
		if l != d {
			spec.idxTypes = append(spec.idxTypes, t.levels[l].idxType)
		}
		if l < nl-2 {
			pt := t.levels[l].ptrType
			if t.nnz > arrowsparse.IndexMax(pt) {
				pt = arrowsparse.SmallestIndexType(t.nnz)
			}
			spec.ptrTypes = append(spec.ptrTypes, pt)
		}
	}
	contrib := make([]T, t.nnz)
	cuts := splitLeaves(leafLo, leafHi, workers)
	par.Do(workers, func(c int) {
		t.walkRows(cuts[c], cuts[c+1], func(j int64, row []int64) {
			k := cuts[c] - leafLo + j
			contrib[k] = vals[k] * v[row[d]]
		})
	})
	// The receiver's levels by dimension of the result: the contracted mode
	// has none (-1), the ones above it move down.
	axes := make([]int, nl)
	for l, k := range t.order {
		switch {
		case k < mode:
			axes[l] = k
		case k > mode:
			axes[l] = k - 1
		default:
			axes[l] = -1
		}
	}
	lin := coords.Linearize(shape, order)
	e := entries{
		n:       t.nnz,
		in:      core.BytesOf(contrib),
		keyBits: lin.KeyBits,
		bounds:  lin.Bounds,
		keys:    t.levelKeys(leafLo, lin.Strides, axes),
	}
	return sortAndBuild(mem, spec, &e, arrowsparse.SumDuplicates)
}

// ttvCheck checks the arguments of TTV and TTVDense and returns the bytes
// of the tensor's values.
func (t *Tensor) ttvCheck(mode, n int, dt arrow.DataType) ([]byte, error) {
	if !arrow.TypeEqual(dt, t.valueType) {
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "csf: values are %s, not %s", t.valueType, dt)
	}
	if mode < 0 || mode >= len(t.shape) {
		return nil, core.Errorf(arrowsparse.ErrShape, "csf: mode %d of a %d-d tensor", mode, len(t.shape))
	}
	if int64(n) != t.shape[mode] {
		return nil, core.Errorf(arrowsparse.ErrShape, "csf: vector of length %d for dimension %d of size %d", n, mode, t.shape[mode])
	}
	lo, _ := t.leafRange()
	w := int64(arrowsparse.ByteWidth(t.valueType))
	if t.nnz == 0 {
		return nil, nil
	}
	return t.values.Bytes()[(lo-t.vshift)*w : (lo-t.vshift+t.nnz)*w], nil
}

// TTVDense is TTV with a dense result: a new row-major view of the other
// dimensions, in a buffer from mem, for tensors of any rank (for a matrix
// it is the matrix-vector product). It walks the tree once on one
// goroutine, adding each product at its position in tree order (o is
// accepted for the kernels' common call shape). It fails
// with an error wrapping arrowsparse.ErrOverflow if the dense size does not fit in
// int64, besides TTV's errors. The result must be released by the caller.
func TTVDense[T arrowsparse.Number](mem memory.Allocator, t *Tensor, mode int, v []T, o KernelOptions) (*views.View, error) {
	vs, err := t.ttvCheck(mode, len(v), arrowsparse.DataTypeOf[T]())
	if err != nil {
		return nil, err
	}
	vals := core.MustSliceBytes[T](vs)
	shape := slices.Delete(slices.Clone(t.shape), mode, mode+1)
	var names []string
	if t.names != nil {
		names = slices.Delete(slices.Clone(t.names), mode, mode+1)
	}
	size, err := arrowsparse.NumElements(shape)
	if err != nil {
		return nil, err
	}
	if _, ok := core.MulInt64(size, int64(arrowsparse.ByteWidth(t.valueType))); !ok {
		return nil, core.Errorf(arrowsparse.ErrOverflow, "csf: dense size of shape %v overflows int64 bytes", shape)
	}
	y, err := views.AllocNamed(mem, t.valueType, shape, core.CloneDimNames(names))
	if err != nil {
		return nil, err
	}
	out := core.MustSliceBytes[T](y.Buffer().Bytes())
	rs, _ := arrowsparse.RowMajorStrides(shape)
	d := slices.Index(t.order, mode)
	st := make([]int64, len(t.levels)) // output stride of each level; 0 for mode
	for l, k := range t.order {
		switch {
		case k < mode:
			st[l] = rs[k]
		case k > mode:
			st[l] = rs[k-1]
		}
	}
	lo, hi := t.leafRange()
	t.walkRows(lo, hi, func(j int64, row []int64) {
		var q int64
		for l, c := range row {
			q += c * st[l]
		}
		out[q] += vals[j] * v[row[d]]
	})
	return y, nil
}
