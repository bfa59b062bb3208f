package arrowext

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/views"
)

// The keys under which Arrow stores an extension type in a field's
// metadata when the field carries the storage type (IPC schemas, the
// Arrow schema stored in Parquet files, the C Data Interface).
const (
	ExtensionNameKey     = ipc.ExtensionTypeKeyName     // "ARROW:extension:name"
	ExtensionMetadataKey = ipc.ExtensionMetadataKeyName // "ARROW:extension:metadata"
)

// deserializers maps the extension names this package implements to the
// functions that read their metadata over a storage type.
var deserializers = map[string]func(storage arrow.DataType, metadata string) (arrow.ExtensionType, error){
	FixedShapeTensorName: func(s arrow.DataType, m string) (arrow.ExtensionType, error) {
		return parseFixedShape(s, m)
	},
	VariableShapeTensorName: func(s arrow.DataType, m string) (arrow.ExtensionType, error) {
		return parseVariableShape(s, m)
	},
	SparseCOOName: sparseDeserializer(arrowsparse.FormatCOO),
	SparseCSRName: sparseDeserializer(arrowsparse.FormatCSR),
	SparseCSCName: sparseDeserializer(arrowsparse.FormatCSC),
	SparseCSFName: sparseDeserializer(arrowsparse.FormatCSF),
	SparseGCSName: sparseDeserializer(arrowsparse.FormatGCS),
}

func sparseDeserializer(f arrowsparse.Format) func(arrow.DataType, string) (arrow.ExtensionType, error) {
	return func(s arrow.DataType, m string) (arrow.ExtensionType, error) { return parseSparseType(f, s, m) }
}

// Implements reports whether this package implements the extension type
// of that name.
func Implements(name string) bool {
	_, ok := deserializers[name]
	return ok
}

// Wrap returns storage as an array of the extension type that name and
// metadata describe, sharing storage's buffers. The name must be one this
// package implements (see Implements), and the metadata must be valid for
// it over storage's type, as Deserialize checks, and storage's buffers must
// cover its length (validity bitmaps, list values, offsets, shapes): a
// check in O(1) that bounds the rows by the buffers' size. Otherwise Wrap
// returns an error wrapping arrow.ErrInvalid. The returned array must be released by
// the caller; storage may be released independently.
func Wrap(name, metadata string, storage arrow.Array) (arrow.Array, error) {
	des, ok := deserializers[name]
	if !ok {
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "arrowext does not implement the extension type %q", name)
	}
	if storage == nil {
		return nil, core.Errorf(arrowsparse.ErrStructure, "%s: nil storage array", name)
	}
	typ, err := des(storage.DataType(), metadata)
	if err != nil {
		return nil, err
	}
	out := array.NewExtensionArrayWithStorage(typ, storage)
	if err := checkLayout(out); err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// Rewrap returns a column as this package's extension array when its field
// says it holds one of this package's types and its array does not have
// this package's Go type yet:
//
//   - a storage column whose field metadata holds ARROW:extension:name and
//     ARROW:extension:metadata, as arrow-go's IPC reader, pqarrow and cdata
//     give a column whose extension type is not registered, becomes the
//     extension array, and the two keys leave the field's metadata;
//   - a column of another implementation of the same extension name (a
//     later arrow-go, say) is wrapped again from its storage, its name and
//     its Serialize().
//
// Other columns are returned as they are. Only top-level columns are
// considered, not the children of nested types. The extension types'
// registration plays no part. Metadata that does not describe a valid type
// over the storage is an error wrapping arrow.ErrInvalid whose message
// names the column. The returned array shares col's buffers and must be
// released by the caller.
func Rewrap(field arrow.Field, col arrow.Array) (arrow.Field, arrow.Array, error) {
	name, md, storage, ok := wrappable(field, col)
	if !ok {
		col.Retain()
		return field, col, nil
	}
	out, err := Wrap(name, md, storage)
	if err != nil {
		return field, nil, core.Errorf(arrowsparse.ErrStructure, "column %q: %w", field.Name, err)
	}
	field.Type = out.DataType()
	field.Metadata = withoutExtensionKeys(field.Metadata)
	return field, out, nil
}

