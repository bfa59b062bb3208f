package arrowext

import (
	"context"
	"encoding/base64"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// arrowSchemaKey is the key of the Arrow schema that Arrow writers store in
// a Parquet file's key-value metadata (base64 of an IPC schema message).
const arrowSchemaKey = "ARROW:schema"

// WriteParquet writes a table as a Parquet file from which Arrow C++,
// pyarrow and ReadParquet restore its extension types.
//
// arrow-go's pqarrow cannot write extension types whose storage is nested,
// as both tensor types' is, nor FixedSizeList columns with null rows. So
// each extension column is written as its storage, its FixedSizeLists as
// the Lists that Parquet stores them as anyway, and the Arrow schema stored
// in the file (ARROW:schema) gives each such field its storage type with
// ARROW:extension:name and ARROW:extension:metadata in the field metadata,
// which makes it an extension field for every Arrow reader. The Parquet
// data is what Arrow C++ writes for the same column. The values are written
// from the column's buffers, except that the rows under nulls are left out
// (a copy of the others, only for columns with null rows). LargeList
// fields (of the sparse types) are written and stored as Lists, so they
// read back as Lists: a Parquet list column here holds at most 2^31-1
// values. Columns of other types are written as pqarrow writes them.
//
// Dictionary encoding is off (tensor values seldom repeat); row groups hold
// WithRowGroupLength rows; data pages hold about 128 KiB, compressed as
// WithCompression says.
// Like the IPC writers, WriteParquet does not close w.
func WriteParquet(w io.Writer, tbl arrow.Table, opts ...WriteOption) error {
	c := newWriteConfig(opts)
	var codec compress.Compression
	switch c.compression {
	case Uncompressed:
		codec = compress.Codecs.Uncompressed
	case LZ4:
		codec = compress.Codecs.Lz4Raw
	case Zstd:
		codec = compress.Codecs.Zstd
	case Snappy:
		codec = compress.Codecs.Snappy
	default:
		return core.Errorf(arrowsparse.ErrUnsupportedType, "arrowext: unknown compression %d", c.compression)
	}
	stored, data, err := parquetTables(c.mem, tbl)
	if err != nil {
		return err
	}
	defer stored.Release()
	defer data.Release()
	props := parquet.NewWriterProperties(
		parquet.WithAllocator(c.mem),
		parquet.WithDictionaryDefault(false),
		parquet.WithCompression(codec),
		parquet.WithMaxRowGroupLength(c.rowGroupLen),
		parquet.WithDataPageSize(dataPageSize),
	)
	aprops := pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(c.mem))
	// Hide w's Close, if it has one: arrow-go's Parquet writer closes its
	// sink, and the caller owns w.
	fw, err := pqarrow.NewFileWriter(data.Schema(), struct{ io.Writer }{w}, props, aprops)
	if err != nil {
		return writeError("writing a Parquet file", err)
	}
	sf := stored.Schema().Fields()
	for i := range sf {
		sf[i].Type = smallLists(sf[i].Type)
	}
	smd := stored.Schema().Metadata()
	schema := flight.SerializeSchema(arrow.NewSchema(sf, &smd), c.mem)
	if err := fw.AppendKeyValueMetadata(arrowSchemaKey, base64.StdEncoding.EncodeToString(schema)); err != nil {
		fw.Close()
		return writeError("writing a Parquet file", err)
	}
	// Row group by row group, column by column, straight to w; each
	// column's part of a row group goes to pqarrow as chunks of about
	// sliceValues leaf values. pqarrow computes the levels of a column
	// chunk by chunk, and arrow-go's encoders zero the whole of their pooled
	// buffers at every page, so level buffers grown for a whole row group
	// made every page cost as much as the row group (a 10M-element tensor
	// column wrote 3 to 5 times slower in one piece); buffered row groups
	// instead cost a growing in-memory copy of every page (a 10M-entry
	// COO table wrote 2 to 3 times slower than this).
	rows, step := data.NumRows(), sliceRows(data)
	for off := int64(0); off < rows || off == 0; off += c.rowGroupLen {
		n := min(c.rowGroupLen, rows-off)
		if err := fw.NewRowGroupChecked(); err != nil {
			fw.Close()
			return writeError("writing a Parquet file", err)
		}
		for i := range int(data.NumCols()) {
			ch := sliceChunks(data.Column(i).Data(), off, n, step)
			err := fw.WriteColumnChunked(ch, 0, n)
			ch.Release()
			if err != nil {
				fw.Close()
				return writeError("writing a Parquet file", err)
			}
		}
		if rows == 0 {
			break
		}
	}
	return writeError("writing a Parquet file", fw.Close())
}

