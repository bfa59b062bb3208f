package arrowext

import (
	"encoding/binary"
	"math"
	"slices"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/debug"
)

// listLimit is the number of elements a List field's child may hold; a
// field with more is written as a LargeList (SPARSE.md 2.2). A variable so
// that tests can lower it.
var listLimit int64 = math.MaxInt32

// sparseField accumulates one list field of a sparse column: its offsets
// (int64, one more than the rows) and its elements.
type sparseField struct {
	offsets growable
	elems   growable
	count   int64 // list elements so far (COO indices: coordinate tuples)
}

// SparseTensorBuilder builds a SparseTensorArray row by row from sparse
// tensors of this module (*coo.Tensor, *gcs.Matrix, *gcs.Tensor,
// *csf.Tensor, or any arrowsparse.Dense) and nulls, copying each row's
// arrays into the column's buffers and converting them to the type's
// format, layout and index types.
//
// A builder is not safe for concurrent use.
type SparseTensorBuilder struct {
	refCount  atomic.Int64
	mem       memory.Allocator
	typ       *SparseTensorType
	fields    []sparseField // one per array of the type, in its order
	shapes    growable      // int64, ndim per row, when the shape varies
	valid     validity
	n         int
	canonical bool // every row since the last NewArray is canonical
}

// NewSparseTensorBuilder returns a builder of columns of type typ whose
// buffers come from mem. The builder must be released by the caller.
func NewSparseTensorBuilder(mem memory.Allocator, typ *SparseTensorType) (*SparseTensorBuilder, error) {
	if typ == nil {
		return nil, core.Errorf(arrowsparse.ErrStructure, "arrowext: nil type")
	}
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	b := &SparseTensorBuilder{mem: mem, typ: typ, fields: make([]sparseField, len(typ.meta.arrays)), canonical: true}
	b.refCount.Store(1)
	return b, nil
}

// Retain increases the reference count by 1.
// Retain may be called simultaneously from multiple goroutines.
func (b *SparseTensorBuilder) Retain() { b.refCount.Add(1) }

// Release decreases the reference count by 1.
// When the reference count goes to zero, the memory is freed.
// Release may be called simultaneously from multiple goroutines.
func (b *SparseTensorBuilder) Release() {
	n := b.refCount.Add(-1)
	debug.Assert(n >= 0, "arrowext: too many releases")
	if n == 0 {
		b.reset()
	}
}

// reset frees what the builder holds.
func (b *SparseTensorBuilder) reset() {
	for j := range b.fields {
		b.fields[j].offsets.release()
		b.fields[j].elems.release()
		b.fields[j].count = 0
	}
	b.shapes.release()
	b.valid.bits.release()
	b.valid.nulls = 0
	b.n = 0
	b.canonical = true
}

// Type returns the type of the columns the builder makes (up to the
// LargeList fields NewArray may need, see there).
func (b *SparseTensorBuilder) Type() *SparseTensorType { return b.typ }

// Len returns the number of rows appended since the last NewArray.
func (b *SparseTensorBuilder) Len() int { return b.n }

// AllCanonical reports whether every non-null row appended since the last
// NewArray is canonical in the type's format (checked on the copied
// arrays, not taken from the tensors' flags). CSF rows always are.
func (b *SparseTensorBuilder) AllCanonical() bool { return b.canonical }

// AppendNull appends a null row: empty lists and, when the shape varies, a
// null shape.
func (b *SparseTensorBuilder) AppendNull() error {
	if b.n >= math.MaxInt32 {
		return core.Errorf(arrowsparse.ErrOverflow, "arrowext: a column holds at most 2^31-1 rows here")
	}
	if err := b.startRow(); err != nil {
		return err
	}
	if err := b.valid.append(b.mem, b.n, false); err != nil {
		return err
	}
	b.endRow()
	return nil
}

// startRow makes room for the offsets and shape of row b.n.
func (b *SparseTensorBuilder) startRow() error {
	for j := range b.fields {
		if err := b.fields[j].offsets.grow(b.mem, int64(b.n+2)*8); err != nil {
			return err
		}
	}
	if b.typ.shapeField >= 0 {
		if err := b.shapes.grow(b.mem, int64(b.n+1)*int64(b.typ.meta.ndim)*8); err != nil {
			return err
		}
	}
	return nil
}

// endRow writes the end offsets of row b.n and counts it.
func (b *SparseTensorBuilder) endRow() {
	for j := range b.fields {
		f := &b.fields[j]
		binary.LittleEndian.PutUint64(f.offsets.buf.Bytes()[(b.n+1)*8:], uint64(f.count))
	}
	b.n++
}

