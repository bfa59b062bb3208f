package csf

import (
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/debug"
)

// Tensor is a sparse tensor of rank ≥ 2 in compressed sparse fiber format,
// over Arrow buffers. It is immutable once built; see the package
// documentation for the layout.
type Tensor struct {
	refCount  atomic.Int64
	valueType arrow.DataType
	shape     []int64
	names     []string
	order     []int   // level l holds dimension order[l]
	levels    []level // one per dimension, root first
	values    *memory.Buffer
	// vshift maps leaf positions to value positions: the value of the leaf
	// at position k of the last indices buffer is element k-vshift of
	// values. It is 0 unless the values buffer was made for a range of
	// leaves (TTV of a sub-tensor) or the tensor is a sub-tensor.
	vshift int64
	nnz    int64
	// unchecked is set for tensors built by New under WithTrusted (and the
	// tensors derived from them): their contents were never checked, so
	// the kernels take no path that relies on them being in range.
	unchecked bool
}

// level is one level of the tree: nodes [off, off+n) of its buffers. A
// tensor built by a constructor has off = 0 everywhere; a sub-tensor uses a
// range of its parent's buffers.
type level struct {
	idx, ptr         *memory.Buffer // ptr is nil on the last level
	idxType, ptrType arrow.DataType
	off, n           int64
}

var _ arrowsparse.Sparse = (*Tensor)(nil)

// Level describes the buffers of one level of a CSF index, as New takes
// them: Arrow C++'s SparseCSFIndex, or an IPC message, gives one per
// dimension.
type Level struct {
	// Indices holds Len coordinates of type IndexType: the coordinate
	// along dimension axisOrder[l] of each node of the level.
	Indices   *memory.Buffer
	IndexType arrow.DataType
	// Indptr holds Len+1 positions of type IndptrType in the next level:
	// the children of node i are nodes Indptr[i] to Indptr[i+1]-1 of the
	// next level. It is nil on the last level, whose nodes are the stored
	// values.
	Indptr     *memory.Buffer
	IndptrType arrow.DataType
	// Len is the number of nodes on the level. On the last level it is the
	// number of stored values.
	Len int64
}

// New returns a CSF tensor over existing Arrow buffers, without copying
// them.
//
// shape has at least 2 dimensions. axisOrder is a permutation of the
// dimensions: level l holds dimension axisOrder[l]. levels has one entry
// per dimension, root first, each with its own index types (Arrow IPC uses
// one indptr type and one indices type for all levels; any Arrow sparse
// index type works on any level here). values holds nnz values of
// valueType, which must equal the last level's Len. Buffers may be longer
// than needed (IPC pads them). New retains every buffer; the caller keeps
// its own references. A nil buffer is allowed where zero bytes are needed.
//
// New checks everything Validate checks (less under WithTrusted) and returns
// an error wrapping arrow.ErrInvalid, arrow.ErrIndex or arrow.ErrType on
// the first failure. The returned tensor must be released by the caller.
func New(valueType arrow.DataType, shape []int64, axisOrder []int, levels []Level, values *memory.Buffer, nnz int64, opts ...Option) (*Tensor, error) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	if err := checkHeader(valueType, shape, axisOrder, cfg.names); err != nil {
		return nil, err
	}
	if len(levels) != len(shape) {
		return nil, core.Errorf(arrowsparse.ErrStructure, "csf: %d levels for %d dimensions", len(levels), len(shape))
	}
	t := &Tensor{
		valueType: valueType,
		shape:     append([]int64(nil), shape...),
		names:     core.CloneDimNames(cfg.names),
		order:     append([]int(nil), axisOrder...),
		levels:    make([]level, len(levels)),
		values:    values,
		nnz:       nnz,
	}
	for l, lv := range levels {
		t.levels[l] = level{idx: lv.Indices, ptr: lv.Indptr, idxType: lv.IndexType, ptrType: lv.IndptrType, n: lv.Len}
	}
	if err := t.checkSizes(); err != nil {
		return nil, err
	}
	// Keep exactly the bytes the levels and values use, so that nothing
	// later sees a buffer's tail.
	t.retainBuffers()
	t.refCount.Store(1)
	for l := range t.levels {
		lv := &t.levels[l]
		core.AdoptExact(&lv.idx, lv.n*int64(arrowsparse.ByteWidth(lv.idxType)))
		if l < len(t.levels)-1 {
			core.AdoptExact(&lv.ptr, (lv.n+1)*int64(arrowsparse.ByteWidth(lv.ptrType)))
		}
	}
	core.AdoptExact(&t.values, nnz*int64(arrowsparse.ByteWidth(valueType)))
	if err := t.checkStructure(!cfg.trusted); err != nil {
		t.Release()
		return nil, err
	}
	t.unchecked = cfg.trusted
	return t, nil
}

