package gcs

import (
	"iter"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/tensor"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/coords"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/debug"
	"github.com/arrowsparse/arrowsparse/internal/divide"
	"github.com/arrowsparse/arrowsparse/internal/keysort"
	"github.com/arrowsparse/arrowsparse/internal/vals"
	"github.com/arrowsparse/arrowsparse/views"
)

// Tensor is an N-d sparse tensor in generalized compressed storage (GCS,
// the GCS introduction): a Mapping of its indices onto a reduced (row, column) matrix,
// and that matrix in CSR or CSC storage. It is immutable once built; see
// the package documentation.
type Tensor struct {
	refCount atomic.Int64
	mp       Mapping
	m        *Matrix // the reduced matrix, rows × cols
	names    []string
}

var _ arrowsparse.Sparse = (*Tensor)(nil)

// NewTensor returns the GCS tensor of the given shape, axis permutation
// dims and partitioning over storage, a CSR or CSC matrix of the reduced
// shape (see NewMapping). It shares the storage without copying and
// retains it. The mapping is checked as NewMapping does; a storage shape
// other than the reduced shape is an error wrapping arrowsparse.ErrShape. The result
// must be released by the caller.
func NewTensor(shape []int64, dims []int, partitioning int, storage *Matrix) (*Tensor, error) {
	mp, err := NewMapping(shape, dims, partitioning)
	if err != nil {
		return nil, err
	}
	r, c := mp.ReducedShape()
	if storage.rows != r || storage.cols != c {
		return nil, core.Errorf(arrowsparse.ErrShape, "gcs: storage is %d×%d, but the reduced shape of %v under dims %v and partitioning %d is %d×%d", storage.rows, storage.cols, shape, dims, partitioning, r, c)
	}
	storage.Retain()
	return newTensor(mp, storage, nil), nil
}

// newTensor takes over the caller's reference to m.
func newTensor(mp Mapping, m *Matrix, names []string) *Tensor {
	t := &Tensor{mp: mp, m: m, names: names}
	t.refCount.Store(1)
	return t
}

// FromMatrix returns the matrix as a 2-d GCS tensor with the identity
// mapping (dims (0, 1), partitioning 1), sharing it without copying and
// retaining it: a CSR or CSC matrix is a GCS tensor. AsMatrix goes back.
// The result must be released by the caller.
func FromMatrix(m *Matrix) *Tensor {
	mp, _ := NewMapping(m.Shape(), []int{0, 1}, 1) // a matrix shape always maps
	m.Retain()
	return newTensor(mp, m, core.CloneDimNames(m.names))
}

// FromCOO returns the COO tensor t in GCS format with the mapping
// o.Mapping (by default rows along axis 0 and columns along the others: for
// a matrix, CSR), over a canonical CSR storage matrix in buffers from mem.
// Entries are sorted by the key row·cols + col, which is t's coordinates
// linearised in the mapping's dims order (or, when that does not fit in 64
// bits, the pair (row, col)), with a parallel radix sort (none when t is
// canonical and dims is the identity); duplicates are combined
// under o.Duplicates. Index types default as for MatrixFromCOO, the indices
// being widened to hold the column numbers of the reduced matrix. Dim names
// are kept. The result must be released by the caller.
func FromCOO(mem memory.Allocator, t *coo.Tensor, o ConvertOptions) (*Tensor, error) {
	mp, err := o.mapping(t.Shape())
	if err != nil {
		return nil, err
	}
	s, err := compressCOO(mem, t, mp, o)
	if err != nil {
		return nil, err
	}
	return newTensor(mp, s.matrix(Rows, mp.rows, mp.cols, nil), t.DimNames()), nil
}

// FromDense returns the non-zero elements of src in GCS format with the
// mapping o.Mapping, as FromCOO of coo.FromDense would. src may be any
// arrowsparse.Dense, whose layout is checked as views.New checks one. The
// result must be released by the caller.
func FromDense(mem memory.Allocator, src arrowsparse.Dense, o ConvertOptions) (*Tensor, error) {
	c, err := coo.FromDense(mem, src, coo.ConvertOptions{Workers: o.Workers})
	if err != nil {
		return nil, err
	}
	defer c.Release()
	return FromCOO(mem, c, o)
}

