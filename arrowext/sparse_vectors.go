package arrowext

import (
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// A column of sparse vectors (arrowsparse.coo with one dimension) is a CSR
// matrix (SPARSE.md 3.1): the offsets of its two lists are the matrix's
// indptr, the coordinates its column indices and the values its values.

// VectorsFromCSR returns a column of sparse vectors, one per row of the
// CSR matrix m: an arrowsparse.coo column of shape [m.Cols()] whose two
// lists share one offsets buffer, the matrix's indptr, and whose children
// are the matrix's indices and values buffers, without copying them. Only
// the n+1 pointers are copied, into int32 List offsets, when the pointer
// type is not int32 (uint32 pointers below 2^31 are shared as they are);
// with more than 2^31-1 entries the lists are LargeLists (int64 pointers
// are shared). The column has the matrix's value and index types, the
// matrix's column name as its dim name, and claims canonical rows when
// every row's indices strictly increase (checked). A CSC matrix is an
// error (convert it with ToCSR). The column retains m's buffers and must
// be released by the caller; m may be released first.
func VectorsFromCSR(mem memory.Allocator, m *gcs.Matrix) (*SparseTensorArray, error) {
	if m == nil {
		return nil, core.Errorf(arrowsparse.ErrStructure, "arrowext: nil matrix")
	}
	if m.Axis() != gcs.Rows {
		return nil, core.Errorf(arrowsparse.ErrStructure, "arrowext: VectorsFromCSR takes a CSR matrix, not a CSC one (convert it with ToCSR)")
	}
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	rows, nnz := m.Rows(), m.NNZ()
	if rows > math.MaxInt32 {
		return nil, core.Errorf(arrowsparse.ErrOverflow, "arrowext: a matrix of %d rows is more rows than a column holds here (2^31-1)", rows)
	}
	pt := m.IndptrType()
	pw := int64(arrowsparse.ByteWidth(pt))
	pb, err := bufBytes(m.IndptrBuffer(), (rows+1)*pw, "indptr")
	if err != nil {
		return nil, err
	}
	large := nnz > listLimit
	var offsets *memory.Buffer
	switch {
	case !large && (pt.ID() == arrow.INT32 || pt.ID() == arrow.UINT32):
		offsets = memory.SliceBuffer(m.IndptrBuffer(), 0, int((rows+1)*pw))
	case large && pt.ID() == arrow.INT64:
		offsets = memory.SliceBuffer(m.IndptrBuffer(), 0, int((rows+1)*pw))
	default:
		w := int64(4)
		if large {
			w = 8
		}
		offsets = memory.NewResizableBuffer(mem)
		offsets.Resize(int((rows + 1) * w))
		ob := offsets.Bytes()
		for k := range rows + 1 {
			v := loadIndex(pb, pt.ID(), k)
			if w == 4 {
				binary.LittleEndian.PutUint32(ob[4*k:], uint32(v))
			} else {
				binary.LittleEndian.PutUint64(ob[8*k:], uint64(v))
			}
		}
	}
	defer offsets.Release()
	it, vt := m.IndexType(), m.DataType()
	ib, err := bufBytes(m.IndicesBuffer(), nnz*int64(arrowsparse.ByteWidth(it)), "indices")
	if err != nil {
		return nil, err
	}
	canonical, err := checkCompressedArrays(pb, pt.ID(), ib, it.ID(), rows, m.Cols(), nnz)
	if err != nil {
		return nil, core.Errorf(arrowsparse.ErrStructure, "arrowext: VectorsFromCSR: %w", err)
	}
	var names []string
	if n := m.DimNames(); n != nil {
		names = n[1:]
	}
	typ, err := NewSparseTensorType(SparseTensorParams{Format: arrowsparse.FormatCOO, ValueType: vt, Shape: []int64{m.Cols()}, DimNames: names, IndexType: it, Canonical: canonical, LargeLists: large})
	if err != nil {
		return nil, err
	}
	st := typ.Storage.(*arrow.StructType)
	leafBuf := func(b *memory.Buffer, n int64, dt arrow.DataType) *memory.Buffer {
		if n == 0 || b == nil {
			return memory.NewBufferBytes(nil)
		}
		return memory.SliceBuffer(b, 0, int(n)*arrowsparse.ByteWidth(dt))
	}
	ibuf, vbuf := leafBuf(m.IndicesBuffer(), nnz, it), leafBuf(m.ValuesBuffer(), nnz, vt)
	defer ibuf.Release()
	defer vbuf.Release()
	ileaf := array.NewData(it, int(nnz), []*memory.Buffer{nil, ibuf}, nil, 0, 0)
	defer ileaf.Release()
	indicesType := st.Field(0).Type
	var fslType arrow.DataType
	if l, ok := indicesType.(*arrow.ListType); ok {
		fslType = l.Elem()
	} else {
		fslType = indicesType.(*arrow.LargeListType).Elem()
	}
	fsl := array.NewData(fslType, int(nnz), []*memory.Buffer{nil}, []arrow.ArrayData{ileaf}, 0, 0)
	defer fsl.Release()
	ilist := array.NewData(indicesType, int(rows), []*memory.Buffer{nil, offsets}, []arrow.ArrayData{fsl}, 0, 0)
	defer ilist.Release()
	vleaf := array.NewData(vt, int(nnz), []*memory.Buffer{nil, vbuf}, nil, 0, 0)
	defer vleaf.Release()
	vlist := array.NewData(st.Field(1).Type, int(rows), []*memory.Buffer{nil, offsets}, []arrow.ArrayData{vleaf}, 0, 0)
	defer vlist.Release()
	data := array.NewData(typ, int(rows), []*memory.Buffer{nil}, []arrow.ArrayData{ilist, vlist}, 0, 0)
	defer data.Release()
	return array.NewExtensionData(data).(*SparseTensorArray), nil
}

// ToCSR returns a column of sparse vectors (arrowsparse.coo with one
// dimension) as one CSR matrix whose row i is row i of the column, a null
// row being an empty row. Its columns are the type's fixed size, or the
// largest row size when the size varies. The matrix shares the column's
// buffers: its indices and values are the lists' children, and its indptr
// is the lists' offsets when the two lists have equal offsets starting at
// 0 and no null row holds entries; otherwise the n+1 pointers are rebuilt
// from mem (and the entries copied when null rows hold some). The rows are
// checked as Row checks them (WithTrusted skips the O(nnz) checks, and
// the type's canonical claim is then adopted). Another column is an error
// wrapping arrow.ErrInvalid. The matrix must be released by the caller;
// the column may be released first.
func (a *SparseTensorArray) ToCSR(mem memory.Allocator, opts ...RowOption) (*gcs.Matrix, error) {
	t := a.TensorType()
	m := t.meta
	if m.format != arrowsparse.FormatCOO || m.ndim != 1 {
		return nil, core.Errorf(arrowsparse.ErrStructure, "arrowext: ToCSR takes a column of sparse vectors (arrowsparse.coo with 1 dimension), not %s", t)
	}
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	cfg := newRowConfig(opts)
	n := a.Len()
	cols := int64(0)
	if !m.varying() {
		cols = m.shape[0]
	}
	// Locate every row (O(1) checks each): where its coordinates and
	// values start, and how many.
	type rowSpan struct{ istart, vstart, n int64 }
	spans := make([]rowSpan, n)
	var ileaf, vleaf arrow.ArrayData
	var r sparseRow // reused: nothing is allocated per row
	for i := range n {
		ok, err := a.locateInto(i, &r)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if m.varying() {
			cols = max(cols, r.shape[0])
		}
		spans[i] = rowSpan{r.spans[0].start, r.spans[1].start, r.spans[1].n}
		ileaf, vleaf = r.spans[0].d, r.spans[1].d
	}
	// The children are shared when the entries of the rows follow each
	// other in both, in row order.
	contiguous := true
	var ilo, lo, end int64
	started := false
	for _, s := range spans {
		if s.n == 0 {
			continue
		}
		if !started {
			ilo, lo, end, started = s.istart, s.vstart, s.vstart, true
		}
		if s.vstart != end || s.istart-s.vstart != ilo-lo {
			contiguous = false
			break
		}
		end += s.n
	}
	vt, it := t.ValueType(), m.types[0]
	vw, iw := int64(arrowsparse.ByteWidth(vt)), int64(arrowsparse.ByteWidth(it))
	nnz := end - lo
	var indices, values *memory.Buffer
	if !started || (contiguous && nnz == 0) {
		indices, values = memory.NewBufferBytes(nil), memory.NewBufferBytes(nil)
		nnz = 0
	} else if contiguous {
		indices = memory.SliceBuffer(valuesBuf(ileaf), int(ilo*iw), int(nnz*iw))
		values = memory.SliceBuffer(valuesBuf(vleaf), int(lo*vw), int(nnz*vw))
	} else {
		nnz = 0
		for _, s := range spans {
			nnz += s.n
		}
		indices, values = core.NewBuffer(mem, nnz*iw), core.NewBuffer(mem, nnz*vw)
		ib, vb := valuesBuf(ileaf).Bytes(), valuesBuf(vleaf).Bytes()
		p := int64(0)
		for _, s := range spans {
			if s.n == 0 {
				continue
			}
			copy(indices.Bytes()[p*iw:], ib[s.istart*iw:(s.istart+s.n)*iw])
			copy(values.Bytes()[p*vw:], vb[s.vstart*vw:(s.vstart+s.n)*vw])
			p += s.n
		}
	}
	defer indices.Release()
	defer values.Release()
	// The pointers: the lists' offsets when they serve, else rebuilt.
	var indptr *memory.Buffer
	pt := arrow.DataType(arrow.PrimitiveTypes.Int32)
	if nnz > math.MaxInt32 {
		pt = arrow.PrimitiveTypes.Int64
	}
	d := a.Data()
	vlist := d.Children()[t.fields[1]]
	slot := int64(vlist.Offset()) + int64(d.Offset())
	if contiguous && lo == 0 && a.NullN() == 0 && !t.large[1] && pt.ID() == arrow.INT32 {
		indptr = memory.SliceBuffer(vlist.Buffers()[1], int(slot*4), (n+1)*4)
	} else {
		pw := int64(arrowsparse.ByteWidth(pt))
		indptr = core.NewBuffer(mem, int64(n+1)*pw)
		pb := indptr.Bytes()
		acc := int64(0)
		storeIndex(pb, pt.ID(), 0, 0)
		for i, s := range spans {
			acc += s.n
			storeIndex(pb, pt.ID(), int64(i+1), acc)
		}
	}
	defer indptr.Release()
	gopts := []gcs.Option{gcs.WithCanonicalClaim(m.canonical)}
	if cfg.trusted {
		gopts = append(gopts, gcs.WithTrusted())
	}
	mat, err := gcs.New(vt, pt, it, []int64{int64(n), cols}, gcs.Rows, indptr, indices, values, nnz, gopts...)
	if err != nil {
		return nil, core.Errorf(arrowsparse.ErrStructure, "%s: ToCSR: %w", t.ExtensionName(), err)
	}
	return mat, nil
}