// checkHeader checks what every constructor checks first.
func checkHeader(valueType arrow.DataType, shape []int64, order []int, names []string) error {
	if err := core.CheckValueType(valueType); err != nil {
		return err
	}
	if len(shape) < 2 {
		return core.Errorf(arrowsparse.ErrShape, "csf: a CSF tensor needs at least 2 dimensions, got %d", len(shape))
	}
	if err := core.CheckShape(shape); err != nil {
		return err
	}
	if err := core.CheckDimNames(names, len(shape)); err != nil {
		return err
	}
	return core.CheckPermutation(order, len(shape), "csf: axis order")
}

func (t *Tensor) retainBuffers() {
	for _, lv := range t.levels {
		if lv.idx != nil {
			lv.idx.Retain()
		}
		if lv.ptr != nil {
			lv.ptr.Retain()
		}
	}
	if t.values != nil {
		t.values.Retain()
	}
}

// Retain increases the reference count by 1.
// Retain may be called simultaneously from multiple goroutines.
func (t *Tensor) Retain() { t.refCount.Add(1) }

// Release decreases the reference count by 1.
// When the reference count goes to zero, the buffers are released.
// Release may be called simultaneously from multiple goroutines.
func (t *Tensor) Release() {
	n := t.refCount.Add(-1)
	debug.Assert(n >= 0, "csf: too many releases of a Tensor")
	if n == 0 {
		for l := range t.levels {
			lv := &t.levels[l]
			if lv.idx != nil {
				lv.idx.Release()
			}
			if lv.ptr != nil {
				lv.ptr.Release()
			}
			lv.idx, lv.ptr = nil, nil
		}
		if t.values != nil {
			t.values.Release()
		}
		t.values = nil
	}
}

// Format returns arrowsparse.FormatCSF.
func (t *Tensor) Format() arrowsparse.Format { return arrowsparse.FormatCSF }

// DataType returns the type of the values.
func (t *Tensor) DataType() arrow.DataType { return t.valueType }

// Shape returns a copy of the shape.
func (t *Tensor) Shape() []int64 { return append([]int64(nil), t.shape...) }

// NumDims returns the number of dimensions, which is also the number of
// levels.
func (t *Tensor) NumDims() int { return len(t.shape) }

// DimNames returns a copy of the dimension names, or nil.
func (t *Tensor) DimNames() []string { return core.CloneDimNames(t.names) }

// NNZ returns the number of stored values (explicit zeros included).
func (t *Tensor) NNZ() int64 { return t.nnz }

// AxisOrder returns a copy of the axis order: level l holds dimension
// AxisOrder()[l].
func (t *Tensor) AxisOrder() []int { return append([]int(nil), t.order...) }

// LevelLen returns the number of nodes on level l (NNZ on the last level).
// It panics if l is not a level.
func (t *Tensor) LevelLen(l int) int64 { return t.lv(l).n }

// IsCanonical reports whether the entries are known to be sorted in tree
// order without duplicates: true for every tensor whose indices were
// checked (all but those built with WithTrusted), since a checked CSF
// tensor has strictly increasing indices within every node.
func (t *Tensor) IsCanonical() bool { return !t.unchecked }

// IndexType returns the type of level l's indices. It panics if l is not
// a level.
func (t *Tensor) IndexType(l int) arrow.DataType { return t.lv(l).idxType }

