package coo

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/coords"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// TableMetadataKey is the schema metadata key under which ToRecord keeps
// what a table cannot say by itself: the shape, the dim names and which
// columns hold what. Its value is a JSON object:
//
//	{"shape": [10, 10], "dim_names": ["row", "col"] | null,
//	 "dim_columns": ["row", "col"], "value_column": "value"}
//
// FromRecord reads it back, so that a tensor round-trips through a table
// (and through IPC files and Parquet files that keep the schema metadata)
// with its shape and names.
const TableMetadataKey = "arrowsparse.coo_table"

// tableMeta is the JSON of TableMetadataKey.
type tableMeta struct {
	Shape       []int64  `json:"shape"`
	DimNames    []string `json:"dim_names"`
	DimColumns  []string `json:"dim_columns"`
	ValueColumn string   `json:"value_column"`
}

// RecordOptions say how FromRecord reads a table. The zero value reads
// what ToRecord wrote: the columns, shape and names recorded under
// TableMetadataKey, or, for a table without that metadata, a column named
// "value" and every other column as a dimension, in order.
type RecordOptions struct {
	// DimColumns names the coordinate columns, in dimension order; they
	// become the dimension names unless the metadata gives others.
	DimColumns []string
	// ValueColumn names the value column.
	ValueColumn string
	// Shape gives the size of each dimension. Without it, the shape is the
	// one recorded in the metadata, or else the largest coordinate of each
	// column plus one.
	Shape []int64
	// IndexType is the type of the coordinates; nil means the narrowest
	// signed type that holds every coordinate of the shape.
	IndexType arrow.DataType
}

// FromRecord builds a tensor from a record batch in table form: one integer
// column per dimension and one value column, one row per entry (the
// "user, movie, rating" table), as ToRecord writes it. Coordinates are
// stored column-major (one contiguous run per dimension) in buffers from
// mem. Columns may have any integer type, the value column any tensor value
// type. Nulls, negative coordinates and coordinates outside the shape are
// errors that name the column and row; a missing column is an error that
// lists the columns the table has. The result must be released by the
// caller.
func FromRecord(mem memory.Allocator, rec arrow.RecordBatch, o RecordOptions) (*Tensor, error) {
	p, err := planTable(rec.Schema(), o)
	if err != nil {
		return nil, err
	}
	dimCols, valueCol, names, shape := p.dimCols, p.valueCol, p.names, p.shape
	valArr, err := p.column(rec, p.valueIdx, valueCol)
	if err != nil {
		return nil, err
	}
	vt := p.valueType
	nnz := int64(rec.NumRows())
	nd := len(dimCols)
	cols := make([][]int64, nd)
	for k, name := range dimCols {
		arr, err := p.column(rec, p.dimIdx[k], name)
		if err != nil {
			return nil, err
		}
		if cols[k], err = int64Column(arr, name, 0); err != nil {
			return nil, err
		}
	}
	if shape == nil {
		shape = make([]int64, nd)
		for k, c := range cols {
			for _, v := range c {
				shape[k] = max(shape[k], v+1)
			}
		}
	}
	if err := core.CheckShape(shape); err != nil {
		return nil, err
	}
	for k, c := range cols {
		for i, v := range c {
			if v >= shape[k] {
				return nil, core.Errorf(arrowsparse.ErrOutOfRange, "coo: row %d of column %q is %d, outside [0, %d)", i, dimCols[k], v, shape[k])
			}
		}
	}
	indexType := o.IndexType
	if indexType == nil {
		indexType = arrowsparse.SmallestIndexType(maxCoord(shape))
	}
	if err := core.CheckIndexType(indexType); err != nil {
		return nil, err
	}
	for k, c := range cols {
		for i, v := range c {
			if v > arrowsparse.IndexMax(indexType) {
				return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "coo: row %d of column %q is %d, which index type %s cannot hold", i, dimCols[k], v, indexType)
			}
		}
	}
	iop := coords.For(indexType)
	cb := core.NewBuffer(mem, nnz*int64(nd)*int64(arrowsparse.ByteWidth(indexType)))
	for k, c := range cols {
		iop.Put(cb.Bytes(), int64(k)*nnz, c)
	}
	vw := int64(arrowsparse.ByteWidth(vt))
	vb := core.NewBuffer(mem, nnz*vw)
	if nnz > 0 {
		off := int64(valArr.Data().Offset())
		copy(vb.Bytes(), valArr.Data().Buffers()[1].Bytes()[off*vw:(off+nnz)*vw])
	}
	cfg := config{names: names}
	t, err := adopt(vt, indexType, shape, cb, ColMajor, vb, nnz, &cfg)
	if err != nil {
		cb.Release()
		vb.Release()
		return nil, err
	}
	return t, nil
}

