package gcs

import (
	"fmt"
	"math/bits"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/coords"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/densescan"
	"github.com/arrowsparse/arrowsparse/internal/divide"
	"github.com/arrowsparse/arrowsparse/internal/keysort"
	"github.com/arrowsparse/arrowsparse/internal/vals"
	"github.com/arrowsparse/arrowsparse/views"
)

// chunk is the number of entries processed per step by kernels that stage
// indices in a small buffer.
const chunk = 1024

// MatrixFromCOO returns the 2-d COO tensor t as a canonical CSR (axis Rows) or CSC
// (axis Cols) matrix, in buffers from mem: entries are sorted by row then
// column (CSR) or column then row (CSC), and duplicates are combined under
// o.Duplicates (summed by default, as scipy's tocsr does). Dim names are
// kept.
//
// The indices have the COO's index type and the index pointers the same
// type, widened to the narrowest signed type holding t.NNZ() if needed;
// o.IndexType and o.IndptrType override. (SciPy picks int32 when it
// fits; Arrow C++ uses one type for both.)
//
// A canonical COO converts to CSR in one linear pass. Otherwise the entries
// are sorted with a parallel radix sort on the key row·cols + col (or
// col·rows + row), on o.Workers goroutines, which moves each value with its
// key (internal/keysort (Carry)); when row·cols does not fit in 64 bits,
// the keys are the pairs (row, col) and the same sort orders them.
// Memory: the output buffers, which the sort uses as staging, plus about
// 24 bytes per entry of the largest bucket (some 2^15 entries) per worker
// (twice that for two-word keys), plus 4 or 8 bytes per entry (16 for
// two-word keys) when the indices are narrower than the key bits staged
// per entry. The result must be released by the caller.
func MatrixFromCOO(mem memory.Allocator, t *coo.Tensor, axis Axis, o ConvertOptions) (*Matrix, error) {
	if err := axis.check(); err != nil {
		return nil, err
	}
	if t.NumDims() != 2 {
		return nil, core.Errorf(arrowsparse.ErrShape, "gcs: MatrixFromCOO needs a 2-d tensor, not %d-d; use FromCOO for a GCS tensor", t.NumDims())
	}
	dims := []int{0, 1}
	if axis == Cols {
		dims = []int{1, 0}
	}
	mp, err := NewMapping(t.Shape(), dims, 1)
	if err != nil {
		return nil, err
	}
	s, err := compressCOO(mem, t, mp, o)
	if err != nil {
		return nil, err
	}
	shape := t.Shape()
	return s.matrix(axis, shape[0], shape[1], t.DimNames()), nil
}

// compressed is the output of a conversion to compressed storage: the CSR
// buffers of a reduced matrix, owned by the holder.
type compressed struct {
	vt, pt, it              arrow.DataType
	indptr, indices, values *memory.Buffer
	nnz                     int64
	sorted, canonical       bool
}

// matrix wraps the buffers as a matrix of the given logical shape whose
// lanes run along axis (for Cols the buffers are the CSR of the transpose).
func (s compressed) matrix(axis Axis, rows, cols int64, names []string) *Matrix {
	return adopt(axis, rows, cols, names, s.vt, s.pt, s.it, s.indptr, s.indices, s.values, s.nnz, s.sorted, s.canonical)
}

func (s compressed) release() {
	for _, b := range []*memory.Buffer{s.indptr, s.indices, s.values} {
		if b != nil {
			b.Release()
		}
	}
}

