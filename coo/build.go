package coo

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/coords"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// FromSlices returns a tensor holding copies of coords and values in buffers
// from mem. coords is the len(values) × len(shape) coordinate matrix in the
// given layout. It checks everything New checks. The result must be released
// by the caller.
func FromSlices[I arrowsparse.Index, T arrowsparse.Value](mem memory.Allocator, shape []int64, coords []I, layout Layout, values []T, opts ...Option) (*Tensor, error) {
	nnz := int64(len(values))
	if want, ok := core.MulInt64(nnz, int64(len(shape))); !ok || int64(len(coords)) != want {
		return nil, core.Errorf(arrowsparse.ErrBufferSize, "coo: %d coordinates for %d values in %d dimensions", len(coords), nnz, len(shape))
	}
	cb := core.NewBuffer(mem, int64(len(core.BytesOf(coords))))
	copy(cb.Bytes(), core.BytesOf(coords))
	vb := core.NewBuffer(mem, int64(len(core.BytesOf(values))))
	copy(vb.Bytes(), core.BytesOf(values))
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	t, err := adopt(arrowsparse.DataTypeOf[T](), arrowsparse.DataTypeOf[I](), shape, cb, layout, vb, nnz, &cfg)
	if err != nil {
		cb.Release()
		vb.Release()
		return nil, err
	}
	return t, nil
}

// Builder builds a COO tensor entry by entry into Arrow buffers, in the
// manner of arrow-go's array builders. Entries may come in any order and
// repeat coordinates. A Builder is not safe for concurrent use.
type Builder[I arrowsparse.Index, T arrowsparse.Value] struct {
	mem    memory.Allocator
	shape  []int64
	names  []string
	coords *memory.Buffer
	values *memory.Buffer
	n      int64
}

// NewBuilder returns a builder of tensors of the given shape, with
// coordinates of Go type I and values of Go type T. Release it when done.
func NewBuilder[I arrowsparse.Index, T arrowsparse.Value](mem memory.Allocator, shape ...int64) *Builder[I, T] {
	return &Builder[I, T]{mem: mem, shape: append([]int64(nil), shape...)}
}

// SetDimNames sets the dimension names of the tensors built next.
func (b *Builder[I, T]) SetDimNames(names ...string) { b.names = append([]string(nil), names...) }

// Len returns the number of entries appended since the last NewTensor.
func (b *Builder[I, T]) Len() int64 { return b.n }

// Append adds the entry x at coord. It returns an error wrapping
// arrowsparse.ErrShape if coord has the wrong rank, or arrowsparse.ErrOutOfRange if a
// coordinate lies outside the shape; the entry is then not added.
func (b *Builder[I, T]) Append(x T, coord ...int64) error {
	if len(coord) != len(b.shape) {
		return core.Errorf(arrowsparse.ErrShape, "coo: %d coordinates for a %d-d tensor", len(coord), len(b.shape))
	}
	for k, c := range coord {
		if c < 0 || c >= b.shape[k] {
			return core.Errorf(arrowsparse.ErrOutOfRange, "coo: coordinate %d is %d, outside [0, %d)", k, c, b.shape[k])
		}
		if c > arrowsparse.IndexMax(arrowsparse.DataTypeOf[I]()) {
			return core.Errorf(arrowsparse.ErrUnsupportedType, "coo: coordinate %d does not fit %s", c, arrowsparse.DataTypeOf[I]())
		}
	}
	nd := int64(len(coord))
	b.coords = grow[I](b.mem, b.coords, (b.n+1)*nd)
	b.values = grow[T](b.mem, b.values, b.n+1)
	cs := core.MustSlice[I](b.coords, (b.n+1)*nd)[b.n*nd:]
	for k, c := range coord {
		cs[k] = I(c)
	}
	core.MustSlice[T](b.values, b.n+1)[b.n] = x
	b.n++
	return nil
}

// grow makes buf hold n elements of E, doubling its capacity when needed.
func grow[E arrowsparse.Value](mem memory.Allocator, buf *memory.Buffer, n int64) *memory.Buffer {
	var z [1]E
	need := int(n) * len(core.BytesOf(z[:]))
	if buf == nil {
		buf = memory.NewResizableBuffer(mem)
	}
	if need > buf.Cap() {
		buf.Reserve(max(need, 2*buf.Cap(), 256))
	}
	buf.ResizeNoShrink(need)
	return buf
}

// NewTensor returns a tensor of the entries appended so far, taking over
// the builder's buffers, and resets the builder. The tensor's canonical flag
// is computed. The result must be released by the caller.
func (b *Builder[I, T]) NewTensor() (*Tensor, error) {
	cb, vb, n := b.coords, b.values, b.n
	b.coords, b.values, b.n = nil, nil, 0
	if cb == nil {
		cb, vb = memory.NewResizableBuffer(b.mem), memory.NewResizableBuffer(b.mem)
	}
	cfg := config{names: b.names}
	t, err := adopt(arrowsparse.DataTypeOf[T](), arrowsparse.DataTypeOf[I](), b.shape, cb, RowMajor, vb, n, &cfg)
	if err != nil {
		cb.Release()
		vb.Release()
		return nil, err
	}
	return t, nil
}

// Release frees the entries appended since the last NewTensor.
func (b *Builder[I, T]) Release() {
	if b.coords != nil {
		b.coords.Release()
		b.values.Release()
	}
	b.coords, b.values, b.n = nil, nil, 0
}

