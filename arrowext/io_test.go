package arrowext_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse/arrowext"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
	"github.com/arrowsparse/arrowsparse/views"
)

// testTable returns a table of a fixed-shape column (3-cycle permutation,
// names, a null row), a variable-shape column (permutation, uniform shape,
// a null row) and an int64 column, in two record batches.
func testTable(t testing.TB, mem memory.Allocator) arrow.Table {
	t.Helper()
	r := rand.New(rand.NewPCG(21, 22))
	ftyp, err := arrowext.NewFixedShapeTensorType(arrow.PrimitiveTypes.Float32, []int64{2, 3, 4}, []string{"a", "b", "c"}, []int{1, 2, 0})
	require.NoError(t, err)
	vtyp, err := arrowext.NewVariableShapeTensorType(arrow.PrimitiveTypes.Int16, 2, []string{"x", "y"}, []int{1, 0}, []int64{arrowext.VariableDim, 3})
	require.NoError(t, err)
	tableMD := arrow.NewMetadata([]string{"table"}, []string{"yes"})
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "fixed", Type: ftyp, Nullable: true, Metadata: arrow.NewMetadata([]string{"note"}, []string{"kept"})},
		{Name: "variable", Type: vtyp, Nullable: true},
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	}, &tableMD)
	var recs []arrow.RecordBatch
	id := int64(0)
	for batch, n := range []int{3, 2} {
		fb, err := arrowext.NewFixedShapeTensorBuilder(mem, ftyp)
		require.NoError(t, err)
		vb, err := arrowext.NewVariableShapeTensorBuilder(mem, vtyp)
		require.NoError(t, err)
		ib := array.NewInt64Builder(mem)
		for i := range n {
			if batch == 0 && i == 1 {
				require.NoError(t, fb.AppendNull())
				require.NoError(t, vb.AppendNull())
			} else {
				fv := randomView(t, r, mem, ftyp.ValueType(), ftyp.LogicalShape())
				require.NoError(t, fb.Append(fv))
				fv.Release()
				vv := randomView(t, r, mem, vtyp.ValueType(), []int64{3, int64(i + batch)})
				require.NoError(t, vb.Append(vv))
				vv.Release()
			}
			ib.Append(id)
			id++
		}
		fc, vc, ic := fb.NewArray(), vb.NewArray(), ib.NewArray()
		recs = append(recs, array.NewRecordBatch(schema, []arrow.Array{fc, vc, ic}, int64(n)))
		fc.Release()
		vc.Release()
		ic.Release()
		fb.Release()
		vb.Release()
		ib.Release()
	}
	tbl := array.NewTableFromRecords(schema, recs)
	for _, rec := range recs {
		rec.Release()
	}
	return tbl
}

// rowsOf returns every row of every tensor column of a table as bytes in
// logical order, with its shape and names; nil for a null row.
func rowsOf(t testing.TB, mem memory.Allocator, tbl arrow.Table) []string {
	t.Helper()
	var out []string
	for c := range int(tbl.NumCols()) {
		for _, ch := range tbl.Column(c).Data().Chunks() {
			if !arrowext.Implements(extName(ch.DataType())) {
				for i := range ch.Len() {
					out = append(out, ch.ValueStr(i))
				}
				continue
			}
			for i := range ch.Len() {
				v, err := arrowext.Row(ch, i)
				require.NoError(t, err)
				if v == nil {
					out = append(out, "null")
					continue
				}
				out = append(out, fmt.Sprintf("%v %v %x", v.Shape(), v.DimNames(), viewBytes(t, mem, v)))
				v.Release()
			}
		}
	}
	return out
}

func extName(dt arrow.DataType) string {
	if e, ok := dt.(arrow.ExtensionType); ok {
		return e.ExtensionName()
	}
	return ""
}