// compressCOO builds the canonical CSR of the reduced matrix of t under mp.
func compressCOO(mem memory.Allocator, t *coo.Tensor, mp Mapping, o ConvertOptions) (compressed, error) {
	if err := o.Duplicates.Check(); err != nil {
		return compressed{}, err
	}
	rows, cols := mp.ReducedShape()
	n := t.NNZ()
	pt, it, err := o.indexTypes(t.IndexType(), t.IndexType(), cols, n)
	if err != nil {
		return compressed{}, err
	}
	if err := checkPointerAlloc(rows, pt); err != nil {
		return compressed{}, err
	}
	s := compressed{vt: t.DataType(), pt: pt, it: it, sorted: true, canonical: true}
	f := formsOf(t)
	vw := int64(arrowsparse.ByteWidth(s.vt))
	var in []byte
	if n > 0 {
		in = t.ValuesBuffer().Bytes()[:n*vw]
	}
	mul, span, kb, keysFit := mp.keyStrides()
	if t.IsCanonical() && isIdentityPerm(mp.dims) && keysFit {
		// Row-major order of the coordinates is the order of the keys.
		s.indptr, s.indices, s.values, s.nnz = presorted(mem, f.keys(mul), span, in, n, rows, pt, it)
		return s, nil
	}
	j := &job{
		n:       int(n),
		major:   rows,
		minor:   cols,
		in:      in,
		vt:      s.vt,
		pt:      pt,
		it:      it,
		policy:  o.Duplicates,
		workers: o.Workers,
	}
	if keysFit {
		j.keyBits, j.keys, j.span = []uint{kb}, f.keys(mul), span
	} else {
		// Two-word keys (row, column).
		a, b := mp.rowColStrides()
		j.keyBits, j.keys = wideKeyBits(rows, cols), f.keys(a, b)
	}
	var dup bool
	s.indptr, s.indices, s.values, s.nnz, dup = j.run(mem)
	if dup && o.Duplicates == arrowsparse.RejectDuplicates {
		s.release()
		return compressed{}, core.Errorf(arrowsparse.ErrNotCanonical, "gcs: duplicate coordinates, and the duplicate policy rejects them")
	}
	return s, nil
}

// checkPointerAlloc returns an error if an index pointer array for the
// given number of lanes cannot be allocated (core.CheckAlloc): a
// hypersparse shape of 2^40 rows, say, is refused with an error rather than
// crashing the process when the allocation fails.
func checkPointerAlloc(lanes int64, pt arrow.DataType) error {
	n, ok := core.MulInt64(lanes+1, int64(arrowsparse.ByteWidth(pt)))
	if !ok || lanes+1 <= 0 {
		return core.Errorf(arrowsparse.ErrOverflow, "gcs: an index pointer array of %d+1 entries overflows int64", lanes)
	}
	return core.CheckAlloc(n, fmt.Sprintf("gcs: an index pointer array of %d+1 entries of %s", lanes, pt))
}

func isIdentityPerm(p []int) bool {
	for k, v := range p {
		if v != k {
			return false
		}
	}
	return true
}

// presorted compresses n entries whose keys are strictly increasing.
func presorted(mem memory.Allocator, keys func(lo, hi int, dst []uint64), span uint64, in []byte, n, major int64, pt, it arrow.DataType) (indptr, indices, values *memory.Buffer, nnz int64) {
	pw, iw := int64(arrowsparse.ByteWidth(pt)), int64(arrowsparse.ByteWidth(it))
	indptr = core.NewBuffer(mem, (major+1)*pw)
	clear(indptr.Bytes())
	indices = core.NewBuffer(mem, n*iw)
	values = copyBuffer(mem, in)
	c := ixFor(pt, it).compressor()
	if n > 0 {
		div := divide.New(span)
		var mu sync.Mutex
		buf := make([]uint64, chunk)
		for lo := int64(0); lo < n; lo += chunk {
			hi := min(lo+chunk, n)
			keys(int(lo), int(hi), buf)
			c.emit(indptr.Bytes(), indices.Bytes(), &mu, int(lo), &keysort.Bucket{Words: buf[:hi-lo], W: 1}, div, true)
		}
	}
	c.prefix(indptr.Bytes())
	return indptr, indices, values, n
}

// cooForms computes linear forms of the coordinates of a COO tensor with
// the kernels of internal/coords.
type cooForms struct {
	m   coords.Matrix
	ops coords.Ops
}

func formsOf(t *coo.Tensor) cooForms {
	var data []byte
	if b := t.CoordsBuffer(); b != nil {
		data = b.Bytes()
	}
	m := coords.Matrix{Type: t.IndexType(), Data: data, N: t.NNZ(), Shape: t.Shape(), ColMajor: t.Layout() == coo.ColMajor}
	return cooForms{m: m, ops: m.Ops()}
}

