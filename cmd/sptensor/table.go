package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowsparse/arrowsparse/arrowext"
	"github.com/arrowsparse/arrowsparse/internal/sniff"
	"github.com/arrowsparse/arrowsparse/internal/tools/describe"
)

// containerName names the table containers for inspect and pack.
var containerName = map[sniff.Kind]string{
	sniff.ArrowFile:   "ipc-file",
	sniff.ArrowStream: "ipc-stream",
	sniff.Parquet:     "parquet",
}

// readTable reads a table from an input that holds one (an Arrow IPC file
// or stream, or a Parquet file: k). A regular file is read into memory
// once and the IPC file reader reads it without copying; a stream is read
// whole. The table must be released by the caller.
func readTable(in *input, k sniff.Kind) (arrow.Table, error) {
	var data []byte
	var err error
	if in.br != nil {
		data, err = io.ReadAll(in.br)
	} else {
		data, err = os.ReadFile(in.path)
	}
	if err != nil {
		return nil, err
	}
	var tbl arrow.Table
	switch k {
	case sniff.ArrowFile:
		tbl, err = arrowext.ReadIPCFileBytes(data, arrowext.WithAllocator(alloc))
	case sniff.ArrowStream:
		tbl, err = arrowext.ReadIPCStream(bytes.NewReader(data), arrowext.WithAllocator(alloc))
	case sniff.Parquet:
		tbl, err = arrowext.ReadParquet(bytes.NewReader(data), arrowext.WithAllocator(alloc))
	default:
		return nil, fmt.Errorf("%s is not a table file", in.name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.name, err)
	}
	return tbl, nil
}

// tensorColumns returns the indices of the columns of a table that hold
// tensors of this package's extension types.
func tensorColumns(tbl arrow.Table) []int {
	var out []int
	for i, f := range tbl.Schema().Fields() {
		if ext, ok := f.Type.(arrow.ExtensionType); ok && arrowext.Implements(ext.ExtensionName()) {
			out = append(out, i)
		}
	}
	return out
}

// tableJSON returns the dump --json document of a table: its tensor
// columns, each with its rows.
func tableJSON(tbl arrow.Table) ([]byte, error) {
	var cols []describe.TableColumn
	defer func() {
		for _, c := range cols {
			for _, v := range c.Rows {
				if v != nil {
					v.Release()
				}
			}
		}
	}()
	for _, i := range tensorColumns(tbl) {
		f := tbl.Schema().Field(i)
		name := f.Type.(arrow.ExtensionType).ExtensionName()
		cols = append(cols, describe.TableColumn{Name: f.Name, Type: name})
		c := &cols[len(cols)-1]
		if arrowext.IsSparse(name) {
			claim := sparseClaim(f.Type)
			c.Sparse = []*describe.Content{}
			for _, ch := range tbl.Column(i).Data().Chunks() {
				for r := range ch.Len() {
					d, err := sparseRowContent(ch, r, claim)
					if err != nil {
						return nil, fmt.Errorf("column %q row %d: %w", f.Name, len(c.Sparse), err)
					}
					c.Sparse = append(c.Sparse, d)
				}
			}
			continue
		}
		for _, ch := range tbl.Column(i).Data().Chunks() {
			for r := range ch.Len() {
				v, err := arrowext.Row(ch, r)
				if err != nil {
					return nil, fmt.Errorf("column %q: %w", f.Name, err)
				}
				c.Rows = append(c.Rows, v)
			}
		}
	}
	return describe.TableJSON(cols)
}

// tableText returns the text dump of a table: each tensor column's rows in
// NumPy's layout.
func tableText(tbl arrow.Table) (string, error) {
	var b strings.Builder
	for _, i := range tensorColumns(tbl) {
		f := tbl.Schema().Field(i)
		fmt.Fprintf(&b, "column %s: %s, %d rows\n", describe.QuoteString(f.Name), f.Type, tbl.NumRows())
		row := 0
		if arrowext.IsSparse(f.Type.(arrow.ExtensionType).ExtensionName()) {
			claim := sparseClaim(f.Type)
			for _, ch := range tbl.Column(i).Data().Chunks() {
				for r := range ch.Len() {
					d, err := sparseRowContent(ch, r, claim)
					if err != nil {
						return "", fmt.Errorf("column %q row %d: %w", f.Name, row, err)
					}
					if d == nil {
						fmt.Fprintf(&b, "row %d: null\n", row)
					} else {
						fmt.Fprintf(&b, "row %d: %s", row, d.Text())
					}
					row++
				}
			}
			continue
		}
		for _, ch := range tbl.Column(i).Data().Chunks() {
			for r := range ch.Len() {
				v, err := arrowext.Row(ch, r)
				if err != nil {
					return "", fmt.Errorf("column %q: %w", f.Name, err)
				}
				if v == nil {
					fmt.Fprintf(&b, "row %d: null\n", row)
				} else {
					fmt.Fprintf(&b, "row %d: shape %v\n%s\n", row, v.Shape(), v.String())
					v.Release()
				}
				row++
			}
		}
	}
	return b.String(), nil
}