// FromArrowTensor returns the non-zero elements of an arrow-go dense tensor
// in GCS format, as FromDense does; the tensor's data is read in place. The
// result must be released by the caller.
func FromArrowTensor(mem memory.Allocator, src tensor.Interface, o ConvertOptions) (*Tensor, error) {
	v, err := views.FromArrowTensor(src)
	if err != nil {
		return nil, err
	}
	defer v.Release()
	return FromDense(mem, v, o)
}

// Retain increases the reference count by 1.
// Retain may be called simultaneously from multiple goroutines.
func (t *Tensor) Retain() { t.refCount.Add(1) }

// Release decreases the reference count by 1.
// When the reference count goes to zero, the storage is released.
// Release may be called simultaneously from multiple goroutines.
func (t *Tensor) Release() {
	n := t.refCount.Add(-1)
	debug.Assert(n >= 0, "gcs: too many releases of a Tensor")
	if n == 0 {
		t.m.Release()
		t.m = nil
	}
}

// Format returns arrowsparse.FormatGCS.
func (t *Tensor) Format() arrowsparse.Format { return arrowsparse.FormatGCS }

// DataType returns the type of the values.
func (t *Tensor) DataType() arrow.DataType { return t.m.valueType }

// Shape returns a copy of the shape.
func (t *Tensor) Shape() []int64 { return t.mp.Shape() }

// NumDims returns the number of dimensions.
func (t *Tensor) NumDims() int { return len(t.mp.shape) }

// DimNames returns a copy of the dimension names, or nil.
func (t *Tensor) DimNames() []string { return core.CloneDimNames(t.names) }

// NNZ returns the number of stored values.
func (t *Tensor) NNZ() int64 { return t.m.nnz }

// Mapping returns the mapping of the tensor onto its reduced matrix.
func (t *Tensor) Mapping() Mapping { return t.mp }

// Dims returns a copy of the axis permutation of the mapping.
func (t *Tensor) Dims() []int { return t.mp.Dims() }

// Partitioning returns the number of row dimensions of the mapping.
func (t *Tensor) Partitioning() int { return t.mp.split }

// Storage returns the reduced matrix, in CSR or CSC format. It shares
// memory with the tensor: the tensor must outlive it, or it must be
// retained.
func (t *Tensor) Storage() *Matrix { return t.m }

// IsCanonical reports whether the storage is canonical (see
// Matrix.IsCanonical): then no two entries share an index and each lane is
// in increasing order of the linearised indices.
func (t *Tensor) IsCanonical() bool { return t.m.canonical }

// Validate runs the full check of the storage (Matrix.Validate) and checks
// that its shape is the reduced shape of the mapping.
func (t *Tensor) Validate() error {
	r, c := t.mp.ReducedShape()
	if t.m.rows != r || t.m.cols != c {
		return core.Errorf(arrowsparse.ErrShape, "gcs: storage is %d×%d, but the mapping reduces to %d×%d", t.m.rows, t.m.cols, r, c)
	}
	return t.m.Validate()
}

// WithDimNames returns the tensor with the given dimension names (one per
// dimension, or none), sharing its storage. The result must be released by
// the caller.
func (t *Tensor) WithDimNames(names ...string) (*Tensor, error) {
	if err := core.CheckDimNames(names, len(t.mp.shape)); err != nil {
		return nil, err
	}
	t.m.Retain()
	return newTensor(t.mp, t.m, core.CloneDimNames(names)), nil
}

// AsMatrix returns a 2-d tensor as a matrix without copying: the storage
// itself for the identity mapping (dims (0, 1), partitioning 1), and its
// transpose T() for dims (1, 0), partitioning 1, whose reduced matrix is
// the tensor's transpose. Other mappings reduce a 2-d tensor to a single
// row or column and give an error wrapping arrowsparse.ErrShape, as does a rank
// other than 2. The result shares memory with the tensor and must be
// released by the caller.
func (t *Tensor) AsMatrix() (*Matrix, error) {
	if len(t.mp.shape) != 2 || t.mp.split != 1 {
		return nil, core.Errorf(arrowsparse.ErrShape, "gcs: only a 2-d tensor with partitioning 1 is a matrix (shape %v, partitioning %d)", t.mp.shape, t.mp.split)
	}
	var m *Matrix
	if t.mp.dims[0] == 0 {
		m = t.m.clone()
	} else {
		m = t.m.T()
	}
	m.names = core.CloneDimNames(t.names)
	return m, nil
}