// keys returns a sort key function of one word per stride vector: word q
// is Σ coord[k]·strides[q][k] (mod 2^64).
func (f cooForms) keys(strides ...[]uint64) func(lo, hi int, dst []uint64) {
	return f.ops.Keys(f.m, strides)
}

// coords writes the coordinates of entries [lo, hi) row-major to dst.
func (f cooForms) coords(lo, hi int, dst []int64) {
	f.ops.Fill(f.m, int64(lo), int64(hi), dst)
}

// MatrixFromDense returns the non-zero elements of the 2-d dense tensor src
// as a canonical CSR (axis Rows) or CSC (axis Cols) matrix in buffers from
// mem. Negative zero counts as zero; NaN counts as non-zero. Any strides
// work (column-major and transposed views included); src may be any
// arrowsparse.Dense, whose layout is checked as views.New checks one. The
// indices default to the narrowest signed type that holds every index of
// the shape, and the pointers to one that also holds the number of
// non-zeros; o.IndexType and o.IndptrType choose others. Dim names are
// kept. Memory beyond the output: a count per lane and the indices of the
// longest lane's non-zeros. The result must be released by the caller.
func MatrixFromDense(mem memory.Allocator, src arrowsparse.Dense, axis Axis, o ConvertOptions) (*Matrix, error) {
	if err := axis.check(); err != nil {
		return nil, err
	}
	d, err := views.Of(src)
	if err != nil {
		return nil, err
	}
	defer d.Release()
	shape := d.Shape()
	if len(shape) != 2 {
		return nil, core.Errorf(arrowsparse.ErrShape, "gcs: MatrixFromDense needs a 2-d tensor, not %d-d; use FromDense for a GCS tensor", len(shape))
	}
	strides := d.ElemStrides()
	major, minor := shape[0], shape[1]
	sMaj, sMin := strides[0], strides[1]
	if axis == Cols {
		major, minor, sMaj, sMin = minor, major, sMin, sMaj
	}
	vt := d.DataType()
	vop := vals.For(vt)
	data := d.Buffer().Bytes()
	off := d.ElemOffset()
	// The output has major+1 pointers; check that they can be allocated
	// before the counts, which are as many.
	if err := checkPointerAlloc(major, arrow.PrimitiveTypes.Int64); err != nil {
		return nil, err
	}
	total, err := densescan.Precheck(d, 16, "gcs")
	if err != nil {
		return nil, err
	}
	counts := make([]int64, major)
	var n, longest int64
	if minor > 0 && total > 0 {
		for k := range major {
			counts[k] = vop.CountNonzero(data, off+k*sMaj, minor, sMin)
			n += counts[k]
			longest = max(longest, counts[k])
		}
	}
	small := arrowsparse.SmallestIndexType(max(minor-1, 0))
	pt, it, err := o.indexTypes(small, small, minor, n)
	if err != nil {
		return nil, err
	}
	if err := checkPointerAlloc(major, pt); err != nil {
		return nil, err
	}
	pw, iw, vw := int64(arrowsparse.ByteWidth(pt)), int64(arrowsparse.ByteWidth(it)), int64(arrowsparse.ByteWidth(vt))
	if nb, ok := core.MulInt64(n, iw+vw); !ok {
		return nil, core.Errorf(arrowsparse.ErrOverflow, "gcs: %d non-zeros overflow int64 bytes", n)
	} else if err := core.CheckAlloc(nb, fmt.Sprintf("gcs: %d non-zero entries", n)); err != nil {
		return nil, err
	}
	indptr := core.NewBuffer(mem, (major+1)*pw)
	indices := core.NewBuffer(mem, n*iw)
	values := core.NewBuffer(mem, n*vw)
	iop := coords.For(it)
	ptrs := make([]int64, major+1)
	cols := make([]int64, longest)
	var at int64
	for k := range major {
		ptrs[k] = at
		if counts[k] == 0 {
			continue
		}
		c := vop.CollectNonzero(data, off+k*sMaj, minor, sMin, values.Bytes(), at, cols)
		iop.Put(indices.Bytes(), at, cols[:c])
		at += int64(c)
	}
	ptrs[major] = at
	coords.For(pt).Put(indptr.Bytes(), 0, ptrs)
	return adopt(axis, shape[0], shape[1], d.DimNames(), vt, pt, it, indptr, indices, values, n, true, true), nil
}

