package coo

import (
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/coords"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/keysort"
	"github.com/arrowsparse/arrowsparse/internal/vals"
)

// Canonicalize returns the tensor in canonical form: coordinates sorted in
// row-major order, duplicates combined under o.Duplicates (summed in
// storage order by default), coordinates stored row-major with the same
// index type, or o.IndexType if it is set. This is scipy's sum_duplicates,
// pydata/sparse's COO constructor and PyTorch's coalesce, in row-major
// order. With arrowsparse.RejectDuplicates it returns an error wrapping
// arrowsparse.ErrNotCanonical if two entries share coordinates.
//
// If the tensor is already canonical (and of the index type asked for) it
// is returned itself, retained. The returned tensor must be released by
// the caller.
//
// Memory: the output buffers, plus, unless the index type is at least 8
// bytes per entry row (ndim × index width ≥ 8) and values are 8 bytes wide,
// up to 16 bytes per entry of scratch. For the common int64/float64 layout
// of any rank ≥ 1 the sort runs inside the output buffers: the peak extra
// memory is one copy of the input.
func (t *Tensor) Canonicalize(mem memory.Allocator, o ConvertOptions) (*Tensor, error) {
	if err := o.Duplicates.Check(); err != nil {
		return nil, err
	}
	if o.IndexType != nil && !arrow.TypeEqual(o.IndexType, t.indexType) {
		c, err := t.Canonicalize(mem, ConvertOptions{Duplicates: o.Duplicates, Workers: o.Workers})
		if err != nil {
			return nil, err
		}
		defer c.Release()
		return c.WithIndexType(mem, o.IndexType)
	}
	if t.canonical {
		t.Retain()
		return t, nil
	}
	cbuf, values, u, dup := t.sorted(mem, o.Duplicates, o.Workers)
	if dup && o.Duplicates == arrowsparse.RejectDuplicates {
		cbuf.Release()
		values.Release()
		return nil, core.Errorf(arrowsparse.ErrNotCanonical, "coo: duplicate coordinates, and the duplicate policy rejects them")
	}
	nd := int64(len(t.shape))
	cbuf.ResizeNoShrink(int(u * nd * int64(arrowsparse.ByteWidth(t.indexType))))
	values.ResizeNoShrink(int(u * int64(arrowsparse.ByteWidth(t.valueType))))
	return t.derived(cbuf, RowMajor, values, u, true), nil
}

// derived returns a tensor of t's shape, types and names over new buffers,
// taking over the caller's references.
func (t *Tensor) derived(cbuf *memory.Buffer, layout Layout, values *memory.Buffer, nnz int64, canonical bool) *Tensor {
	d := &Tensor{
		valueType: t.valueType,
		indexType: t.indexType,
		shape:     t.shape, // never modified, so it can be shared
		names:     t.names,
		nnz:       nnz,
		layout:    layout,
		coords:    cbuf,
		values:    values,
		canonical: canonical,
	}
	d.refCount.Store(1)
	return d
}

// sorted sorts the entries into new row-major coordinate and value buffers
// of nnz entries each, merging duplicates under policy p. It returns the
// buffers, the number of entries written and whether duplicates were met.
func (t *Tensor) sorted(mem memory.Allocator, p arrowsparse.Duplicates, workers int) (*memory.Buffer, *memory.Buffer, int64, bool) {
	n := t.nnz
	nd := len(t.shape)
	iw, vw := int64(arrowsparse.ByteWidth(t.indexType)), int64(arrowsparse.ByteWidth(t.valueType))
	cbuf := core.NewBuffer(mem, n*int64(nd)*iw)
	values := core.NewBuffer(mem, n*vw)
	if n == 0 {
		return cbuf, values, 0, false
	}
	in := valueBytes(t)
	iop, vop := coords.For(t.indexType), vals.For(t.valueType)

	if lin, ok := coords.Linearize(t.shape, nil, n); ok {
		divs := lin.Divs
		cb, vb := cbuf.Bytes(), values.Bytes()
		var dup atomic.Bool
		srt := keysort.Sort{
			N:       int(n),
			KeyBits: lin.KeyBits,
			Workers: workers,
			Keys:    iop.Keys(t.matrix(), lin.Strides),
			Reduce: func(pos int, words []uint64, ib uint) int {
				c := iop.EmitKeys(cb, nd, divs, pos, words, ib)
				if _, d := vop.ReduceWords(in, vb, pos, words, ib, p); d {
					dup.Store(true)
				}
				return c
			},
			Move: func(dst, src, m int) {
				rw := int64(nd) * iw
				copy(cb[int64(dst)*rw:], cb[int64(src)*rw:int64(src+m)*rw])
				copy(vb[int64(dst)*vw:], vb[int64(src)*vw:int64(src+m)*vw])
			},
		}
		if int64(nd)*iw >= 8 {
			srt.Scratch1 = core.MustSliceBytes[uint64](cb[:8*n])
		}
		if vw == 8 {
			srt.Scratch2 = core.MustSliceBytes[uint64](vb)
		}
		u := srt.Run()
		return cbuf, values, int64(u), dup.Load()
	}

	// Keys too wide for one word (or a 0-d tensor): sort a permutation by
	// comparing coordinate tuples.
	perm := make([]int64, n)
	for i := range perm {
		perm[i] = int64(i)
	}
	starts := iop.SortPerm(t.matrix(), perm)
	iop.GatherRuns(t.matrix(), cbuf.Bytes(), perm, starts)
	dup := vop.ReducePerm(in, values.Bytes(), 0, perm, starts, p)
	return cbuf, values, int64(len(starts) - 1), dup
}

// valueBytes returns exactly the nnz values' bytes (a buffer may be longer,
// by any number of bytes).
func valueBytes(t *Tensor) []byte {
	if t.values == nil {
		return nil
	}
	return t.values.Bytes()[:t.nnz*int64(arrowsparse.ByteWidth(t.valueType))]
}