// Append appends t as the next row, or a null row when t is nil. The
// tensor is converted to the type's format when it has another one
// (COO ↔ CSR/CSC/GCS/CSF through the conversions of packages coo, gcs and
// csf, which sum duplicates, and dense tensors through their non-zero
// elements), to the type's CSF axis order or GCS reduction, and its
// indices to the type's index types. Its value type must be the type's
// (arrow.ErrType otherwise: values are never converted), its shape must
// agree with the type's shape, every index must fit the column's index
// type, and when the type claims canonical rows the row must be canonical
// (checked on the copied arrays). The type's dim names are the column's;
// t's are not compared with them. On an error nothing is appended.
func (b *SparseTensorBuilder) Append(t arrowsparse.Tensor) error {
	if isNilTensor(t) {
		return b.AppendNull()
	}
	m := b.typ.meta
	name := b.typ.ExtensionName()
	if b.n >= math.MaxInt32 {
		return core.Errorf(arrowsparse.ErrOverflow, "%s: a column holds at most 2^31-1 rows here", name)
	}
	if !arrow.TypeEqual(t.DataType(), b.typ.ValueType()) {
		return core.Errorf(arrowsparse.ErrUnsupportedType, "%s: a tensor of %s values appended to a column of %s values (convert the values first)", name, t.DataType(), b.typ.ValueType())
	}
	shape := t.Shape()
	if len(shape) != m.ndim {
		return core.Errorf(arrowsparse.ErrShape, "%s: a tensor of %d dimensions appended to a column of %d", name, len(shape), m.ndim)
	}
	if err := m.checkRowShape(shape, "tensor shape"); err != nil {
		return err
	}
	src, err := b.coerce(t, shape)
	if err != nil {
		return err
	}
	defer src.Release()
	saved := make([]int64, len(b.fields))
	savedLen := make([]int, len(b.fields))
	for j := range b.fields {
		saved[j] = b.fields[j].count
		if e := b.fields[j].elems.buf; e != nil {
			savedLen[j] = e.Len()
		}
	}
	rollback := func() {
		for j := range b.fields {
			b.fields[j].count = saved[j]
			if e := b.fields[j].elems.buf; e != nil {
				e.ResizeNoShrink(savedLen[j])
			}
		}
	}
	if err := b.startRow(); err != nil {
		return err
	}
	canonical, err := b.writeArrays(src, shape)
	if err != nil {
		rollback()
		return core.Errorf(arrowsparse.ErrStructure, "%s row %d: %w", name, b.n, err)
	}
	if !canonical && m.canonical {
		rollback()
		return core.Errorf(arrowsparse.ErrStructure, "%s row %d: the tensor is not canonical, but the type claims canonical rows (canonicalize it, or use a type without the claim)", name, b.n)
	}
	if err := b.valid.append(b.mem, b.n, true); err != nil {
		rollback()
		return err
	}
	if b.typ.shapeField >= 0 {
		sb := b.shapes.buf.Bytes()
		for k, d := range shape {
			binary.LittleEndian.PutUint64(sb[(b.n*m.ndim+k)*8:], uint64(d))
		}
	}
	b.canonical = b.canonical && canonical
	b.endRow()
	return nil
}

// isNilTensor reports whether t is nil or a nil pointer of this module's
// tensor types.
func isNilTensor(t arrowsparse.Tensor) bool {
	switch x := t.(type) {
	case nil:
		return true
	case *coo.Tensor:
		return x == nil
	case *gcs.Matrix:
		return x == nil
	case *gcs.Tensor:
		return x == nil
	case *csf.Tensor:
		return x == nil
	}
	return false
}

// toCOO converts a tensor of this module to COO (retained when it is one).
func toCOO(mem memory.Allocator, t arrowsparse.Tensor) (*coo.Tensor, error) {
	switch x := t.(type) {
	case *coo.Tensor:
		x.Retain()
		return x, nil
	case *gcs.Matrix:
		return x.ToCOO(mem, gcs.ConvertOptions{})
	case *gcs.Tensor:
		return x.ToCOO(mem, gcs.ConvertOptions{})
	case *csf.Tensor:
		return x.ToCOO(mem, csf.ConvertOptions{})
	case arrowsparse.Dense:
		return coo.FromDense(mem, x, coo.ConvertOptions{})
	}
	return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "arrowext: a %T cannot be a row of a sparse column (want *coo.Tensor, *gcs.Matrix, *gcs.Tensor, *csf.Tensor or a dense tensor)", t)
}

