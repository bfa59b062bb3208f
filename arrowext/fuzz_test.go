package arrowext_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse/arrowext"
	"github.com/arrowsparse/arrowsparse/internal/testing/layouts"
)

// metadataSeeds are real metadata: what Arrow C++ 25.0.1 writes (through
// pyarrow) and what this package writes, plus the cases of the Deserialize
// tests.
var fixedSeeds = []string{
	`{"shape":[2,3,5],"permutation":[1,2,0],"dim_names":["a","b","c"]}`,
	`{"shape":[2,3]}`,
	`{"shape":[2,3],"permutation":[0,1]}`,
	`{"shape":[2,3],"dim_names":["",""]}`,
	`{"shape":[2,3],"dim_names":["\u0001\u001F` + "\x7f" + `\b\f\n\r","ÿ"]}`,
	`{"shape":[5,2,3],"permutation":[1,2,0]}`,
	`{"shape":[0,5]}`,
	`{"shape":[]}`,
	`{"shape":[2,3],"shape":[3,2]}`,
	`{"shape":[2.0,3]}`,
	`{"shape":[9223372036854775807,2]}`,
	`{"shape":[2147483648]}`,
	`{"shape":[3,2],"permutation":null}`,
	`{"shape":[2,3]} x`,
	``,
}

var variableSeeds = []string{
	`{}`,
	`{"permutation":[1,0],"dim_names":["x","y"],"uniform_shape":[null,3]}`,
	`{"uniform_shape":[null,3],"dim_names":["x","y"],"permutation":[1,0]}`,
	`{"permutation":[2,0,1]}`,
	`{"uniform_shape":[1.5,null]}`,
	`{"uniform_shape":[-1,null]}`,
	`{"dim_names":null}`,
	`{"permutation":[1,0],"extra":{"a":[1,[2]]}}`,
	``,
	`[]`,
}

// FuzzFixedShapeMetadata parses metadata over a FixedSizeList of a fuzzed
// size: never a panic; what it accepts serialises to what it parses again
// into an equal type, whose shape fills the lists.
func FuzzFixedShapeMetadata(f *testing.F) {
	for _, s := range fixedSeeds {
		f.Add(s, uint16(6))
		f.Add(s, uint16(30))
	}
	proto := mustFixed(&testing.T{}, arrow.PrimitiveTypes.Float32, []int64{1}, nil, nil)
	f.Fuzz(func(t *testing.T, data string, size uint16) {
		if size == 0 {
			size = 1
		}
		storage := arrow.FixedSizeListOf(int32(size), arrow.PrimitiveTypes.Int16)
		got, err := proto.Deserialize(storage, data)
		if err != nil {
			require.ErrorIs(t, err, arrow.ErrInvalid)
			return
		}
		typ := got.(*arrowext.FixedShapeTensorType)
		assert.Equal(t, int64(size), typ.ListSize())
		back, err := proto.Deserialize(storage, typ.Serialize())
		require.NoError(t, err, typ.Serialize())
		assert.True(t, arrow.TypeEqual(typ, back))
		assert.Equal(t, typ.Serialize(), back.Serialize())
		assert.Len(t, typ.LogicalShape(), typ.NumDims())
	})
}

// FuzzVariableShapeMetadata does the same for the variable-shape type.
func FuzzVariableShapeMetadata(f *testing.F) {
	for _, s := range variableSeeds {
		f.Add(s, uint8(2))
		f.Add(s, uint8(3))
	}
	proto := mustVariable(&testing.T{}, arrow.PrimitiveTypes.Float32, 1, nil, nil, nil)
	f.Fuzz(func(t *testing.T, data string, ndim uint8) {
		if ndim == 0 {
			ndim = 1
		}
		storage := variableStorage(arrow.PrimitiveTypes.Float64, int32(ndim))
		got, err := proto.Deserialize(storage, data)
		if err != nil {
			require.ErrorIs(t, err, arrow.ErrInvalid)
			return
		}
		back, err := proto.Deserialize(storage, got.Serialize())
		require.NoError(t, err, got.Serialize())
		assert.True(t, arrow.TypeEqual(got, back))
		assert.Equal(t, got.Serialize(), back.Serialize())
	})
}