// sliceChunks returns rows [off, off+n) of col as chunks of at most step
// rows each (slices, no copy).
func sliceChunks(col *arrow.Chunked, off, n, step int64) *arrow.Chunked {
	var parts []arrow.Array
	pos := int64(0) // the row of col where chunk ch begins
	for _, ch := range col.Chunks() {
		l := int64(ch.Len())
		lo, hi := max(off, pos), min(off+n, pos+l)
		for a := lo; a < hi; a += step {
			parts = append(parts, array.NewSlice(ch, a-pos, min(a+step, hi)-pos))
		}
		pos += l
	}
	out := arrow.NewChunked(col.DataType(), parts)
	for _, p := range parts {
		p.Release()
	}
	return out
}

// dataPageSize is the size WriteParquet aims its data pages at. arrow-go's
// encoders take their page buffers from a pool shared by every column and
// level stream, grow them by reallocating, and zero their whole capacity at
// every page: 1 MiB pages (its default, and Arrow C++'s) cost two to three
// times the bytes written in copies and memsets, and a column of 1M sparse
// vectors wrote 1.3× slower than with 128 KiB pages (the COO table 1.4×),
// with three times the garbage. Readers see more, smaller pages, which
// costs them nothing measurable.
const dataPageSize = 128 << 10

// sliceValues is the number of leaf values WriteParquet hands pqarrow at a
// time.
const sliceValues = 1 << 16

// sliceRows returns the number of rows of a table that hold about
// sliceValues leaf values in its widest column, at least 1.
func sliceRows(tbl arrow.Table) int64 {
	rows := tbl.NumRows()
	widest := rows
	for i := range int(tbl.NumCols()) {
		n := int64(0)
		for _, ch := range tbl.Column(i).Data().Chunks() {
			n += leafValues(ch.Data())
		}
		widest = max(widest, n)
	}
	if widest <= sliceValues || rows == 0 {
		return max(rows, 1)
	}
	return max(rows*sliceValues/widest, 1)
}

// leafValues is the number of values at the leaves of array data: its
// length for flat data, the largest of its children's otherwise.
func leafValues(d arrow.ArrayData) int64 {
	n := int64(d.Len())
	for _, c := range d.Children() {
		n = max(n, leafValues(c))
	}
	return n
}

