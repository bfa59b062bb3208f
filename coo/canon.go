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
// The sort is a parallel radix sort of linear keys (internal/keysort
// Carry) that moves each value with its key, for every shape: keys of
// shapes with more than 2^64 elements have one 64-bit word per part of the
// axes.
//
// Memory, beyond the output buffers: the sort stages the values in the
// values output, and the key bits below a bucket's (4 bytes per entry when
// they fit in 32 bits, as for shapes of up to about 2^40 elements, else 8
// per 64 bits) in the coordinate output when a coordinate row is at most
// twice their width, and otherwise in an array of their own, which for
// int64 coordinates and 8-byte values is at most a third of the output
// of a matrix and less than half in general. Each worker also holds the
// buffers of one bucket (some 2^14 to 2^16 entries of 16 bytes and a
// value each, more for keys wider than about 48 bits below the bucket's):
// a few MiB.
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
//
// The keys are the entries' linear indices (coords.Linearize: one word, or
// one word per part of the axes when the shape has more than 2^64
// elements), sorted by keysort.Carry, which moves the values with the
// keys. The sort stages the values in the values output and the key bits
// below a bucket's in the coordinate output, at one row per entry, when a
// row has room for them.
func (t *Tensor) sorted(mem memory.Allocator, p arrowsparse.Duplicates, workers int) (*memory.Buffer, *memory.Buffer, int64, bool) {
	n := t.nnz
	nd := len(t.shape)
	iw, vw := int64(arrowsparse.ByteWidth(t.indexType)), int64(arrowsparse.ByteWidth(t.valueType))
	cbuf := core.NewBuffer(mem, n*int64(nd)*iw)
	values := core.NewBuffer(mem, n*vw)
	if n == 0 {
		return cbuf, values, 0, false
	}
	iop, vop := coords.For(t.indexType), vals.For(t.valueType)
	lin := coords.Linearize(t.shape, nil)
	cb, vb := cbuf.Bytes(), values.Bytes()
	rw := int64(nd) * iw // bytes of a coordinate row
	var dup atomic.Bool
	srt := keysort.Carry{
		N:       int(n),
		KeyBits: lin.KeyBits,
		Workers: workers,
		Keys:    iop.Keys(t.matrix(), lin.Strides),
		In:      valueBytes(t),
		VW:      int(vw),
		Reduce: func(pos int, b *keysort.Bucket) int {
			c := iop.Emit(cb, &lin, pos, b)
			if _, d := vop.ReduceWords(b.Vals, vb, pos, b.Words, b.IB, p); d {
				dup.Store(true)
			}
			return c
		},
		Move: func(dst, src, m int) {
			copy(cb[int64(dst)*rw:], cb[int64(src)*rw:int64(src+m)*rw])
			copy(vb[int64(dst)*vw:], vb[int64(src)*vw:int64(src+m)*vw])
		},
		StageKeys:      cb,
		StageKeyStride: int(rw),
		StageVals:      vb,
		Mem:            mem,
	}
	u := srt.Run()
	return cbuf, values, int64(u), dup.Load()
}

// valueBytes returns exactly the nnz values' bytes (a buffer may be longer,
// by any number of bytes).
func valueBytes(t *Tensor) []byte {
	if t.values == nil {
		return nil
	}
	return t.values.Bytes()[:t.nnz*int64(arrowsparse.ByteWidth(t.valueType))]
}