// coerce returns t in the type's format, layout, axis order or reduction
// (t itself, retained, when it is so already). The caller releases it.
func (b *SparseTensorBuilder) coerce(t arrowsparse.Tensor, shape []int64) (arrowsparse.Tensor, error) {
	m := b.typ.meta
	mem := b.mem
	switch m.format {
	case arrowsparse.FormatCOO:
		return toCOO(mem, t)
	case arrowsparse.FormatCSR, arrowsparse.FormatCSC:
		axis := gcs.Rows
		if m.format == arrowsparse.FormatCSC {
			axis = gcs.Cols
		}
		switch x := t.(type) {
		case *gcs.Matrix:
			if x.Axis() == axis {
				x.Retain()
				return x, nil
			}
			if axis == gcs.Rows {
				return x.ToCSR(mem, gcs.ConvertOptions{})
			}
			return x.ToCSC(mem, gcs.ConvertOptions{})
		case arrowsparse.Dense:
			return gcs.MatrixFromDense(mem, x, axis, gcs.ConvertOptions{})
		}
		c, err := toCOO(mem, t)
		if err != nil {
			return nil, err
		}
		defer c.Release()
		return gcs.MatrixFromCOO(mem, c, axis, gcs.ConvertOptions{})
	case arrowsparse.FormatGCS:
		mp, err := gcs.NewMapping(shape, m.dims, m.part)
		if err != nil {
			return nil, err
		}
		var g *gcs.Tensor
		switch x := t.(type) {
		case *gcs.Tensor:
			x.Retain()
			g = x
		case *gcs.Matrix:
			g = gcs.FromMatrix(x)
		case arrowsparse.Dense:
			if g, err = gcs.FromDense(mem, x, gcs.ConvertOptions{Mapping: mp}); err != nil {
				return nil, err
			}
		default:
			c, err := toCOO(mem, t)
			if err != nil {
				return nil, err
			}
			g, err = gcs.FromCOO(mem, c, gcs.ConvertOptions{Mapping: mp})
			c.Release()
			if err != nil {
				return nil, err
			}
		}
		if !slices.Equal(g.Dims(), m.dims) || g.Partitioning() != m.part {
			r, err := g.Remap(mem, mp, gcs.ConvertOptions{})
			g.Release()
			if err != nil {
				return nil, err
			}
			g = r
		}
		if g.Storage().Axis() != m.axis {
			r, err := g.WithStorage(mem, m.axis, gcs.ConvertOptions{})
			g.Release()
			if err != nil {
				return nil, err
			}
			g = r
		}
		return g, nil
	}
	// CSF
	var x *csf.Tensor
	switch s := t.(type) {
	case *csf.Tensor:
		s.Retain()
		x = s
	case arrowsparse.Dense:
		var err error
		if x, err = csf.FromDense(mem, s, csf.ConvertOptions{AxisOrder: m.axisOrder}); err != nil {
			return nil, err
		}
	default:
		c, err := toCOO(mem, t)
		if err != nil {
			return nil, err
		}
		x, err = csf.FromCOO(mem, c, csf.ConvertOptions{AxisOrder: m.axisOrder})
		c.Release()
		if err != nil {
			return nil, err
		}
	}
	if !slices.Equal(x.AxisOrder(), m.axisOrder) {
		r, err := x.WithAxisOrder(mem, m.axisOrder...)
		x.Release()
		if err != nil {
			return nil, err
		}
		x = r
	}
	if !x.IsCompact() {
		r, err := x.Compact(mem)
		x.Release()
		if err != nil {
			return nil, err
		}
		x = r
	}
	return x, nil
}

// bufBytes returns the first n bytes of buf, or an error if it is shorter.
func bufBytes(buf *memory.Buffer, n int64, what string) ([]byte, error) {
	if n == 0 {
		return nil, nil
	}
	if buf == nil || int64(buf.Len()) < n {
		have := 0
		if buf != nil {
			have = buf.Len()
		}
		return nil, core.Errorf(arrowsparse.ErrBufferSize, "%s: %d bytes, %d needed", what, have, n)
	}
	return buf.Bytes()[:n], nil
}

// appendElems appends n elements of type dt of field j, converted from src
// (elements of type st at positions pos(k), or the first n when pos is
// nil): a copy of the bytes when the types agree and pos is nil, else
// element by element with a range check.
func (b *SparseTensorBuilder) appendElems(j int, src []byte, st arrow.DataType, n int64, pos func(int64) int64) error {
	f := &b.fields[j]
	dt := b.typ.meta.types[j]
	w := int64(arrowsparse.ByteWidth(dt))
	start := int64(0)
	if f.elems.buf != nil {
		start = int64(f.elems.buf.Len())
	}
	if n == 0 {
		if f.elems.buf == nil {
			return f.elems.grow(b.mem, 0)
		}
		return nil
	}
	if err := f.elems.grow(b.mem, start+n*w); err != nil {
		return err
	}
	dst := f.elems.buf.Bytes()[start:]
	if pos == nil && arrow.TypeEqual(st, dt) {
		copy(dst, src[:n*w])
		return nil
	}
	sid, did := st.ID(), dt.ID()
	for k := range n {
		p := k
		if pos != nil {
			p = pos(k)
		}
		v := loadIndex(src, sid, p)
		if !storeIndex(dst, did, k, v) {
			f.elems.buf.ResizeNoShrink(int(start))
			return core.Errorf(arrowsparse.ErrOverflow, "%s holds %d, which does not fit the column's %s", b.typ.meta.arrays[j], v, dt)
		}
	}
	return nil
}