// IndptrType returns the type of level l's indptr, or nil on the last
// level. It panics if l is not a level.
func (t *Tensor) IndptrType(l int) arrow.DataType { return t.lv(l).ptrType }

// IndicesBuffer returns level l's indices buffer. It shares memory with
// the tensor: the tensor must outlive it, or the buffer must be retained.
// For a tensor that is not compact (see IsCompact) it is the parent's
// buffer, of which the tensor uses LevelLen(l) elements from some offset.
// It panics if l is not a level.
func (t *Tensor) IndicesBuffer(l int) *memory.Buffer { return t.lv(l).idx }

// IndptrBuffer returns level l's indptr buffer (nil on the last level),
// sharing memory like IndicesBuffer.
func (t *Tensor) IndptrBuffer(l int) *memory.Buffer { return t.lv(l).ptr }

// ValuesBuffer returns the values buffer, sharing memory like
// IndicesBuffer: for a tensor that is not compact, the parent's buffer.
func (t *Tensor) ValuesBuffer() *memory.Buffer { return t.values }

// ValueBytes returns the bytes of the NNZ stored values, in tree order, as
// the little-endian bytes of DataType(). It aliases the tensor's memory:
// the tensor must outlive it. It is the arrowsparse.Sparse accessor for
// code that learns the value type only at run time.
func (t *Tensor) ValueBytes() []byte {
	lo, _ := t.leafRange()
	vw := int64(arrowsparse.ByteWidth(t.valueType))
	return t.values.Bytes()[(lo-t.vshift)*vw : (lo-t.vshift+t.nnz)*vw]
}

// IsCompact reports whether every level starts at node 0 of its buffers
// and the values at element 0 of theirs, so that the buffers are exactly
// the buffers of Arrow's SparseCSFIndex (up to padding at their ends).
// Tensors made by the constructors are compact; sub-tensors usually are
// not.
func (t *Tensor) IsCompact() bool {
	for _, lv := range t.levels {
		if lv.off != 0 {
			return false
		}
	}
	return t.levels[len(t.levels)-1].off-t.vshift == 0
}

// IndexBytes returns the number of bytes the index occupies: Len elements
// of indices and Len+1 elements of indptr per level (the Arrow layout,
// without padding). Compare it with the NNZ × NumDims × width bytes of a
// COO index.
func (t *Tensor) IndexBytes() int64 {
	var b int64
	for _, lv := range t.levels {
		b += lv.n * int64(arrowsparse.ByteWidth(lv.idxType))
		if lv.ptrType != nil {
			b += (lv.n + 1) * int64(arrowsparse.ByteWidth(lv.ptrType))
		}
	}
	return b
}

func (t *Tensor) lv(l int) *level {
	if uint(l) >= uint(len(t.levels)) {
		panic(arrowsparse.PanicError{Msg: "csf: level out of range"})
	}
	return &t.levels[l]
}

// Indices returns level l's indices as a []I of length LevelLen(l) that
// aliases the buffer. It returns an error wrapping arrowsparse.ErrUnsupportedType if
// I is not the level's indices type, and panics if l is not a level.
func Indices[I arrowsparse.Index](t *Tensor, l int) ([]I, error) {
	lv := t.lv(l)
	if !arrowsparse.TypeMatches[I](lv.idxType) {
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "csf: level %d indices are %s, not %s", l, lv.idxType, arrowsparse.DataTypeOf[I]())
	}
	if lv.n == 0 {
		return []I{}, nil
	}
	s, err := arrowsparse.AsSlice[I](lv.idx, lv.off+lv.n)
	if err != nil {
		return nil, err
	}
	return s[lv.off:], nil
}

