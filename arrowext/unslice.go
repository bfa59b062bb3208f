package arrowext

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// arrow-go's IPC writer mishandles two layouts when they are sliced: it
// rebases a dense union's offsets reading type ids past the end of the
// slice, and it starts a list view's search for its smallest offset at
// the most negative value instead of the largest. Either panics. It
// slices the children of structs, unions and lists itself, so such a
// column anywhere under a sliced parent is sliced too. unsliced rewrites
// those columns so that nothing under them is at an offset: per-slot
// buffers are sliced zero-copy (a validity bitmap at an offset that is
// not a whole byte, and a list's offsets, are copied), children sliced to
// the slots their parent reaches. Columns of other types are kept as they
// are, at no cost.

// unsliced returns rec (retained), or a record batch whose columns that
// hold a dense union or a list view start at offset 0 at every level.
func unsliced(mem memory.Allocator, rec arrow.RecordBatch) arrow.RecordBatch {
	cols := rec.Columns()
	var out []arrow.Array
	for i, col := range cols {
		if !holdsFragile(col.DataType()) {
			continue
		}
		if out == nil {
			out = append([]arrow.Array(nil), cols...)
			for _, c := range out {
				c.Retain()
			}
		}
		d := rebase(mem, col.Data())
		out[i].Release()
		out[i] = array.MakeFromData(d)
		d.Release()
	}
	if out == nil {
		rec.Retain()
		return rec
	}
	r := array.NewRecordBatch(rec.Schema(), out, rec.NumRows())
	for _, c := range out {
		c.Release()
	}
	return r
}

// holdsFragile reports whether typ is or holds a dense union or a list
// view (dictionaries are written from their own batches and not looked
// into).
func holdsFragile(typ arrow.DataType) bool {
	switch t := typ.(type) {
	case arrow.ExtensionType:
		return holdsFragile(t.StorageType())
	case *arrow.DenseUnionType, *arrow.ListViewType, *arrow.LargeListViewType:
		return true
	case arrow.NestedType:
		for _, f := range t.Fields() {
			if holdsFragile(f.Type) {
				return true
			}
		}
	}
	return false
}

// rebase returns data with d's type and values in which no level holding a
// dense union or a list view is at an offset. The result must be
// released.
func rebase(mem memory.Allocator, d arrow.ArrayData) arrow.ArrayData {
	typ := d.DataType()
	st := typ
	if ext, ok := typ.(arrow.ExtensionType); ok {
		st = ext.StorageType()
	}
	if !holdsFragile(typ) {
		d.Retain()
		return d
	}
	off, n := d.Offset(), d.Len()
	bufs := make([]*memory.Buffer, len(d.Buffers()))
	defer func() {
		for _, b := range bufs {
			if b != nil {
				b.Release()
			}
		}
	}()
	if len(bufs) > 0 {
		bufs[0] = shiftBitmap(mem, d, off, n)
	}
	// slot returns buffer i sliced to the column's slots, w bytes each.
	slot := func(i, w int) *memory.Buffer {
		if i >= len(d.Buffers()) || d.Buffers()[i] == nil || n == 0 {
			return nil
		}
		return memory.SliceBuffer(d.Buffers()[i], w*off, w*n)
	}
	kids := d.Children()
	var children []arrow.ArrayData
	switch st.ID() {
	case arrow.DENSE_UNION:
		// Offsets are absolute: the children stay whole.
		bufs[1], bufs[2] = slot(1, 1), slot(2, 4)
		children = rebaseAll(mem, kids, 0, -1)
	case arrow.LIST_VIEW, arrow.LARGE_LIST_VIEW:
		w := 4
		if st.ID() == arrow.LARGE_LIST_VIEW {
			w = 8
		}
		bufs[1], bufs[2] = slot(1, w), slot(2, w)
		children = rebaseAll(mem, kids, 0, -1)
	case arrow.STRUCT:
		children = rebaseAll(mem, kids, off, n)
	case arrow.SPARSE_UNION:
		bufs[1] = slot(1, 1)
		children = rebaseAll(mem, kids, off, n)
	case arrow.FIXED_SIZE_LIST:
		size := st.(*arrow.FixedSizeListType).Len()
		children = rebaseAll(mem, kids, off*int(size), n*int(size))
	case arrow.LIST, arrow.MAP, arrow.LARGE_LIST:
		var first, last int64
		bufs[1], first, last = shiftOffsets(mem, d, st.ID() == arrow.LARGE_LIST)
		children = rebaseAll(mem, kids, int(first), int(last-first))
	default:
		// Run-end-encoded columns stay as they are: arrow-go's writer cuts
		// their values to the runs itself, so a dense union or list view
		// among them may still reach it sliced (an error, not a crash: see
		// recordBatches).
		d.Retain()
		return d
	}
	nd := array.NewData(typ, n, bufs, children, d.NullN(), 0)
	for _, c := range children {
		c.Release()
	}
	return nd
}

// rebaseAll returns the children sliced to [off, off+n) (n < 0: whole) and
// rebased.
func rebaseAll(mem memory.Allocator, kids []arrow.ArrayData, off, n int) []arrow.ArrayData {
	out := make([]arrow.ArrayData, len(kids))
	for i, k := range kids {
		if n < 0 || (off == 0 && n == k.Len()) {
			out[i] = rebase(mem, k)
			continue
		}
		s := array.NewSliceData(k, int64(off), int64(off+n))
		out[i] = rebase(mem, s)
		s.Release()
	}
	return out
}

// shiftBitmap returns d's validity bitmap for slots [off, off+n) from bit
// 0: sliced when off is a whole byte, else copied from mem; nil without
// nulls.
func shiftBitmap(mem memory.Allocator, d arrow.ArrayData, off, n int) *memory.Buffer {
	vb := d.Buffers()[0]
	if vb == nil || d.NullN() == 0 || n == 0 {
		return nil
	}
	nb := int(bitutil.BytesForBits(int64(n)))
	if off%8 == 0 {
		return memory.SliceBuffer(vb, off/8, nb)
	}
	b := memory.NewResizableBuffer(mem)
	b.Resize(nb)
	bitutil.CopyBitmap(vb.Bytes(), off, n, b.Bytes(), 0)
	return b
}

// shiftOffsets returns a copy, from mem, of the offsets of list data d's
// slots less the first, and the first and last offsets.
func shiftOffsets(mem memory.Allocator, d arrow.ArrayData, large bool) (*memory.Buffer, int64, int64) {
	off, n := d.Offset(), d.Len()
	b := memory.NewResizableBuffer(mem)
	if n == 0 {
		// No offsets need be present: one zero.
		b.Resize(8)
		clear(b.Bytes())
		return b, 0, 0
	}
	if large {
		src := arrow.Int64Traits.CastFromBytes(d.Buffers()[1].Bytes())[off : off+n+1]
		b.Resize(8 * (n + 1))
		dst := arrow.Int64Traits.CastFromBytes(b.Bytes())
		for i, v := range src {
			dst[i] = v - src[0]
		}
		return b, src[0], src[n]
	}
	src := arrow.Int32Traits.CastFromBytes(d.Buffers()[1].Bytes())[off : off+n+1]
	b.Resize(4 * (n + 1))
	dst := arrow.Int32Traits.CastFromBytes(b.Bytes())
	for i, v := range src {
		dst[i] = v - src[0]
	}
	return b, int64(src[0]), int64(src[n])
}