// loadIndex reads element p of an index array of type id.
func loadIndex(b []byte, id arrow.Type, p int64) int64 {
	switch id {
	case arrow.INT8:
		return int64(int8(b[p]))
	case arrow.UINT8:
		return int64(b[p])
	case arrow.INT16:
		return int64(int16(binary.LittleEndian.Uint16(b[2*p:])))
	case arrow.UINT16:
		return int64(binary.LittleEndian.Uint16(b[2*p:]))
	case arrow.INT32:
		return int64(int32(binary.LittleEndian.Uint32(b[4*p:])))
	case arrow.UINT32:
		return int64(binary.LittleEndian.Uint32(b[4*p:]))
	}
	return int64(binary.LittleEndian.Uint64(b[8*p:]))
}

// storeIndex writes v as element p of an index array of type id, and
// reports false if it does not fit.
func storeIndex(b []byte, id arrow.Type, p, v int64) bool {
	switch id {
	case arrow.INT8:
		if v < math.MinInt8 || v > math.MaxInt8 {
			return false
		}
		b[p] = byte(v)
	case arrow.UINT8:
		if v < 0 || v > math.MaxUint8 {
			return false
		}
		b[p] = byte(v)
	case arrow.INT16:
		if v < math.MinInt16 || v > math.MaxInt16 {
			return false
		}
		binary.LittleEndian.PutUint16(b[2*p:], uint16(v))
	case arrow.UINT16:
		if v < 0 || v > math.MaxUint16 {
			return false
		}
		binary.LittleEndian.PutUint16(b[2*p:], uint16(v))
	case arrow.INT32:
		if v < math.MinInt32 || v > math.MaxInt32 {
			return false
		}
		binary.LittleEndian.PutUint32(b[4*p:], uint32(v))
	case arrow.UINT32:
		if v < 0 || v > math.MaxUint32 {
			return false
		}
		binary.LittleEndian.PutUint32(b[4*p:], uint32(v))
	default:
		binary.LittleEndian.PutUint64(b[8*p:], uint64(v))
	}
	return true
}

// written returns the last n elements written to field j.
func (b *SparseTensorBuilder) written(j int, n int64) []byte {
	e := b.fields[j].elems.buf.Bytes()
	w := int64(arrowsparse.ByteWidth(b.typ.meta.types[j]))
	return e[int64(len(e))-n*w:]
}

// writeArrays appends the arrays of src (in the type's format) to the
// fields, checks them, and reports whether the row is canonical.
func (b *SparseTensorBuilder) writeArrays(src arrowsparse.Tensor, shape []int64) (bool, error) {
	m := b.typ.meta
	vt := b.typ.ValueType()
	vw := int64(arrowsparse.ByteWidth(vt))
	nnz := src.NNZ()
	last := len(m.arrays) - 1
	vals, err := bufBytes(valuesOf(src), nnz*vw, "values")
	if err != nil {
		return false, err
	}
	if err := b.appendElems(last, vals, vt, nnz, nil); err != nil {
		return false, err
	}
	b.fields[last].count += nnz
	switch m.format {
	case arrowsparse.FormatCOO:
		x := src.(*coo.Tensor)
		nd := int64(m.ndim)
		it := x.IndexType()
		cb, err := bufBytes(x.CoordsBuffer(), nnz*nd*int64(arrowsparse.ByteWidth(it)), "coordinates")
		if err != nil {
			return false, err
		}
		var pos func(int64) int64
		if x.Layout() == coo.ColMajor && nd > 1 {
			pos = func(k int64) int64 { return (k%nd)*nnz + k/nd }
		}
		if err := b.appendElems(0, cb, it, nnz*nd, pos); err != nil {
			return false, err
		}
		b.fields[0].count += nnz
		return checkCOOArrays(b.written(0, nnz*nd), m.types[0].ID(), shape, nnz)
	case arrowsparse.FormatCSR, arrowsparse.FormatCSC, arrowsparse.FormatGCS:
		var mat *gcs.Matrix
		if g, ok := src.(*gcs.Tensor); ok {
			mat = g.Storage()
		} else {
			mat = src.(*gcs.Matrix)
		}
		lanes := mat.Lanes()
		minor := mat.Cols()
		if mat.Axis() == gcs.Cols {
			minor = mat.Rows()
		}
		pb, err := bufBytes(mat.IndptrBuffer(), (lanes+1)*int64(arrowsparse.ByteWidth(mat.IndptrType())), "indptr")
		if err != nil {
			return false, err
		}
		ib, err := bufBytes(mat.IndicesBuffer(), nnz*int64(arrowsparse.ByteWidth(mat.IndexType())), "indices")
		if err != nil {
			return false, err
		}
		if err := b.appendElems(0, pb, mat.IndptrType(), lanes+1, nil); err != nil {
			return false, err
		}
		if err := b.appendElems(1, ib, mat.IndexType(), nnz, nil); err != nil {
			return false, err
		}
		b.fields[0].count += lanes + 1
		b.fields[1].count += nnz
		return checkCompressedArrays(b.written(0, lanes+1), m.types[0].ID(), b.written(1, nnz), m.types[1].ID(), lanes, minor, nnz)
	}
	x := src.(*csf.Tensor)
	for l := range m.ndim {
		n := x.LevelLen(l)
		it := x.IndexType(l)
		ib, err := bufBytes(x.IndicesBuffer(l), n*int64(arrowsparse.ByteWidth(it)), "indices")
		if err != nil {
			return false, err
		}
		if l > 0 {
			up := x.LevelLen(l - 1)
			pt := x.IndptrType(l - 1)
			pb, err := bufBytes(x.IndptrBuffer(l-1), (up+1)*int64(arrowsparse.ByteWidth(pt)), "indptr")
			if err != nil {
				return false, err
			}
			if err := b.appendElems(2*l-1, pb, pt, up+1, nil); err != nil {
				return false, err
			}
			b.fields[2*l-1].count += up + 1
		}
		if err := b.appendElems(2*l, ib, it, n, nil); err != nil {
			return false, err
		}
		b.fields[2*l].count += n
	}
	return true, nil
}

