package arrowext

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// SparseTensorArray is a column of one of the sparse tensor types: row i is
// a sparse tensor of the type's format, or null. It shares its buffers with
// its storage, a Struct array of Lists.
type SparseTensorArray struct {
	array.ExtensionArrayBase
}

var _ array.ExtensionArray = (*SparseTensorArray)(nil)

// TensorType returns the array's type.
func (a *SparseTensorArray) TensorType() *SparseTensorType {
	return a.DataType().(*SparseTensorType)
}

// RowOption configures how rows of sparse columns are read:
// SparseTensorArray.Row, SparseRow and SparseTensorArray.ToCSR.
type RowOption interface{ applyRow(*rowConfig) }

type rowConfig struct{ trusted bool }

type trustedOption struct{}

func (trustedOption) applyRow(c *rowConfig) { c.trusted = true }

// WithTrusted makes the readers of rows skip the checks that read every
// index (O(nnz)): that indices lie inside the row's shape, that pointer
// arrays never decrease within (CSF), that the indices of a CSF node
// strictly increase, and the verification of the type's canonical claim,
// which is adopted as it is. The O(1) checks that keep every later access
// inside the buffers still run: list offsets, lengths, the first and last
// pointers, shapes, nulls, buffer sizes. Use it only for columns this
// process wrote or otherwise trusts; a row that breaks the skipped rules
// makes later operations give wrong results (see the WithTrusted options of
// packages coo, gcs and csf).
func WithTrusted() RowOption { return trustedOption{} }

func newRowConfig(opts []RowOption) rowConfig {
	var c rowConfig
	for _, o := range opts {
		if o != nil {
			o.applyRow(&c)
		}
	}
	return c
}

// span locates one array of a row: n elements of primitive data d from
// element start (d's offset included).
type span struct {
	d        arrow.ArrayData
	start, n int64
}

// sparseRow is a located row.
type sparseRow struct {
	shape []int64
	spans []span // one per array of the type, in its order
}

// Row returns row i as a sparse tensor of the type's format that shares
// the column's buffers (retained, not copied): a *coo.Tensor for
// arrowsparse.coo, a *gcs.Matrix for arrowsparse.csr and arrowsparse.csc,
// a *csf.Tensor for arrowsparse.csf and a *gcs.Tensor for arrowsparse.gcs,
// with the type's dim names. A null row gives a nil tensor and a nil error.
// The number of allocations does not depend on the row's number of
// entries.
//
// The row is checked as the IPC reader checks a SparseTensor message
// (SPARSE.md 2.5): its shape against the type, its list offsets against
// the storage, the lengths of its arrays against its shape and each other,
// its pointers (start at 0, never decrease, end at the length of what they
// point into), every index against its dimension, the strict order of CSF
// nodes, and the type's canonical claim. WithTrusted skips the O(nnz)
// checks. A row that breaks a rule is an error wrapping arrow.ErrInvalid
// whose message names the type, the row and the rule; an i outside
// [0, Len()) is an error wrapping arrow.ErrIndex. The returned tensor must
// be released by the caller; the column may be released first.
func (a *SparseTensorArray) Row(i int, opts ...RowOption) (arrowsparse.Tensor, error) {
	cfg := newRowConfig(opts)
	t := a.TensorType()
	r, ok, err := a.locate(i)
	if err != nil || !ok {
		return nil, err
	}
	x, err := t.build(r, cfg)
	if err != nil {
		return nil, core.Errorf(arrowsparse.ErrStructure, "%s row %d: %w", t.ExtensionName(), i, err)
	}
	return x, nil
}

// RowShape returns the shape of row i, or nil for a null row, with the
// checks of Row that need no index (O(1)). The caller owns the slice.
func (a *SparseTensorArray) RowShape(i int) ([]int64, error) {
	r, ok, err := a.locate(i)
	if err != nil || !ok {
		return nil, err
	}
	return r.shape, nil
}

// RowNNZ returns the number of stored values of row i, 0 for a null row,
// with the checks of RowShape.
func (a *SparseTensorArray) RowNNZ(i int) (int64, error) {
	r, ok, err := a.locate(i)
	if err != nil || !ok {
		return 0, err
	}
	return r.spans[len(r.spans)-1].n, nil
}

