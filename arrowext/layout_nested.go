package arrowext

import "github.com/apache/arrow-go/v18/arrow"

// The layouts checked here are those whose slots reach their children or
// buffers through data of their own, which arrow-go's IPC reader takes as
// the file gives it and its accessors then follow with Go slice
// expressions (a panic in the caller's code when the data lies): structs
// and unions (children shorter than the column), dense unions (type ids
// and offsets), run-end-encoded columns (run ends) and the view layouts
// (string and binary views, list views). Each check reads every slot, or
// every run, once.

// checkNested checks the children lengths, type ids, offsets, run ends or
// views of data d of type typ (a storage type), end slots from the start
// of its buffers; other types pass. Its children must already have been
// checked.
func checkNested(d arrow.ArrayData, typ arrow.DataType, end int64) error {
	switch typ.ID() {
	case arrow.STRUCT:
		return checkChildLens(d, typ, end)
	case arrow.SPARSE_UNION, arrow.DENSE_UNION:
		return checkUnion(d, typ.(arrow.UnionType), end)
	case arrow.RUN_END_ENCODED:
		return checkRunEnds(d, end)
	case arrow.STRING_VIEW, arrow.BINARY_VIEW:
		return checkViews(d, typ, end)
	case arrow.LIST_VIEW, arrow.LARGE_LIST_VIEW:
		return checkListViews(d, typ, end)
	}
	return nil
}

// checkChildLens checks that every child of d covers its end slots (struct
// and sparse union children are indexed by the column's own slots).
func checkChildLens(d arrow.ArrayData, typ arrow.DataType, end int64) error {
	for i, c := range d.Children() {
		if int64(c.Len()) < end {
			return layoutError("%s: field %d has %d values for %d slots", typ, i, c.Len(), end)
		}
	}
	return nil
}

// checkUnion checks a union's type ids (one byte per slot, each a code of
// the type) and, for a dense union, its offsets (one int32 per slot, each
// within its child); a sparse union's children must cover its slots.
func checkUnion(d arrow.ArrayData, ut arrow.UnionType, end int64) error {
	if len(d.Children()) != len(ut.Fields()) {
		return layoutError("%s data has %d children, want %d", ut, len(d.Children()), len(ut.Fields()))
	}
	if d.Len() == 0 {
		return nil
	}
	ids := bufferBytes(d, 1)
	if int64(len(ids)) < end {
		return layoutError("%s: %d slots need %d type ids, the buffer holds %d", ut, end, end, len(ids))
	}
	dense := ut.Mode() == arrow.DenseMode
	var offs []byte
	if dense {
		offs = bufferBytes(d, 2)
		if int64(len(offs))/4 < end {
			return layoutError("%s: %d slots need %d offsets, the buffer holds %d", ut, end, end, len(offs)/4)
		}
	} else if err := checkChildLens(d, ut, end); err != nil {
		return err
	}
	childIDs := ut.ChildIDs()
	lens := make([]int64, len(d.Children()))
	for c, k := range d.Children() {
		lens[c] = int64(k.Len())
	}
	for i := int64(d.Offset()); i < end; i++ {
		code := int8(ids[i])
		if code < 0 || childIDs[code] < 0 {
			return layoutError("%s: slot %d has type id %d, not one of the type's", ut, i-int64(d.Offset()), code)
		}
		if !dense {
			continue
		}
		c := childIDs[code]
		if off := int64(offsetAt[int32](offs, int(i))); off < 0 || off >= lens[c] {
			return layoutError("%s: slot %d has offset %d into field %d of %d values", ut, i-int64(d.Offset()), off, c, lens[c])
		}
	}
	return nil
}