// Transpose returns the tensor with its axes permuted: axis k of the result
// is axis perm[k] of the receiver, as numpy.transpose has it; with no
// arguments the axes are reversed. It never copies or sorts: the result
// shares the storage, and only the mapping's dims are relabelled, so every
// element keeps its place in the reduced matrix. A perm that is not a
// permutation is an error wrapping arrowsparse.ErrStructure. The result must be
// released by the caller.
func (t *Tensor) Transpose(perm ...int) (*Tensor, error) {
	n := len(t.mp.shape)
	if len(perm) == 0 {
		perm = make([]int, n)
		for k := range perm {
			perm[k] = n - 1 - k
		}
	}
	if err := core.CheckPermutation(perm, n, "gcs: axis permutation"); err != nil {
		return nil, err
	}
	var names []string
	if t.names != nil {
		names = make([]string, n)
		for k, p := range perm {
			names[k] = t.names[p]
		}
	}
	t.m.Retain()
	return newTensor(t.mp.Permuted(perm), t.m, names), nil
}

// WithStorage returns the tensor with its reduced matrix stored along the
// given axis (Rows: CSR, Cols: CSC), with the same mapping. The receiver is
// returned itself, retained, if it already has that storage; otherwise the
// storage is transposed physically (Matrix.ToCSR, Matrix.ToCSC). The result
// must be released by the caller.
func (t *Tensor) WithStorage(mem memory.Allocator, axis Axis, o ConvertOptions) (*Tensor, error) {
	if err := axis.check(); err != nil {
		return nil, err
	}
	if t.m.axis == axis && o.IndptrType == nil && o.IndexType == nil {
		t.Retain()
		return t, nil
	}
	m, err := t.m.toAxis(mem, axis, o)
	if err != nil {
		return nil, err
	}
	return newTensor(t.mp, m, t.names), nil
}

// storageOrder returns the axes in the order of significance of the
// storage's entry order: the mapping's dims for a CSR (row dimensions,
// then column dimensions), and the column dimensions first for a CSC.
func (t *Tensor) storageOrder() []int {
	if t.m.axis == Cols {
		return t.mp.Swapped().dims
	}
	return t.mp.dims
}

// Remap returns the tensor with another mapping of the same shape, the
// analogue of pydata/sparse's change_compressed_axes. It sorts only when
// the new mapping needs it:
//
//   - the same mapping returns the receiver, retained;
//   - the swapped mapping (dims[p:] ++ dims[:p], N-p), whose reduced
//     matrix is the transpose, shares the storage through Matrix.T: a CSR
//     becomes a CSC and back, without copying;
//   - when a sorted storage's entries are already in the new order (the
//     storage order equals the new dims: only the partitioning moves, or
//     the storage is a CSC whose column-first order is the new dims), or in
//     the new order's column-first order, the entries keep their order:
//     new index pointers and indices are computed in one pass and the
//     values buffer is shared;
//   - otherwise the entries are sorted by the new key, as FromCOO does, into a canonical CSR, combining duplicates under o.Duplicates.
//
// The result must be released by the caller.
func (t *Tensor) Remap(mem memory.Allocator, mp Mapping, o ConvertOptions) (*Tensor, error) {
	if mp.IsZero() || !slices.Equal(mp.shape, t.mp.shape) {
		return nil, core.Errorf(arrowsparse.ErrShape, "gcs: Remap needs a mapping of the tensor's shape %v", t.mp.shape)
	}
	if err := o.Duplicates.Check(); err != nil {
		return nil, err
	}
	retype := o.IndptrType != nil || o.IndexType != nil
	switch {
	case mp.Equal(t.mp) && !retype:
		t.Retain()
		return t, nil
	case mp.Equal(t.mp.Swapped()) && !retype:
		return newTensor(mp, t.m.T(), t.names), nil
	}
	if t.m.sorted {
		ord := t.storageOrder()
		if slices.Equal(ord, mp.dims) {
			m, err := t.reindex(mem, mp, Rows, o)
			if err != nil {
				return nil, err
			}
			return newTensor(mp, m, t.names), nil
		}
		if slices.Equal(ord, mp.Swapped().dims) {
			m, err := t.reindex(mem, mp, Cols, o)
			if err != nil {
				return nil, err
			}
			return newTensor(mp, m, t.names), nil
		}
	}
	m, err := t.resort(mem, mp, o)
	if err != nil {
		return nil, err
	}
	return newTensor(mp, m, t.names), nil
}