// tableSummary describes a table for inspect: the container, the number of
// rows, and each column's name and type, with the tensor types' parameters.
func tableSummary(tbl arrow.Table, c sniff.Kind, asJSON bool) string {
	var b strings.Builder
	if asJSON {
		fmt.Fprintf(&b, "{\n  \"container\": %s,\n  \"num_rows\": %d,\n  \"columns\": [", describe.QuoteString(containerName[c]), tbl.NumRows())
	} else {
		fmt.Fprintf(&b, "container: %s\nrows: %d\ncolumns: %d\n", containerName[c], tbl.NumRows(), tbl.NumCols())
	}
	for i, f := range tbl.Schema().Fields() {
		name, params := f.Type.String(), ""
		nulls := tbl.Column(i).Data().NullN()
		if ext, ok := f.Type.(arrow.ExtensionType); ok {
			name, params = ext.ExtensionName(), ext.Serialize()
		}
		if asJSON {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "\n    {\"name\": %s, \"type\": %s", describe.QuoteString(f.Name), describe.QuoteString(name))
			switch t := f.Type.(type) {
			case *arrowext.FixedShapeTensorType:
				fmt.Fprintf(&b, ", \"metadata\": %s, \"value_type\": %s, \"shape\": ", describe.QuoteString(params), describe.QuoteString(describe.TypeName(t.ValueType())))
				b.WriteString(describe.IntsJSON(t.LogicalShape()))
				b.WriteString(", \"dim_names\": ")
				b.WriteString(describe.NamesJSON(t.LogicalDimNames()))
			case *arrowext.VariableShapeTensorType:
				fmt.Fprintf(&b, ", \"metadata\": %s, \"value_type\": %s, \"ndim\": %d, \"dim_names\": ", describe.QuoteString(params), describe.QuoteString(describe.TypeName(t.ValueType())), t.NumDims())
				b.WriteString(describe.NamesJSON(t.LogicalDimNames()))
			case *arrowext.SparseTensorType:
				fmt.Fprintf(&b, ", \"metadata\": %s, \"format\": %s, \"value_type\": %s, \"index_type\": %s, \"ndim\": %d, \"shape\": ",
					describe.QuoteString(params), describe.QuoteString(t.Format().String()), describe.QuoteString(describe.TypeName(t.ValueType())),
					describe.QuoteString(describe.TypeName(t.IndexType())), t.NumDims())
				if fixed := t.FixedShape(); fixed != nil {
					b.WriteString(describe.IntsJSON(fixed))
				} else {
					b.WriteString(shapeJSON(t.Shape()))
				}
				b.WriteString(", \"dim_names\": ")
				b.WriteString(describe.NamesJSON(t.DimNames()))
				fmt.Fprintf(&b, ", \"canonical\": %v", t.CanonicalClaim())
			}
			fmt.Fprintf(&b, ", \"null_count\": %d}", nulls)
			continue
		}
		fmt.Fprintf(&b, "column %d: %s %s", i, describe.QuoteString(f.Name), name)
		if params != "" {
			fmt.Fprintf(&b, " %s", params)
		}
		fmt.Fprintf(&b, ", %d nulls\n", nulls)
	}
	if asJSON {
		b.WriteString("\n  ]\n}\n")
	}
	return b.String()
}

// sparseClaim returns the canonical claim of a sparse column's type (also
// of another implementation's, from its metadata).
func sparseClaim(dt arrow.DataType) bool {
	if t, ok := dt.(*arrowext.SparseTensorType); ok {
		return t.CanonicalClaim()
	}
	return false
}

// sparseRowContent describes row r of a sparse column chunk, or returns
// nil for a null row.
func sparseRowContent(ch arrow.Array, r int, claim bool) (*describe.Content, error) {
	x, err := arrowext.SparseRow(ch, r)
	if err != nil || x == nil {
		return nil, err
	}
	defer x.Release()
	return describe.Sparse(x, claim)
}

// shapeJSON writes a shape with null for the dimensions that vary.
func shapeJSON(shape []int64) string {
	parts := make([]string, len(shape))
	for i, d := range shape {
		if d == arrowext.VariableDim {
			parts[i] = "null"
		} else {
			parts[i] = strconv.FormatInt(d, 10)
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// openTable reads the table of an input that holds one, reporting its
// kind; for an input of another kind (a tensor message, say) it returns a
// nil table and no error. The table must be released by the caller.
func openTable(in *input) (arrow.Table, sniff.Kind, error) {
	k, err := in.Kind()
	if err != nil || !k.IsTable() {
		return nil, k, err
	}
	tbl, err := readTable(in, k)
	return tbl, k, err
}

// dumpTable prints the content of a table input and reports true, or
// reports false for an input of another kind.
func dumpTable(in *input, asJSON bool, s *streams) (bool, error) {
	tbl, _, err := openTable(in)
	if err != nil || tbl == nil {
		return err != nil, err
	}
	defer tbl.Release()
	if asJSON {
		b, err := tableJSON(tbl)
		if err != nil {
			return true, err
		}
		_, err = s.stdout.Write(b)
		return true, err
	}
	text, err := tableText(tbl)
	if err != nil {
		return true, err
	}
	_, err = io.WriteString(s.stdout, text)
	return true, err
}

// inspectTable prints the summary of a table input and reports true, or
// reports false for an input of another kind.
func inspectTable(in *input, asJSON bool, s *streams) (bool, error) {
	tbl, k, err := openTable(in)
	if err != nil || tbl == nil {
		return err != nil, err
	}
	defer tbl.Release()
	_, err = io.WriteString(s.stdout, tableSummary(tbl, k, asJSON))
	return true, err
}
