package describe

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Text returns the content for people, as WriteText writes it.
func (c *Content) Text() string {
	var b strings.Builder
	_ = c.WriteText(&b)
	return b.String()
}

// WriteText writes the content for people: a header line, then one line per
// entry (sparse) or element (dense) with its coordinates and value. A dense
// tensor's values are written as they are read, a chunk at a time. It
// returns the first error of w.
func (c *Content) WriteText(w io.Writer) error {
	b, ok := w.(*bufio.Writer)
	if !ok {
		b = bufio.NewWriterSize(w, 1<<16)
	}
	fmt.Fprintf(b, "%s %s shape %s", c.Format, TypeName(c.ValueType), intList(c.Shape))
	if c.DimNames != nil {
		fmt.Fprintf(b, " names %s", namesText(c.DimNames))
	}
	if c.Sparse() {
		fmt.Fprintf(b, " index %s", TypeName(c.IndexType))
		if c.IndptrType != nil {
			fmt.Fprintf(b, " indptr %s", TypeName(c.IndptrType))
		}
		fmt.Fprintf(b, " nnz %d", c.NNZ)
		switch c.Format {
		case "CSF":
			fmt.Fprintf(b, " axis order %s", intList(c.AxisOrder))
		case "GCS":
			fmt.Fprintf(b, " dimensions %s partitioning %s", intList(c.Dimensions), intList(c.Partitioning))
		}
		b.WriteByte('\n')
		if c.Entries != nil {
			var num []byte
			for i := range c.Entries.Len() {
				num = writeLine(b, num, c, c.Entries.At(i), c.Entries.Values[i])
			}
		}
		return b.Flush()
	}
	b.WriteByte('\n')
	idx := make([]int64, len(c.Shape))
	var num []byte
	err := c.eachValue(func(x uint64) {
		num = writeLine(b, num, c, idx, x)
		for k := len(idx) - 1; k >= 0; k-- {
			idx[k]++
			if idx[k] < c.Shape[k] {
				break
			}
			idx[k] = 0
		}
	})
	if err != nil {
		return err
	}
	return b.Flush()
}

// writeLine writes "(i, j, …)  value", formatting numbers in num, which it
// returns for the next call.
func writeLine(b *bufio.Writer, num []byte, c *Content, idx []int64, x uint64) []byte {
	b.WriteByte('(')
	for k, i := range idx {
		if k > 0 {
			b.WriteString(", ")
		}
		num = strconv.AppendInt(num[:0], i, 10)
		b.Write(num)
	}
	b.WriteString(")  ")
	b.WriteString(strings.Trim(FormatValue(c.ValueType, x), `"`))
	b.WriteByte('\n')
	return num
}