// Indptr returns level l's indptr as a []I of length LevelLen(l)+1 that
// aliases the buffer. The children of node i are nodes p[i]-p[0] to
// p[i+1]-p[0]-1 of Indices(l+1); p[0] is 0 in a compact tensor. It returns
// an error wrapping arrowsparse.ErrUnsupportedType if I is not the level's indptr
// type or l is the last level, and panics if l is not a level.
func Indptr[I arrowsparse.Index](t *Tensor, l int) ([]I, error) {
	lv := t.lv(l)
	if lv.ptrType == nil || !arrowsparse.TypeMatches[I](lv.ptrType) {
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "csf: level %d indptr is %v, not %s", l, lv.ptrType, arrowsparse.DataTypeOf[I]())
	}
	s, err := arrowsparse.AsSlice[I](lv.ptr, lv.off+lv.n+1)
	if err != nil {
		return nil, err
	}
	return s[lv.off:], nil
}

// Values returns the values as a []T of length NNZ that aliases the
// buffer, in tree order. It returns an error wrapping
// arrowsparse.ErrUnsupportedType if T is not the value type.
func Values[T arrowsparse.Value](t *Tensor) ([]T, error) {
	if !arrowsparse.TypeMatches[T](t.valueType) {
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "csf: values are %s, not %s", t.valueType, arrowsparse.DataTypeOf[T]())
	}
	if t.nnz == 0 {
		return []T{}, nil
	}
	lo := t.levels[len(t.levels)-1].off - t.vshift
	s, err := arrowsparse.AsSlice[T](t.values, lo+t.nnz)
	if err != nil {
		return nil, err
	}
	return s[lo:], nil
}

func mustValues[T arrowsparse.Value](t *Tensor) []T {
	v, err := Values[T](t)
	if err != nil {
		panic(arrowsparse.PanicError{Msg: err.Error()})
	}
	return v
}

// Compact returns the tensor with every level starting at node 0 of its
// buffers, as Arrow's SparseCSFIndex and IPC need. A compact tensor is
// returned itself, retained. Otherwise the indices and values buffers are
// shared as zero-copy slices of the receiver's and the indptr buffers are
// rebased into new buffers from mem. The result must be released by the
// caller.
func (t *Tensor) Compact(mem memory.Allocator) (*Tensor, error) {
	if t.IsCompact() {
		t.Retain()
		return t, nil
	}
	c := t.derived()
	for l := range t.levels {
		lv := t.levels[l]
		w := int64(arrowsparse.ByteWidth(lv.idxType))
		nl := level{idxType: lv.idxType, ptrType: lv.ptrType, n: lv.n}
		nl.idx = sliceBuffer(lv.idx, lv.off*w, lv.n*w)
		if lv.ptr != nil {
			pw := int64(arrowsparse.ByteWidth(lv.ptrType))
			nl.ptr = core.NewBuffer(mem, (lv.n+1)*pw)
			base := t.levels[l+1].off
			ops := opsFor(lv.ptrType)
			buf := make([]int64, chunk)
			for i := int64(0); i <= lv.n; i += chunk {
				m := min(chunk, lv.n+1-i)
				ops.read(lv.ptr.Bytes(), lv.off+i, buf[:m])
				for j := range buf[:m] {
					buf[j] -= base
				}
				ops.write(nl.ptr.Bytes(), i, buf[:m])
			}
		}
		c.levels[l] = nl
	}
	vw := int64(arrowsparse.ByteWidth(t.valueType))
	c.values = sliceBuffer(t.values, (t.levels[len(t.levels)-1].off-t.vshift)*vw, t.nnz*vw)
	return c, nil
}

// sliceBuffer returns bytes [off, off+n) of b as a buffer that retains b,
// or nil for an empty range of a nil buffer.
func sliceBuffer(b *memory.Buffer, off, n int64) *memory.Buffer {
	if b == nil {
		return nil
	}
	return memory.SliceBuffer(b, int(off), int(n))
}

// derived returns a tensor with t's metadata and no buffers, with a
// reference count of 1. Shape, names and order are never modified, so
// they are shared.
func (t *Tensor) derived() *Tensor {
	d := &Tensor{
		valueType: t.valueType,
		shape:     t.shape,
		names:     t.names,
		order:     t.order,
		levels:    make([]level, len(t.levels)),
		nnz:       t.nnz,
		unchecked: t.unchecked,
	}
	d.refCount.Store(1)
	return d
}