// parquetTables returns the table to store the schema of (each extension
// column replaced by its storage, the extension's name and metadata in the
// field metadata) and the table to write (the same columns in the form
// pqarrow writes, see writable).
func parquetTables(mem memory.Allocator, tbl arrow.Table) (stored, data arrow.Table, err error) {
	schema := tbl.Schema()
	n := int(tbl.NumCols())
	sFields := make([]arrow.Field, n)
	dFields := make([]arrow.Field, n)
	sCols := make([]arrow.Column, 0, n)
	dCols := make([]arrow.Column, 0, n)
	defer func() {
		for i := range sCols {
			sCols[i].Release()
		}
		for i := range dCols {
			dCols[i].Release()
		}
	}()
	for i := range n {
		f := schema.Field(i)
		col := tbl.Column(i).Data()
		ext, isExt := f.Type.(arrow.ExtensionType)
		if !isExt {
			sFields[i], dFields[i] = f, f
			sCols = append(sCols, *arrow.NewColumn(f, col))
			dCols = append(dCols, *arrow.NewColumn(f, col))
			continue
		}
		storage := make([]arrow.Array, 0, len(col.Chunks()))
		conv := make([]arrow.Array, 0, len(col.Chunks()))
		release := func() {
			for _, a := range conv {
				a.Release()
			}
		}
		for _, ch := range col.Chunks() {
			st := ch.(array.ExtensionArray).Storage()
			w, err := writable(mem, st, nil)
			if err != nil {
				release()
				return nil, nil, core.Errorf(arrowsparse.ErrStructure, "column %q: %w", f.Name, err)
			}
			storage = append(storage, st)
			conv = append(conv, w)
		}
		sFields[i] = arrow.Field{Name: f.Name, Type: ext.StorageType(), Nullable: f.Nullable,
			Metadata: withExtensionKeys(f.Metadata, ext.ExtensionName(), ext.Serialize())}
		dFields[i] = arrow.Field{Name: f.Name, Type: writableType(ext.StorageType()), Nullable: f.Nullable}
		sc := arrow.NewChunked(sFields[i].Type, storage)
		dc := arrow.NewChunked(dFields[i].Type, conv)
		release()
		sCols = append(sCols, *arrow.NewColumn(sFields[i], sc))
		dCols = append(dCols, *arrow.NewColumn(dFields[i], dc))
		sc.Release()
		dc.Release()
	}
	md := schema.Metadata()
	stored = array.NewTable(arrow.NewSchema(sFields, &md), sCols, tbl.NumRows())
	data = array.NewTable(arrow.NewSchema(dFields, &md), dCols, tbl.NumRows())
	return stored, data, nil
}

// smallLists returns dt with its LargeLists as Lists: WriteParquet
// writes LargeList fields as Lists (a Parquet column here holds at most
// 2^31-1 values anyway), so a sparse column read back from Parquet has
// List fields. (arrow-go compares LargeList types with their element field
// names and metadata, which pqarrow does not keep, so a LargeList in the
// stored schema would fail its reader for registered types.)
func smallLists(dt arrow.DataType) arrow.DataType { return asLists(dt, false) }

// writableType is the type of writable's result for an array of type dt:
// LargeLists and FixedSizeLists become Lists of the same element field,
// throughout.
func writableType(dt arrow.DataType) arrow.DataType { return asLists(dt, true) }

// asLists returns dt with its LargeLists, and its FixedSizeLists if fixed,
// as Lists of the same element fields, at every depth.
func asLists(dt arrow.DataType, fixed bool) arrow.DataType {
	switch t := dt.(type) {
	case *arrow.LargeListType:
		return arrow.ListOfField(withType(t.ElemField(), asLists(t.Elem(), fixed)))
	case *arrow.ListType:
		return arrow.ListOfField(withType(t.ElemField(), asLists(t.Elem(), fixed)))
	case *arrow.FixedSizeListType:
		elem := withType(t.ElemField(), asLists(t.Elem(), fixed))
		if fixed {
			return arrow.ListOfField(elem)
		}
		return arrow.FixedSizeListOfField(t.Len(), elem)
	case *arrow.StructType:
		fields := make([]arrow.Field, t.NumFields())
		for i, f := range t.Fields() {
			fields[i] = withType(f, asLists(f.Type, fixed))
		}
		return arrow.StructOf(fields...)
	}
	return dt
}

func withType(f arrow.Field, dt arrow.DataType) arrow.Field {
	f.Type = dt
	return f
}

