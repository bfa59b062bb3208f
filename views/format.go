package views

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/float16"

	"github.com/arrowsparse/arrowsparse"
)

// Formatted returns the view's elements as text in NumPy's nested-bracket
// layout, each element formatted with elemFormat (a fmt verb such as "%v"
// or "%.3f"; float16 values are formatted as float32):
//
//	[[0.000 1.000 2.000]
//	 [3.000 4.000 5.000]]
//
// A 0-d view prints as its one element. It is meant for examples, tests and
// debugging, not for large views.
func Formatted[V Viewer](v V, elemFormat string) string {
	return coreOf(v).format(elemFormat)
}

// String returns Formatted(v, "%v").
func (v *viewBase) String() string { return v.format("%v") }

func (v *viewBase) format(elemFormat string) string {
	var b strings.Builder
	switch v.dtype.ID() {
	case arrow.INT8:
		formatElems[int8](&b, v, elemFormat)
	case arrow.INT16:
		formatElems[int16](&b, v, elemFormat)
	case arrow.INT32:
		formatElems[int32](&b, v, elemFormat)
	case arrow.INT64:
		formatElems[int64](&b, v, elemFormat)
	case arrow.UINT8:
		formatElems[uint8](&b, v, elemFormat)
	case arrow.UINT16:
		formatElems[uint16](&b, v, elemFormat)
	case arrow.UINT32:
		formatElems[uint32](&b, v, elemFormat)
	case arrow.UINT64:
		formatElems[uint64](&b, v, elemFormat)
	case arrow.FLOAT16:
		formatElems[float16.Num](&b, v, elemFormat)
	case arrow.FLOAT32:
		formatElems[float32](&b, v, elemFormat)
	default:
		formatElems[float64](&b, v, elemFormat)
	}
	return b.String()
}

func formatElems[T arrowsparse.Value](b *strings.Builder, v *viewBase, elemFormat string) {
	put := func(x T) {
		if h, ok := any(x).(float16.Num); ok {
			fmt.Fprintf(b, elemFormat, h.Float32())
			return
		}
		fmt.Fprintf(b, elemFormat, x)
	}
	nd := len(v.shape)
	if nd == 0 {
		put(typed[T](v)[v.offset])
		return
	}
	b.WriteString(strings.Repeat("[", nd))
	if v.size == 0 {
		b.WriteString(strings.Repeat("]", nd))
		return
	}
	// count[k] is the number of elements in a block of axes k.. .
	count := make([]int64, nd+1)
	count[nd] = 1
	for k := nd - 1; k >= 0; k-- {
		count[k] = count[k+1] * v.shape[k]
	}
	i := int64(0)
	for x := range Elements[T](asRemapped(v)) {
		if i > 0 {
			closed := 0
			for k := nd - 1; k > 0 && i%count[k] == 0; k-- {
				closed++
			}
			if closed == 0 {
				b.WriteByte(' ')
			} else {
				b.WriteString(strings.Repeat("]", closed))
				b.WriteString(strings.Repeat("\n", closed))
				b.WriteString(strings.Repeat(" ", nd-closed))
				b.WriteString(strings.Repeat("[", closed))
			}
		}
		put(x)
		i++
	}
	b.WriteString(strings.Repeat("]", nd))
}