// reindex returns the storage of mp along axis when the receiver's
// entries are already in that order: every entry keeps its place and its
// linear key lane·minor + index, from which the new lane and index follow.
func (t *Tensor) reindex(mem memory.Allocator, mp Mapping, axis Axis, o ConvertOptions) (*Matrix, error) {
	m := t.m
	major, minor := m.dims()
	nmaj, nmin := mp.rows, mp.cols
	if axis == Cols {
		nmaj, nmin = nmin, nmaj
	}
	pt, it, err := o.indexTypes(m.indptrType, m.indicesType, nmin, m.nnz)
	if err != nil {
		return nil, err
	}
	if err := checkPointerAlloc(nmaj, pt); err != nil {
		return nil, err
	}
	indptr := core.NewBuffer(mem, (nmaj+1)*int64(arrowsparse.ByteWidth(pt)))
	clear(indptr.Bytes())
	indices := core.NewBuffer(mem, m.nnz*int64(arrowsparse.ByteWidth(it)))
	c := ixFor(pt, it).compressor()
	ix := m.ix()
	lanes, idx := make([]int64, chunk), make([]int64, chunk)
	if _, ok := core.SizeUint64([]int64{major, minor}); ok && m.nnz > 0 {
		div := divide.New(uint64(nmin))
		words := make([]uint64, chunk)
		var mu sync.Mutex
		for a := int64(0); a < m.nnz; a += chunk {
			b := min(a+chunk, m.nnz)
			ix.entries(m, a, b, lanes, idx)
			for q := range b - a {
				words[q] = uint64(lanes[q])*uint64(minor) + uint64(idx[q])
			}
			c.emit(indptr.Bytes(), indices.Bytes(), &mu, int(a), &keysort.Bucket{Words: words[:b-a], W: 1}, div, true)
		}
	} else if m.nnz > 0 {
		// Keys beyond 64 bits: 128-bit arithmetic.
		nl, ni := make([]int64, m.nnz), make([]int64, m.nnz)
		for a := int64(0); a < m.nnz; a += chunk {
			b := min(a+chunk, m.nnz)
			ix.entries(m, a, b, lanes, idx)
			for q := range b - a {
				hi, lo := bits.Mul64(uint64(lanes[q]), uint64(minor))
				lo, carry := bits.Add64(lo, uint64(idx[q]), 0)
				quo, rem := bits.Div64(hi+carry, lo, uint64(nmin))
				nl[a+q], ni[a+q] = int64(quo), int64(rem)
			}
		}
		c.put(indptr.Bytes(), indices.Bytes(), nl, ni)
	}
	c.prefix(indptr.Bytes())
	if m.values != nil {
		m.values.Retain()
	}
	return adopt(axis, mp.rows, mp.cols, nil, m.valueType, pt, it, indptr, indices, m.values, m.nnz, m.sorted, m.canonical), nil
}