// checkRunEnds checks a run-end-encoded column: run ends without nulls,
// positive and ascending, the last reaching the column's end, and a value
// for every run.
func checkRunEnds(d arrow.ArrayData, end int64) error {
	if len(d.Children()) != 2 {
		return layoutError("run-end-encoded data has %d children, want 2", len(d.Children()))
	}
	re, vals := d.Children()[0], d.Children()[1]
	if d.Len() == 0 {
		return nil
	}
	if re.NullN() != 0 {
		return layoutError("run-end-encoded data has %d null run ends", re.NullN())
	}
	switch re.DataType().ID() {
	case arrow.INT16, arrow.INT32, arrow.INT64:
	default:
		return layoutError("run-end-encoded data has run ends of type %s, want int16, int32 or int64", re.DataType())
	}
	runs := int64(re.Len())
	if runs == 0 {
		return layoutError("run-end-encoded data of %d slots has no runs", d.Len())
	}
	if int64(vals.Len()) < runs {
		return layoutError("run-end-encoded data has %d runs and %d values", runs, vals.Len())
	}
	w := int64(re.DataType().(arrow.FixedWidthDataType).BitWidth() / 8)
	raw := bufferBytes(re, 1)
	prev := int64(0)
	for i := range runs {
		e := leInt(raw, w, int64(re.Offset())+i)
		if e <= prev {
			return layoutError("run-end-encoded data: run %d ends at %d, after a run ending at %d", i, e, prev)
		}
		prev = e
	}
	if prev < end {
		return layoutError("run-end-encoded data: the runs end at %d, before the %d slots", prev, end)
	}
	return nil
}

// checkViews checks the views of a string_view or binary_view column: 16
// bytes per slot, and each valid slot's bytes, when not inline, within the
// data buffer it names.
func checkViews(d arrow.ArrayData, typ arrow.DataType, end int64) error {
	if d.Len() == 0 {
		return nil
	}
	views := bufferBytes(d, 1)
	if int64(len(views))/16 < end {
		return layoutError("%s: %d slots need %d views, the buffer holds %d", typ, end, end, len(views)/16)
	}
	valid := bitmapOf(d)
	data := d.Buffers()[min(2, len(d.Buffers())):]
	for i := int64(d.Offset()); i < end; i++ {
		if !validSlot(valid, i) {
			continue
		}
		v := views[16*i : 16*i+16]
		n := int64(offsetAt[int32](v, 0))
		if n < 0 {
			return layoutError("%s: slot %d has length %d", typ, i-int64(d.Offset()), n)
		}
		if n <= 12 {
			continue
		}
		b, off := int64(offsetAt[int32](v, 2)), int64(offsetAt[int32](v, 3))
		if b < 0 || b >= int64(len(data)) {
			return layoutError("%s: slot %d names data buffer %d of %d", typ, i-int64(d.Offset()), b, len(data))
		}
		have := int64(0)
		if data[b] != nil {
			have = int64(data[b].Len())
		}
		if off < 0 || off > have-n {
			return layoutError("%s: slot %d has bytes [%d, %d) of a %d-byte data buffer", typ, i-int64(d.Offset()), off, off+n, have)
		}
	}
	return nil
}

// checkListViews checks the offsets and sizes of a list_view or
// large_list_view column: one of each per slot, and each valid slot's
// values within the child.
func checkListViews(d arrow.ArrayData, typ arrow.DataType, end int64) error {
	if len(d.Children()) != 1 {
		return layoutError("%s data has %d children, want 1", typ, len(d.Children()))
	}
	if d.Len() == 0 {
		return nil
	}
	w := int64(4)
	if typ.ID() == arrow.LARGE_LIST_VIEW {
		w = 8
	}
	offs, sizes := bufferBytes(d, 1), bufferBytes(d, 2)
	if n := int64(min(len(offs), len(sizes))) / w; n < end {
		return layoutError("%s: %d slots need %d offsets and sizes, the buffers hold %d and %d", typ, end, end, int64(len(offs))/w, int64(len(sizes))/w)
	}
	n := int64(d.Children()[0].Len())
	var bad, off, size int64
	if w == 4 {
		bad, off, size = listViewSlots[int32](offs, sizes, bitmapOf(d), int64(d.Offset()), end, n)
	} else {
		bad, off, size = listViewSlots[int64](offs, sizes, bitmapOf(d), int64(d.Offset()), end, n)
	}
	if bad >= 0 {
		return layoutError("%s: slot %d has offset %d and size %d, the child has %d values", typ, bad-int64(d.Offset()), off, size, n)
	}
	return nil
}

// listViewSlots returns the first valid slot in [from, end) whose values,
// at offs and sizes of type T, are not within a child of n values, with
// its offset and size; bad = -1 if there is none.
func listViewSlots[T int32 | int64](offs, sizes, valid []byte, from, end, n int64) (bad, off, size int64) {
	for i := from; i < end; i++ {
		off, size = int64(offsetAt[T](offs, int(i))), int64(offsetAt[T](sizes, int(i)))
		if (off < 0 || size < 0 || off > n || size > n-off) && validSlot(valid, i) {
			return i, off, size
		}
	}
	return -1, 0, 0
}