// writable returns arr in a form pqarrow writes: FixedSizeLists become
// Lists, and every list slot that is null, or under a null slot of an
// ancestor, is empty. Parquet cannot store values under a null slot
// anyway, so the file is the same; pqarrow refuses null slots with values.
// valid, when not nil, says which slots the ancestors leave valid. Lists
// whose null slots are empty keep their buffers; the values of valid slots
// are sliced, and concatenated (a copy) only when null slots break them
// into several runs. The result must be released by the caller.
func writable(mem memory.Allocator, arr arrow.Array, valid []bool) (arrow.Array, error) {
	switch a := arr.(type) {
	case *array.FixedSizeList:
		t := a.DataType().(*arrow.FixedSizeListType)
		size := int64(t.Len())
		return listWritable(mem, a, t.ElemField(), a.ListValues(), valid, func(i int) (int64, int64) {
			start := (int64(a.Offset()) + int64(i)) * size
			return start, start + size
		})
	case *array.List:
		t := a.DataType().(*arrow.ListType)
		offs := a.Offsets() // the whole buffer: slot i is at a.Offset()+i
		if effective(a, valid) == nil {
			return denseListWritable(mem, a, t.ElemField(), a.ListValues(), offs)
		}
		return listWritable(mem, a, t.ElemField(), a.ListValues(), valid, func(i int) (int64, int64) {
			j := a.Offset() + i
			if j+1 >= len(offs) {
				return -1, -1
			}
			return int64(offs[j]), int64(offs[j+1])
		})
	case *array.LargeList:
		t := a.DataType().(*arrow.LargeListType)
		offs := a.Offsets()
		if effective(a, valid) == nil {
			return denseListWritable(mem, a, t.ElemField(), a.ListValues(), offs)
		}
		return listWritable(mem, a, t.ElemField(), a.ListValues(), valid, func(i int) (int64, int64) {
			j := a.Offset() + i
			if j+1 >= len(offs) {
				return -1, -1
			}
			return offs[j], offs[j+1]
		})
	case *array.Struct:
		n := a.Len()
		eff := effective(a, valid)
		children := make([]arrow.ArrayData, a.NumField())
		defer func() {
			for _, c := range children {
				if c != nil {
					c.Release()
				}
			}
		}()
		for k := range children {
			w, err := writable(mem, a.Field(k), eff)
			if err != nil {
				return nil, err
			}
			children[k] = w.Data()
			children[k].Retain()
			w.Release()
		}
		var bitmap *memory.Buffer
		if a.NullN() > 0 {
			bitmap = validityOf(mem, a)
			defer bitmap.Release()
		}
		data := array.NewData(writableType(a.DataType()), n, []*memory.Buffer{bitmap}, children, a.NullN(), 0)
		defer data.Release()
		return array.MakeFromData(data), nil
	}
	arr.Retain()
	return arr, nil
}

// effective returns which slots of a are valid and under valid ancestors,
// or nil when all are.
func effective(a arrow.Array, valid []bool) []bool {
	if a.NullN() == 0 {
		return valid
	}
	eff := make([]bool, a.Len())
	for i := range eff {
		eff[i] = a.IsValid(i) && (valid == nil || valid[i])
	}
	return eff
}

// denseListWritable is listWritable for a list array without null slots
// (nor null ancestors), whose offsets buffer is offs: its slots span one
// run of child values, and the new offsets are the old ones less the first,
// in one pass.
func denseListWritable[O int32 | int64](mem memory.Allocator, a arrow.Array, elem arrow.Field, values arrow.Array, offs []O) (arrow.Array, error) {
	n, off := a.Len(), a.Data().Offset()
	if off+n >= len(offs) {
		return nil, core.Errorf(arrowsparse.ErrStructure, "a list array of %d slots has %d offsets", n, len(offs)-off)
	}
	o := offs[off : off+n+1]
	lo, hi := int64(o[0]), int64(o[n])
	if lo < 0 || hi < lo || hi > int64(values.Len()) {
		return nil, core.Errorf(arrowsparse.ErrStructure, "list slots span values %d..%d of %d", lo, hi, values.Len())
	}
	if hi-lo > 1<<31-1 {
		return nil, core.Errorf(arrowsparse.ErrShape, "a column of more than 2^31-1 values cannot be written as a Parquet list here")
	}
	offsets := memory.NewResizableBuffer(mem)
	defer offsets.Release()
	offsets.Resize((n + 1) * 4)
	dst := arrow.Int32Traits.CastFromBytes(offsets.Bytes())[:n+1]
	prev, base := o[0], o[0]
	for i, v := range o {
		if v < prev {
			return nil, core.Errorf(arrowsparse.ErrStructure, "list offsets decrease at slot %d", i-1)
		}
		dst[i] = int32(v - base)
		prev = v
	}
	child := array.NewSlice(values, lo, hi)
	defer child.Release()
	wchild, err := writable(mem, child, nil)
	if err != nil {
		return nil, err
	}
	defer wchild.Release()
	data := array.NewData(arrow.ListOfField(withType(elem, wchild.DataType())), n,
		[]*memory.Buffer{nil, offsets}, []arrow.ArrayData{wchild.Data()}, 0, 0)
	defer data.Release()
	return array.MakeFromData(data), nil
}