// resort sorts the entries into the canonical CSR of mp.
func (t *Tensor) resort(mem memory.Allocator, mp Mapping, o ConvertOptions) (*Matrix, error) {
	m := t.m
	pt, it, err := o.indexTypes(m.indptrType, m.indicesType, mp.cols, m.nnz)
	if err != nil {
		return nil, err
	}
	if err := checkPointerAlloc(mp.rows, pt); err != nil {
		return nil, err
	}
	var in []byte
	if m.nnz > 0 {
		in = m.values.Bytes()[:m.nnz*int64(arrowsparse.ByteWidth(m.valueType))]
	}
	j := &job{
		n:       int(m.nnz),
		major:   mp.rows,
		minor:   mp.cols,
		in:      in,
		vt:      m.valueType,
		pt:      pt,
		it:      it,
		policy:  o.Duplicates,
		workers: o.Workers,
	}
	// Entry (lane, index) is a (row, column) of the old reduced matrix; its
	// new key or (row, column) is a linear form of the digits of each.
	lr, li := t.mp.rowRadix(), t.mp.colRadix()
	if m.axis == Cols {
		lr, li = li, lr
	}
	ix := m.ix()
	if mul, span, kb, ok := mp.keyStrides(); ok {
		imul := make([]int64, len(mul))
		for k, v := range mul {
			imul[k] = int64(v)
		}
		j.keyBits, j.span = []uint{kb}, span
		j.keys = func(lo, hi int, dst []uint64) {
			lanes, idx := make([]int64, chunk), make([]int64, chunk)
			for a := lo; a < hi; a += chunk {
				b := min(a+chunk, hi)
				ix.entries(m, int64(a), int64(b), lanes, idx)
				last, part := int64(-1), uint64(0)
				for q := range b - a {
					if lanes[q] != last {
						last = lanes[q]
						part = uint64(lr.dot(uint64(last), imul))
					}
					dst[a-lo+q] = part + uint64(li.dot(uint64(idx[q]), imul))
				}
			}
		}
	} else {
		// Two-word keys (row, column).
		ur, uc := mp.rowColStrides()
		rs, cs := make([]int64, len(ur)), make([]int64, len(uc))
		for k := range ur {
			rs[k], cs[k] = int64(ur[k]), int64(uc[k])
		}
		j.keyBits = wideKeyBits(mp.rows, mp.cols)
		j.keys = func(lo, hi int, dst []uint64) {
			lanes, idx := make([]int64, chunk), make([]int64, chunk)
			for a := lo; a < hi; a += chunk {
				b := min(a+chunk, hi)
				ix.entries(m, int64(a), int64(b), lanes, idx)
				for q := range b - a {
					l, i := uint64(lanes[q]), uint64(idx[q])
					e := 2 * (a - lo + q)
					dst[e] = uint64(lr.dot(l, rs) + li.dot(i, rs))
					dst[e+1] = uint64(lr.dot(l, cs) + li.dot(i, cs))
				}
			}
		}
	}
	indptr, indices, values, nnz, dup := j.run(mem)
	if dup && o.Duplicates == arrowsparse.RejectDuplicates {
		for _, b := range []*memory.Buffer{indptr, indices, values} {
			b.Release()
		}
		return nil, core.Errorf(arrowsparse.ErrNotCanonical, "gcs: duplicate coordinates, and the duplicate policy rejects them")
	}
	return adopt(Rows, mp.rows, mp.cols, nil, m.valueType, pt, it, indptr, indices, values, nnz, true, true), nil
}

// ToCOO returns the tensor as a COO tensor with row-major coordinates in a
// buffer from mem, sharing the values with the storage as Matrix.ToCOO does
// (entries stay in storage order, duplicates included). The coordinates have the storage's
// indices type, widened to the narrowest signed type holding every
// dimension if needed; o.IndexType overrides. The COO is canonical when
// the storage is a canonical CSR with the identity dims. The result must be
// released by the caller.
func (t *Tensor) ToCOO(mem memory.Allocator, o ConvertOptions) (*coo.Tensor, error) {
	it := o.IndexType
	if it == nil {
		var big int64
		for _, d := range t.mp.shape {
			big = max(big, d-1)
		}
		it = widen(t.m.indicesType, big)
	}
	if err := core.CheckIndexType(it); err != nil {
		return nil, err
	}
	m := t.m
	nd := int64(len(t.mp.shape))
	cb := core.NewBuffer(mem, m.nnz*nd*int64(arrowsparse.ByteWidth(it)))
	defer cb.Release()
	iop := coords.For(it)
	t.eachChunk(func(lo, hi int64, idx []int64) {
		iop.Put(cb.Bytes(), lo*nd, idx)
	})
	var opts []coo.Option
	if t.names != nil {
		opts = append(opts, coo.WithDimNames(t.names...))
	}
	return coo.New(m.valueType, it, t.mp.Shape(), cb, coo.RowMajor, m.values, m.nnz, opts...)
}

// ValuesBuffer returns the values buffer of the storage matrix: NNZ()
// values of DataType(), in storage order. It shares memory with the
// tensor: the tensor must outlive it, or the buffer must be retained.
func (t *Tensor) ValuesBuffer() *memory.Buffer { return t.m.values }

// ValueBytes returns the bytes of the NNZ values, in storage order (the
// order of AppendCoords), as the little-endian bytes of DataType(). It
// aliases the tensor's memory: the tensor must outlive it.
func (t *Tensor) ValueBytes() []byte { return t.m.values.Bytes() }