// containers lists the round trips through each container.
var containers = []struct {
	name  string
	write func(*bytes.Buffer, arrow.Table, ...arrowext.WriteOption) error
	read  func([]byte, memory.Allocator) (arrow.Table, error)
}{
	{"ipc-file", func(b *bytes.Buffer, tbl arrow.Table, o ...arrowext.WriteOption) error {
		return arrowext.WriteIPCFile(b, tbl, o...)
	},
		func(b []byte, mem memory.Allocator) (arrow.Table, error) {
			return arrowext.ReadIPCFile(bytes.NewReader(b), arrowext.WithAllocator(mem))
		}},
	{"ipc-file-bytes", func(b *bytes.Buffer, tbl arrow.Table, o ...arrowext.WriteOption) error {
		return arrowext.WriteIPCFile(b, tbl, o...)
	},
		func(b []byte, mem memory.Allocator) (arrow.Table, error) {
			return arrowext.ReadIPCFileBytes(b, arrowext.WithAllocator(mem))
		}},
	{"ipc-stream", func(b *bytes.Buffer, tbl arrow.Table, o ...arrowext.WriteOption) error {
		return arrowext.WriteIPCStream(b, tbl, o...)
	},
		func(b []byte, mem memory.Allocator) (arrow.Table, error) {
			return arrowext.ReadIPCStream(bytes.NewReader(b), arrowext.WithAllocator(mem))
		}},
	{"parquet", func(b *bytes.Buffer, tbl arrow.Table, o ...arrowext.WriteOption) error {
		return arrowext.WriteParquet(b, tbl, o...)
	},
		func(b []byte, mem memory.Allocator) (arrow.Table, error) {
			return arrowext.ReadParquet(bytes.NewReader(b), arrowext.WithAllocator(mem))
		}},
}

// TestContainersRoundTrip writes a table to each container and reads it
// back, with the types registered and not, and with compression: the
// columns come back as this package's types with the same rows, and the
// field and schema metadata are kept.
func TestContainersRoundTrip(t *testing.T) {
	for _, registered := range []bool{false, true} {
		for _, c := range containers {
			for _, comp := range []arrowext.Compression{arrowext.Uncompressed, arrowext.Zstd, arrowext.LZ4} {
				t.Run(fmt.Sprintf("%s/registered=%v/compression=%d", c.name, registered, comp), func(t *testing.T) {
					if registered {
						require.NoError(t, arrowext.Register())
						t.Cleanup(arrowext.Unregister)
					}
					mem := testutil.Checked(t)
					tbl := testTable(t, mem)
					defer tbl.Release()
					var buf bytes.Buffer
					require.NoError(t, c.write(&buf, tbl, arrowext.WithAllocator(mem), arrowext.WithCompression(comp)))
					got, err := c.read(buf.Bytes(), mem)
					require.NoError(t, err)
					defer got.Release()
					assert.Equal(t, tbl.NumRows(), got.NumRows())
					for i := range int(tbl.NumCols()) {
						want, have := tbl.Schema().Field(i), got.Schema().Field(i)
						assert.Equal(t, want.Name, have.Name)
						assert.Truef(t, arrow.TypeEqual(want.Type, have.Type), "%s != %s", want.Type, have.Type)
						assert.Equal(t, reflect.TypeOf(tbl.Column(i).Data().Chunk(0)), reflect.TypeOf(got.Column(i).Data().Chunk(0)))
						for _, k := range want.Metadata.Keys() {
							assert.Contains(t, have.Metadata.Keys(), k)
						}
						assert.Negative(t, have.Metadata.FindKey(arrowext.ExtensionNameKey))
					}
					assert.Contains(t, got.Schema().Metadata().Keys(), "table")
					assert.Equal(t, rowsOf(t, mem, tbl), rowsOf(t, mem, got))
				})
			}
		}
	}
}

