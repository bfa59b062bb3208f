package arrowext

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// checkSparseLayout checks, in O(depth) for a whole column, that the
// buffers of a sparse column's storage cover the lengths arrow-go's
// readers gave it: the validity bitmaps, the slots of every child, the
// offsets of every list and the values of every leaf. A column that passes
// has at most as many rows and elements as its buffers have bytes; Row
// still checks each row's own offsets against its children.
func checkSparseLayout(a *SparseTensorArray) error {
	t := a.TensorType()
	d := a.Data()
	end := int64(d.Offset()) + int64(d.Len())
	if err := checkSlots(d, end, t.ExtensionName()+" column"); err != nil {
		return err
	}
	st := t.StorageType().(*arrow.StructType)
	if len(d.Children()) != st.NumFields() {
		return layoutError("%s storage has %d children, want %d", t.ExtensionName(), len(d.Children()), st.NumFields())
	}
	for k, c := range d.Children() {
		what := t.ExtensionName() + " field " + st.Field(k).Name
		if int64(c.Len()) < end {
			return layoutError("%s has %d slots, %d needed", what, c.Len(), end)
		}
		if err := checkCover(c, what, 0); err != nil {
			return err
		}
	}
	return nil
}

// checkCover checks that the buffers of d (a List, LargeList,
// FixedSizeList or fixed-width leaf, as sparse storage holds) cover its
// slots, recursively.
func checkCover(d arrow.ArrayData, what string, depth int) error {
	if depth > 4 {
		return layoutError("%s nests too deeply", what)
	}
	end := int64(d.Offset()) + int64(d.Len())
	if err := checkSlots(d, end, what); err != nil {
		return err
	}
	switch t := d.DataType().(type) {
	case *arrow.ListType, *arrow.LargeListType:
		w := int64(4)
		if _, ok := t.(*arrow.LargeListType); ok {
			w = 8
		}
		if end > 0 {
			if need, ok := core.MulInt64(end+1, w); !ok || int64(len(offsetsBuf(d))) < need {
				return layoutError("%s: the offsets (%d bytes) do not cover its %d lists", what, len(offsetsBuf(d)), end)
			}
		}
		if len(d.Children()) != 1 {
			return layoutError("%s has %d children, want 1", what, len(d.Children()))
		}
		return checkCover(d.Children()[0], what+" elements", depth+1)
	case *arrow.FixedSizeListType:
		if len(d.Children()) != 1 {
			return layoutError("%s has %d children, want 1", what, len(d.Children()))
		}
		c := d.Children()[0]
		if need, ok := core.MulInt64(end, int64(t.Len())); !ok || int64(c.Len()) < need {
			return layoutError("%s: %d lists of %d need %d elements, the child has %d", what, end, t.Len(), need, c.Len())
		}
		return checkCover(c, what+" elements", depth+1)
	case arrow.FixedWidthDataType:
		return checkValues(d, what)
	}
	return core.Errorf(arrowsparse.ErrStructure, "%s has the unexpected type %s", what, d.DataType())
}
