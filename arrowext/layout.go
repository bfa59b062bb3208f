package arrowext

import (
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
	if fw, ok := typ.(arrow.FixedWidthDataType); ok && len(bufs) == 2 {
		need, ok := core.MulInt64(end, int64(fw.BitWidth()))
		have := int64(0)
		if bufs[1] != nil {
			have = int64(bufs[1].Len())
		}
		if !ok || have < (need+7)/8 {
			return layoutError("%d values of %s need %d bytes, the buffer has %d", end, typ, (need+7)/8, have)
		}
	}
	for _, c := range d.Children() {
		if err := checkColumnBuffers(c, depth+1); err != nil {
			return err
		}
	}
	if d.DataType().ID() == arrow.DICTIONARY {
		// Dictionary returns a typed nil when there is none.
		if dict, ok := d.Dictionary().(*array.Data); ok && dict != nil {
			return checkColumnBuffers(dict, depth+1)
		}
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
	fw, ok := d.DataType().(arrow.FixedWidthDataType)
	if !ok || fw.BitWidth()%8 != 0 {
		return nil // not read as tensor values
	}
	need, ok := core.MulInt64(end, int64(fw.BitWidth()/8))
	bufs := d.Buffers()
	have := int64(0)
	if len(bufs) > 1 && bufs[1] != nil {
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