// valuesOf returns the values buffer of a sparse tensor of this module.
func valuesOf(t arrowsparse.Tensor) *memory.Buffer {
	switch x := t.(type) {
	case *coo.Tensor:
		return x.ValuesBuffer()
	case *gcs.Matrix:
		return x.ValuesBuffer()
	case *gcs.Tensor:
		return x.ValuesBuffer()
	case *csf.Tensor:
		return x.ValuesBuffer()
	}
	return nil
}

// checkCOOArrays checks nnz row-major coordinate tuples against the shape
// and reports whether they strictly increase in lexicographic order.
func checkCOOArrays(c []byte, id arrow.Type, shape []int64, nnz int64) (bool, error) {
	nd := int64(len(shape))
	canonical := true
	for i := range nnz {
		cmp := 0
		for k := range nd {
			v := loadIndex(c, id, i*nd+k)
			if v < 0 || v >= shape[k] {
				return false, core.Errorf(arrowsparse.ErrOutOfRange, "entry %d has coordinate %d outside dimension %d of size %d", i, v, k, shape[k])
			}
			if i > 0 && cmp == 0 {
				if p := loadIndex(c, id, (i-1)*nd+k); v > p {
					cmp = 1
				} else if v < p {
					cmp = -1
				}
			}
		}
		if i > 0 && cmp <= 0 {
			canonical = false
		}
	}
	return canonical, nil
}

// checkCompressedArrays checks a compressed matrix's pointers (start at 0,
// never decrease, end at nnz) and indices (inside the minor dimension), and
// reports whether the indices strictly increase within every lane.
func checkCompressedArrays(p []byte, pid arrow.Type, ix []byte, iid arrow.Type, lanes, minor, nnz int64) (bool, error) {
	if p0 := loadIndex(p, pid, 0); p0 != 0 {
		return false, core.Errorf(arrowsparse.ErrStructure, "pointers start at %d, not 0", p0)
	}
	if pe := loadIndex(p, pid, lanes); pe != nnz {
		return false, core.Errorf(arrowsparse.ErrStructure, "pointers end at %d, not at the %d values", pe, nnz)
	}
	canonical := true
	lo := int64(0)
	for k := range lanes {
		hi := loadIndex(p, pid, k+1)
		if hi < lo || hi > nnz {
			return false, core.Errorf(arrowsparse.ErrStructure, "pointer %d is %d after %d", k+1, hi, lo)
		}
		for q := lo; q < hi; q++ {
			v := loadIndex(ix, iid, q)
			if v < 0 || v >= minor {
				return false, core.Errorf(arrowsparse.ErrOutOfRange, "index %d is %d, outside [0, %d)", q, v, minor)
			}
			if q > lo && v <= loadIndex(ix, iid, q-1) {
				canonical = false
			}
		}
		lo = hi
	}
	return canonical, nil
}

// NewArray returns the rows appended so far as a column and resets the
// builder. A list field is a LargeList when the type says so or when its
// elements over the whole column exceed 2^31-1 (SPARSE.md 2.2): the
// column's type then differs from the builder's in those fields only.
// Fields whose offsets are equal share one offsets buffer (COO's indices
// and values always do). The column must be released by the caller.
func (b *SparseTensorBuilder) NewArray() (*SparseTensorArray, error) {
	defer b.reset()
	return b.finish(b.typ)
}