// TestReadersWithoutRewrap shows what arrow-go alone gives: with the types
// not registered, the IPC reader returns the storage type with the two
// extension keys, which Rewrap turns into the extension column.
func TestReadersWithoutRewrap(t *testing.T) {
	mem := testutil.Checked(t)
	tbl := testTable(t, mem)
	defer tbl.Release()
	var buf bytes.Buffer
	require.NoError(t, arrowext.WriteIPCStream(&buf, tbl))

	rdr, err := ipc.NewReader(&buf, ipc.WithAllocator(mem))
	require.NoError(t, err)
	defer rdr.Release()
	require.True(t, rdr.Next())
	rec := rdr.RecordBatch()
	f := rec.Schema().Field(0)
	assert.IsType(t, (*arrow.FixedSizeListType)(nil), f.Type)
	assert.ElementsMatch(t, []string{"note", arrowext.ExtensionNameKey, arrowext.ExtensionMetadataKey}, f.Metadata.Keys())
	name, _ := f.Metadata.GetValue(arrowext.ExtensionNameKey)
	assert.Equal(t, arrowext.FixedShapeTensorName, name)
	md, _ := f.Metadata.GetValue(arrowext.ExtensionMetadataKey)
	assert.Equal(t, `{"shape":[2,3,4],"permutation":[1,2,0],"dim_names":["a","b","c"]}`, md)

	wrapped, err := arrowext.RewrapRecordBatch(rec)
	require.NoError(t, err)
	defer wrapped.Release()
	assert.IsType(t, (*arrowext.FixedShapeTensorArray)(nil), wrapped.Column(0))
	assert.IsType(t, (*arrowext.VariableShapeTensorArray)(nil), wrapped.Column(1))
	assert.Equal(t, []string{"note"}, wrapped.Schema().Field(0).Metadata.Keys())

	// A batch with nothing to re-wrap comes back as it is.
	again, err := arrowext.RewrapRecordBatch(wrapped)
	require.NoError(t, err)
	assert.Same(t, wrapped, again)
	again.Release()

	// Malformed metadata is an error naming the column.
	bad := arrow.Field{Name: "broken", Type: f.Type, Metadata: arrow.NewMetadata(
		[]string{arrowext.ExtensionNameKey, arrowext.ExtensionMetadataKey}, []string{arrowext.FixedShapeTensorName, `{"shape":[5]}`})}
	_, _, err = arrowext.Rewrap(bad, rec.Column(0))
	assert.ErrorIs(t, err, arrow.ErrInvalid)
	assert.ErrorContains(t, err, `column "broken"`)
}

// TestPqarrowAlone pins what arrow-go's pqarrow does with this package's
// files by itself (the reason ReadParquet re-wraps): unregistered, the
// columns come back as storage with the extension keys.
func TestPqarrowAlone(t *testing.T) {
	mem := testutil.Checked(t)
	tbl := testTable(t, mem)
	defer tbl.Release()
	var buf bytes.Buffer
	require.NoError(t, arrowext.WriteParquet(&buf, tbl))
	pf, err := file.NewParquetReader(bytes.NewReader(buf.Bytes()))
	require.NoError(t, err)
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, mem)
	require.NoError(t, err)
	got, err := fr.ReadTable(t.Context())
	require.NoError(t, err)
	defer got.Release()
	for i := range 2 {
		f := got.Schema().Field(i)
		assert.NotEqual(t, arrow.EXTENSION, f.Type.ID())
		assert.GreaterOrEqual(t, f.Metadata.FindKey(arrowext.ExtensionNameKey), 0, f.Name)
	}
	assert.IsType(t, (*arrow.FixedSizeListType)(nil), got.Schema().Field(0).Type)

	wrapped, err := arrowext.RewrapTable(got)
	require.NoError(t, err)
	defer wrapped.Release()
	assert.Equal(t, rowsOf(t, mem, tbl), rowsOf(t, mem, wrapped))
}

// TestEmptyTable writes and reads tables without rows.
func TestEmptyTable(t *testing.T) {
	mem := testutil.Checked(t)
	ftyp := mustFixed(t, arrow.PrimitiveTypes.Float64, []int64{2, 2}, nil, []int{1, 0})
	schema := arrow.NewSchema([]arrow.Field{{Name: "t", Type: ftyp, Nullable: true}}, nil)
	for _, c := range containers {
		tbl := array.NewTableFromRecords(schema, nil)
		var buf bytes.Buffer
		require.NoError(t, c.write(&buf, tbl), c.name)
		got, err := c.read(buf.Bytes(), mem)
		require.NoError(t, err, c.name)
		assert.Equal(t, int64(0), got.NumRows())
		assert.Truef(t, arrow.TypeEqual(ftyp, got.Schema().Field(0).Type), "%s: %s", c.name, got.Schema().Field(0).Type)
		got.Release()
		tbl.Release()
	}
}