// tablePlan is what a table's schema and the RecordOptions say about its
// columns: which hold the coordinates (dimIdx, in dimension order) and which
// the values, the dim names, and the shape if known.
type tablePlan struct {
	dimCols   []string
	dimIdx    []int
	valueCol  string
	valueIdx  int
	valueType arrow.DataType
	names     []string
	shape     []int64
}

// planTable resolves the columns of a table with schema s under o, as
// FromRecord documents.
func planTable(s *arrow.Schema, o RecordOptions) (*tablePlan, error) {
	meta, err := readTableMeta(s)
	if err != nil {
		return nil, err
	}
	p := &tablePlan{dimCols: o.DimColumns, valueCol: o.ValueColumn}
	namesFromMeta := false
	if meta != nil {
		if p.dimCols == nil {
			p.dimCols, p.names, namesFromMeta = meta.DimColumns, meta.DimNames, true
		}
		if p.valueCol == "" {
			p.valueCol = meta.ValueColumn
		}
	}
	if p.valueCol == "" {
		p.valueCol = "value"
	}
	if p.dimCols == nil {
		for _, f := range s.Fields() {
			if f.Name != p.valueCol {
				p.dimCols = append(p.dimCols, f.Name)
			}
		}
	}
	if p.names == nil && !namesFromMeta {
		p.names = p.dimCols
	}
	p.shape = o.Shape
	if p.shape == nil && meta != nil && len(meta.Shape) == len(p.dimCols) {
		p.shape = meta.Shape
	}
	if p.shape != nil && len(p.shape) != len(p.dimCols) {
		return nil, core.Errorf(arrowsparse.ErrShape, "coo: shape has %d dimensions but %d dimension columns are named", len(p.shape), len(p.dimCols))
	}
	if p.shape != nil {
		if err := core.CheckShape(p.shape); err != nil {
			return nil, err
		}
	}
	index := func(name string) (int, error) {
		idx := s.FieldIndices(name)
		if len(idx) == 1 {
			return idx[0], nil
		}
		if len(idx) > 1 {
			return 0, core.Errorf(arrowsparse.ErrShape, "coo: the table has %d columns named %q, want 1", len(idx), name)
		}
		have := make([]string, 0, s.NumFields())
		for _, f := range s.Fields() {
			have = append(have, strconv.Quote(f.Name))
		}
		return 0, core.Errorf(arrowsparse.ErrShape, "coo: the table has no column %q (its columns: %s)", name, strings.Join(have, ", "))
	}
	if p.valueIdx, err = index(p.valueCol); err != nil {
		return nil, err
	}
	p.valueType = s.Field(p.valueIdx).Type
	if err := core.CheckValueType(p.valueType); err != nil {
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "coo: value column %q: %w", p.valueCol, err)
	}
	p.dimIdx = make([]int, len(p.dimCols))
	for k, name := range p.dimCols {
		if p.dimIdx[k], err = index(name); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// column returns column i of rec, named name, refusing nulls.
func (p *tablePlan) column(rec arrow.RecordBatch, i int, name string) (arrow.Array, error) {
	col := rec.Column(i)
	if col.NullN() > 0 {
		return nil, core.Errorf(arrowsparse.ErrStructure, "coo: column %q has %d nulls; sparse entries cannot be null", name, col.NullN())
	}
	return col, nil
}

// readTableMeta returns the metadata ToRecord wrote, or nil if there is
// none.
func readTableMeta(s *arrow.Schema) (*tableMeta, error) {
	md := s.Metadata()
	i := md.FindKey(TableMetadataKey)
	if i < 0 {
		return nil, nil
	}
	var m tableMeta
	if err := json.Unmarshal([]byte(md.Values()[i]), &m); err != nil {
		return nil, core.Errorf(arrowsparse.ErrStructure, "coo: the table's %s metadata is not valid JSON: %v", TableMetadataKey, err)
	}
	if m.DimNames != nil && len(m.DimNames) != len(m.DimColumns) {
		return nil, core.Errorf(arrowsparse.ErrShape, "coo: the table's %s metadata has %d dim names for %d dimension columns", TableMetadataKey, len(m.DimNames), len(m.DimColumns))
	}
	return &m, nil
}

// int64Column reads an integer column into a new []int64, rejecting
// negative values and uint64 values above the int64 range.
func int64Column(arr arrow.Array, name string, base int64) ([]int64, error) {
	out := make([]int64, arr.Len())
	bad := -1
	switch a := arr.(type) {
	case *array.Int8:
		bad = convert(out, a.Int8Values())
	case *array.Int16:
		bad = convert(out, a.Int16Values())
	case *array.Int32:
		bad = convert(out, a.Int32Values())
	case *array.Int64:
		bad = convert(out, a.Int64Values())
	case *array.Uint8:
		bad = convert(out, a.Uint8Values())
	case *array.Uint16:
		bad = convert(out, a.Uint16Values())
	case *array.Uint32:
		bad = convert(out, a.Uint32Values())
	case *array.Uint64:
		bad = convert(out, a.Uint64Values())
	default:
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "coo: dimension column %q has type %s, want an integer type", name, arr.DataType())
	}
	if bad >= 0 {
		return nil, core.Errorf(arrowsparse.ErrOutOfRange, "coo: row %d of column %q is negative or beyond int64", base+int64(bad), name)
	}
	return out, nil
}