// rowErrorf formats an error about row i of a column of t.
func rowErrorf(t *SparseTensorType, i int, kind error, format string, args ...any) error {
	return core.Errorf(kind, "%s row %d: %s", t.ExtensionName(), i, fmt.Sprintf(format, args...))
}

// locate finds row i's shape and arrays, with the O(1) checks: the row
// number, the validity of the struct, lists and shape, list offsets inside
// the children, no null inside a list of a valid row, the shape against
// the type, and the lengths of the arrays against each other and the
// shape. It reports false for a null row.
func (a *SparseTensorArray) locate(i int) (sparseRow, bool, error) {
	var r sparseRow
	ok, err := a.locateInto(i, &r)
	return r, ok, err
}

// locateInto is locate writing into r, reusing the memory of r's shape and
// spans (so that a loop over every row allocates nothing per row).
func (a *SparseTensorArray) locateInto(i int, r *sparseRow) (bool, error) {
	t := a.TensorType()
	m := t.meta
	d := a.Data()
	if i < 0 || i >= d.Len() {
		return false, core.Errorf(arrowsparse.ErrOutOfRange, "%s: row %d of a column of %d rows", t.ExtensionName(), i, d.Len())
	}
	s := int64(d.Offset()) + int64(i)
	if valid, err := validAt(d, s); err != nil || !valid {
		return false, err
	}
	children := d.Children()
	if len(children) != len(t.fields)+btoi(t.shapeField >= 0) {
		return false, rowErrorf(t, i, arrowsparse.ErrStructure, "the storage has %d children, want %d", len(children), len(t.fields)+btoi(t.shapeField >= 0))
	}
	if t.shapeField >= 0 {
		shape, err := rowShape(t, i, children[t.shapeField], s)
		if err != nil {
			return false, err
		}
		r.shape = shape
		// (The message is formatted only on failure.)
		if m.checkRowShape(r.shape, "") != nil {
			return false, m.checkRowShape(r.shape, "row "+strconv.Itoa(i)+" shape")
		}
	} else {
		r.shape = append(r.shape[:0], m.shape...) // checked with the type
	}
	r.spans = slices.Grow(r.spans[:0], len(m.arrays))[:len(m.arrays)]
	for j := range m.arrays {
		sp, err := listSpan(t, i, j, children[t.fields[j]], s)
		if err != nil {
			return false, err
		}
		r.spans[j] = sp
	}
	if err := t.checkLengths(i, *r); err != nil {
		return false, err
	}
	return true, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// rowShape reads the shape of row i from the shape field sd at struct slot
// s.
func rowShape(t *SparseTensorType, i int, sd arrow.ArrayData, s int64) ([]int64, error) {
	slot := int64(sd.Offset()) + s
	if valid, err := validAt(sd, slot); err != nil || !valid {
		if err != nil {
			return nil, err
		}
		return nil, rowErrorf(t, i, arrowsparse.ErrStructure, "the shape of a non-null row is null")
	}
	if len(sd.Children()) != 1 {
		return nil, rowErrorf(t, i, arrowsparse.ErrStructure, "the shape field has %d children, want 1", len(sd.Children()))
	}
	inner := sd.Children()[0]
	nd := int64(t.meta.ndim)
	first, ok := core.MulInt64(slot, nd)
	if !ok || first+nd > int64(inner.Len()) {
		return nil, rowErrorf(t, i, arrowsparse.ErrBufferSize, "its shape lies beyond the shape field's %d values", inner.Len())
	}
	first += int64(inner.Offset())
	if err := noNulls(inner, first, nd); err != nil {
		return nil, rowErrorf(t, i, arrowsparse.ErrStructure, "its shape %v", err)
	}
	b := valuesBuf(inner).Bytes()
	if int64(len(b))/8 < first+nd {
		return nil, rowErrorf(t, i, arrowsparse.ErrBufferSize, "the shape buffer of %d bytes is too short", len(b))
	}
	shape := make([]int64, nd)
	for k := range shape {
		shape[k] = int64(binary.NativeEndian.Uint64(b[(first+int64(k))*8:]))
	}
	return shape, nil
}

// noNulls returns an error if the n slots of c from slot start (offset
// included) hold a null.
func noNulls(c arrow.ArrayData, start, n int64) error {
	if n == 0 || c.NullN() == 0 {
		return nil
	}
	bufs := c.Buffers()
	if len(bufs) == 0 || bufs[0] == nil {
		return core.Errorf(arrowsparse.ErrStructure, "has %d nulls but no validity bitmap", c.NullN())
	}
	bm := bufs[0].Bytes()
	if int64(len(bm))*8 < start+n {
		return core.Errorf(arrowsparse.ErrBufferSize, "has a validity bitmap of %d bytes, too short for slots %d..%d", len(bm), start, start+n)
	}
	if nulls := n - int64(bitutil.CountSetBits(bm, int(start), int(n))); nulls > 0 {
		return core.Errorf(arrowsparse.ErrStructure, "holds %d nulls", nulls)
	}
	return nil
}

// listSpan locates array j of row i: the list field ld at struct slot s.
func listSpan(t *SparseTensorType, i, j int, ld arrow.ArrayData, s int64) (span, error) {
	name := t.meta.arrays[j]
	slot := int64(ld.Offset()) + s
	if valid, err := validAt(ld, slot); err != nil || !valid {
		if err != nil {
			return span{}, err
		}
		return span{}, rowErrorf(t, i, arrowsparse.ErrStructure, "list %s is null in a non-null row", name)
	}
	if len(ld.Children()) != 1 {
		return span{}, rowErrorf(t, i, arrowsparse.ErrStructure, "list %s has %d children, want 1", name, len(ld.Children()))
	}
	w := int64(4)
	if t.large[j] {
		w = 8
	}
	ob := offsetsBuf(ld)
	if int64(len(ob))/w < slot+2 {
		return span{}, rowErrorf(t, i, arrowsparse.ErrBufferSize, "the offsets of list %s (%d bytes) are too short", name, len(ob))
	}
	var start, end int64
	if w == 4 {
		start = int64(int32(binary.NativeEndian.Uint32(ob[slot*4:])))
		end = int64(int32(binary.NativeEndian.Uint32(ob[(slot+1)*4:])))
	} else {
		start = int64(binary.NativeEndian.Uint64(ob[slot*8:]))
		end = int64(binary.NativeEndian.Uint64(ob[(slot+1)*8:]))
	}
	child := ld.Children()[0]
	if start < 0 || end < start || end > int64(child.Len()) {
		return span{}, rowErrorf(t, i, arrowsparse.ErrStructure, "list %s spans elements %d..%d, outside its %d elements", name, start, end, child.Len())
	}
	n := end - start
	first := int64(child.Offset()) + start
	if err := noNulls(child, first, n); err != nil {
		return span{}, rowErrorf(t, i, arrowsparse.ErrStructure, "list %s %v", name, err)
	}
	leaf := child
	if t.meta.format == arrowsparse.FormatCOO && j == 0 {
		// A list of FixedSizeList<index>[ndim]: the row-major coordinates.
		if len(child.Children()) != 1 {
			return span{}, rowErrorf(t, i, arrowsparse.ErrStructure, "list indices holds lists with %d children, want 1", len(child.Children()))
		}
		leaf = child.Children()[0]
		nd := int64(t.meta.ndim)
		var ok bool
		if first, ok = core.MulInt64(first, nd); !ok || first > int64(leaf.Len()) || n > (int64(leaf.Len())-first)/nd {
			return span{}, rowErrorf(t, i, arrowsparse.ErrBufferSize, "list indices reaches beyond its %d coordinates", leaf.Len())
		}
		n *= nd
		first += int64(leaf.Offset())
		if err := noNulls(leaf, first, n); err != nil {
			return span{}, rowErrorf(t, i, arrowsparse.ErrStructure, "list indices: its coordinates %v", err)
		}
	}
	vw := int64(arrowsparse.ByteWidth(t.meta.types[j]))
	if b := valuesBuf(leaf); n > 0 && int64(b.Len())/vw < first+n {
		return span{}, rowErrorf(t, i, arrowsparse.ErrBufferSize, "list %s reaches beyond its buffer of %d bytes", name, b.Len())
	}
	return span{d: leaf, start: first, n: n}, nil
}

// entries returns the number of entries of array j of a located row (for
// COO's indices, coordinate tuples).
func (t *SparseTensorType) entries(r sparseRow, j int) int64 {
	if t.meta.format == arrowsparse.FormatCOO && j == 0 {
		return r.spans[0].n / int64(t.meta.ndim)
	}
	return r.spans[j].n
}

// indexAt reads element k of an index array of a located row.
func indexAt(sp span, dt arrow.DataType, k int64) int64 {
	return loadIndex(valuesBuf(sp.d).Bytes(), dt.ID(), sp.start+k)
}

// checkLengths checks the lengths of a located row's arrays against each
// other and its shape, and the first and last entries of its pointer
// arrays (SPARSE.md 3.x): O(1).
func (t *SparseTensorType) checkLengths(i int, r sparseRow) error {
	m := t.meta
	nnz := r.spans[len(r.spans)-1].n
	pointers := func(j int, want, end int64, endWhat string) error {
		name := m.arrays[j]
		if got := r.spans[j].n; got != want {
			return rowErrorf(t, i, arrowsparse.ErrStructure, "%s has %d entries, want %d", name, got, want)
		}
		if p0 := indexAt(r.spans[j], m.types[j], 0); p0 != 0 {
			return rowErrorf(t, i, arrowsparse.ErrStructure, "%s starts at %d, not 0", name, p0)
		}
		if pe := indexAt(r.spans[j], m.types[j], want-1); pe != end {
			return rowErrorf(t, i, arrowsparse.ErrStructure, "%s ends at %d, but %s has %d entries", name, pe, endWhat, end)
		}
		return nil
	}
	switch m.format {
	case arrowsparse.FormatCOO:
		if n := t.entries(r, 0); n != nnz {
			return rowErrorf(t, i, arrowsparse.ErrStructure, "indices has %d entries but values has %d", n, nnz)
		}
	case arrowsparse.FormatCSR, arrowsparse.FormatCSC, arrowsparse.FormatGCS:
		var lanes int64
		switch m.format {
		case arrowsparse.FormatCSR:
			lanes = r.shape[0]
		case arrowsparse.FormatCSC:
			lanes = r.shape[1]
		default:
			rows, cols, _ := m.reduced(r.shape) // checked by checkRowShape
			lanes = rows
			if m.axis == gcs.Cols {
				lanes = cols
			}
		}
		if n := r.spans[1].n; n != nnz {
			return rowErrorf(t, i, arrowsparse.ErrStructure, "indices_1 has %d entries but values has %d", n, nnz)
		}
		return pointers(0, lanes+1, nnz, "indices_1")
	case arrowsparse.FormatCSF:
		nd := m.ndim
		if n := r.spans[2*nd-2].n; n != nnz {
			return rowErrorf(t, i, arrowsparse.ErrStructure, "indices_%d has %d entries but values has %d", nd-1, n, nnz)
		}
		for l := 1; l < nd; l++ {
			up, cur := r.spans[2*l-2].n, r.spans[2*l].n
			if err := pointers(2*l-1, up+1, cur, "indices_"+strconv.Itoa(l)); err != nil {
				return err
			}
		}
	}
	return nil
}

// spanBuffer returns the bytes of a span as a buffer that shares (and
// retains) the column's buffer, or nil for an empty span. The caller
// releases it.
func spanBuffer(sp span, dt arrow.DataType) *memory.Buffer {
	if sp.n == 0 {
		return nil
	}
	w := int64(arrowsparse.ByteWidth(dt))
	return memory.SliceBuffer(valuesBuf(sp.d), int(sp.start*w), int(sp.n*w))
}

// releaseAll releases the non-nil buffers.
func releaseAll(bufs ...*memory.Buffer) {
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
}

// build makes the tensor of a located row over the column's buffers.
func (t *SparseTensorType) build(r sparseRow, cfg rowConfig) (arrowsparse.Tensor, error) {
	m := t.meta
	nnz := r.spans[len(r.spans)-1].n
	vt := t.ValueType()
	values := spanBuffer(r.spans[len(r.spans)-1], vt)
	defer releaseAll(values)
	switch m.format {
	case arrowsparse.FormatCOO:
		coords := spanBuffer(r.spans[0], m.types[0])
		defer releaseAll(coords)
		opts := []coo.Option{coo.WithCanonicalClaim(m.canonical)}
		if m.names != nil {
			opts = append(opts, coo.WithDimNames(m.names...))
		}
		if cfg.trusted {
			opts = append(opts, coo.WithTrusted())
		}
		return coo.New(vt, m.types[0], r.shape, coords, coo.RowMajor, values, nnz, opts...)
	case arrowsparse.FormatCSR, arrowsparse.FormatCSC, arrowsparse.FormatGCS:
		indptr := spanBuffer(r.spans[0], m.types[0])
		indices := spanBuffer(r.spans[1], m.types[1])
		defer releaseAll(indptr, indices)
		opts := []gcs.Option{gcs.WithCanonicalClaim(m.canonical)}
		if cfg.trusted {
			opts = append(opts, gcs.WithTrusted())
		}
		if m.format != arrowsparse.FormatGCS {
			if m.names != nil {
				opts = append(opts, gcs.WithDimNames(m.names...))
			}
			axis := gcs.Rows
			if m.format == arrowsparse.FormatCSC {
				axis = gcs.Cols
			}
			return gcs.New(vt, m.types[0], m.types[1], r.shape, axis, indptr, indices, values, nnz, opts...)
		}
		rows, cols, _ := m.reduced(r.shape)
		mat, err := gcs.New(vt, m.types[0], m.types[1], []int64{rows, cols}, m.axis, indptr, indices, values, nnz, opts...)
		if err != nil {
			return nil, err
		}
		defer mat.Release()
		g, err := gcs.NewTensor(r.shape, m.dims, m.part, mat)
		if err != nil || m.names == nil {
			return g, err
		}
		defer g.Release()
		return g.WithDimNames(m.names...)
	}
	// CSF
	nd := m.ndim
	levels := make([]csf.Level, nd)
	bufs := make([]*memory.Buffer, 0, 2*nd)
	defer func() { releaseAll(bufs...) }()
	for l := range nd {
		j := 2 * l // indices_l
		levels[l].Indices = spanBuffer(r.spans[j], m.types[j])
		levels[l].IndexType = m.types[j]
		levels[l].Len = r.spans[j].n
		bufs = append(bufs, levels[l].Indices)
		if l+1 < nd {
			levels[l].Indptr = spanBuffer(r.spans[j+1], m.types[j+1])
			levels[l].IndptrType = m.types[j+1]
			bufs = append(bufs, levels[l].Indptr)
		}
	}
	var opts []csf.Option
	if m.names != nil {
		opts = append(opts, csf.WithDimNames(m.names...))
	}
	if cfg.trusted {
		opts = append(opts, csf.WithTrusted())
	}
	return csf.New(vt, r.shape, m.axisOrder, levels, values, nnz, opts...)
}

// ValueStr returns row i as text: "(null)" for a null row, else its
// format, shape and number of stored values, or the error that prevents
// reading it, in parentheses.
func (a *SparseTensorArray) ValueStr(i int) string {
	r, ok, err := a.locate(i)
	switch {
	case err != nil:
		return "(" + err.Error() + ")"
	case !ok:
		return array.NullValueStr
	}
	return fmt.Sprintf("%s%v nnz=%d", a.TensorType().Format(), r.shape, r.spans[len(r.spans)-1].n)
}

// String returns the column as text, one row after another.
func (a *SparseTensorArray) String() string {
	s := "["
	for i := range a.Len() {
		if i > 0 {
			s += " "
		}
		s += a.ValueStr(i)
	}
	return s + "]"
}

// GetOneForMarshal returns row i for JSON: nil for a null row, else the
// storage's struct of lists.
func (a *SparseTensorArray) GetOneForMarshal(i int) any {
	if valid, err := validAt(a.Data(), int64(a.Data().Offset()+i)); err != nil || !valid {
		return nil
	}
	return a.Storage().GetOneForMarshal(i)
}