// finish assembles the column with type typ (the builder's, or the same
// with another canonical claim).
func (b *SparseTensorBuilder) finish(typ *SparseTensorType) (*SparseTensorArray, error) {
	m := typ.meta
	n := b.n
	large := slices.Clone(typ.large)
	changed := false
	for j := range b.fields {
		if !large[j] && b.fields[j].count > listLimit {
			large[j], changed = true, true
		}
	}
	if changed {
		t, err := newSparseType(m, m.storageType(large))
		if err != nil {
			return nil, err
		}
		typ = t
	}
	st := typ.Storage.(*arrow.StructType)
	valid, nulls := b.valid.take(b.mem, n)
	if valid != nil {
		defer valid.Release()
	}
	children := make([]arrow.ArrayData, st.NumFields())
	defer func() {
		for _, c := range children {
			if c != nil {
				c.Release()
			}
		}
	}()
	if typ.shapeField >= 0 {
		nd := m.ndim
		sb := b.shapes.take(b.mem, int64(n*nd)*8)
		defer sb.Release()
		leaf := array.NewData(arrow.PrimitiveTypes.Int64, n*nd, []*memory.Buffer{nil, sb}, nil, 0, 0)
		defer leaf.Release()
		children[typ.shapeField] = array.NewData(st.Field(typ.shapeField).Type, n, []*memory.Buffer{valid}, []arrow.ArrayData{leaf}, nulls, 0)
	}
	offsets := make([]*memory.Buffer, len(b.fields))
	defer func() { releaseAll(offsets...) }()
	for j := range b.fields {
		f := &b.fields[j]
		raw := f.offsets.take(b.mem, int64(n+1)*8)
		if large[j] {
			offsets[j] = raw
		} else {
			o := memory.NewResizableBuffer(b.mem)
			o.Resize((n + 1) * 4)
			ob, rb := o.Bytes(), raw.Bytes()
			for k := range n + 1 {
				binary.LittleEndian.PutUint32(ob[4*k:], uint32(binary.LittleEndian.Uint64(rb[8*k:])))
			}
			raw.Release()
			offsets[j] = o
		}
		for k := range j {
			if large[k] == large[j] && offsets[k] != nil && slices.Equal(offsets[k].Bytes(), offsets[j].Bytes()) {
				offsets[j].Release()
				offsets[k].Retain()
				offsets[j] = offsets[k]
				break
			}
		}
	}
	for j, a := range m.arrays {
		f := &b.fields[j]
		dt := m.types[j]
		w := int64(arrowsparse.ByteWidth(dt))
		leafLen := f.count
		if m.format == arrowsparse.FormatCOO && a == "indices" {
			leafLen *= int64(m.ndim)
		}
		eb := f.elems.take(b.mem, leafLen*w)
		leaf := array.NewData(dt, int(leafLen), []*memory.Buffer{nil, eb}, nil, 0, 0)
		eb.Release()
		child := leaf
		ft := st.Field(typ.fields[j]).Type
		var elemType arrow.DataType
		if l, ok := ft.(*arrow.ListType); ok {
			elemType = l.Elem()
		} else {
			elemType = ft.(*arrow.LargeListType).Elem()
		}
		if m.format == arrowsparse.FormatCOO && a == "indices" {
			child = array.NewData(elemType, int(f.count), []*memory.Buffer{nil}, []arrow.ArrayData{leaf}, 0, 0)
			leaf.Release()
		}
		children[typ.fields[j]] = array.NewData(ft, n, []*memory.Buffer{nil, offsets[j]}, []arrow.ArrayData{child}, 0, 0)
		child.Release()
	}
	data := array.NewData(typ, n, []*memory.Buffer{valid}, children, nulls, 0)
	defer data.Release()
	return array.NewExtensionData(data).(*SparseTensorArray), nil
}