// AppendCoords appends the N-d coordinates of the stored entries, in
// storage order, to dst as int64s: NNZ()·NumDims() of them, entry by entry.
// It is the arrowsparse.Sparse accessor for code that learns the index
// types only at run time.
func (t *Tensor) AppendCoords(dst []int64) []int64 {
	start := int64(len(dst))
	nd := int64(len(t.mp.shape))
	dst = slices.Grow(dst, int(t.m.nnz*nd))[:start+t.m.nnz*nd]
	t.eachChunk(func(lo, hi int64, idx []int64) {
		copy(dst[start+lo*nd:start+hi*nd], idx)
	})
	return dst
}

// eachChunk calls f for the storage entries in chunks [lo, hi), with their
// N-d indices row-major in idx ((hi-lo)·N entries).
func (t *Tensor) eachChunk(f func(lo, hi int64, idx []int64)) {
	m := t.m
	nd := len(t.mp.shape)
	lr, li := t.mp.rowRadix(), t.mp.colRadix()
	if m.axis == Cols {
		lr, li = li, lr
	}
	ix := m.ix()
	step := core.ChunkEntries(nd, m.nnz)
	lanes, ids := make([]int64, step), make([]int64, step)
	out := make([]int64, step*int64(max(nd, 1)))
	full := make([]int64, nd)
	for a := int64(0); a < m.nnz; a += step {
		b := min(a+step, m.nnz)
		ix.entries(m, a, b, lanes, ids)
		for q := range b - a {
			lr.split(uint64(lanes[q]), full)
			li.split(uint64(ids[q]), full)
			copy(out[q*int64(nd):], full)
		}
		f(a, b, out[:(b-a)*int64(nd)])
	}
}

// ToDense returns a new row-major dense view of the tensor, in a buffer
// from mem, with duplicates summed. It fails with an error wrapping
// arrowsparse.ErrOverflow if the dense size does not fit in int64. The result must
// be released by the caller.
func (t *Tensor) ToDense(mem memory.Allocator) (arrowsparse.Dense, error) {
	size, err := arrowsparse.NumElements(t.mp.shape)
	if err != nil {
		return nil, err
	}
	if _, ok := core.MulInt64(size, int64(arrowsparse.ByteWidth(t.m.valueType))); !ok {
		return nil, core.Errorf(arrowsparse.ErrOverflow, "gcs: dense size of shape %v overflows int64 bytes", t.mp.shape)
	}
	v, err := views.AllocNamed(mem, t.m.valueType, t.mp.shape, t.names)
	if err != nil {
		return nil, err
	}
	strides, _ := arrowsparse.RowMajorStrides(t.mp.shape)
	m := t.m
	lr, li := t.mp.rowRadix(), t.mp.colRadix()
	if m.axis == Cols {
		lr, li = li, lr
	}
	ix := m.ix()
	vop := vals.For(m.valueType)
	dense := v.Buffer().Bytes()
	var in []byte
	if m.nnz > 0 {
		in = m.values.Bytes()[:m.nnz*int64(arrowsparse.ByteWidth(m.valueType))]
	}
	lanes, ids, pos := make([]int64, chunk), make([]int64, chunk), make([]int64, chunk)
	for a := int64(0); a < m.nnz; a += chunk {
		b := min(a+chunk, m.nnz)
		ix.entries(m, a, b, lanes, ids)
		for q := range b - a {
			pos[q] = lr.dot(uint64(lanes[q]), strides) + li.dot(uint64(ids[q]), strides)
		}
		vop.Scatter(dense, pos[:b-a], in, a, arrowsparse.SumDuplicates, nil)
	}
	return v, nil
}

func tensorAll[T arrowsparse.Value](t *Tensor) iter.Seq2[[]int64, T] {
	vs := mustType[T](t.m)
	return func(yield func([]int64, T) bool) {
		m := t.m
		nd := len(t.mp.shape)
		lr, li := t.mp.rowRadix(), t.mp.colRadix()
		if m.axis == Cols {
			lr, li = li, lr
		}
		ix := m.ix()
		lanes, ids := make([]int64, chunk), make([]int64, chunk)
		idx := make([]int64, nd)
		for a := int64(0); a < m.nnz; a += chunk {
			b := min(a+chunk, m.nnz)
			ix.entries(m, a, b, lanes, ids)
			for q := range b - a {
				lr.split(uint64(lanes[q]), idx)
				li.split(uint64(ids[q]), idx)
				if !yield(idx, vs[a+q]) {
					return
				}
			}
		}
	}
}