// listWritable builds the List form of a list-like array a whose slot i
// spans child values span(i) (negative when the offsets are too short),
// with the null (or ancestor-null) slots empty.
func listWritable(mem memory.Allocator, a arrow.Array, elem arrow.Field, values arrow.Array, valid []bool, span func(int) (int64, int64)) (arrow.Array, error) {
	n := a.Len()
	eff := effective(a, valid)
	if n == 0 {
		eff = nil
	}
	// Runs of child values to keep, and the new offsets.
	offsets := memory.NewResizableBuffer(mem)
	defer offsets.Release()
	offsets.Resize((n + 1) * 4)
	offs := arrow.Int32Traits.CastFromBytes(offsets.Bytes())
	var runs [][2]int64
	total := int64(0)
	for i := range n {
		offs[i] = int32(total)
		if eff != nil && !eff[i] {
			continue
		}
		lo, hi := span(i)
		if lo < 0 || hi < lo || hi > int64(values.Len()) {
			return nil, core.Errorf(arrowsparse.ErrStructure, "list slot %d spans values %d..%d of %d", i, lo, hi, values.Len())
		}
		if total+hi-lo > 1<<31-1 {
			return nil, core.Errorf(arrowsparse.ErrShape, "a column of more than 2^31-1 values cannot be written as a Parquet list here")
		}
		if k := len(runs) - 1; k >= 0 && runs[k][1] == lo {
			runs[k][1] = hi
		} else if hi > lo {
			runs = append(runs, [2]int64{lo, hi})
		}
		total += hi - lo
	}
	offs[n] = int32(total)
	var child arrow.Array
	switch len(runs) {
	case 0:
		child = array.NewSlice(values, 0, 0)
	case 1:
		child = array.NewSlice(values, runs[0][0], runs[0][1])
	default:
		parts := make([]arrow.Array, len(runs))
		for k, r := range runs {
			parts[k] = array.NewSlice(values, r[0], r[1])
		}
		var err error
		child, err = array.Concatenate(parts, mem)
		for _, p := range parts {
			p.Release()
		}
		if err != nil {
			return nil, err
		}
	}
	defer child.Release()
	wchild, err := writable(mem, child, nil)
	if err != nil {
		return nil, err
	}
	defer wchild.Release()
	var bitmap *memory.Buffer
	nulls := 0
	if eff != nil {
		bitmap = boolBitmap(mem, eff)
		defer bitmap.Release()
		for _, ok := range eff {
			if !ok {
				nulls++
			}
		}
	}
	data := array.NewData(arrow.ListOfField(withType(elem, wchild.DataType())), n,
		[]*memory.Buffer{bitmap, offsets}, []arrow.ArrayData{wchild.Data()}, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data), nil
}