// wrappable reports whether Rewrap changes a column, and with what.
func wrappable(field arrow.Field, col arrow.Array) (name, metadata string, storage arrow.Array, ok bool) {
	if ext, isExt := col.DataType().(arrow.ExtensionType); isExt {
		if ours(ext) || !Implements(ext.ExtensionName()) {
			return "", "", nil, false
		}
		return ext.ExtensionName(), ext.Serialize(), col.(array.ExtensionArray).Storage(), true
	}
	i := field.Metadata.FindKey(ExtensionNameKey)
	if i < 0 || !Implements(field.Metadata.Values()[i]) {
		return "", "", nil, false
	}
	name = field.Metadata.Values()[i]
	if j := field.Metadata.FindKey(ExtensionMetadataKey); j >= 0 {
		metadata = field.Metadata.Values()[j]
	}
	return name, metadata, col, true
}

// withoutExtensionKeys returns md without the two extension keys.
func withoutExtensionKeys(md arrow.Metadata) arrow.Metadata {
	var keys, vals []string
	for i, k := range md.Keys() {
		if k != ExtensionNameKey && k != ExtensionMetadataKey {
			keys = append(keys, k)
			vals = append(vals, md.Values()[i])
		}
	}
	if len(keys) == 0 {
		return arrow.Metadata{}
	}
	return arrow.NewMetadata(keys, vals)
}

// RewrapRecordBatch applies Rewrap to every column of a record batch. The
// returned batch shares rec's buffers and must be released by the caller;
// when no column changes, it is rec, retained.
func RewrapRecordBatch(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	schema := rec.Schema()
	changed := false
	for i := range int(rec.NumCols()) {
		if _, _, _, ok := wrappable(schema.Field(i), rec.Column(i)); ok {
			changed = true
		}
	}
	if !changed {
		rec.Retain()
		return rec, nil
	}
	fields := make([]arrow.Field, rec.NumCols())
	cols := make([]arrow.Array, rec.NumCols())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i := range cols {
		f, c, err := Rewrap(schema.Field(i), rec.Column(i))
		if err != nil {
			return nil, err
		}
		fields[i], cols[i] = f, c
	}
	md := schema.Metadata()
	return array.NewRecordBatch(arrow.NewSchema(fields, &md), cols, rec.NumRows()), nil
}

// RewrapTable applies Rewrap to every chunk of every column of a table.
// The returned table shares tbl's buffers and must be released by the
// caller; when no column changes, it is tbl, retained.
func RewrapTable(tbl arrow.Table) (arrow.Table, error) {
	schema := tbl.Schema()
	n := int(tbl.NumCols())
	fields := make([]arrow.Field, n)
	cols := make([]arrow.Column, 0, n)
	defer func() {
		for i := range cols {
			cols[i].Release()
		}
	}()
	changed := false
	for i := range n {
		f, chunked, err := rewrapChunked(schema.Field(i), tbl.Column(i).Data())
		if err != nil {
			return nil, err
		}
		changed = changed || chunked != tbl.Column(i).Data()
		fields[i] = f
		cols = append(cols, *arrow.NewColumn(f, chunked))
		chunked.Release()
	}
	if !changed {
		tbl.Retain()
		return tbl, nil
	}
	md := schema.Metadata()
	return array.NewTable(arrow.NewSchema(fields, &md), cols, tbl.NumRows()), nil
}

