package csf

import (
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/tensor"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/coords"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/vals"
	"github.com/arrowsparse/arrowsparse/views"
)

// ToDense returns a new row-major dense view of the tensor, in a buffer
// from mem, keeping the dimension names. It fails with an error wrapping
// arrowsparse.ErrOverflow if the dense size does not fit in int64. The result must
// be released by the caller.
func (t *Tensor) ToDense(mem memory.Allocator) (arrowsparse.Dense, error) {
	return t.ToView(mem, ConvertOptions{})
}

// ToView is ToDense returning the *views.View. A CSF tensor has no
// duplicates, so o.Duplicates does not apply. The result must be released
// by the caller.
func (t *Tensor) ToView(mem memory.Allocator, o ConvertOptions) (*views.View, error) {
	size, err := arrowsparse.NumElements(t.shape)
	if err != nil {
		return nil, err
	}
	if _, ok := core.MulInt64(size, int64(arrowsparse.ByteWidth(t.valueType))); !ok {
		return nil, core.Errorf(arrowsparse.ErrOverflow, "csf: dense size of shape %v overflows int64 bytes", t.shape)
	}
	v, err := views.AllocNamed(mem, t.valueType, t.shape, t.names)
	if err != nil {
		return nil, err
	}
	lo, hi := t.leafRange()
	if lo == hi {
		return v, nil
	}
	rs, _ := arrowsparse.RowMajorStrides(t.shape)
	nl := len(t.levels)
	st := make([]int64, nl) // row-major stride of each level's dimension
	for l, k := range t.order {
		st[l] = rs[k]
	}
	vop := vals.For(t.valueType)
	dense, in := v.Buffer().Bytes(), t.values.Bytes()
	w := newWalker(t)
	w.seek(lo)
	step := core.ChunkEntries(nl, hi-lo)
	buf := make([]int64, step*int64(nl))
	pos := make([]int64, step)
	for a := lo; a < hi; a += step {
		b := min(a+step, hi)
		w.fill(a, b, buf)
		for j := range b - a {
			var q int64
			for l, c := range buf[j*int64(nl) : (j+1)*int64(nl)] {
				q += c * st[l]
			}
			pos[j] = q
		}
		vop.Scatter(dense, pos[:b-a], in, a-t.vshift, arrowsparse.SumDuplicates, nil)
	}
	return v, nil
}

// ToCOO returns the tensor as a COO tensor with row-major coordinates, in
// tree order. The coordinates are copied into a buffer from mem, with the
// type o.IndexType or by default the index type of the levels that holds
// the largest values (every coordinate fits it); the values buffer is
// shared. The result is canonical when the axis order is 0, 1, …, ndim-1,
// the only order in which tree order is row-major order. The result must
// be released by the caller.
func (t *Tensor) ToCOO(mem memory.Allocator, o ConvertOptions) (*coo.Tensor, error) {
	it := t.levels[0].idxType
	for _, lv := range t.levels[1:] {
		if arrowsparse.IndexMax(lv.idxType) > arrowsparse.IndexMax(it) {
			it = lv.idxType
		}
	}
	if o.IndexType != nil && !arrow.TypeEqual(o.IndexType, it) {
		c, err := t.ToCOO(mem, ConvertOptions{})
		if err != nil {
			return nil, err
		}
		defer c.Release()
		return c.WithIndexType(mem, o.IndexType)
	}
	nl := len(t.levels)
	iw := int64(arrowsparse.ByteWidth(it))
	cb := core.NewBuffer(mem, t.nnz*int64(nl)*iw)
	defer cb.Release()
	lo, hi := t.leafRange()
	if lo < hi {
		iop := coords.For(it)
		w := newWalker(t)
		w.seek(lo)
		step := core.ChunkEntries(nl, hi-lo)
		buf := make([]int64, step*int64(nl))
		row := make([]int64, step*int64(nl))
		for a := lo; a < hi; a += step {
			b := min(a+step, hi)
			w.fill(a, b, buf)
			m := (b - a) * int64(nl)
			for j := int64(0); j < m; j += int64(nl) {
				for l, k := range t.order {
					row[j+int64(k)] = buf[j+int64(l)]
				}
			}
			iop.Put(cb.Bytes(), (a-lo)*int64(nl), row[:m])
		}
	}
	vw := int64(arrowsparse.ByteWidth(t.valueType))
	vb := sliceBuffer(t.values, (lo-t.vshift)*vw, t.nnz*vw)
	if vb != nil {
		defer vb.Release()
	}
	identity := true
	for l, k := range t.order {
		identity = identity && l == k
	}
	return coo.New(t.valueType, it, t.shape, cb, coo.RowMajor, vb, t.nnz,
		coo.WithDimNames(t.names...), coo.WithTrusted(), coo.WithCanonicalClaim(identity))
}

// FromArrowTensor returns the CSF tensor of the non-zero elements of an
// arrow-go dense tensor, as FromDense does; the tensor's data is read in
// place. The result must be released by the caller.
func FromArrowTensor(mem memory.Allocator, src tensor.Interface, o ConvertOptions) (*Tensor, error) {
	v, err := views.FromArrowTensor(src)
	if err != nil {
		return nil, err
	}
	defer v.Release()
	return FromDense(mem, v, o)
}

