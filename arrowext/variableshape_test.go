package arrowext_test

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/arrowext"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
)

func mustVariable(t *testing.T, vt arrow.DataType, ndim int, names []string, perm []int, uniform []int64) *arrowext.VariableShapeTensorType {
	t.Helper()
	typ, err := arrowext.NewVariableShapeTensorType(vt, ndim, names, perm, uniform)
	require.NoError(t, err)
	return typ
}

// variableStorage is the storage type Arrow C++ gives a variable-shape
// tensor type.
func variableStorage(vt arrow.DataType, ndim int32) *arrow.StructType {
	return arrow.StructOf(
		arrow.Field{Name: "data", Type: arrow.ListOf(vt), Nullable: true},
		arrow.Field{Name: "shape", Type: arrow.FixedSizeListOf(ndim, arrow.PrimitiveTypes.Int32), Nullable: true},
	)
}

func TestVariableShapeTensorTypeBasics(t *testing.T) {
	typ := mustVariable(t, arrow.PrimitiveTypes.Float32, 3, []string{"a", "b", "c"}, []int{1, 2, 0}, []int64{arrowext.VariableDim, 3, arrowext.VariableDim})

	assert.Equal(t, "arrow.variable_shape_tensor", typ.ExtensionName())
	assert.True(t, typ.ExtensionEquals(typ))
	assert.True(t, arrow.TypeEqual(variableStorage(arrow.PrimitiveTypes.Float32, 3), typ.StorageType()))
	assert.Equal(t, arrow.PrimitiveTypes.Float32, typ.ValueType())
	assert.Equal(t, 3, typ.NumDims())
	assert.Equal(t, []string{"a", "b", "c"}, typ.DimNames())
	assert.Equal(t, []string{"b", "c", "a"}, typ.LogicalDimNames())
	assert.Equal(t, []int{1, 2, 0}, typ.Permutation())
	assert.Equal(t, []int64{-1, 3, -1}, typ.UniformShape())
	// Arrow C++'s key order (permutation, dim_names, uniform_shape).
	assert.Equal(t, `{"permutation":[1,2,0],"dim_names":["a","b","c"],"uniform_shape":[null,3,null]}`, typ.Serialize())
	assert.Equal(t, "extension<arrow.variable_shape_tensor[value_type=float32, ndim=3, permutation=[1,2,0], dim_names=[a,b,c], uniform_shape=[null,3,null]]>", typ.String())

	// The specification allows an empty string for no parameters, Arrow C++
	// refuses it and writes {}.
	plain := mustVariable(t, arrow.PrimitiveTypes.Uint8, 2, nil, nil, nil)
	assert.Equal(t, `{}`, plain.Serialize())
	assert.Nil(t, plain.UniformShape())
	assert.Nil(t, plain.Permutation())
}

func TestVariableShapeTensorTypeInvalid(t *testing.T) {
	f32 := arrow.PrimitiveTypes.Float32
	for _, tc := range []struct {
		name    string
		vt      arrow.DataType
		ndim    int
		names   []string
		perm    []int
		uniform []int64
		cat     error
	}{
		{"no dimensions", f32, 0, nil, nil, nil, arrowsparse.ErrShape},
		{"negative ndim", f32, -1, nil, nil, nil, arrowsparse.ErrShape},
		{"names", f32, 2, []string{"a"}, nil, nil, arrowsparse.ErrShape},
		{"names not UTF-8", f32, 1, []string{"a\xc3"}, nil, nil, arrowsparse.ErrStructure},
		{"perm", f32, 2, nil, []int{1, 1}, nil, arrowsparse.ErrStructure},
		{"uniform length", f32, 2, nil, nil, []int64{3}, arrowsparse.ErrShape},
		{"uniform negative", f32, 2, nil, nil, []int64{-2, 3}, arrowsparse.ErrShape},
		{"value type not fixed-width", arrow.BinaryTypes.String, 2, nil, nil, nil, arrowsparse.ErrStructure},
		{"nil value type", nil, 2, nil, nil, nil, arrowsparse.ErrUnsupportedType},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := arrowext.NewVariableShapeTensorType(tc.vt, tc.ndim, tc.names, tc.perm, tc.uniform)
			require.Error(t, err)
			assert.ErrorIs(t, err, tc.cat)
		})
	}
}