// WithLayout returns the tensor with its coordinate matrix in the given
// layout. If the layout is already the one asked for, the tensor itself is
// returned, retained; otherwise the coordinates are copied into a buffer from
// mem and the values buffer is shared. The result must be released by the
// caller.
func (t *Tensor) WithLayout(mem memory.Allocator, layout Layout) (*Tensor, error) {
	if layout != RowMajor && layout != ColMajor {
		return nil, core.Errorf(arrowsparse.ErrStructure, "coo: unknown coordinate layout %d", layout)
	}
	if layout == t.layout {
		t.Retain()
		return t, nil
	}
	nd := int64(len(t.shape))
	cb := core.NewBuffer(mem, t.nnz*nd*int64(arrowsparse.ByteWidth(t.indexType)))
	if t.nnz > 0 && nd > 0 {
		coords.For(t.indexType).TransposeLayout(t.matrix(), cb.Bytes())
	}
	if t.values != nil {
		t.values.Retain()
	}
	return t.derived(cb, layout, t.values, t.nnz, t.canonical), nil
}

// Permute returns the tensor with its axes reordered: axis k of the result
// is axis perm[k] of t. Coordinates are copied into a buffer from mem (in
// t's layout) and the values buffer is shared; the result is canonical only
// if it is still sorted. Use gcs.DM for a permutation without copies. The
// result must be released by the caller.
func (t *Tensor) Permute(mem memory.Allocator, perm ...int) (*Tensor, error) {
	nd := len(t.shape)
	if err := core.CheckPermutation(perm, nd, "coo: axis permutation"); err != nil {
		return nil, err
	}
	shape := make([]int64, nd)
	var names []string
	if t.names != nil {
		names = make([]string, nd)
	}
	for k, p := range perm {
		shape[k] = t.shape[p]
		if names != nil {
			names[k] = t.names[p]
		}
	}
	w := int64(arrowsparse.ByteWidth(t.indexType))
	cb := core.NewBuffer(mem, t.nnz*int64(nd)*w)
	if t.nnz > 0 && nd > 0 {
		src, dst := t.matrix().Data, cb.Bytes()
		// Per entry and axis, copy w bytes; the layout strides are shared.
		si, sk := int64(nd), int64(1)
		if t.layout == ColMajor {
			si, sk = 1, t.nnz
		}
		for i := int64(0); i < t.nnz; i++ {
			for k, p := range perm {
				d, s := (i*si+int64(k)*sk)*w, (i*si+int64(p)*sk)*w
				copy(dst[d:d+w], src[s:s+w])
			}
		}
	}
	if t.values != nil {
		t.values.Retain()
	}
	out := t.derived(cb, t.layout, t.values, t.nnz, false)
	out.shape, out.names = shape, names
	out.canonical = out.detectCanonical()
	return out, nil
}

// WithIndexType returns the tensor with coordinates of type dt, in the same
// layout and order, in a buffer from mem; the values buffer is shared. If
// dt is already the index type, the tensor itself is returned, retained. A
// coordinate that dt cannot hold is an error wrapping
// arrowsparse.ErrUnsupportedType. The result must be released by the
// caller.
func (t *Tensor) WithIndexType(mem memory.Allocator, dt arrow.DataType) (*Tensor, error) {
	if err := core.CheckIndexType(dt); err != nil {
		return nil, err
	}
	if arrow.TypeEqual(dt, t.indexType) {
		t.Retain()
		return t, nil
	}
	nd := int64(len(t.shape))
	n := t.nnz * nd
	limit := arrowsparse.IndexMax(dt)
	cb := core.NewBuffer(mem, n*int64(arrowsparse.ByteWidth(dt)))
	src, dst := coords.For(t.indexType), coords.For(dt)
	// The coordinate matrix is read as one column of n entries, in place.
	flat := coords.Matrix{Type: t.indexType, Data: t.matrix().Data, N: n, Shape: []int64{0}}
	stage := make([]int64, min(n, chunk))
	for lo := int64(0); lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		src.Fill(flat, lo, hi, stage[:hi-lo])
		for _, c := range stage[:hi-lo] {
			if c > limit {
				cb.Release()
				return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "coo: coordinate %d does not fit index type %s", c, dt)
			}
		}
		dst.Put(cb.Bytes(), lo, stage[:hi-lo])
	}
	t.values.Retain()
	out := t.derived(cb, t.layout, t.values, t.nnz, t.canonical)
	out.indexType = dt
	return out, nil
}

// AppendCoords appends the coordinates of the stored entries, in storage
// order, to dst as int64s: NNZ()·NumDims() of them, entry by entry (entry
// i's coordinates are dst[i·ndim : (i+1)·ndim] of what it appends). It is
// the arrowsparse.Sparse accessor for code that learns the index type only
// at run time.
func (t *Tensor) AppendCoords(dst []int64) []int64 {
	nd := int64(len(t.shape))
	start := int64(len(dst))
	dst = slices.Grow(dst, int(t.nnz*nd))[:start+t.nnz*nd]
	if nd == 0 || t.nnz == 0 {
		return dst
	}
	iop := coords.For(t.indexType)
	m := t.matrix()
	for lo := int64(0); lo < t.nnz; lo += chunk {
		hi := min(lo+chunk, t.nnz)
		iop.Fill(m, lo, hi, dst[start+lo*nd:start+hi*nd])
	}
	return dst
}