// withExtensionKeys returns md with the two extension keys set, first.
func withExtensionKeys(md arrow.Metadata, name, metadata string) arrow.Metadata {
	keys := []string{ExtensionNameKey, ExtensionMetadataKey}
	vals := []string{name, metadata}
	rest := withoutExtensionKeys(md)
	keys = append(keys, rest.Keys()...)
	vals = append(vals, rest.Values()...)
	return arrow.NewMetadata(keys, vals)
}

// boolBitmap returns a validity bitmap from mem with bit i set when ok[i].
func boolBitmap(mem memory.Allocator, ok []bool) *memory.Buffer {
	b := memory.NewResizableBuffer(mem)
	b.Resize(int(bitutil.BytesForBits(int64(len(ok)))))
	clear(b.Bytes())
	for i, v := range ok {
		if v {
			bitutil.SetBit(b.Bytes(), i)
		}
	}
	return b
}

// validityOf returns a's own validity as a bitmap from offset 0.
func validityOf(mem memory.Allocator, a arrow.Array) *memory.Buffer {
	ok := make([]bool, a.Len())
	for i := range ok {
		ok[i] = a.IsValid(i)
	}
	return boolBitmap(mem, ok)
}

// ReadParquet reads a Parquet file into a table, restoring the extension
// types of this package from the Arrow schema stored in the file (by this
// package's WriteParquet or by Arrow C++/pyarrow), whether or not the types
// are registered: pqarrow restores a registered extension type only in
// some cases, and keeps an unregistered one as storage plus the two keys.
// Files without a stored schema are read as pqarrow reads them. The buffers
// come from the allocator of WithAllocator. The table must be released by
// the caller.
//
// A file whose columns are all flat and of a fixed-width type whose Parquet
// PLAIN encoding is its Arrow layout (int32, uint32, int64, uint64,
// float32, float64: the table of one big tensor), stored in PLAIN pages,
// is decoded by this package straight into the columns' buffers, one
// column chunk per task over all cores, and comes back with one chunk per
// row group, as pyarrow reads it. Other files are read by pqarrow, with one
// chunk per column.
func ReadParquet(r parquet.ReaderAtSeeker, opts ...ReadOption) (arrow.Table, error) {
	c := newReadConfig(opts)
	return safely(c, "reading a Parquet file", func() (arrow.Table, error) { return readParquet(r, c) })
}