func TestVariableShapeTensorTypeEquals(t *testing.T) {
	f32 := arrow.PrimitiveTypes.Float32
	base := mustVariable(t, f32, 2, nil, nil, nil)
	for _, tc := range []struct {
		a, b arrow.DataType
		want bool
	}{
		{base, base, true},
		{base, mustVariable(t, f32, 2, nil, nil, nil), true},
		{base, mustVariable(t, f32, 2, nil, []int{0, 1}, nil), true},
		{base, mustVariable(t, f32, 2, nil, []int{1, 0}, nil), false},
		{base, mustVariable(t, f32, 3, nil, nil, nil), false},
		{base, mustVariable(t, arrow.PrimitiveTypes.Int32, 2, nil, nil, nil), false},
		{base, mustVariable(t, f32, 2, []string{"a", "b"}, nil, nil), false},
		{base, mustVariable(t, f32, 2, nil, nil, []int64{-1, -1}), false},
		{mustVariable(t, f32, 2, nil, nil, []int64{-1, 4}), mustVariable(t, f32, 2, nil, nil, []int64{-1, 4}), true},
		{mustVariable(t, f32, 2, nil, nil, []int64{-1, 4}), mustVariable(t, f32, 2, nil, nil, []int64{4, -1}), false},
		{base, mustFixed(t, f32, []int64{2, 2}, nil, nil), false},
	} {
		assert.Equalf(t, tc.want, arrow.TypeEqual(tc.a, tc.b), "%s == %s", tc.a, tc.b)
	}
}

// TestVariableShapeTensorTypeDeserialize checks the parser against what
// Arrow C++ 25.0.1 accepts and refuses (each case was run through pyarrow
// 25.0.1's IPC schema reader).
func TestVariableShapeTensorTypeDeserialize(t *testing.T) {
	proto := mustVariable(t, arrow.PrimitiveTypes.Float32, 1, nil, nil, nil)
	st := variableStorage(arrow.PrimitiveTypes.Float32, 2)
	renamed := arrow.StructOf( // C++ does not check the field names
		arrow.Field{Name: "a", Type: arrow.ListOf(arrow.PrimitiveTypes.Float32), Nullable: true},
		arrow.Field{Name: "b", Type: arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int32), Nullable: true},
	)
	for _, tc := range []struct {
		data    string
		storage arrow.DataType
		want    string
	}{
		{`{}`, st, `{}`},
		{` { } `, st, `{}`},
		{`{"uniform_shape":[null,3]}`, st, `{"uniform_shape":[null,3]}`},
		{`{"uniform_shape":[null,3],"dim_names":["x","y"],"permutation":[1,0]}`, st, `{"permutation":[1,0],"dim_names":["x","y"],"uniform_shape":[null,3]}`},
		{`{"permutation":[1,0],"extra":1}`, st, `{"permutation":[1,0]}`},
		{`{"permutation":[1,0],"permutation":7}`, st, `{"permutation":[1,0]}`},
		{`{}`, renamed, `{}`},
		{`{}`, variableStorage(arrow.FixedWidthTypes.Boolean, 2), `{}`},

		{``, st, ""}, // the specification allows it; C++ does not
		{`[]`, st, ""},
		{`{"permutation":[0,0]}`, st, ""},
		{`{"permutation":[0]}`, st, ""},
		{`{"permutation":null}`, st, ""},
		{`{"dim_names":["a"]}`, st, ""},
		{`{"dim_names":null}`, st, ""},
		{`{"dim_names":[1,2]}`, st, ""},
		{`{"uniform_shape":[1.5,null]}`, st, ""},
		{`{"uniform_shape":[-1,null]}`, st, ""},
		{`{"uniform_shape":[1]}`, st, ""},
		{`{"uniform_shape":null}`, st, ""},
		{`{"uniform_shape":["1",2]}`, st, ""},
		{`{} {}`, st, ""},
		{`{}`, variableStorage(arrow.BinaryTypes.String, 2), ""},
		{`{}`, arrow.StructOf(
			arrow.Field{Name: "data", Type: arrow.ListOf(arrow.PrimitiveTypes.Float32)},
			arrow.Field{Name: "shape", Type: arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int64)}), ""},
		{`{}`, arrow.StructOf(
			arrow.Field{Name: "data", Type: arrow.LargeListOf(arrow.PrimitiveTypes.Float32)},
			arrow.Field{Name: "shape", Type: arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int32)}), ""},
		{`{}`, arrow.StructOf(
			arrow.Field{Name: "shape", Type: arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int32)},
			arrow.Field{Name: "data", Type: arrow.ListOf(arrow.PrimitiveTypes.Float32)}), ""},
		{`{}`, arrow.StructOf(
			arrow.Field{Name: "data", Type: arrow.ListOf(arrow.PrimitiveTypes.Float32)},
			arrow.Field{Name: "shape", Type: arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int32)},
			arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int8}), ""},
		{`{}`, arrow.ListOf(arrow.PrimitiveTypes.Float32), ""},
	} {
		got, err := proto.Deserialize(tc.storage, tc.data)
		if tc.want == "" {
			require.Errorf(t, err, "%q over %s", tc.data, tc.storage)
			assert.ErrorIs(t, err, arrow.ErrInvalid, tc.data)
			assert.Nil(t, got)
			continue
		}
		require.NoErrorf(t, err, "%q over %s", tc.data, tc.storage)
		assert.Equal(t, tc.want, got.Serialize(), tc.data)
		assert.True(t, arrow.TypeEqual(tc.storage, got.StorageType()))
	}
}