func convert[E int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64](dst []int64, src []E) int {
	for i, v := range src {
		x := int64(v)
		if x < 0 || E(x) != v {
			return i
		}
		dst[i] = x
	}
	return -1
}

// ToRecord returns the tensor in table form: one column per dimension,
// named after the dimension (or "dim0", "dim1", … without names, and made
// unique when names repeat or one is "value"), holding
// the coordinates with the index type, and a column "value". Entries keep
// their storage order. The schema metadata keeps the shape and the dim
// names under TableMetadataKey, for FromRecord. For a column-major tensor
// the columns are slices of the tensor's buffers (no copy); otherwise the
// coordinates are transposed into a buffer from mem first. The record must
// be released by the caller.
func (t *Tensor) ToRecord(mem memory.Allocator) (arrow.RecordBatch, error) {
	ct := t
	if t.layout != ColMajor && t.nnz > 1 && len(t.shape) > 1 {
		var err error
		if ct, err = t.WithLayout(mem, ColMajor); err != nil {
			return nil, err
		}
		defer ct.Release()
	}
	nd := len(t.shape)
	fields := make([]arrow.Field, nd+1)
	cols := make([]arrow.Array, nd+1)
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	iw := int64(arrowsparse.ByteWidth(t.indexType))
	vw := int64(arrowsparse.ByteWidth(t.valueType))
	used := map[string]bool{"value": true}
	for k := range nd {
		name := fmt.Sprintf("dim%d", k)
		if t.names != nil && t.names[k] != "" {
			name = t.names[k]
		}
		for i := 1; used[name]; i++ { // column names must be unique
			name = fmt.Sprintf("dim%d_%d", k, i)
		}
		used[name] = true
		fields[k] = arrow.Field{Name: name, Type: t.indexType}
		cols[k] = sliceArray(t.indexType, ct.coords, int64(k)*t.nnz*iw, t.nnz*iw, t.nnz)
	}
	fields[nd] = arrow.Field{Name: "value", Type: t.valueType}
	cols[nd] = sliceArray(t.valueType, t.values, 0, t.nnz*vw, t.nnz)
	meta := tableMeta{Shape: t.shape, DimNames: t.names, DimColumns: make([]string, nd), ValueColumn: "value"}
	for k := range nd {
		meta.DimColumns[k] = fields[k].Name
	}
	js, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	md := arrow.NewMetadata([]string{TableMetadataKey}, []string{string(js)})
	schema := arrow.NewSchema(fields, &md)
	return array.NewRecordBatch(schema, cols, t.nnz), nil
}

// sliceArray returns a primitive array of n elements over buf[off:off+size].
func sliceArray(dt arrow.DataType, buf *memory.Buffer, off, size, n int64) arrow.Array {
	var data *memory.Buffer
	if size > 0 {
		data = memory.SliceBuffer(buf, int(off), int(size))
		defer data.Release()
	}
	d := array.NewData(dt, int(n), []*memory.Buffer{nil, data}, nil, 0, 0)
	defer d.Release()
	return array.MakeFromData(d)
}