// TestCompressionErrors covers compressions a container does not have.
func TestCompressionErrors(t *testing.T) {
	mem := testutil.Checked(t)
	tbl := testTable(t, mem)
	defer tbl.Release()
	var buf bytes.Buffer
	assert.ErrorIs(t, arrowext.WriteIPCFile(&buf, tbl, arrowext.WithCompression(arrowext.Snappy)), arrow.ErrType)
	assert.ErrorIs(t, arrowext.WriteIPCStream(&buf, tbl, arrowext.WithCompression(arrowext.Snappy)), arrow.ErrType)
	assert.ErrorIs(t, arrowext.WriteParquet(&buf, tbl, arrowext.WithCompression(99)), arrow.ErrType)
	buf.Reset()
	require.NoError(t, arrowext.WriteParquet(&buf, tbl, arrowext.WithCompression(arrowext.Snappy), arrowext.WithRowGroupLength(2)))
	got, err := arrowext.ReadParquet(bytes.NewReader(buf.Bytes()), arrowext.WithAllocator(mem))
	require.NoError(t, err)
	defer got.Release()
	assert.Equal(t, rowsOf(t, mem, tbl), rowsOf(t, mem, got))
	pf, err := file.NewParquetReader(bytes.NewReader(buf.Bytes()))
	require.NoError(t, err)
	defer pf.Close()
	assert.Equal(t, 3, pf.NumRowGroups())
}

// TestBatchLength cuts the IPC record batches.
func TestBatchLength(t *testing.T) {
	mem := testutil.Checked(t)
	tbl := testTable(t, mem)
	defer tbl.Release()
	var buf bytes.Buffer
	require.NoError(t, arrowext.WriteIPCFile(&buf, tbl, arrowext.WithBatchLength(1)))
	got, err := arrowext.ReadIPCFileBytes(buf.Bytes(), arrowext.WithAllocator(mem))
	require.NoError(t, err)
	defer got.Release()
	assert.Len(t, got.Column(0).Data().Chunks(), 5)
	assert.Equal(t, rowsOf(t, mem, tbl), rowsOf(t, mem, got))
}

// TestReadErrors feeds readers bad bytes: errors wrapping arrow.ErrInvalid,
// no panic.
func TestReadErrors(t *testing.T) {
	mem := testutil.Checked(t)
	tbl := testTable(t, mem)
	defer tbl.Release()
	for _, c := range containers {
		var buf bytes.Buffer
		require.NoError(t, c.write(&buf, tbl))
		good := buf.Bytes()
		for _, bad := range [][]byte{nil, []byte("PAR1"), []byte("ARROW1\x00\x00"), good[:len(good)/2], good[len(good)/2:]} {
			got, err := c.read(bad, mem)
			if err == nil {
				got.Release() // a prefix of a stream can be a valid stream
				continue
			}
			assert.ErrorIs(t, err, arrow.ErrInvalid, "%s %q", c.name, bad[:min(len(bad), 8)])
		}
	}
}

// foreignType is another implementation of arrow.fixed_shape_tensor, as a
// later arrow-go might register: arrowext must accept its arrays.
type foreignType struct {
	arrow.ExtensionBase
	meta string
}

func (*foreignType) ArrayType() reflect.Type { return reflect.TypeOf(foreignArray{}) }
func (*foreignType) ExtensionName() string   { return arrowext.FixedShapeTensorName }
func (f *foreignType) Serialize() string     { return f.meta }
func (*foreignType) Deserialize(s arrow.DataType, m string) (arrow.ExtensionType, error) {
	return &foreignType{ExtensionBase: arrow.ExtensionBase{Storage: s}, meta: m}, nil
}
func (f *foreignType) ExtensionEquals(o arrow.ExtensionType) bool {
	g, ok := o.(*foreignType)
	return ok && g.meta == f.meta && arrow.TypeEqual(f.Storage, g.Storage)
}