// ToCOO returns the matrix as a 2-d COO tensor with row-major coordinates
// in a buffer from mem, sharing the values buffer with the matrix (entries
// stay in storage order, duplicates included). The coordinates have the
// indices type, widened to the narrowest signed type holding both
// dimensions if needed; o.IndexType overrides. A canonical CSR gives a
// canonical COO. The result must be released by the caller.
func (m *Matrix) ToCOO(mem memory.Allocator, o ConvertOptions) (*coo.Tensor, error) {
	it := o.IndexType
	if it == nil {
		it = widen(m.indicesType, max(m.rows, m.cols)-1)
	}
	if err := core.CheckIndexType(it); err != nil {
		return nil, err
	}
	iw := int64(arrowsparse.ByteWidth(it))
	cb := core.NewBuffer(mem, 2*m.nnz*iw)
	defer cb.Release()
	iop := coords.For(it)
	ix := m.ix()
	major, _ := m.dims()
	stage := make([]int64, 0, 2*chunk)
	idx := make([]int64, chunk)
	for k := range major {
		lo, hi := ix.lane(m, k)
		for a := lo; a < hi; a += chunk {
			b := min(a+chunk, hi)
			ix.indices(m, a, b, idx)
			stage = stage[:0]
			for _, j := range idx[:b-a] {
				if m.axis == Rows {
					stage = append(stage, k, j)
				} else {
					stage = append(stage, j, k)
				}
			}
			iop.Put(cb.Bytes(), 2*a, stage)
		}
	}
	var opts []coo.Option
	if m.names != nil {
		opts = append(opts, coo.WithDimNames(m.names...))
	}
	return coo.New(m.valueType, it, m.Shape(), cb, coo.RowMajor, m.values, m.nnz, opts...)
}

// ToDense returns a new row-major dense view of the matrix, in a buffer from
// mem, with duplicates summed. It fails with an error wrapping
// arrowsparse.ErrOverflow if the dense size does not fit in int64. The result must
// be released by the caller.
func (m *Matrix) ToDense(mem memory.Allocator) (arrowsparse.Dense, error) {
	return m.ToView(mem, ConvertOptions{})
}

// ToView is ToDense returning the *views.View, with duplicates combined
// under o.Duplicates. The result must be released by the caller.
func (m *Matrix) ToView(mem memory.Allocator, o ConvertOptions) (*views.View, error) {
	p := o.Duplicates
	if err := p.Check(); err != nil {
		return nil, err
	}
	size, err := arrowsparse.NumElements(m.Shape())
	if err != nil {
		return nil, err
	}
	if _, ok := core.MulInt64(size, int64(arrowsparse.ByteWidth(m.valueType))); !ok {
		return nil, core.Errorf(arrowsparse.ErrOverflow, "gcs: dense size of shape %v overflows int64 bytes", m.Shape())
	}
	v, err := views.AllocNamed(mem, m.valueType, m.Shape(), m.names)
	if err != nil {
		return nil, err
	}
	var seen []uint64
	if p != arrowsparse.SumDuplicates && p != arrowsparse.KeepLast {
		seen = make([]uint64, (size+63)/64)
	}
	sMaj, sMin := m.cols, int64(1)
	if m.axis == Cols {
		sMaj, sMin = 1, m.cols
	}
	dense := v.Buffer().Bytes()
	var in []byte
	if m.nnz > 0 {
		in = m.values.Bytes()[:m.nnz*int64(arrowsparse.ByteWidth(m.valueType))]
	}
	vop := vals.For(m.valueType)
	ix := m.ix()
	major, _ := m.dims()
	pos := make([]int64, chunk)
	dup := false
	for k := range major {
		lo, hi := ix.lane(m, k)
		for a := lo; a < hi; a += chunk {
			b := min(a+chunk, hi)
			ix.indices(m, a, b, pos)
			for q := range b - a {
				pos[q] = k*sMaj + pos[q]*sMin
			}
			if vop.Scatter(dense, pos[:b-a], in, a, p, seen) {
				dup = true
			}
		}
	}
	if dup && p == arrowsparse.RejectDuplicates {
		v.Release()
		return nil, core.Errorf(arrowsparse.ErrNotCanonical, "gcs: duplicate entries, and the duplicate policy rejects them")
	}
	return v, nil
}