// FuzzVariableShapeRows builds a variable-shape column over fuzzed offsets,
// shapes, validity and values, and reads every row: an error or a view,
// never a panic, and a view's elements can all be read.
func FuzzVariableShapeRows(f *testing.F) {
	f.Add(`{"permutation":[1,0]}`, []byte{0, 0, 0, 0, 6, 0, 0, 0, 6, 0, 0, 0}, []byte{2, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0}, []byte{0xff}, uint8(2))
	f.Add(`{"uniform_shape":[null,3]}`, []byte{0, 0, 0, 0, 3, 0, 0, 0, 9, 0, 0, 0}, []byte{1, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0}, []byte{0x01}, uint8(2))
	f.Add(`{}`, []byte{0, 0, 0, 0, 0xff, 0xff, 0xff, 0x7f}, []byte{0xff, 0xff, 0xff, 0x7f}, []byte{}, uint8(1))
	f.Fuzz(func(t *testing.T, md string, offsets, shapes, valid []byte, ndim uint8) {
		if ndim == 0 || ndim > 6 {
			ndim = 1 + ndim%6
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		typ, err := arrowext.NewVariableShapeTensorType(arrow.PrimitiveTypes.Int8, int(ndim), nil, nil, nil)
		require.NoError(t, err)
		parsed, err := typ.Deserialize(typ.StorageType(), md)
		if err != nil {
			return
		}
		st := typ.StorageType().(*arrow.StructType)
		n := max(len(offsets)/4-1, 0)
		values := memory.NewBufferBytes(make([]byte, 64))
		vd := array.NewData(arrow.PrimitiveTypes.Int8, 64, []*memory.Buffer{nil, values}, nil, 0, 0)
		defer vd.Release()
		ld := array.NewData(st.Field(0).Type, n, []*memory.Buffer{nil, memory.NewBufferBytes(offsets)}, []arrow.ArrayData{vd}, 0, 0)
		defer ld.Release()
		dd := array.NewData(arrow.PrimitiveTypes.Int32, len(shapes)/4, []*memory.Buffer{nil, memory.NewBufferBytes(shapes)}, nil, 0, 0)
		defer dd.Release()
		sd := array.NewData(st.Field(1).Type, n, []*memory.Buffer{nil}, []arrow.ArrayData{dd}, 0, 0)
		defer sd.Release()
		nulls := 0
		var bitmap *memory.Buffer
		if len(valid) > 0 {
			bitmap = memory.NewBufferBytes(valid)
			nulls = array.UnknownNullCount
		}
		data := array.NewData(parsed, n, []*memory.Buffer{bitmap}, []arrow.ArrayData{ld, sd}, nulls, 0)
		defer data.Release()
		col := safeExtension(t, data)
		if col == nil {
			return
		}
		defer col.Release()
		for i := range n {
			v, err := col.Row(i)
			if err != nil {
				require.ErrorIs(t, err, arrow.ErrInvalid)
				continue
			}
			if v != nil {
				_ = viewBytes(t, mem, v)
				v.Release()
			}
		}
	})
}

// safeExtension makes the extension array of data, or nil when arrow-go
// itself panics on its inconsistent buffers while building it (the
// storage's null count, say): that is arrow-go's constructor, not the
// reading this test fuzzes.
func safeExtension(t *testing.T, data arrow.ArrayData) (col *arrowext.VariableShapeTensorArray) {
	defer func() {
		if recover() != nil {
			col = nil
		}
	}()
	return array.NewExtensionData(data).(*arrowext.VariableShapeTensorArray)
}

// FuzzReadTable reads fuzzed bytes as an IPC file, an IPC stream and a
// Parquet file, then every row of every tensor column: an error or a table,
// never a panic. Seeds are the golden tables pyarrow wrote and tables this
// package wrote.
func FuzzReadTable(f *testing.F) {
	files, _ := filepath.Glob("testdata/pyarrow/*")
	for _, p := range files {
		if ext := filepath.Ext(p); ext != ".json" && ext != ".md" {
			data, err := os.ReadFile(p)
			if err == nil {
				f.Add(data)
			}
		}
	}
	mem := memory.NewGoAllocator()
	nested, cols := layouts.Table(mem)
	for _, tbl := range []arrow.Table{testTable(f, mem), nested} {
		for _, c := range containers {
			var buf bytes.Buffer
			if c.write(&buf, tbl) == nil {
				f.Add(buf.Bytes())
			}
		}
		tbl.Release()
	}
	for _, c := range cols {
		c.Release()
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Every byte is given back, on error paths too.
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		for _, c := range containers {
			got, err := c.read(data, mem)
			if err != nil {
				require.ErrorIs(t, err, arrow.ErrInvalid, c.name)
				continue
			}
			for col := range int(got.NumCols()) {
				for _, ch := range got.Column(col).Data().Chunks() {
					if !arrowext.Implements(extName(ch.DataType())) {
						// Whatever was accepted can be read, slot by
						// slot (the first and last slots of columns
						// longer than the input has bits: null columns
						// need no bytes).
						for i := 0; i < ch.Len(); i++ {
							if i == 1024 && ch.Len() > 8*len(data)+2048 {
								i = ch.Len() - 1024
							}
							_ = ch.ValueStr(i)
						}
						continue
					}
					for i := range ch.Len() {
						v, err := arrowext.Row(ch, i)
						if err != nil {
							if !errors.Is(err, arrow.ErrType) {
								require.ErrorIs(t, err, arrow.ErrInvalid)
							}
							break
						}
						if v != nil {
							_ = viewBytes(t, mem, v)
							v.Release()
						}
					}
				}
			}
			got.Release()
		}
	})
}