// rewrapChunked applies Rewrap to every chunk; it returns c, retained, when
// no chunk changes.
func rewrapChunked(field arrow.Field, c *arrow.Chunked) (arrow.Field, *arrow.Chunked, error) {
	changed := false
	for _, ch := range c.Chunks() {
		if _, _, _, ok := wrappable(field, ch); ok {
			changed = true
		}
	}
	if !changed {
		if len(c.Chunks()) == 0 && field.Metadata.FindKey(ExtensionNameKey) >= 0 {
			// No chunk to wrap: the type comes from the metadata alone.
			if f, ok, err := rewrapEmpty(field); err != nil || ok {
				if err != nil {
					return field, nil, err
				}
				return f, arrow.NewChunked(f.Type, nil), nil
			}
		}
		c.Retain()
		return field, c, nil
	}
	out := field
	chunks := make([]arrow.Array, 0, len(c.Chunks()))
	defer func() {
		for _, ch := range chunks {
			ch.Release()
		}
	}()
	for _, ch := range c.Chunks() {
		f, w, err := Rewrap(field, ch)
		if err != nil {
			return field, nil, err
		}
		out = f
		chunks = append(chunks, w)
	}
	return out, arrow.NewChunked(out.Type, chunks), nil
}

// rewrapEmpty gives a field of a column without chunks its extension type.
func rewrapEmpty(field arrow.Field) (arrow.Field, bool, error) {
	i := field.Metadata.FindKey(ExtensionNameKey)
	name := field.Metadata.Values()[i]
	des, ok := deserializers[name]
	if !ok {
		return field, false, nil
	}
	md := ""
	if j := field.Metadata.FindKey(ExtensionMetadataKey); j >= 0 {
		md = field.Metadata.Values()[j]
	}
	typ, err := des(field.Type, md)
	if err != nil {
		return field, false, core.Errorf(arrowsparse.ErrStructure, "column %q: %w", field.Name, err)
	}
	field.Type = typ
	field.Metadata = withoutExtensionKeys(field.Metadata)
	return field, true, nil
}

// Row returns row i of a tensor column of this package's types (or of
// another implementation of their names, see Rewrap) as a read-only view
// of the logical tensor, with no copy, or a nil view and a nil error for a
// null row. See FixedShapeTensorArray.Row and VariableShapeTensorArray.Row.
// A column of another type is an error wrapping arrow.ErrType. The returned
// view must be released by the caller.
func Row(col arrow.Array, i int) (*views.View, error) {
	switch a := col.(type) {
	case *FixedShapeTensorArray:
		return a.Row(i)
	case *VariableShapeTensorArray:
		return a.Row(i)
	}
	if ext, ok := col.DataType().(arrow.ExtensionType); ok && !ours(ext) && Implements(ext.ExtensionName()) {
		w, err := Wrap(ext.ExtensionName(), ext.Serialize(), col.(array.ExtensionArray).Storage())
		if err != nil {
			return nil, err
		}
		defer w.Release()
		return Row(w, i)
	}
	if ext, ok := col.DataType().(arrow.ExtensionType); ok && IsSparse(ext.ExtensionName()) {
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "arrowext: a column of %s holds sparse tensors; read its rows with SparseRow", ext.ExtensionName())
	}
	return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "arrowext: a column of %s is not a tensor column", col.DataType())
}

// SparseRow returns row i of a sparse tensor column (of this package's
// sparse types, or of another implementation of their names, see Rewrap)
// as a sparse tensor of the type's format sharing the column's buffers,
// or a nil tensor and a nil error for a null row; see
// SparseTensorArray.Row. A column of another type is an error wrapping
// arrow.ErrType. The returned tensor must be released by the caller.
func SparseRow(col arrow.Array, i int, opts ...RowOption) (arrowsparse.Tensor, error) {
	if a, ok := col.(*SparseTensorArray); ok {
		return a.Row(i, opts...)
	}
	if ext, ok := col.DataType().(arrow.ExtensionType); ok && !ours(ext) && IsSparse(ext.ExtensionName()) {
		w, err := Wrap(ext.ExtensionName(), ext.Serialize(), col.(array.ExtensionArray).Storage())
		if err != nil {
			return nil, err
		}
		defer w.Release()
		return SparseRow(w, i, opts...)
	}
	return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "arrowext: a column of %s is not a sparse tensor column", col.DataType())
}

// IsSparse reports whether name is the extension name of one of the
// sparse tensor types (arrowsparse.coo, .csr, .csc, .csf, .gcs).
func IsSparse(name string) bool {
	for _, f := range sparseFormats {
		if sparseName(f) == name {
			return true
		}
	}
	return false
}
