package arrowext_test

import (
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/arrowext"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
)

var (
	i32      = arrow.PrimitiveTypes.Int32
	f64      = arrow.PrimitiveTypes.Float64
	cooST    = arrow.StructOf(arrow.Field{Name: "indices", Type: arrow.ListOf(arrow.FixedSizeListOf(2, i32))}, arrow.Field{Name: "values", Type: arrow.ListOf(f64)})
	cooVarST = arrow.StructOf(arrow.Field{Name: "shape", Type: arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int64)}, arrow.Field{Name: "indices", Type: arrow.ListOf(arrow.FixedSizeListOf(2, i32))}, arrow.Field{Name: "values", Type: arrow.ListOf(f64)})
	csrST    = arrow.StructOf(arrow.Field{Name: "pointers_to_1", Type: arrow.ListOf(i32)}, arrow.Field{Name: "indices_1", Type: arrow.ListOf(i32)}, arrow.Field{Name: "values", Type: arrow.ListOf(f64)})
	csfST    = arrow.StructOf(arrow.Field{Name: "indices_0", Type: arrow.ListOf(i32)}, arrow.Field{Name: "pointers_to_1", Type: arrow.ListOf(i32)}, arrow.Field{Name: "indices_1", Type: arrow.ListOf(i32)}, arrow.Field{Name: "values", Type: arrow.ListOf(f64)})
)

const (
	dtCOO = `"data_types":{"indices":"int32","values":"float64"}`
	dtCSR = `"data_types":{"pointers_to_1":"int32","indices_1":"int32","values":"float64"}`
	dtCSF = `"data_types":{"indices_0":"int32","pointers_to_1":"int32","indices_1":"int32","values":"float64"}`
)

// prototype returns a type of format f, whose Deserialize reads metadata.
func prototype(t testing.TB, f arrowsparse.Format) *arrowext.SparseTensorType {
	nd := 2
	typ, err := arrowext.NewSparseTensorType(arrowext.SparseTensorParams{Format: f, ValueType: f64, NDim: nd})
	require.NoError(t, err)
	return typ
}

// TestSparseMetadataGood reads valid metadata and writes it back in the
// writer's key order.
func TestSparseMetadataGood(t *testing.T) {
	cases := []struct {
		f       arrowsparse.Format
		storage arrow.DataType
		meta    string
		want    string
	}{
		{arrowsparse.FormatCOO, cooST, `{"format":"COO","shape":[3,4],` + dtCOO + `}`, ""},
		{arrowsparse.FormatCOO, cooVarST, `{"format":"COO","ndim":2,` + dtCOO + `}`, ""},
		{arrowsparse.FormatCOO, cooVarST, `{"format":"COO","shape":[null,4],` + dtCOO + `}`, ""},
		{arrowsparse.FormatCOO, cooVarST, `{"format":"COO","shape":[null,null],"ndim":2,` + dtCOO + `}`, `{"format":"COO","ndim":2,` + dtCOO + `}`},
		{arrowsparse.FormatCOO, cooST, `{` + dtCOO + `,"format":"COO","shape":[3,4],"canonical":false,"dim_names":["i","<j>"],"binsparse":{"version":"0.1"}}`,
			`{"format":"COO","shape":[3,4],"dim_names":["i","<j>"],` + dtCOO + `,"binsparse":{"version":"0.1"}}`},
		{arrowsparse.FormatCOO, cooST, `{"format":"COO","shape":[3,4],"dim_names":["\u003cj\u003e","b"],` + dtCOO + `}`, `{"format":"COO","shape":[3,4],"dim_names":["<j>","b"],` + dtCOO + `}`},
		{arrowsparse.FormatCSR, csrST, `{"format":"CSR","shape":[3,4],"canonical":true,` + dtCSR + `}`, ""},
		{arrowsparse.FormatCSC, csrST, `{"format":"CSC","shape":[3,4],` + dtCSR + `}`, ""},
		{arrowsparse.FormatCSF, csfST, `{"format":"CSF","shape":[3,4],` + dtCSF + `,"axis_order":[1,0]}`, ""},
		{arrowsparse.FormatGCS, csrST, `{"format":"GCS","shape":[3,4],` + dtCSR + `,"dimensions":[1,0],"partitioning":2,"compressed_axis":"column"}`, ""},
		{arrowsparse.FormatCOO, cooST, `{"format":"COO","shape":[18446744073,4],` + dtCOO + `}`, ""},
	}
	for _, c := range cases {
		typ, err := prototype(t, c.f).Deserialize(c.storage, c.meta)
		require.NoError(t, err, c.meta)
		want := c.want
		if want == "" {
			want = c.meta
		}
		assert.Equal(t, want, typ.Serialize())
		again, err := prototype(t, c.f).Deserialize(c.storage, typ.Serialize())
		require.NoError(t, err)
		assert.True(t, arrow.TypeEqual(typ, again))
	}
}

