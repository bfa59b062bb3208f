package gcs

import (
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/coords"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/vals"
	"github.com/arrowsparse/arrowsparse/views"
)

// ToDense returns a new row-major dense view of the DM's elements, in a
// buffer from mem, with duplicates summed. The result must be released by
// the caller.
func (d *DM) ToDense(mem memory.Allocator) (arrowsparse.Dense, error) {
	size, err := arrowsparse.NumElements(d.shape)
	if err != nil {
		return nil, err
	}
	if _, ok := core.MulInt64(size, int64(arrowsparse.ByteWidth(d.DataType()))); !ok {
		return nil, core.Errorf(arrowsparse.ErrOverflow, "gcs: dense size of shape %v overflows int64 bytes", d.shape)
	}
	if d.kind == storeDense {
		// A DM over dense storage is a strided view: copy it.
		dn := d.storage.(arrowsparse.Dense)
		off, strides := d.denseLayout()
		if d.empty() {
			off = 0
		}
		v, err := views.New(d.DataType(), dn.Buffer(), off, d.shape, strides)
		if err != nil {
			return nil, err
		}
		defer v.Release()
		c, err := v.Copy(mem, views.CopyOptions{})
		if err != nil {
			return nil, err
		}
		defer c.Release()
		return c.WithDimNames(d.names...)
	}
	v, err := views.AllocNamed(mem, d.DataType(), d.shape, d.names)
	if err != nil {
		return nil, err
	}
	strides, _ := arrowsparse.RowMajorStrides(d.shape)
	vt := d.DataType()
	vop := vals.For(vt)
	w := int64(arrowsparse.ByteWidth(vt))
	in := d.leafValues()
	dense := v.Buffer().Bytes()
	pos, perm := make([]int64, 0, chunk), make([]int64, 0, chunk)
	stage := make([]byte, chunk*w)
	flush := func() {
		vop.Gather(in, stage, perm)
		vop.Scatter(dense, pos, stage, 0, arrowsparse.SumDuplicates, nil)
		pos, perm = pos[:0], perm[:0]
	}
	d.each(func(idx []int64, p int64) bool {
		var q int64
		for a, i := range idx {
			q += i * strides[a]
		}
		pos, perm = append(pos, q), append(perm, p)
		if len(pos) == chunk {
			flush()
		}
		return true
	})
	flush()
	return v, nil
}

// ToCOO materialises the DM's elements as a COO tensor with row-major
// coordinates of type o.IndexType (by default the narrowest signed type
// that holds every coordinate of the shape) in new buffers from mem, in the
// order All yields them; zeros of dense storage are left out. The result
// must be released by the caller.
func (d *DM) ToCOO(mem memory.Allocator, o ConvertOptions) (*coo.Tensor, error) {
	it := o.IndexType
	if it == nil {
		var big int64
		for _, n := range d.shape {
			big = max(big, n-1)
		}
		it = arrowsparse.SmallestIndexType(big)
	}
	if err := core.CheckIndexType(it); err != nil {
		return nil, err
	}
	for k, n := range d.shape {
		if n-1 > arrowsparse.IndexMax(it) {
			return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "gcs: index type %s cannot hold coordinates of dimension %d (size %d)", it, k, n)
		}
	}
	if d.kind == storeDense {
		dn, err := d.ToDense(mem)
		if err != nil {
			return nil, err
		}
		defer dn.Release()
		return coo.FromDense(mem, dn, coo.ConvertOptions{IndexType: it})
	}
	vt := d.DataType()
	n := d.NNZ()
	nd := int64(len(d.shape))
	w := int64(arrowsparse.ByteWidth(vt))
	cb := core.NewBuffer(mem, n*nd*int64(arrowsparse.ByteWidth(it)))
	vb := core.NewBuffer(mem, n*w)
	defer cb.Release()
	defer vb.Release()
	iop, vop := coords.For(it), vals.For(vt)
	in := d.leafValues()
	stage := make([]int64, 0, chunk*max(nd, 1))
	perm := make([]int64, 0, chunk)
	var at int64
	flush := func() {
		iop.Put(cb.Bytes(), at*nd, stage)
		vop.Gather(in, vb.Bytes()[at*w:], perm)
		at += int64(len(perm))
		stage, perm = stage[:0], perm[:0]
	}
	d.each(func(idx []int64, p int64) bool {
		stage, perm = append(stage, idx...), append(perm, p)
		if len(perm) == chunk {
			flush()
		}
		return true
	})
	flush()
	var opts []coo.Option
	if d.names != nil {
		opts = append(opts, coo.WithDimNames(d.names...))
	}
	return coo.New(vt, it, d.shape, cb, coo.RowMajor, vb, n, opts...)
}

// ToGCS materialises the DM's elements as a GCS tensor with the mapping
// o.Mapping (see ConvertOptions), in new buffers from mem, through ToCOO
// and FromCOO. The result must be released by the caller.
func (d *DM) ToGCS(mem memory.Allocator, o ConvertOptions) (*Tensor, error) {
	c, err := d.ToCOO(mem, ConvertOptions{Workers: o.Workers})
	if err != nil {
		return nil, err
	}
	defer c.Release()
	return FromCOO(mem, c, o)
}

// ToMatrix materialises a 2-d DM as a canonical CSR (axis Rows) or CSC
// (axis Cols) matrix in new buffers from mem. The result must be released
// by the caller.
func (d *DM) ToMatrix(mem memory.Allocator, axis Axis, o ConvertOptions) (*Matrix, error) {
	if len(d.shape) != 2 {
		return nil, core.Errorf(arrowsparse.ErrShape, "gcs: a %d-d DM is not a matrix", len(d.shape))
	}
	c, err := d.ToCOO(mem, ConvertOptions{Workers: o.Workers})
	if err != nil {
		return nil, err
	}
	defer c.Release()
	return MatrixFromCOO(mem, c, axis, o)
}