type foreignArray struct{ array.ExtensionArrayBase }

// TestNameTakenByAnotherImplementation registers another implementation of
// arrow.fixed_shape_tensor first: Register does not panic, says so, still
// registers the variable-shape type; arrow-go's reader then gives the other
// implementation's arrays, which this package's functions still read.
func TestNameTakenByAnotherImplementation(t *testing.T) {
	mem := testutil.Checked(t)
	foreign := &foreignType{ExtensionBase: arrow.ExtensionBase{Storage: arrow.FixedSizeListOf(1, arrow.PrimitiveTypes.Int8)}}
	require.NoError(t, arrow.RegisterExtensionType(foreign))
	defer arrow.UnregisterExtensionType(arrowext.FixedShapeTensorName)

	err := arrowext.Register()
	require.Error(t, err)
	assert.ErrorIs(t, err, arrowext.ErrNameTaken)
	assert.ErrorContains(t, err, arrowext.FixedShapeTensorName)
	assert.Same(t, foreign, arrow.GetExtensionType(arrowext.FixedShapeTensorName))
	assert.IsType(t, (*arrowext.VariableShapeTensorType)(nil), arrow.GetExtensionType(arrowext.VariableShapeTensorName))
	// Registering again changes nothing and does not panic.
	assert.ErrorIs(t, arrowext.Register(), arrowext.ErrNameTaken)
	arrowext.Unregister()
	assert.Same(t, foreign, arrow.GetExtensionType(arrowext.FixedShapeTensorName))
	assert.Nil(t, arrow.GetExtensionType(arrowext.VariableShapeTensorName))

	tbl := testTable(t, mem)
	defer tbl.Release()
	var buf bytes.Buffer
	require.NoError(t, arrowext.WriteIPCFile(&buf, tbl))
	fr, err := ipc.NewFileReader(bytes.NewReader(buf.Bytes()), ipc.WithAllocator(mem))
	require.NoError(t, err)
	rec, err := fr.RecordBatchAt(0)
	require.NoError(t, err)
	defer rec.Release()
	require.NoError(t, fr.Close())
	require.IsType(t, (*foreignArray)(nil), rec.Column(0))

	// Row reads it through the metadata; Rewrap makes it arrowext's.
	v, err := arrowext.Row(rec.Column(0), 0)
	require.NoError(t, err)
	assert.Equal(t, []int64{3, 4, 2}, v.Shape())
	v.Release()
	wrapped, err := arrowext.RewrapRecordBatch(rec)
	require.NoError(t, err)
	defer wrapped.Release()
	assert.IsType(t, (*arrowext.FixedShapeTensorArray)(nil), wrapped.Column(0))

	// The readers give arrowext's columns.
	got, err := arrowext.ReadIPCFileBytes(buf.Bytes(), arrowext.WithAllocator(mem))
	require.NoError(t, err)
	defer got.Release()
	assert.IsType(t, (*arrowext.FixedShapeTensorArray)(nil), got.Column(0).Data().Chunk(0))
	assert.Equal(t, rowsOf(t, mem, tbl), rowsOf(t, mem, got))

	// views.FromArray cannot read the other implementation's layout.
	_, err = views.FromArray(rec.Column(0))
	assert.ErrorIs(t, err, arrow.ErrType)
}

// TestRegisterIdempotent registers twice: no error, and Unregister removes
// the types.
func TestRegisterIdempotent(t *testing.T) {
	require.NoError(t, arrowext.Register())
	require.NoError(t, arrowext.Register())
	assert.IsType(t, (*arrowext.FixedShapeTensorType)(nil), arrow.GetExtensionType(arrowext.FixedShapeTensorName))
	arrowext.Unregister()
	assert.Nil(t, arrow.GetExtensionType(arrowext.FixedShapeTensorName))
	assert.Nil(t, arrow.GetExtensionType(arrowext.VariableShapeTensorName))
	arrowext.Unregister() // nothing registered: nothing happens
}

