package describe

import (
	"fmt"
	"strconv"
	"strings"
)

// Text returns the content for people: a header line, then one line per
// entry (sparse) or element (dense) with its coordinates and value.
func (c *Content) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s shape %s", c.Format, TypeName(c.ValueType), intList(c.Shape))
	if c.DimNames != nil {
		fmt.Fprintf(&b, " names %s", namesText(c.DimNames))
	}
	if c.Sparse() {
		fmt.Fprintf(&b, " index %s", TypeName(c.IndexType))
		if c.IndptrType != nil {
			fmt.Fprintf(&b, " indptr %s", TypeName(c.IndptrType))
		}
		fmt.Fprintf(&b, " nnz %d", c.NNZ)
		switch c.Format {
		case "CSF":
			fmt.Fprintf(&b, " axis order %s", intList(c.AxisOrder))
		case "GCS":
			fmt.Fprintf(&b, " dimensions %s partitioning %s", intList(c.Dimensions), intList(c.Partitioning))
		}
		b.WriteByte('\n')
		if c.Entries != nil {
			for i := range c.Entries.Len() {
				b.WriteString(coordText(c.Entries.At(i)))
				b.WriteString("  ")
				b.WriteString(valueText(c, c.Entries.Values[i]))
				b.WriteByte('\n')
			}
		}
		return b.String()
	}
	b.WriteByte('\n')
	idx := make([]int64, len(c.Shape))
	for _, x := range c.DenseValues {
		b.WriteString(coordText(idx))
		b.WriteString("  ")
		b.WriteString(valueText(c, x))
		b.WriteByte('\n')
		for k := len(idx) - 1; k >= 0; k-- {
			idx[k]++
			if idx[k] < c.Shape[k] {
				break
			}
			idx[k] = 0
		}
	}
	return b.String()
}

func coordText(xs []int64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatInt(x, 10)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func valueText(c *Content, x uint64) string {
	return strings.Trim(FormatValue(c.ValueType, x), `"`)
}
