package coo

import (
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/tensor"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/coords"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/densescan"
	"github.com/arrowsparse/arrowsparse/internal/strided"
	"github.com/arrowsparse/arrowsparse/internal/vals"
	"github.com/arrowsparse/arrowsparse/views"
)

// chunk is the number of entries processed per step by kernels that stage
// coordinates in a small buffer.
const chunk = 1024

// ToDense returns a new row-major dense view of the tensor, in a buffer from
// mem, with duplicates summed. It fails with an error wrapping
// arrowsparse.ErrOverflow if the dense size does not fit in int64. The result must
// be released by the caller.
func (t *Tensor) ToDense(mem memory.Allocator) (arrowsparse.Dense, error) {
	return t.ToView(mem, ConvertOptions{})
}

// ToView is ToDense returning the *views.View, with duplicates combined
// under o.Duplicates: arrowsparse.KeepLast gives what Arrow C++'s ToTensor
// gives. The result must be released by the caller.
func (t *Tensor) ToView(mem memory.Allocator, o ConvertOptions) (*views.View, error) {
	p := o.Duplicates
	if err := p.Check(); err != nil {
		return nil, err
	}
	size, err := arrowsparse.NumElements(t.shape)
	if err != nil {
		return nil, err
	}
	if _, ok := core.MulInt64(size, int64(arrowsparse.ByteWidth(t.valueType))); !ok {
		return nil, core.Errorf(arrowsparse.ErrOverflow, "coo: dense size of shape %v overflows int64 bytes", t.shape)
	}
	v, err := views.AllocNamed(mem, t.valueType, t.shape, t.names)
	if err != nil {
		return nil, err
	}
	var seen []uint64
	if p != arrowsparse.SumDuplicates && p != arrowsparse.KeepLast {
		seen = make([]uint64, (size+63)/64)
	}
	strides, _ := arrowsparse.RowMajorStrides(t.shape)
	iop, vop := coords.For(t.indexType), vals.For(t.valueType)
	dense, in := v.Buffer().Bytes(), valueBytes(t)
	nd := len(t.shape)
	step := core.ChunkEntries(nd, t.nnz)
	cbuf := make([]int64, step*int64(max(nd, 1)))
	pos := make([]int64, step)
	dup := false
	for lo := int64(0); lo < t.nnz; lo += step {
		hi := min(lo+step, t.nnz)
		m := hi - lo
		iop.Fill(t.matrix(), lo, hi, cbuf)
		for j := range m {
			var q int64
			for k, c := range cbuf[j*int64(nd) : (j+1)*int64(nd)] {
				q += c * strides[k]
			}
			pos[j] = q
		}
		if vop.Scatter(dense, pos[:m], in, lo, p, seen) {
			dup = true
		}
	}
	if dup && p == arrowsparse.RejectDuplicates {
		v.Release()
		return nil, core.Errorf(arrowsparse.ErrNotCanonical, "coo: duplicate coordinates, and the duplicate policy rejects them")
	}
	return v, nil
}

// FromDense returns the canonical COO tensor of the non-zero elements of d,
// in buffers from mem. Negative zero counts as zero; NaN counts as
// non-zero. Dim names are kept. The coordinates have type o.IndexType, or
// by default the narrowest signed type that holds every coordinate of the
// shape. Unlike Arrow C++ (apache/arrow#47520), column-major and strided
// inputs convert correctly. src may be any arrowsparse.Dense; its layout is
// checked as views.New checks one. The result must be released by the
// caller.
func FromDense(mem memory.Allocator, src arrowsparse.Dense, o ConvertOptions) (*Tensor, error) {
	d, err := views.Of(src)
	if err != nil {
		return nil, err
	}
	defer d.Release()
	shape := d.Shape()
	indexType := o.IndexType
	if indexType == nil {
		indexType = arrowsparse.SmallestIndexType(maxCoord(shape))
	}
	if err := core.CheckIndexType(indexType); err != nil {
		return nil, err
	}
	for k, n := range shape {
		if n-1 > arrowsparse.IndexMax(indexType) {
			return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "coo: index type %s cannot hold coordinates of dimension %d (size %d)", indexType, k, n)
		}
	}
	vt := d.DataType()
	vop := vals.For(vt)
	w := int64(arrowsparse.ByteWidth(vt))
	data := d.Buffer().Bytes()
	strides := d.ElemStrides()
	nd := len(shape)
	iw, vw := int64(arrowsparse.ByteWidth(indexType)), w
	nnz, err := densescan.Precheck(d, int64(nd)*iw+vw, "coo")
	if err != nil {
		return nil, err
	}
	off := d.ElemOffset()
	rows := func(f func(outer []int64, start, n, stride int64)) {
		if nnz == 0 {
			return
		}
		strided.Rows(shape, strides, off, func(outer []int64, start, n, stride int64) bool {
			f(outer, start, n, stride)
			return true
		})
	}
	cbuf := core.NewBuffer(mem, nnz*int64(nd)*iw)
	values := core.NewBuffer(mem, nnz*vw)
	iop := coords.For(indexType)
	cb, vb := cbuf.Bytes(), values.Bytes()
	var at int64
	cols := make([]int64, 0, 64)
	stage := make([]int64, 0, 64*max(nd, 1))
	rows(func(outer []int64, start, n, stride int64) {
		if int64(cap(cols)) < n {
			cols = make([]int64, n)
		}
		c := vop.CollectNonzero(data, start, n, stride, vb, at, cols[:n])
		if nd > 0 {
			stage = stage[:0]
			for _, j := range cols[:c] {
				stage = append(stage, outer...)
				stage = append(stage, j)
			}
			iop.Put(cb, at*int64(nd), stage)
		}
		at += int64(c)
	})
	t := &Tensor{
		valueType: vt,
		indexType: indexType,
		shape:     shape,
		names:     d.DimNames(),
		nnz:       nnz,
		layout:    RowMajor,
		coords:    cbuf,
		values:    values,
		canonical: true,
	}
	t.refCount.Store(1)
	return t, nil
}

// FromArrowTensor returns the canonical COO tensor of the non-zero elements
// of an arrow-go dense tensor, as FromDense does; the tensor's data is read
// in place through a views.View (its byte strides must be multiples of the
// element width). The result must be released by the caller.
func FromArrowTensor(mem memory.Allocator, src tensor.Interface, o ConvertOptions) (*Tensor, error) {
	v, err := views.FromArrowTensor(src)
	if err != nil {
		return nil, err
	}
	defer v.Release()
	return FromDense(mem, v, o)
}

// maxCoord returns the largest coordinate of shape (at least 0).
func maxCoord(shape []int64) int64 {
	m := int64(0)
	for _, n := range shape {
		m = max(m, n-1)
	}
	return m
}
