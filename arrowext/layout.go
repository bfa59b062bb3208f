package arrowext

import (
	"encoding/binary"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// arrow-go's IPC reader builds arrays with the lengths a file claims,
// whatever their buffers hold. checkLayout verifies, in O(1) per column,
// that the buffers of a tensor column cover its length: validity bitmaps,
// list sizes, offsets, shapes and values. A column that passes has at most
// as many rows as its buffers have bytes, so reading every row costs time
// in proportion to the input; Row still checks each row's own offsets and
// shape.

// checkLayout returns an error wrapping arrow.ErrInvalid if the buffers of a
// column of this package's types do not cover its length. Other columns
// pass.
func checkLayout(col arrow.Array) error {
	switch a := col.(type) {
	case *FixedShapeTensorArray:
		return checkFixedLayout(a)
	case *VariableShapeTensorArray:
		return checkVariableLayout(a)
	case *SparseTensorArray:
		return checkSparseLayout(a)
	}
	return nil
}

// checkTableLayout applies checkColumnBuffers and checkLayout to every chunk of
// every column.
func checkTableLayout(tbl arrow.Table) error {
	for i := range int(tbl.NumCols()) {
		for _, ch := range tbl.Column(i).Data().Chunks() {
			err := checkColumnBuffers(ch.Data(), 0)
			if err == nil {
				err = checkLayout(ch)
			}
			if err != nil {
				return core.Errorf(arrowsparse.ErrStructure, "column %q: %w", tbl.Schema().Field(i).Name, err)
			}
		}
	}
	return nil
}

// checkColumnBuffers checks that data d, its children and its dictionary, at
// any depth, have validity bitmaps covering their slots where they claim
// nulls, and, for fixed-width types, values buffers covering their slots.
// arrow-go's IsValid reads the bitmap without a bound check, so a column
// of any type whose bitmap is too short panics when its slots are read
// (writing it to Parquet, say); and arrow-go builds a fixed-width array
// over a buffer too short for it whenever the bytes after the buffer (the
// rest of the message body) make up the difference, so its values would
// be bytes of other buffers.
func checkColumnBuffers(d arrow.ArrayData, depth int) error {
	if depth > 2*maxNesting {
		return layoutError("the column nests more than %d levels deep", 2*maxNesting)
	}
	end := int64(d.Offset()) + int64(d.Len())
	bufs := d.Buffers()
	if d.NullN() != 0 {
		if len(bufs) > 0 && bufs[0] != nil && int64(bufs[0].Len()) < bitutil.BytesForBits(end) {
			return layoutError("a validity bitmap of %d bytes does not cover its %d slots", bufs[0].Len(), end)
		}
	}
	typ := d.DataType()
	if ext, ok := typ.(arrow.ExtensionType); ok {
		typ = ext.StorageType()
	}
	if err := checkWidth(d, typ, end, typ.String()); err != nil {
		return err
	}
	if err := checkOffsets(d, typ, end); err != nil {
		return err
	}
	for _, c := range d.Children() {
		if err := checkColumnBuffers(c, depth+1); err != nil {
			return err
		}
	}
	if err := checkNested(d, typ, end); err != nil {
		return err
	}
	if d.DataType().ID() == arrow.DICTIONARY {
		// Dictionary returns a typed nil when there is none.
		dict, ok := d.Dictionary().(*array.Data)
		if !ok || dict == nil {
			if d.Len() > 0 {
				return layoutError("a dictionary-encoded column has no dictionary")
			}
			return nil
		}
		if err := checkColumnBuffers(dict, depth+1); err != nil {
			return err
		}
		return checkIndices(d, int64(dict.Len()))
	}
	return nil
}

// checkIndices checks that the valid slots of dictionary-encoded data d
// (its index buffer already known to cover them) index a dictionary of n
// values: arrow-go looks them up without a bound check.
func checkIndices(d arrow.ArrayData, n int64) error {
	it := d.DataType().(*arrow.DictionaryType).IndexType.(arrow.FixedWidthDataType)
	w := int64(it.BitWidth() / 8)
	signed := arrow.IsSignedInteger(it.ID())
	raw := bufferBytes(d, 1)
	if len(d.Buffers()) != 2 || raw == nil {
		if d.Len() > 0 {
			return layoutError("a dictionary-encoded column has no index buffer")
		}
		return nil
	}
	valid := bitmapOf(d)
	for i := int64(d.Offset()); i < int64(d.Offset()+d.Len()); i++ {
		if !validSlot(valid, i) {
			continue
		}
		v := int64(leUint(raw, w, i))
		if signed {
			v = leInt(raw, w, i)
		}
		if v < 0 || v >= n {
			return layoutError("slot %d indexes value %d of a %d-value dictionary", i-int64(d.Offset()), v, n)
		}
	}
	return nil
}

// leUint returns element i of the little-endian unsigned integers of w
// bytes (1, 2, 4 or 8) in raw, and leInt element i of the signed ones.
func leUint(raw []byte, w, i int64) uint64 {
	switch w {
	case 1:
		return uint64(raw[i])
	case 2:
		return uint64(binary.LittleEndian.Uint16(raw[2*i:]))
	case 4:
		return uint64(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return binary.LittleEndian.Uint64(raw[8*i:])
}

func leInt(raw []byte, w, i int64) int64 {
	s := uint(64 - 8*w)
	return int64(leUint(raw, w, i)<<s) >> s
}

// validSlot reports whether slot i of d is valid, given its bitmap (nil
// when d has no nulls).
func validSlot(valid []byte, i int64) bool {
	return valid == nil || bitutil.BitIsSet(valid, int(i))
}

// bitmapOf returns d's validity bitmap if it claims nulls (checkColumnBuffers
// has checked that it covers the slots), else nil.
func bitmapOf(d arrow.ArrayData) []byte {
	if d.NullN() == 0 || len(d.Buffers()) == 0 || d.Buffers()[0] == nil {
		return nil
	}
	return d.Buffers()[0].Bytes()
}

// bufferBytes returns buffer i of d, or nil when there is none.
func bufferBytes(d arrow.ArrayData, i int) []byte {
	if bufs := d.Buffers(); i < len(bufs) && bufs[i] != nil {
		return bufs[i].Bytes()
	}
	return nil
}

func layoutError(format string, args ...any) error {
	return core.Errorf(arrowsparse.ErrBufferSize, format, args...)
}

// checkSlots checks that data d has at least end slots (offset included)
// and, if it has nulls, a validity bitmap covering them.
func checkSlots(d arrow.ArrayData, end int64, what string) error {
	if int64(d.Offset())+int64(d.Len()) < end || end < 0 {
		return layoutError("%s has %d slots, %d needed", what, int64(d.Offset())+int64(d.Len()), end)
	}
	if d.NullN() != 0 {
		bufs := d.Buffers()
		if len(bufs) == 0 || bufs[0] == nil || int64(bufs[0].Len()) < bitutil.BytesForBits(end) {
			return layoutError("%s: the validity bitmap does not cover its %d slots", what, end)
		}
	}
	return nil
}

// checkValues checks primitive data of a fixed-width type: its slots and
// its values buffer.
func checkValues(d arrow.ArrayData, what string) error {
	end := int64(d.Offset()) + int64(d.Len())
	if err := checkSlots(d, end, what); err != nil {
		return err
	}
	return checkWidth(d, d.DataType(), end, what)
}

// checkWidth checks that data d of the fixed-width type typ (its storage
// type for extensions; other types pass) has a values buffer covering its
// end slots, offset included: whole bytes, or bits for bit-packed types.
func checkWidth(d arrow.ArrayData, typ arrow.DataType, end int64, what string) error {
	fw, ok := typ.(arrow.FixedWidthDataType)
	bufs := d.Buffers()
	if !ok || len(bufs) != 2 {
		return nil
	}
	bitsNeed, ok := core.MulInt64(end, int64(fw.BitWidth()))
	need := (bitsNeed + 7) / 8
	have := int64(0)
	if bufs[1] != nil {
		have = int64(bufs[1].Len())
	}
	if !ok || have < need {
		return layoutError("%s: %d values need %d bytes, the buffer has %d", what, end, need, have)
	}
	return nil
}

func checkFixedLayout(a *FixedShapeTensorArray) error {
	d := a.Data()
	end := int64(d.Offset()) + int64(d.Len())
	if err := checkSlots(d, end, FixedShapeTensorName+" column"); err != nil {
		return err
	}
	if len(d.Children()) != 1 {
		return layoutError("%s storage has %d children, want 1", FixedShapeTensorName, len(d.Children()))
	}
	c := d.Children()[0]
	need, ok := core.MulInt64(end, a.TensorType().size)
	if !ok || int64(c.Len()) < need {
		return layoutError("%s: %d rows of %d values need %d list values, the storage has %d", FixedShapeTensorName, end, a.TensorType().size, need, c.Len())
	}
	return checkValues(c, FixedShapeTensorName+" values")
}

func checkVariableLayout(a *VariableShapeTensorArray) error {
	d := a.Data()
	end := int64(d.Offset()) + int64(d.Len())
	if err := checkSlots(d, end, VariableShapeTensorName+" column"); err != nil {
		return err
	}
	if len(d.Children()) != 2 {
		return layoutError("%s storage has %d children, want 2", VariableShapeTensorName, len(d.Children()))
	}
	ld, sd := d.Children()[0], d.Children()[1]
	// The data lists: slots, offsets, values.
	lend := int64(ld.Offset()) + end
	if err := checkSlots(ld, lend, VariableShapeTensorName+" data field"); err != nil {
		return err
	}
	if int64(len(offsetsBuf(ld))) < (lend+1)*4 {
		return layoutError("%s: the data field's offsets (%d bytes) do not cover its %d lists", VariableShapeTensorName, len(offsetsBuf(ld)), lend)
	}
	if len(ld.Children()) != 1 {
		return layoutError("%s data field has %d children, want 1", VariableShapeTensorName, len(ld.Children()))
	}
	if err := checkValues(ld.Children()[0], VariableShapeTensorName+" values"); err != nil {
		return err
	}
	// The shapes: slots and ndim int32 values per slot.
	send := int64(sd.Offset()) + end
	if err := checkSlots(sd, send, VariableShapeTensorName+" shape field"); err != nil {
		return err
	}
	if len(sd.Children()) != 1 {
		return layoutError("%s shape field has %d children, want 1", VariableShapeTensorName, len(sd.Children()))
	}
	sv := sd.Children()[0]
	need, ok := core.MulInt64(send, int64(a.TensorType().ndim))
	if !ok || int64(sv.Len()) < need {
		return layoutError("%s: %d shapes of %d dimensions need %d values, the shape field has %d", VariableShapeTensorName, send, a.TensorType().ndim, need, sv.Len())
	}
	return checkValues(sv, VariableShapeTensorName+" shapes")
}

// checkOffsets checks the offsets of list, map and binary data (of type
// typ, its storage type for extensions) with end slots: arrow-go builds a
// list over offsets too few for its slots, and reads offsets in any order,
// so a slot past them or an offset past the values panics when read. The
// offsets of slots [offset, end] must be present, ascending, and within
// the child's slots (lists) or the values buffer (binary); fixed-size lists
// need size slots of the child per slot.
func checkOffsets(d arrow.ArrayData, typ arrow.DataType, end int64) error {
	var w int       // bytes per offset
	var limit int64 // what the last offset may reach
	bufs := d.Buffers()
	switch typ.ID() {
	case arrow.LIST, arrow.MAP, arrow.LARGE_LIST:
		if len(d.Children()) != 1 {
			return layoutError("%s data has %d children, want 1", typ, len(d.Children()))
		}
		w, limit = 4, int64(d.Children()[0].Len())
		if typ.ID() == arrow.LARGE_LIST {
			w = 8
		}
	case arrow.BINARY, arrow.STRING, arrow.LARGE_BINARY, arrow.LARGE_STRING:
		w = 4
		if id := typ.ID(); id == arrow.LARGE_BINARY || id == arrow.LARGE_STRING {
			w = 8
		}
		if len(bufs) > 2 && bufs[2] != nil {
			limit = int64(bufs[2].Len())
		}
	case arrow.FIXED_SIZE_LIST:
		if len(d.Children()) != 1 {
			return layoutError("%s data has %d children, want 1", typ, len(d.Children()))
		}
		size := int64(typ.(*arrow.FixedSizeListType).Len())
		need, ok := core.MulInt64(end, size)
		if have := int64(d.Children()[0].Len()); !ok || have < need {
			return layoutError("%d lists of %d values need %d values, the child has %d", end, size, need, have)
		}
		return nil
	default:
		return nil
	}
	if d.Len() == 0 {
		return nil
	}
	raw := bufferBytes(d, 1)
	if int64(len(raw))/int64(w) < end+1 {
		return layoutError("%d slots of %s need %d offsets, the buffer holds %d", end, typ, end+1, len(raw)/w)
	}
	var first, last, bad, from, to int64
	if w == 4 {
		first, last, bad, from, to = scanOffsets[int32](raw[4*int64(d.Offset()) : 4*(end+1)])
	} else {
		first, last, bad, from, to = scanOffsets[int64](raw[8*int64(d.Offset()) : 8*(end+1)])
	}
	if first < 0 {
		return layoutError("%s offset %d is %d", typ, d.Offset(), first)
	}
	if bad >= 0 {
		return layoutError("%s offsets descend at slot %d (%d after %d)", typ, int64(d.Offset())+bad, to, from)
	}
	if last > limit {
		return layoutError("%s: the last offset, %d, is past the %d values", typ, last, limit)
	}
	return nil
}

// scanOffsets returns the first and last of the little-endian offsets of
// type T in raw and, if they ever descend, the first slot after which they
// do with the two offsets there (bad = -1 otherwise). The loop's only
// branch on the data is its exit, so that it runs at memory speed; a
// descent is located in a second pass.
func scanOffsets[T int32 | int64](raw []byte) (first, last, bad, from, to int64) {
	w := int(unsafe.Sizeof(T(0)))
	n := len(raw) / w
	prev := offsetAt[T](raw, 0)
	first = int64(prev)
	down := false
	for j := 1; j < n; j++ {
		o := offsetAt[T](raw, j)
		down = down || o < prev
		prev = o
	}
	last = int64(prev)
	if !down {
		return first, last, -1, 0, 0
	}
	for j := 1; j < n; j++ {
		if a, b := offsetAt[T](raw, j-1), offsetAt[T](raw, j); b < a {
			return first, last, int64(j - 1), int64(a), int64(b)
		}
	}
	return first, last, -1, 0, 0
}

// offsetAt decodes offset j of type T from raw.
func offsetAt[T int32 | int64](raw []byte, j int) T {
	if unsafe.Sizeof(T(0)) == 4 {
		return T(int32(binary.LittleEndian.Uint32(raw[4*j : 4*j+4])))
	}
	return T(int64(binary.LittleEndian.Uint64(raw[8*j : 8*j+8])))
}