// AppendCoords appends the coordinates of the stored entries, in tree
// order, to dst as int64s: NNZ()·NumDims() of them, entry by entry, in
// dimension order (not level order). It is the arrowsparse.Sparse accessor
// for code that learns the index types only at run time.
func (t *Tensor) AppendCoords(dst []int64) []int64 {
	nl := int64(len(t.levels))
	start := int64(len(dst))
	dst = slices.Grow(dst, int(t.nnz*nl))[:start+t.nnz*nl]
	lo, hi := t.leafRange()
	if lo == hi {
		return dst
	}
	w := newWalker(t)
	w.seek(lo)
	buf := make([]int64, min(hi-lo, chunk)*nl)
	for a := lo; a < hi; a += chunk {
		b := min(a+chunk, hi)
		w.fill(a, b, buf)
		for j := int64(0); j < (b-a)*nl; j += nl {
			row := dst[start+(a-lo)*nl+j:]
			for l, k := range t.order {
				row[k] = buf[j+int64(l)]
			}
		}
	}
	return dst
}

// defaultOrder returns Arrow C++'s default axis order for a shape: the
// dimensions by increasing size, ties in dimension order (a stable argsort).
func defaultOrder(shape []int64) []int {
	order := make([]int, len(shape))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case shape[a] < shape[b]:
			return -1
		case shape[a] > shape[b]:
			return 1
		}
		return 0
	})
	return order
}

// DefaultAxisOrder returns the axis order the constructors use when none is
// given, as Arrow C++ does: the argsort of the shape, the smallest
// dimension first, ties in dimension order.
func DefaultAxisOrder(shape []int64) []int { return defaultOrder(shape) }

// WithIndexTypes returns the tensor with every indptr buffer of type
// indptrType and every indices buffer of type indicesType (nil keeps a
// level's own type), as IPC, which has one type of each, needs. Levels
// already of the asked types are shared (a compact tensor whose levels all
// are is returned itself, retained); the others are converted into new
// buffers from mem. The values are shared, and the result is compact. It
// returns an error wrapping arrowsparse.ErrUnsupportedType if a type is not an
// index type or cannot hold the level's values. The result must be
// released by the caller.
func (t *Tensor) WithIndexTypes(mem memory.Allocator, indptrType, indicesType arrow.DataType) (*Tensor, error) {
	nl := len(t.levels)
	if indicesType != nil {
		if err := core.CheckIndexType(indicesType); err != nil {
			return nil, err
		}
	}
	for l := range t.levels {
		if indptrType != nil && l < nl-1 {
			if err := core.CheckIndexFits(indptrType, t.levels[l+1].n, "the indptr of level "+strconv.Itoa(l)); err != nil {
				return nil, err
			}
		}
	}
	c, err := t.Compact(mem)
	if err != nil {
		return nil, err
	}
	same := func(have, want arrow.DataType) bool { return want == nil || arrow.TypeEqual(have, want) }
	// convert copies n values of b into a new buffer of type to; an index
	// that to cannot hold is an error (the indices need to hold only the
	// coordinates present).
	var bad error
	convert := func(b *memory.Buffer, from, to arrow.DataType, n int64) *memory.Buffer {
		out := core.NewBuffer(mem, n*int64(arrowsparse.ByteWidth(to)))
		rd, wr := opsFor(from), opsFor(to)
		limit := arrowsparse.IndexMax(to)
		buf := make([]int64, min(n, chunk))
		for i := int64(0); i < n; i += chunk {
			m := min(chunk, n-i)
			rd.read(b.Bytes(), i, buf[:m])
			for _, x := range buf[:m] {
				if x > limit && bad == nil {
					bad = core.Errorf(arrowsparse.ErrUnsupportedType, "csf: index %d does not fit index type %s", x, to)
				}
			}
			wr.write(out.Bytes(), i, buf[:m])
		}
		return out
	}
	var d *Tensor
	for l := range c.levels {
		lv := c.levels[l]
		if same(lv.idxType, indicesType) && (lv.ptr == nil || same(lv.ptrType, indptrType)) {
			continue
		}
		if d == nil {
			d = c.derived()
			d.vshift = c.vshift
			copy(d.levels, c.levels)
			d.values = c.values
			d.retainBuffers()
		}
		nlv := &d.levels[l]
		if !same(lv.idxType, indicesType) {
			nlv.idx.Release()
			nlv.idx, nlv.idxType = convert(lv.idx, lv.idxType, indicesType, lv.n), indicesType
		}
		if lv.ptr != nil && !same(lv.ptrType, indptrType) {
			nlv.ptr.Release()
			nlv.ptr, nlv.ptrType = convert(lv.ptr, lv.ptrType, indptrType, lv.n+1), indptrType
		}
	}
	if d == nil {
		return c, nil
	}
	c.Release()
	if bad != nil {
		d.Release()
		return nil, bad
	}
	return d, nil
}