// ToCSR returns the matrix in CSR format. A CSR is returned itself,
// retained. A CSC is transposed physically (see ToCSC). The result must be
// released by the caller.
func (m *Matrix) ToCSR(mem memory.Allocator, o ConvertOptions) (*Matrix, error) {
	return m.toAxis(mem, Rows, o)
}

// ToCSC returns the matrix in CSC format. A CSC is returned itself,
// retained. A CSR is transposed physically into new buffers from mem by a
// stable sort of its entries by column, on o.Workers goroutines: the rows
// come in order, so the result is sorted within every column even if the
// input is not sorted within its rows, and duplicates are kept, in storage
// order (o.Duplicates is ignored). The index types are kept, the indices
// being widened if the new index range needs it; o's index types override.
// The result must be released by the caller.
//
// The sort is a two-level counting sort (internal/keysort (Transpose)):
// a parallel scatter of the entries into some thousand buckets of
// consecutive columns, staged in the output buffers, then per bucket a
// counting sort by column in cache that writes the pointers, row numbers
// and values in place. Beyond the output it needs the bytes of the largest
// bucket's entries per worker, and a staging array of 4 or 8 bytes per
// entry when the indices are narrower than a staged key (a row number and
// the low bits of a column number). Matrices of more than 2^32 lanes, or
// whose (index, lane) keys do not fit in 64 bits, take the general radix
// sort of FromCOO instead.
func (m *Matrix) ToCSC(mem memory.Allocator, o ConvertOptions) (*Matrix, error) {
	return m.toAxis(mem, Cols, o)
}

func (m *Matrix) toAxis(mem memory.Allocator, axis Axis, o ConvertOptions) (*Matrix, error) {
	if err := axis.check(); err != nil {
		return nil, err
	}
	if m.axis == axis && o.IndptrType == nil && o.IndexType == nil {
		m.Retain()
		return m, nil
	}
	if m.axis == axis {
		return m.retyped(mem, o)
	}
	return m.transposed(mem, o)
}

// retyped returns the matrix with the index types of o (the receiver's
// where o has none), copying the index arrays and sharing the values. An
// index that the new type cannot hold is an error.
func (m *Matrix) retyped(mem memory.Allocator, o ConvertOptions) (*Matrix, error) {
	major, _ := m.dims()
	pt, it := o.IndptrType, o.IndexType
	if pt == nil {
		pt = m.indptrType
	}
	if it == nil {
		it = m.indicesType
	}
	if err := core.CheckIndexType(pt); err != nil {
		return nil, err
	}
	if err := core.CheckIndexType(it); err != nil {
		return nil, err
	}
	if err := core.CheckIndexFits(pt, m.nnz, "nnz"); err != nil {
		return nil, err
	}
	ix := m.ix()
	var indptr *memory.Buffer
	if arrow.TypeEqual(pt, m.indptrType) {
		// The pointers are shared: a hypersparse shape's may be most of
		// the matrix.
		m.indptr.Retain()
		indptr = m.indptr
	} else {
		need := (major + 1) * int64(arrowsparse.ByteWidth(pt))
		if err := core.CheckAlloc(need, "gcs: the index pointers"); err != nil {
			return nil, err
		}
		indptr = core.NewBuffer(mem, need)
		ptrs := make([]int64, min(major+1, chunk))
		for a := int64(0); a <= major; a += chunk {
			b := min(a+chunk, major+1)
			ix.pointers(m, a, b-1, ptrs[:b-a])
			coords.For(pt).Put(indptr.Bytes(), a, ptrs[:b-a])
		}
	}
	indices := core.NewBuffer(mem, m.nnz*int64(arrowsparse.ByteWidth(it)))
	buf := make([]int64, min(m.nnz, chunk))
	limit := arrowsparse.IndexMax(it)
	for a := int64(0); a < m.nnz; a += chunk {
		b := min(a+chunk, m.nnz)
		ix.indices(m, a, b, buf)
		for _, j := range buf[:b-a] {
			if j > limit {
				indptr.Release()
				indices.Release()
				return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "gcs: index %d does not fit index type %s", j, it)
			}
		}
		coords.For(it).Put(indices.Bytes(), a, buf[:b-a])
	}
	m.values.Retain()
	return adopt(m.axis, m.rows, m.cols, m.names, m.valueType, pt, it, indptr, indices, m.values, m.nnz, m.sorted, m.canonical), nil
}