// NewSparseTensorArray returns a column of the sparse tensor type of
// format p.Format whose row i is rows[i] (null when rows[i] is nil),
// converted and copied as SparseTensorBuilder.Append does. The zero-valued
// parameters of p are inferred from the rows, as the Python package's
// from_sparse infers them:
//
//   - Shape (with NDim 0 or the rows' rank): every dimension on which the
//     non-null rows agree is fixed, the others vary; with no non-null row
//     every dimension varies (NDim, or 2 for CSR and CSC, is then needed);
//   - ValueType: the rows' value type, which they must share;
//   - DimNames: the rows' names when every non-null row has the same;
//   - IndexType and IndptrType (for CSF, one type per level): the narrowest
//     type that holds every type the rows have for that array (int64 for
//     arrays computed by a format conversion, int32 for a column without
//     rows); every index is checked to fit;
//   - Dimensions and Partitioning (GCS): those of the rows when they are all
//     *gcs.Tensor of one reduction, else the defaults of
//     NewSparseTensorType; AxisOrder (CSF): the identity.
//
// The column claims canonical rows exactly when every non-null row is
// canonical (checked on the copied arrays, never taken on trust); with
// p.Canonical set, a row that is not canonical is an error. A list field
// is a LargeList when p.LargeLists says so or its elements exceed 2^31-1.
// The column must be released by the caller.
func NewSparseTensorArray(mem memory.Allocator, p SparseTensorParams, rows []arrowsparse.Tensor) (*SparseTensorArray, error) {
	name := sparseName(p.Format)
	if name == "" {
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "arrowext: %s is not a sparse format of the extension types (COO, CSR, CSC, CSF, GCS)", p.Format)
	}
	var present []arrowsparse.Tensor
	for _, r := range rows {
		if !isNilTensor(r) {
			present = append(present, r)
		}
	}
	if p.Shape == nil && len(present) > 0 {
		shape := present[0].Shape()
		if p.NDim != 0 && p.NDim != len(shape) {
			return nil, core.Errorf(arrowsparse.ErrShape, "%s: NDim is %d, but row 0 has %d dimensions", name, p.NDim, len(shape))
		}
		for i, r := range present[1:] {
			s := r.Shape()
			if len(s) != len(shape) {
				return nil, core.Errorf(arrowsparse.ErrShape, "%s: rows of %d and %d dimensions (non-null row %d) in one column", name, len(shape), len(s), i+1)
			}
			for k := range s {
				if s[k] != shape[k] {
					shape[k] = VariableDim
				}
			}
		}
		p.Shape, p.NDim = shape, 0
	}
	if p.ValueType == nil {
		if len(present) == 0 {
			return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "%s: no non-null row to take the value type from; give ValueType", name)
		}
		p.ValueType = present[0].DataType()
		for _, r := range present[1:] {
			if !arrow.TypeEqual(r.DataType(), p.ValueType) {
				return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "%s: rows of %s and %s values in one column; convert them to one type or give ValueType", name, p.ValueType, r.DataType())
			}
		}
	}
	if p.DimNames == nil && len(present) > 0 {
		names := present[0].DimNames()
		for _, r := range present[1:] {
			if !slices.Equal(r.DimNames(), names) {
				names = nil
				break
			}
		}
		p.DimNames = names
	}
	if p.Format == arrowsparse.FormatGCS && p.Dimensions == nil && p.Partitioning == 0 && len(present) > 0 {
		var dims []int
		part := -1
		for _, r := range present {
			g, ok := r.(*gcs.Tensor)
			if !ok || (part >= 0 && (g.Partitioning() != part || !slices.Equal(g.Dims(), dims))) {
				part = -1
				break
			}
			dims, part = g.Dims(), g.Partitioning()
		}
		if part >= 0 {
			p.Dimensions, p.Partitioning = dims, part
		}
	}
	if err := inferIndexTypes(&p, present); err != nil {
		return nil, err
	}
	must := p.Canonical
	typ, err := NewSparseTensorType(p)
	if err != nil {
		return nil, err
	}
	b, err := NewSparseTensorBuilder(mem, typ)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	b.reserve(rows)
	for i, r := range rows {
		if err := b.Append(r); err != nil {
			return nil, core.Errorf(arrowsparse.ErrStructure, "arrowext: rows[%d]: %w", i, err)
		}
	}
	final := typ
	if !must && b.canonical && p.Format != arrowsparse.FormatCSF {
		mc := *typ.meta
		mc.canonical = true
		if final, err = newSparseType(&mc, typ.Storage); err != nil {
			return nil, err
		}
	}
	defer b.reset()
	return b.finish(final)
}

// reserve makes room in the builder's buffers for the arrays of the rows
// that are in the type's format already (others are converted as they are
// appended, and make the buffers grow). It is a hint: a size beyond the
// largest buffer is left to Append to report.
func (b *SparseTensorBuilder) reserve(rows []arrowsparse.Tensor) {
	m := b.typ.meta
	nd := int64(m.ndim)
	need := make([]int64, len(b.fields)) // elements per field
	last := len(need) - 1
	compressed := func(mat *gcs.Matrix) {
		need[0] += mat.Lanes() + 1
		need[1] += mat.NNZ()
		need[last] += mat.NNZ()
	}
	for _, r := range rows {
		switch x := r.(type) {
		case *coo.Tensor:
			if x != nil && m.format == arrowsparse.FormatCOO {
				need[0] += x.NNZ() * nd
				need[last] += x.NNZ()
			}
		case *gcs.Matrix:
			if x != nil && (m.format == arrowsparse.FormatCSR && x.Axis() == gcs.Rows || m.format == arrowsparse.FormatCSC && x.Axis() == gcs.Cols) {
				compressed(x)
			}
		case *gcs.Tensor:
			if x != nil && m.format == arrowsparse.FormatGCS {
				compressed(x.Storage())
			}
		case *csf.Tensor:
			if x != nil && m.format == arrowsparse.FormatCSF && int64(x.NumDims()) == nd {
				for l := range m.ndim {
					need[2*l] += x.LevelLen(l)
					if l > 0 {
						need[2*l-1] += x.LevelLen(l-1) + 1
					}
				}
				need[last] += x.NNZ()
			}
		}
	}
	for j := range b.fields {
		w := int64(arrowsparse.ByteWidth(m.types[j]))
		if need[j] > 0 && need[j] <= core.MaxBufferBytes/w {
			_ = b.fields[j].elems.reserve(b.mem, need[j]*w)
		}
		_ = b.fields[j].offsets.reserve(b.mem, int64(len(rows)+1)*8)
	}
	if b.typ.shapeField >= 0 {
		_ = b.shapes.reserve(b.mem, int64(len(rows))*nd*8)
	}
}

