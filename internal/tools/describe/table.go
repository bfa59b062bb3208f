package describe

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/arrowsparse/arrowsparse/views"
)

// TableColumn is one tensor column of a table, for TableJSON: its name,
// its extension type's name, and its rows as views of the logical tensors
// (nil for a null row), or, for a sparse column, as descriptions (Sparse,
// nil for a null row).
type TableColumn struct {
	Name, Type string
	Rows       []*views.View
	Sparse     []*Content
}

// TableJSON returns the document that `sptensor dump --json` prints for a
// table file:
//
//	{"columns": [{"name": …, "type": …, "rows": [ROW | null, …]}, …]}
//
// where each ROW is a dense tensor in the interop schema: kind, format
// ("TENSOR"), value_type, shape, dim_names (null when none or all empty)
// and dense_values in row-major order of the view, written as
// Content.JSON writes values; a sparse row is its Content's document. One
// row per line.
func TableJSON(cols []TableColumn) ([]byte, error) {
	var b strings.Builder
	b.WriteString("{\"columns\": [")
	for k, c := range cols {
		if k > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n  {\"name\": ")
		b.WriteString(QuoteString(c.Name))
		b.WriteString(", \"type\": ")
		b.WriteString(QuoteString(c.Type))
		b.WriteString(", \"rows\": [")
		for r, v := range c.Rows {
			if r > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n    ")
			if err := rowJSON(&b, v); err != nil {
				return nil, err
			}
		}
		for r, x := range c.Sparse {
			if r > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n    ")
			if x == nil {
				b.WriteString("null")
				continue
			}
			var one bytes.Buffer
			if err := json.Compact(&one, x.JSON()); err != nil {
				return nil, err
			}
			b.Write(one.Bytes())
		}
		if len(c.Rows)+len(c.Sparse) > 0 {
			b.WriteString("\n  ")
		}
		b.WriteString("]}")
	}
	b.WriteString("\n]}\n")
	return []byte(b.String()), nil
}

// rowJSON writes one row: a dense tensor in the interop schema, or null.
func rowJSON(b *strings.Builder, v *views.View) error {
	if v == nil {
		b.WriteString("null")
		return nil
	}
	dt := v.DataType()
	b.WriteString(`{"kind": "dense", "format": "TENSOR", "value_type": `)
	b.WriteString(QuoteString(TypeName(dt)))
	b.WriteString(`, "shape": `)
	b.WriteString(IntsJSON(v.Shape()))
	b.WriteString(`, "dim_names": `)
	b.WriteString(NamesJSON(v.DimNames()))
	b.WriteString(`, "dense_values": [`)
	bits, err := valueBits(nil, nil, v)
	if err != nil {
		return err
	}
	for i, x := range bits {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(FormatValue(dt, x))
	}
	b.WriteString("]}")
	return nil
}

// IntsJSON writes integers as a JSON list: [1, 2, 3].
func IntsJSON(xs []int64) string { return intList(xs) }

// NamesJSON writes dim names as a JSON list, or null when there are none
// or all are empty.
func NamesJSON(names []string) string { return namesJSON(names) }