// TestWrap covers Wrap's refusals.
func TestWrap(t *testing.T) {
	mem := testutil.Checked(t)
	ints, _, err := array.FromJSON(mem, arrow.PrimitiveTypes.Int32, stringsReader(`[1, 2]`))
	require.NoError(t, err)
	defer ints.Release()
	_, err = arrowext.Wrap("arrow.uuid", "", ints)
	assert.ErrorIs(t, err, arrow.ErrType)
	_, err = arrowext.Wrap(arrowext.FixedShapeTensorName, `{"shape":[1]}`, ints)
	assert.ErrorIs(t, err, arrow.ErrInvalid)
	assert.False(t, arrowext.Implements("arrow.uuid"))
	assert.True(t, arrowext.Implements(arrowext.VariableShapeTensorName))
}

// TestSlicedColumns writes slices of columns (offsets at every level) to
// each container: the rows read back are the slice's.
func TestSlicedColumns(t *testing.T) {
	mem := testutil.Checked(t)
	tbl := testTable(t, mem)
	defer tbl.Release()
	// Rows 1..4, across both record batches: every chunk has an offset.
	cols := make([]arrow.Column, tbl.NumCols())
	for i := range cols {
		ch := array.NewChunkedSlice(tbl.Column(i).Data(), 1, 4)
		cols[i] = *arrow.NewColumn(tbl.Schema().Field(i), ch)
		ch.Release()
		defer cols[i].Release()
	}
	sliced := array.NewTable(tbl.Schema(), cols, 3)
	defer sliced.Release()
	for _, c := range containers {
		var buf bytes.Buffer
		require.NoError(t, c.write(&buf, sliced), c.name)
		got, err := c.read(buf.Bytes(), mem)
		require.NoError(t, err, c.name)
		assert.Equal(t, rowsOf(t, mem, sliced), rowsOf(t, mem, got), c.name)
		got.Release()
	}
}

// TestWrapChecksLayout refuses storage whose buffers do not cover its
// length, as arrow-go's IPC reader builds from a lying file.
func TestWrapChecksLayout(t *testing.T) {
	mem := testutil.Checked(t)
	fsl := arrow.FixedSizeListOf(4, arrow.PrimitiveTypes.Int32)
	vals := testutil.BufferOf(mem, []int32{1, 2, 3, 4})
	defer vals.Release()
	child := array.NewData(arrow.PrimitiveTypes.Int32, 4, []*memory.Buffer{nil, vals}, nil, 0, 0)
	defer child.Release()
	for _, tc := range []struct {
		rows, nulls int
		child       arrow.ArrayData
	}{
		{10, 0, child}, // 10 rows of 4 values over 4 values
		{1, 3, child},  // nulls without a bitmap
	} {
		data := array.NewData(fsl, tc.rows, []*memory.Buffer{nil}, []arrow.ArrayData{tc.child}, tc.nulls, 0)
		storage := array.MakeFromData(data)
		_, err := arrowext.Wrap(arrowext.FixedShapeTensorName, `{"shape":[2,2]}`, storage)
		assert.ErrorIs(t, err, arrow.ErrInvalid)
		storage.Release()
		data.Release()
	}
	typ := mustVariable(t, arrow.PrimitiveTypes.Int32, 2, nil, nil, nil)
	st := typ.StorageType().(*arrow.StructType)
	ld := array.NewData(st.Field(0).Type, 5, []*memory.Buffer{nil, nil}, []arrow.ArrayData{child}, 0, 0) // no offsets
	defer ld.Release()
	sd := array.NewData(st.Field(1).Type, 5, []*memory.Buffer{nil}, []arrow.ArrayData{child}, 0, 0)
	defer sd.Release()
	data := array.NewData(st, 5, []*memory.Buffer{nil}, []arrow.ArrayData{ld, sd}, 0, 0)
	defer data.Release()
	storage := array.MakeFromData(data)
	defer storage.Release()
	_, err := arrowext.Wrap(arrowext.VariableShapeTensorName, `{}`, storage)
	assert.ErrorIs(t, err, arrow.ErrInvalid)
}