// promoteIndex returns the narrowest index type that holds every value of
// index types a and b (nil: none yet).
func promoteIndex(a, b arrow.DataType) arrow.DataType {
	if b == nil {
		return a
	}
	if a == nil || arrow.TypeEqual(a, b) {
		return b
	}
	signed := func(dt arrow.DataType) bool {
		switch dt.ID() {
		case arrow.UINT8, arrow.UINT16, arrow.UINT32:
			return false
		}
		return true
	}
	wa, wb := arrowsparse.ByteWidth(a), arrowsparse.ByteWidth(b)
	if signed(a) == signed(b) {
		if wa >= wb {
			return a
		}
		return b
	}
	s, ws, wu := a, wa, wb
	if !signed(a) {
		s, ws, wu = b, wb, wa
	}
	if ws > wu {
		return s
	}
	switch wu {
	case 1:
		return arrow.PrimitiveTypes.Int16
	case 2:
		return arrow.PrimitiveTypes.Int32
	}
	return arrow.PrimitiveTypes.Int64
}

// inferIndexTypes fills the index types p leaves nil from the rows' own
// types for the arrays of p's format.
func inferIndexTypes(p *SparseTensorParams, rows []arrowsparse.Tensor) error {
	i64 := arrow.PrimitiveTypes.Int64
	var it, pt arrow.DataType
	var lit, lpt []arrow.DataType
	nd := p.NDim
	if p.Shape != nil {
		nd = len(p.Shape)
	}
	perLevel := p.Format == arrowsparse.FormatCSF && p.IndexType == nil && p.LevelIndexTypes == nil && nd >= 2 && nd <= 1<<16
	if perLevel {
		lit = make([]arrow.DataType, nd)
		lpt = make([]arrow.DataType, nd-1)
	}
	for _, r := range rows {
		switch x := r.(type) {
		case *coo.Tensor:
			if p.Format == arrowsparse.FormatCOO {
				it = promoteIndex(it, x.IndexType())
				continue
			}
		case *gcs.Matrix:
			axis := gcs.Rows
			if p.Format == arrowsparse.FormatCSC {
				axis = gcs.Cols
			}
			if (p.Format == arrowsparse.FormatCSR || p.Format == arrowsparse.FormatCSC) && x.Axis() == axis {
				it, pt = promoteIndex(it, x.IndexType()), promoteIndex(pt, x.IndptrType())
				continue
			}
		case *gcs.Tensor:
			if p.Format == arrowsparse.FormatGCS {
				it, pt = promoteIndex(it, x.Storage().IndexType()), promoteIndex(pt, x.Storage().IndptrType())
				continue
			}
		case *csf.Tensor:
			if perLevel && x.NumDims() == nd {
				for l := range nd {
					lit[l] = promoteIndex(lit[l], x.IndexType(l))
					if l+1 < nd {
						lpt[l] = promoteIndex(lpt[l], x.IndptrType(l))
					}
				}
				continue
			}
		}
		it, pt = promoteIndex(it, i64), promoteIndex(pt, i64)
		for l := range lit {
			lit[l] = promoteIndex(lit[l], i64)
		}
		for l := range lpt {
			lpt[l] = promoteIndex(lpt[l], i64)
		}
	}
	if perLevel {
		for l := range lit {
			lit[l] = promoteIndex(lit[l], it)
			if lit[l] == nil {
				lit[l] = arrow.PrimitiveTypes.Int32
			}
		}
		for l := range lpt {
			lpt[l] = promoteIndex(lpt[l], pt)
			if lpt[l] == nil {
				lpt[l] = lit[l+1]
			}
		}
		if p.LevelIndptrTypes == nil && p.IndptrType == nil {
			p.LevelIndptrTypes = lpt
		}
		p.LevelIndexTypes = lit
		return nil
	}
	if p.IndexType == nil {
		if it == nil {
			it = arrow.PrimitiveTypes.Int32
		}
		p.IndexType = it
	}
	if p.IndptrType == nil && p.Format != arrowsparse.FormatCOO {
		if pt == nil {
			pt = p.IndexType
		}
		p.IndptrType = pt
	}
	return nil
}