func TestVariableShapeTensorTypeMetadataRoundTrip(t *testing.T) {
	for _, vt := range testutil.ValueTypes {
		for _, typ := range []*arrowext.VariableShapeTensorType{
			mustVariable(t, vt, 2, nil, nil, nil),
			mustVariable(t, vt, 3, []string{"a", "b", "c"}, []int{2, 0, 1}, []int64{-1, 4, -1}),
			mustVariable(t, vt, 1, []string{"x"}, []int{0}, []int64{7}),
			mustVariable(t, vt, 5, nil, []int{4, 3, 2, 1, 0}, []int64{1, 2, 3, 4, 5}),
		} {
			back, err := typ.Deserialize(typ.StorageType(), typ.Serialize())
			require.NoError(t, err)
			assert.Truef(t, arrow.TypeEqual(typ, back), "%s != %s", typ, back)
			assert.Equal(t, typ.Serialize(), back.Serialize())
		}
	}
}

func TestVariableShapeTensorTypeBatchRoundTrip(t *testing.T) {
	mem := testutil.Checked(t)
	require.NoError(t, arrowext.Register())
	t.Cleanup(arrowext.Unregister)

	typ := mustVariable(t, arrow.PrimitiveTypes.Int32, 2, []string{"r", "c"}, []int{1, 0}, []int64{arrowext.VariableDim, 2})
	storage, _, err := array.FromJSON(mem, typ.StorageType(), bytes.NewReader([]byte(
		`[{"data": [1, 2, 3, 4, 5, 6], "shape": [3, 2]}, null, {"data": [7, 8], "shape": [1, 2]}, {"data": [], "shape": [0, 2]}]`)))
	require.NoError(t, err)
	defer storage.Release()
	arr := array.NewExtensionArrayWithStorage(typ, storage)
	defer arr.Release()

	schema := arrow.NewSchema([]arrow.Field{{Name: "t", Type: typ, Nullable: true}}, nil)
	batch := array.NewRecordBatch(schema, []arrow.Array{arr}, -1)
	defer batch.Release()

	var buf bytes.Buffer
	wr := ipc.NewWriter(&buf, ipc.WithSchema(schema), ipc.WithAllocator(mem))
	require.NoError(t, wr.Write(batch))
	require.NoError(t, wr.Close())

	rdr, err := ipc.NewReader(&buf, ipc.WithAllocator(mem))
	require.NoError(t, err)
	defer rdr.Release()
	require.True(t, rdr.Next())
	got := rdr.RecordBatch()
	assert.Truef(t, schema.Equal(got.Schema()), "%s != %s", schema, got.Schema())
	assert.Truef(t, array.RecordEqual(batch, got), "%s != %s", batch, got)
	col, ok := got.Column(0).(*arrowext.VariableShapeTensorArray)
	require.True(t, ok, "%T", got.Column(0))

	want := []string{"[[1 3 5]\n [2 4 6]]", "", "[[7]\n [8]]", "[]"}
	wantShapes := [][]int64{{2, 3}, nil, {2, 1}, {2, 0}}
	for i := range want {
		row, err := col.Row(i)
		require.NoError(t, err)
		shape, err := col.RowShape(i)
		require.NoError(t, err)
		assert.Equal(t, wantShapes[i], shape)
		if want[i] == "" {
			assert.Nil(t, row)
			continue
		}
		assert.Equal(t, wantShapes[i], row.Shape())
		assert.Equal(t, []string{"c", "r"}, row.DimNames())
		if i != 3 {
			assert.Equal(t, want[i], row.String())
		}
		row.Release()
	}
}