// TestSparseMetadataBad: every rule of SPARSE.md 2.2 and 2.3 refuses
// metadata or storage with an error wrapping arrow.ErrInvalid (or ErrType)
// and a message that says why.
func TestSparseMetadataBad(t *testing.T) {
	coo0 := arrow.StructOf(arrow.Field{Name: "values", Type: arrow.ListOf(f64)})
	cases := []struct {
		name    string
		f       arrowsparse.Format
		storage arrow.DataType
		meta    string
		msg     string
	}{
		{"not JSON", arrowsparse.FormatCOO, cooST, `{`, "not valid JSON"},
		{"BOM", arrowsparse.FormatCOO, cooST, "\ufeff{\"format\":\"COO\",\"shape\":[3,4]," + dtCOO + "}", "byte order mark"},
		{"not UTF-8", arrowsparse.FormatCOO, cooST, "{\"format\":\"\xff\"}", "not valid UTF-8"},
		{"array", arrowsparse.FormatCOO, cooST, `[]`, "not a JSON object"},
		{"trailing", arrowsparse.FormatCOO, cooST, `{"format":"COO","shape":[3,4],` + dtCOO + `} x`, "after its JSON value"},
		{"duplicate key", arrowsparse.FormatCOO, cooST, `{"format":"COO","format":"COO","shape":[3,4],` + dtCOO + `}`, "twice"},
		{"duplicate nested key", arrowsparse.FormatCOO, cooST, `{"format":"COO","shape":[3,4],"data_types":{"indices":"int32","indices":"int32","values":"float64"}}`, "twice"},
		{"unknown key", arrowsparse.FormatCOO, cooST, `{"format":"COO","shape":[3,4],` + dtCOO + `,"extra":1}`, `unknown metadata key "extra"`},
		{"other format's key", arrowsparse.FormatCOO, cooST, `{"format":"COO","shape":[3,4],` + dtCOO + `,"axis_order":[0,1]}`, "another format"},
		{"no format", arrowsparse.FormatCOO, cooST, `{"shape":[3,4],` + dtCOO + `}`, `no "format"`},
		{"wrong format", arrowsparse.FormatCOO, cooST, `{"format":"CSR","shape":[3,4],` + dtCOO + `}`, `want "COO"`},
		{"no data_types", arrowsparse.FormatCOO, cooST, `{"format":"COO","shape":[3,4]}`, `no "data_types"`},
		{"float shape", arrowsparse.FormatCOO, cooST, `{"format":"COO","shape":[3.0,4],` + dtCOO + `}`, "not an integer"},
		{"exponent shape", arrowsparse.FormatCOO, cooST, `{"format":"COO","shape":[3e0,4],` + dtCOO + `}`, "not an integer"},
		{"string shape", arrowsparse.FormatCOO, cooST, `{"format":"COO","shape":["3",4],` + dtCOO + `}`, "not an integer"},
		{"bool shape", arrowsparse.FormatCOO, cooST, `{"format":"COO","shape":[true,4],` + dtCOO + `}`, "not an integer"},
		{"negative shape", arrowsparse.FormatCOO, cooST, `{"format":"COO","shape":[-3,4],` + dtCOO + `}`, "not an integer in"},
		{"huge shape", arrowsparse.FormatCOO, cooST, `{"format":"COO","shape":[9223372036854775808,4],` + dtCOO + `}`, "not an integer in"},
		{"shape not list", arrowsparse.FormatCOO, cooST, `{"format":"COO","shape":3,` + dtCOO + `}`, "not a list"},
		{"ndim disagrees", arrowsparse.FormatCOO, cooST, `{"format":"COO","shape":[3,4],"ndim":3,` + dtCOO + `}`, "disagrees"},
		{"ndim float", arrowsparse.FormatCOO, cooVarST, `{"format":"COO","ndim":2.0,` + dtCOO + `}`, "ndim"},
		{"no shape, no ndim", arrowsparse.FormatCOO, cooVarST, `{"format":"COO",` + dtCOO + `}`, "neither"},
		{"dim_names length", arrowsparse.FormatCOO, cooST, `{"format":"COO","shape":[3,4],"dim_names":["a"],` + dtCOO + `}`, "dim"},
		{"dim_names type", arrowsparse.FormatCOO, cooST, `{"format":"COO","shape":[3,4],"dim_names":[1,2],` + dtCOO + `}`, "list of strings"},
		{"canonical type", arrowsparse.FormatCOO, cooST, `{"format":"COO","shape":[3,4],"canonical":1,` + dtCOO + `}`, "not true or false"},
		{"data_types missing", arrowsparse.FormatCOO, cooST, `{"format":"COO","shape":[3,4],"data_types":{"values":"float64"}}`, "no entry"},
		{"data_types extra", arrowsparse.FormatCOO, cooST, `{"format":"COO","shape":[3,4],"data_types":{"indices":"int32","values":"float64","shape":"int64"}}`, "unknown array"},
		{"data_types bad name", arrowsparse.FormatCOO, cooST, `{"format":"COO","shape":[3,4],"data_types":{"indices":"int","values":"float64"}}`, "type name"},
		{"data_types uint64 index", arrowsparse.FormatCOO, cooST, `{"format":"COO","shape":[3,4],"data_types":{"indices":"uint64","values":"float64"}}`, "indices"},
		{"data_types disagree", arrowsparse.FormatCOO, cooST, `{"format":"COO","shape":[3,4],"data_types":{"indices":"int64","values":"float64"}}`, "data_types says indices is int64"},
		{"data_types not object", arrowsparse.FormatCOO, cooST, `{"format":"COO","shape":[3,4],"data_types":[]}`, "data_types"},
		{"NaN", arrowsparse.FormatCOO, cooST, `{"format":"COO","shape":[NaN,4],"data_types":{}}`, "not valid JSON"},
		{"deep", arrowsparse.FormatCOO, cooST, `{"format":"COO","shape":[3,4],` + dtCOO + `,"x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, "nests"},
		{"csf no axis_order", arrowsparse.FormatCSF, csfST, `{"format":"CSF","shape":[3,4],` + dtCSF + `}`, "axis_order"},
		{"csf canonical", arrowsparse.FormatCSF, csfST, `{"format":"CSF","shape":[3,4],"canonical":true,` + dtCSF + `,"axis_order":[0,1]}`, "canonical"},
		{"csf axis_order", arrowsparse.FormatCSF, csfST, `{"format":"CSF","shape":[3,4],` + dtCSF + `,"axis_order":[0,0]}`, "permutation"},
		{"csf axis_order length", arrowsparse.FormatCSF, csfST, `{"format":"CSF","shape":[3,4],` + dtCSF + `,"axis_order":[0]}`, "axis_order"},
		{"csf 1-d", arrowsparse.FormatCSF, csfST, `{"format":"CSF","shape":[3],` + dtCSF + `,"axis_order":[0]}`, "at least 2"},
		{"gcs no dimensions", arrowsparse.FormatGCS, csrST, `{"format":"GCS","shape":[3,4],` + dtCSR + `,"partitioning":1,"compressed_axis":"row"}`, "dimensions"},
		{"gcs no partitioning", arrowsparse.FormatGCS, csrST, `{"format":"GCS","shape":[3,4],` + dtCSR + `,"dimensions":[0,1],"compressed_axis":"row"}`, "partitioning"},
		{"gcs partitioning", arrowsparse.FormatGCS, csrST, `{"format":"GCS","shape":[3,4],` + dtCSR + `,"dimensions":[0,1],"partitioning":3,"compressed_axis":"row"}`, "partitioning 3"},
		{"gcs compressed_axis", arrowsparse.FormatGCS, csrST, `{"format":"GCS","shape":[3,4],` + dtCSR + `,"dimensions":[0,1],"partitioning":1,"compressed_axis":"rows"}`, "compressed_axis"},
		{"gcs no compressed_axis", arrowsparse.FormatGCS, csrST, `{"format":"GCS","shape":[3,4],` + dtCSR + `,"dimensions":[0,1],"partitioning":1}`, "compressed_axis"},
		{"gcs overflow", arrowsparse.FormatGCS, csrST, `{"format":"GCS","shape":[1099511627776,1099511627776],` + dtCSR + `,"dimensions":[0,1],"partitioning":0,"compressed_axis":"row"}`, "overflow"},
		{"csr pointers overflow", arrowsparse.FormatCSR, csrST, `{"format":"CSR","shape":[9223372036854775807,4],` + dtCSR + `}`, "pointers"},
		{"binsparse", arrowsparse.FormatCOO, cooST, `{"format":"COO","shape":[3,4],` + dtCOO + `,"binsparse":"0.1"}`, "binsparse"},
		{"binsparse extra", arrowsparse.FormatCOO, cooST, `{"format":"COO","shape":[3,4],` + dtCOO + `,"binsparse":{"version":"0.1","x":1}}`, "binsparse"},
		{"csr ndim", arrowsparse.FormatCSR, csrST, `{"format":"CSR","shape":[3,4,5],` + dtCSR + `}`, "2 dimensions"},
		{"coo ndim 0", arrowsparse.FormatCOO, coo0, `{"format":"COO","shape":[],` + dtCOO + `}`, "0 dimensions"},
		{"storage not struct", arrowsparse.FormatCOO, arrow.ListOf(f64), `{"format":"COO","shape":[3,4],` + dtCOO + `}`, "not a struct"},
		{"missing field", arrowsparse.FormatCOO, coo0, `{"format":"COO","shape":[3,4],` + dtCOO + `}`, "missing"},
		{"extra field", arrowsparse.FormatCOO, arrow.StructOf(append(cooST.Fields(), arrow.Field{Name: "more", Type: arrow.ListOf(f64)})...), `{"format":"COO","shape":[3,4],` + dtCOO + `}`, "extra"},
		{"shape field when fixed", arrowsparse.FormatCOO, cooVarST, `{"format":"COO","shape":[3,4],` + dtCOO + `}`, "shape is fixed"},
		{"no shape field", arrowsparse.FormatCOO, cooST, `{"format":"COO","shape":[null,4],` + dtCOO + `}`, "needs a shape field"},
		{"shape field type", arrowsparse.FormatCOO, arrow.StructOf(append([]arrow.Field{{Name: "shape", Type: arrow.FixedSizeListOf(2, i32)}}, cooST.Fields()...)...), `{"format":"COO","ndim":2,` + dtCOO + `}`, "fixed_size_list<int64>"},
		{"fsl size", arrowsparse.FormatCOO, arrow.StructOf(arrow.Field{Name: "indices", Type: arrow.ListOf(arrow.FixedSizeListOf(3, i32))}, arrow.Field{Name: "values", Type: arrow.ListOf(f64)}), `{"format":"COO","shape":[3,4],` + dtCOO + `}`, "fixed_size_list<I>[2]"},
		{"not a list", arrowsparse.FormatCOO, arrow.StructOf(cooST.Field(0), arrow.Field{Name: "values", Type: f64}), `{"format":"COO","shape":[3,4],` + dtCOO + `}`, "not a list"},
		{"bool values", arrowsparse.FormatCOO, arrow.StructOf(cooST.Field(0), arrow.Field{Name: "values", Type: arrow.ListOf(arrow.FixedWidthTypes.Boolean)}), `{"format":"COO","shape":[3,4],` + dtCOO + `}`, "data_types says values"},
		{"duplicate field", arrowsparse.FormatCOO, arrow.StructOf(append(cooST.Fields(), cooST.Field(1))...), `{"format":"COO","shape":[3,4],` + dtCOO + `}`, "two fields"},
	}
	for _, c := range cases {
		_, err := prototype(t, c.f).Deserialize(c.storage, c.meta)
		require.Error(t, err, c.name)
		require.True(t, errors.Is(err, arrow.ErrInvalid) || errors.Is(err, arrow.ErrType), "%s: %v", c.name, err)
		assert.Contains(t, err.Error(), c.msg, c.name)
		// Wrap and Rewrap report the same.
		arr := array.MakeArrayOfNull(memory.DefaultAllocator, c.storage, 1)
		_, err = arrowext.Wrap(arrowext.SparseCOOName[:len("arrowsparse.")]+strings.ToLower(c.f.String()), c.meta, arr)
		arr.Release()
		require.Error(t, err, c.name)
	}
}

// TestSparseParamsBad: NewSparseTensorType refuses what SPARSE.md does
// not allow.
func TestSparseParamsBad(t *testing.T) {
	for _, p := range []arrowext.SparseTensorParams{
		{Format: arrowsparse.FormatDense, ValueType: f64, NDim: 2},
		{Format: arrowsparse.FormatCSR, ValueType: f64, NDim: 3},
		{Format: arrowsparse.FormatCOO, ValueType: f64},
		{Format: arrowsparse.FormatCOO, ValueType: arrow.FixedWidthTypes.Boolean, NDim: 2},
		{Format: arrowsparse.FormatCOO, ValueType: f64, NDim: 2, IndexType: arrow.PrimitiveTypes.Uint64},
		{Format: arrowsparse.FormatCOO, ValueType: f64, NDim: 2, DimNames: []string{"a"}},
		{Format: arrowsparse.FormatCOO, ValueType: f64, Shape: []int64{3, -2}},
		{Format: arrowsparse.FormatCOO, ValueType: f64, Shape: []int64{3, 4}, NDim: 3},
		{Format: arrowsparse.FormatCSF, ValueType: f64, NDim: 2, Canonical: true},
		{Format: arrowsparse.FormatCSF, ValueType: f64, NDim: 2, AxisOrder: []int{0, 0}},
		{Format: arrowsparse.FormatGCS, ValueType: f64, NDim: 2, Dimensions: []int{0, 1}, Partitioning: 3},
		{Format: arrowsparse.FormatGCS, ValueType: f64, NDim: 2, Partitioning: 1},
		{Format: arrowsparse.FormatCOO, ValueType: f64, NDim: 2, AxisOrder: []int{0, 1}},
		{Format: arrowsparse.FormatCOO, ValueType: f64, NDim: 2, Dimensions: []int{0, 1}},
		{Format: arrowsparse.FormatCOO, ValueType: f64, NDim: 2, LevelIndexTypes: []arrow.DataType{i32, i32}},
		{Format: arrowsparse.FormatCSF, ValueType: f64, NDim: 2, LevelIndexTypes: []arrow.DataType{i32}},
		{Format: arrowsparse.FormatCSR, ValueType: f64, Shape: []int64{math.MaxInt64, 2}},
	} {
		_, err := arrowext.NewSparseTensorType(p)
		require.Error(t, err, "%+v", p)
		require.True(t, errors.Is(err, arrow.ErrInvalid) || errors.Is(err, arrow.ErrType), "%+v: %v", p, err)
	}
}

// mutate returns a copy of the array data d whose descendant at path (child
// indexes) is replaced by f of it.
func mutate(d arrow.ArrayData, path []int, f func(arrow.ArrayData) arrow.ArrayData) arrow.ArrayData {
	if len(path) == 0 {
		return f(d)
	}
	children := append([]arrow.ArrayData(nil), d.Children()...)
	children[path[0]] = mutate(children[path[0]], path[1:], f)
	out := array.NewData(d.DataType(), d.Len(), d.Buffers(), children, d.NullN(), d.Offset())
	children[path[0]].Release()
	return out
}

// withBytes returns d with buffer k replaced by a copy changed by edit.
func withBytes(k int, edit func([]byte)) func(arrow.ArrayData) arrow.ArrayData {
	return func(d arrow.ArrayData) arrow.ArrayData {
		bufs := append([]*memory.Buffer(nil), d.Buffers()...)
		b := append([]byte(nil), bufs[k].Bytes()...)
		edit(b)
		bufs[k] = memory.NewBufferBytes(b)
		return array.NewData(d.DataType(), d.Len(), bufs, d.Children(), d.NullN(), d.Offset())
	}
}

// withNull returns d with slot j null.
func withNull(j int) func(arrow.ArrayData) arrow.ArrayData {
	return func(d arrow.ArrayData) arrow.ArrayData {
		bufs := append([]*memory.Buffer(nil), d.Buffers()...)
		bm := make([]byte, (d.Len()+d.Offset()+7)/8+1)
		for i := range bm {
			bm[i] = 0xff
		}
		bm[j/8] &^= 1 << (j % 8)
		bufs[0] = memory.NewBufferBytes(bm)
		return array.NewData(d.DataType(), d.Len(), bufs, d.Children(), 1, d.Offset())
	}
}

func put32(p int, v int32) func([]byte) {
	return func(b []byte) { binary.LittleEndian.PutUint32(b[4*p:], uint32(v)) }
}

func put64(p int, v int64) func([]byte) {
	return func(b []byte) { binary.LittleEndian.PutUint64(b[8*p:], uint64(v)) }
}

// TestSparseRowStrict corrupts valid columns, one rule of SPARSE.md 2.5 at
// a time, and checks that reading the row (or wrapping the column) fails
// with an error wrapping arrow.ErrInvalid, never a panic; trusted readers
// fail on the O(1) rules and never panic.
func TestSparseRowStrict(t *testing.T) {
	mem := testutil.Checked(t)
	mk := func(p arrowext.SparseTensorParams, rows ...arrowsparse.Tensor) *arrowext.SparseTensorArray {
		col, err := arrowext.NewSparseTensorArray(mem, p, rows)
		require.NoError(t, err)
		for _, r := range rows {
			if r != nil {
				r.Release()
			}
		}
		return col
	}
	c1, err := coo.FromSlices(mem, []int64{3, 4}, []int32{0, 1, 2, 3}, coo.RowMajor, []float64{1.5, -7})
	require.NoError(t, err)
	cooCol := mk(arrowext.SparseTensorParams{Format: arrowsparse.FormatCOO}, c1)
	defer cooCol.Release()
	v1, err := coo.FromSlices(mem, []int64{3, 4}, []int32{0, 1, 2, 3}, coo.RowMajor, []float64{1.5, -7})
	require.NoError(t, err)
	v2, err := coo.FromSlices(mem, []int64{2, 4}, []int32{1, 1}, coo.RowMajor, []float64{2})
	require.NoError(t, err)
	cooVar := mk(arrowext.SparseTensorParams{Format: arrowsparse.FormatCOO, Shape: []int64{-1, 4}}, v1, v2)
	defer cooVar.Release()
	m1, err := gcs.FromSlices(mem, gcs.Rows, []int64{3, 4}, []int32{0, 1, 1, 3}, []int32{1, 0, 3}, []float64{1, 2, 3})
	require.NoError(t, err)
	csrCol := mk(arrowext.SparseTensorParams{Format: arrowsparse.FormatCSR}, m1)
	defer csrCol.Release()
	x1, err := coo.FromSlices(mem, []int64{3, 4}, []int32{0, 1, 0, 3, 2, 2}, coo.RowMajor, []float64{1, 2, 3})
	require.NoError(t, err)
	k1, err := csf.FromCOO(mem, x1, csf.ConvertOptions{AxisOrder: []int{0, 1}, IndexType: i32})
	require.NoError(t, err)
	x1.Release()
	csfCol := mk(arrowext.SparseTensorParams{Format: arrowsparse.FormatCSF, AxisOrder: []int{0, 1}}, k1)
	defer csfCol.Release()

	type tc struct {
		name    string
		col     *arrowext.SparseTensorArray
		path    []int
		f       func(arrow.ArrayData) arrow.ArrayData
		msg     string
		trusted bool // the trusted reader fails too
	}
	cases := []tc{
		// COO: children indices(list) -> fsl -> leaf, values(list) -> leaf
		{"coordinate outside", cooCol, []int{0, 0, 0}, withBytes(1, put32(1, 4)), "row 0", false},
		{"negative coordinate", cooCol, []int{0, 0, 0}, withBytes(1, put32(0, -1)), "row 0", false},
		{"not canonical", cooCol, []int{0, 0, 0}, withBytes(1, func(b []byte) { put32(0, 2)(b); put32(1, 3)(b); put32(2, 0)(b); put32(3, 1)(b) }), "canonical", false},
		{"lengths disagree", cooCol, []int{1}, withBytes(1, put32(1, 1)), "values has 1", true},
		{"offsets beyond", cooCol, []int{0}, withBytes(1, put32(1, 5)), "", true},
		{"negative offsets", cooCol, []int{0}, withBytes(1, put32(0, -1)), "", true},
		{"null in values", cooCol, []int{1, 0}, withNull(1), "null", true},
		{"null in coordinates", cooCol, []int{0, 0, 0}, withNull(2), "null", true},
		{"null list", cooCol, []int{1}, withNull(0), "null", true},
		// varying COO: shape field
		{"negative shape", cooVar, []int{0, 0}, withBytes(1, put64(0, -3)), "negative", true},
		{"shape disagrees", cooVar, []int{0, 0}, withBytes(1, put64(1, 5)), "disagrees", true},
		{"null shape", cooVar, []int{0}, withNull(1), "shape", true},
		{"coordinate outside row shape", cooVar, []int{1, 0, 0}, withBytes(1, put32(4, 2)), "row 1", false},
		// CSR: pointers_to_1, indices_1, values
		{"pointers start", csrCol, []int{0, 0}, withBytes(1, put32(0, 1)), "starts at 1", true},
		{"pointers end", csrCol, []int{0, 0}, withBytes(1, put32(3, 2)), "ends at 2", true},
		{"pointers decrease", csrCol, []int{0, 0}, withBytes(1, put32(2, 0)), "row 0", false},
		{"pointers length", csrCol, []int{0}, withBytes(1, put32(1, 3)), "pointers_to_1 has 3", true},
		{"column outside", csrCol, []int{1, 0}, withBytes(1, put32(2, 4)), "row 0", false},
		{"csr not canonical", csrCol, []int{1, 0}, withBytes(1, func(b []byte) { put32(1, 3)(b); put32(2, 0)(b) }), "canonical", false},
		// CSF: indices_0, pointers_to_1, indices_1, values
		{"csf duplicate", csfCol, []int{2, 0}, withBytes(1, put32(1, 1)), "row 0", false},
		{"csf root outside", csfCol, []int{0, 0}, withBytes(1, put32(0, 7)), "row 0", false},
		{"csf pointers end", csfCol, []int{1, 0}, withBytes(1, put32(2, 2)), "ends at 2", true},
	}
	for _, c := range cases {
		d := mutate(c.col.Storage().Data(), c.path, c.f)
		storage := array.MakeFromData(d)
		d.Release()
		typ := c.col.TensorType()
		for _, trusted := range []bool{false, true} {
			w, err := arrowext.Wrap(typ.ExtensionName(), typ.Serialize(), storage)
			if err == nil {
				var opts []arrowext.RowOption
				if trusted {
					opts = append(opts, arrowext.WithTrusted())
				}
				var x arrowsparse.Tensor
				for i := range w.Len() {
					if x, err = w.(*arrowext.SparseTensorArray).Row(i, opts...); err != nil {
						break
					}
					if x != nil {
						x.Release()
					}
				}
				w.Release()
			}
			if trusted && !c.trusted {
				continue // the trusted reader may accept it; it must not panic
			}
			require.Error(t, err, "%s trusted=%v", c.name, trusted)
			require.ErrorIs(t, err, arrow.ErrInvalid, c.name)
			assert.Contains(t, err.Error(), c.msg, c.name)
		}
		storage.Release()
	}
}