func readParquet(r parquet.ReaderAtSeeker, c *readConfig) (arrow.Table, error) {
	// A buffered stream reads each page straight into the page buffer;
	// without it, arrow-go first copies every column chunk whole into a
	// fresh (zeroed) allocation.
	size, err := r.Seek(0, io.SeekEnd)
	if err == nil {
		_, err = r.Seek(0, io.SeekStart)
	}
	if err != nil {
		return nil, readError("reading a Parquet file", err)
	}
	props := parquet.NewReaderProperties(c.mem)
	props.BufferedStreamEnabled = true
	props.BufferSize = 1 << 20
	// A page may claim at most what the IPC readers let a compressed
	// buffer claim, relative to the whole file.
	props.MaxUncompressedPageSize = min(parquet.DefaultMaxUncompressedPageSize, maxDecompressionRatio*size+64<<10)
	pf, err := file.NewParquetReader(r, file.WithReadProps(props))
	if err != nil {
		return nil, readError("reading a Parquet file", err)
	}
	defer pf.Close()
	if err := checkRowCounts(pf, size); err != nil {
		return nil, err
	}
	// Not Parallel: pqarrow then reads a struct's children, and makes the
	// column readers, in goroutines of its own that do not recover, so a
	// panic on a malformed page (a dictionary page without its header,
	// say) would end the process. Serial, every read runs in this
	// goroutine or in the one worker whose panics pqarrow turns into
	// errors. (Flat numeric files, the large ones, take readFlat's
	// parallel path.)
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, c.mem)
	if err != nil {
		return nil, readError("reading a Parquet file", err)
	}
	if err := checkCodecs(pf); err != nil {
		return nil, err
	}
	tbl, ok := readFlat(r, pf, fr, c.mem)
	if !ok {
		if tbl, err = fr.ReadTable(context.Background()); err != nil {
			return nil, readError("reading a Parquet file", err)
		}
	}
	defer tbl.Release()
	origin := fr.Manifest.OriginSchema
	if origin == nil || origin.NumFields() != int(tbl.NumCols()) {
		return checkedTable(RewrapTable(tbl))
	}
	// Give each column the extension keys of its origin field, then
	// re-wrap.
	schema := tbl.Schema()
	fields := make([]arrow.Field, schema.NumFields())
	for i := range fields {
		f := schema.Field(i)
		of := origin.Field(i)
		name, md := "", ""
		if ext, ok := of.Type.(arrow.ExtensionType); ok {
			name, md = ext.ExtensionName(), ext.Serialize()
		} else if k := of.Metadata.FindKey(ExtensionNameKey); k >= 0 {
			name = of.Metadata.Values()[k]
			if j := of.Metadata.FindKey(ExtensionMetadataKey); j >= 0 {
				md = of.Metadata.Values()[j]
			}
		}
		if Implements(name) {
			if ext, ok := f.Type.(arrow.ExtensionType); ok && ours(ext) {
				fields[i] = f
				continue
			}
			f.Metadata = withExtensionKeys(f.Metadata, name, md)
		}
		fields[i] = f
	}
	cols := make([]arrow.Column, len(fields))
	for i := range cols {
		cols[i] = *arrow.NewColumn(fields[i], tbl.Column(i).Data())
	}
	defer func() {
		for i := range cols {
			cols[i].Release()
		}
	}()
	md := origin.Metadata() // pqarrow's ReadTable drops the schema's metadata
	keyed := array.NewTable(arrow.NewSchema(fields, &md), cols, tbl.NumRows())
	defer keyed.Release()
	return checkedTable(RewrapTable(keyed))
}

// checkRowCounts refuses row counts that a file of size bytes cannot
// hold: pqarrow sizes its builders by them before reading a page, so a
// tiny file claiming 2^40 rows would exhaust memory, which no recover
// catches. Runs and dictionaries let a byte stand for many rows, so the
// bound is generous: maxDecompressionRatio × 8 rows per byte of file, as
// if every byte were a bit-packed run as long as the IPC readers let a
// compressed buffer expand.
func checkRowCounts(pf *file.Reader, size int64) error {
	bound, ok := core.MulInt64(maxDecompressionRatio*8, size)
	if !ok {
		return nil
	}
	bound += 64 << 10
	if n := pf.NumRows(); n < 0 || n > bound {
		return core.Errorf(arrowsparse.ErrStructure, "reading a Parquet file: it claims %d rows, more than a %d-byte file can hold (at most %d)", n, size, bound)
	}
	md := pf.MetaData()
	var total int64
	for g := range pf.NumRowGroups() {
		n := md.RowGroup(g).NumRows()
		if n < 0 || n > bound-total {
			return core.Errorf(arrowsparse.ErrStructure, "reading a Parquet file: row group %d claims %d rows, more than a %d-byte file can hold (at most %d in all)", g, n, size, bound)
		}
		total += n
	}
	return nil
}

// checkCodecs returns an error when a column chunk names a compression
// codec that arrow-go cannot decode. (arrow-go's page reader finds out
// only after taking its buffers, and then does not give them back.)
func checkCodecs(pf *file.Reader) error {
	md := pf.MetaData()
	for g := range pf.NumRowGroups() {
		rg := md.RowGroup(g)
		for k := range rg.NumColumns() {
			cc, err := rg.ColumnChunk(k)
			if err != nil {
				return readError("reading a Parquet file", err)
			}
			if _, err := compress.GetCodec(cc.Compression()); err != nil {
				return core.Errorf(arrowsparse.ErrStructure, "reading a Parquet file: row group %d, column %d: compression %s is not supported", g, k, cc.Compression())
			}
		}
	}
	return nil
}