// WithIndexTypes returns the matrix with index pointers of type indptrType
// and indices of type indexType (nil keeps the receiver's), in the same
// layout and order, sharing the values buffer. If both are already the
// receiver's, the receiver is returned itself, retained. A pointer or index
// that a new type cannot hold is an error wrapping
// arrowsparse.ErrUnsupportedType. The result must be released by the
// caller.
func (m *Matrix) WithIndexTypes(mem memory.Allocator, indptrType, indexType arrow.DataType) (*Matrix, error) {
	if indptrType != nil && arrow.TypeEqual(indptrType, m.indptrType) {
		indptrType = nil
	}
	if indexType != nil && arrow.TypeEqual(indexType, m.indicesType) {
		indexType = nil
	}
	return m.toAxis(mem, m.axis, ConvertOptions{IndptrType: indptrType, IndexType: indexType})
}

// AppendCoords appends the (row, column) coordinates of the stored entries,
// in storage order, to dst as int64s: 2·NNZ() of them, entry by entry. It
// is the arrowsparse.Sparse accessor for code that learns the index types
// only at run time.
func (m *Matrix) AppendCoords(dst []int64) []int64 {
	start := int64(len(dst))
	dst = slices.Grow(dst, int(2*m.nnz))[:start+2*m.nnz]
	ix := m.ix()
	major, _ := m.dims()
	idx := make([]int64, min(m.nnz, chunk))
	for k := range major {
		lo, hi := ix.lane(m, k)
		for a := lo; a < hi; a += chunk {
			b := min(a+chunk, hi)
			ix.indices(m, a, b, idx)
			for q, j := range idx[:b-a] {
				p := start + 2*(a+int64(q))
				if m.axis == Rows {
					dst[p], dst[p+1] = k, j
				} else {
					dst[p], dst[p+1] = j, k
				}
			}
		}
	}
	return dst
}

// transposed returns the same logical matrix with the other compressed
// axis, in new buffers.
func (m *Matrix) transposed(mem memory.Allocator, o ConvertOptions) (*Matrix, error) {
	major, minor := m.dims() // the new minor and major
	pt, it, err := o.indexTypes(m.indptrType, m.indicesType, major, m.nnz)
	if err != nil {
		return nil, err
	}
	if err := checkPointerAlloc(minor, pt); err != nil {
		return nil, err
	}
	var in []byte
	if m.nnz > 0 {
		in = m.values.Bytes()[:m.nnz*int64(arrowsparse.ByteWidth(m.valueType))]
	}
	ix := m.ix()
	j := &job{
		n:        int(m.nnz),
		major:    minor,
		minor:    major,
		in:       in,
		vt:       m.valueType,
		pt:       pt,
		it:       it,
		keepDups: true,
		workers:  o.Workers,
	}
	rb, cb := uint(bits.Len64(uint64(max(major-1, 0)))), uint(bits.Len64(uint64(max(minor-1, 0))))
	if kb, ok := fitsKeys(minor, major); rb > 0 && rb+cb <= 64 {
		// Keys index<<rb | lane: the lanes come in order, so the sort only
		// orders the indices.
		j.keyBits, j.keys, j.packed = []uint{rb + cb}, ix.transposeKeys(m, rb), rb
		j.count = ix.countIndices(m)
	} else if ok {
		j.keyBits, j.keys = []uint{kb}, ix.transposeKeys(m, 0)
	} else {
		j.keyBits, j.keys = wideKeyBits(minor, major), ix.transposePairs(m)
	}
	indptr, indices, values, nnz, _ := j.run(mem)
	out := adopt(m.axis.Other(), m.rows, m.cols, m.names, m.valueType, pt, it, indptr, indices, values, nnz, true, m.canonical)
	if !m.canonical {
		out.sorted, out.canonical, _ = out.ix().checkIndices(out)
	}
	return out, nil
}
