package wire_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/ipc/internal/flatbuf"
	"github.com/arrowsparse/arrowsparse/ipc/internal/wire"
)

func TestCustomMetadata(t *testing.T) {
	data, f := readGolden(t, "csr")
	m := *f.Message

	// Empty custom metadata is not written.
	m.CustomMetadata = []wire.KeyValue{}
	meta, err := wire.EncodeMetadata(&m)
	require.NoError(t, err)
	assert.Equal(t, data[8:8+len(meta)], meta)

	m.CustomMetadata = []wire.KeyValue{
		{Key: "arrowsparse:gcs", Value: `{"row_axes":[0],"col_axes":[1]}`},
		{Key: "", Value: ""},
		{Key: "ключ", Value: "значение\x00with NUL"},
	}
	meta, err = wire.EncodeMetadata(&m)
	require.NoError(t, err)
	got, err := wire.DecodeMetadata(meta)
	require.NoError(t, err)
	assert.Equal(t, &m, got)
	require.NoError(t, got.Validate())

	out, err := wire.AppendMessage(nil, &m, f.Body)
	require.NoError(t, err)
	g, err := wire.Parse(out)
	require.NoError(t, err)
	assert.Equal(t, m.CustomMetadata, g.Message.CustomMetadata)
	assert.Zero(t, (8+len(g.Metadata))%8)
}

func TestOptionalFieldsRoundTrip(t *testing.T) {
	st := &wire.SparseTensor{
		Type:          arrow.PrimitiveTypes.Uint16,
		Shape:         []wire.Dim{{Size: 4}, {Size: 0, Name: "empty", HasName: true}, {Size: 5, HasName: true}},
		NonZeroLength: 0,
		Index:         &wire.COOIndex{IndicesType: arrow.PrimitiveTypes.Int8},
		Data:          wire.Buffer{},
	}
	tensor := &wire.Tensor{
		Type:  arrow.FixedWidthTypes.Float16,
		Shape: []wire.Dim{{Size: 2}, {Size: 3}},
		Data:  wire.Buffer{Offset: 0, Length: 12},
	}
	for name, m := range map[string]*wire.Message{
		"sparse without names and strides": {Version: wire.V4, Header: wire.HeaderSparseTensor, SparseTensor: st},
		"dense without names and strides":  {Version: wire.V5, Header: wire.HeaderTensor, BodyLength: 12, Tensor: tensor},
		"csc": {Version: wire.V5, Header: wire.HeaderSparseTensor, BodyLength: 24, SparseTensor: &wire.SparseTensor{
			Type:  arrow.PrimitiveTypes.Float64,
			Shape: []wire.Dim{{Size: 1}, {Size: 1}},
			Index: &wire.CSXIndex{
				CompressedAxis: wire.AxisColumn,
				IndptrType:     arrow.PrimitiveTypes.Uint8, IndptrBuffer: wire.Buffer{Offset: 0, Length: 8},
				IndicesType: arrow.PrimitiveTypes.Int64, IndicesBuffer: wire.Buffer{Offset: 8, Length: 8},
			},
			NonZeroLength: 1,
			Data:          wire.Buffer{Offset: 16, Length: 8},
		}},
	} {
		t.Run(name, func(t *testing.T) {
			meta, err := wire.EncodeMetadata(m)
			require.NoError(t, err)
			got, err := wire.DecodeMetadata(meta)
			require.NoError(t, err)
			assert.Equal(t, m, got)
			require.NoError(t, got.Validate())
		})
	}
}

func TestEncodeErrors(t *testing.T) {
	sparse := func(edit func(*wire.SparseTensor)) *wire.Message {
		st := &wire.SparseTensor{
			Type:  arrow.PrimitiveTypes.Float32,
			Shape: []wire.Dim{{Size: 2}, {Size: 3}},
			Index: &wire.COOIndex{IndicesType: arrow.PrimitiveTypes.Int64},
		}
		edit(st)
		return &wire.Message{Version: wire.V5, Header: wire.HeaderSparseTensor, SparseTensor: st}
	}
	for _, tc := range []struct {
		name string
		m    *wire.Message
		kind error
	}{
		{"nil", nil, arrowsparse.ErrStructure},
		{"schema header", &wire.Message{Version: wire.V5, Header: wire.HeaderSchema}, arrowsparse.ErrStructure},
		{"header without table", &wire.Message{Version: wire.V5, Header: wire.HeaderTensor}, arrowsparse.ErrStructure},
		{"both tables", &wire.Message{Header: wire.HeaderSparseTensor, SparseTensor: &wire.SparseTensor{}, Tensor: &wire.Tensor{}}, arrowsparse.ErrStructure},
		{"utf8 values", sparse(func(st *wire.SparseTensor) { st.Type = arrow.BinaryTypes.String }), arrowsparse.ErrUnsupportedType},
		{"nil values", sparse(func(st *wire.SparseTensor) { st.Type = nil }), arrowsparse.ErrUnsupportedType},
		{"float index", sparse(func(st *wire.SparseTensor) {
			st.Index = &wire.COOIndex{IndicesType: arrow.PrimitiveTypes.Float32}
		}), arrowsparse.ErrUnsupportedType},
		{"no index", sparse(func(st *wire.SparseTensor) { st.Index = nil }), arrowsparse.ErrStructure},
		{"typed nil index", sparse(func(st *wire.SparseTensor) { st.Index = (*wire.CSFIndex)(nil) }), arrowsparse.ErrStructure},
		{"bad axis", sparse(func(st *wire.SparseTensor) {
			st.Index = &wire.CSXIndex{CompressedAxis: 2, IndptrType: arrow.PrimitiveTypes.Int32, IndicesType: arrow.PrimitiveTypes.Int32}
		}), arrowsparse.ErrStructure},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := wire.EncodeMetadata(tc.m)
			require.ErrorIs(t, err, tc.kind)
		})
	}
}

// TestDecodeTypes covers the Type union conversion of spec §3.5.
func TestDecodeTypes(t *testing.T) {
	for _, dt := range []arrow.DataType{
		arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
		arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64,
		arrow.FixedWidthTypes.Float16, arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64,
	} {
		m := &wire.Message{Version: wire.V5, Header: wire.HeaderTensor, Tensor: &wire.Tensor{Type: dt, Shape: []wire.Dim{}}}
		meta, err := wire.EncodeMetadata(m)
		require.NoError(t, err)
		got, err := wire.DecodeMetadata(meta)
		require.NoError(t, err)
		assert.Equal(t, dt, got.Tensor.Type)
	}
}

func TestValidateRules(t *testing.T) {
	coo := func(nnz int64, strides []int64, idx wire.Buffer, body int64) *wire.Message {
		return &wire.Message{Version: wire.V5, Header: wire.HeaderSparseTensor, BodyLength: body, SparseTensor: &wire.SparseTensor{
			Type:          arrow.PrimitiveTypes.Float32,
			Shape:         []wire.Dim{{Size: 2}, {Size: 3}},
			NonZeroLength: nnz,
			Index: &wire.COOIndex{IndicesType: arrow.PrimitiveTypes.Int64, IndicesBuffer: idx,
				IndicesStrides: strides, HasIndicesStrides: strides != nil},
			Data: wire.Buffer{Offset: idx.Length, Length: 16},
		}}
	}
	csf := func(edit func(*wire.CSFIndex)) *wire.Message {
		_, f := readGolden(t, "csf")
		m := *f.Message
		st := *m.SparseTensor
		x := *st.Index.(*wire.CSFIndex)
		x.IndptrBuffers = append([]wire.Buffer{}, x.IndptrBuffers...)
		x.IndicesBuffers = append([]wire.Buffer{}, x.IndicesBuffers...)
		x.AxisOrder = append([]int32{}, x.AxisOrder...)
		edit(&x)
		st.Index = &x
		m.SparseTensor = &st
		return &m
	}
	dense := func(shape []int64, strides []int64, body int64) *wire.Message {
		dims := make([]wire.Dim, len(shape))
		for i, s := range shape {
			dims[i].Size = s
		}
		return &wire.Message{Version: wire.V5, Header: wire.HeaderTensor, BodyLength: body, Tensor: &wire.Tensor{
			Type: arrow.PrimitiveTypes.Int32, Shape: dims, Strides: strides, HasStrides: strides != nil,
		}}
	}
	for _, tc := range []struct {
		name string
		m    *wire.Message
		kind error // nil: valid
	}{
		{"coo row-major", coo(3, []int64{16, 8}, wire.Buffer{Length: 48}, 64), nil},
		{"coo column-major", coo(3, []int64{8, 24}, wire.Buffer{Length: 48}, 64), nil},
		{"coo no strides", coo(3, nil, wire.Buffer{Length: 48}, 64), nil},
		{"coo empty strides", coo(3, []int64{}, wire.Buffer{Length: 48}, 64), nil},
		{"coo nnz 0, strides [w,w]", coo(0, []int64{8, 8}, wire.Buffer{}, 16), nil},
		{"coo nnz 0, no strides", coo(0, nil, wire.Buffer{}, 16), nil},
		{"coo nnz 0, strides [16,8]", coo(0, []int64{16, 8}, wire.Buffer{}, 16), arrowsparse.ErrShape},
		{"coo three strides", coo(3, []int64{16, 8, 8}, wire.Buffer{Length: 48}, 64), arrowsparse.ErrShape},
		{"coo short indices", coo(3, nil, wire.Buffer{Length: 40}, 56), arrowsparse.ErrBufferSize},
		{"coo negative offset", coo(3, nil, wire.Buffer{Offset: -8, Length: 48}, 64), arrowsparse.ErrBufferSize},
		{"coo huge nnz", coo(1<<62, nil, wire.Buffer{Length: 48}, 64), arrowsparse.ErrOverflow},
		{"csf golden", csf(func(*wire.CSFIndex) {}), nil},
		{"csf byte lengths", csf(func(x *wire.CSFIndex) {
			for i := range x.IndptrBuffers {
				x.IndptrBuffers[i].Length *= 8
			}
			for i := range x.IndicesBuffers {
				x.IndicesBuffers[i].Length *= 8
			}
		}), nil},
		{"csf axis not a permutation", csf(func(x *wire.CSFIndex) { x.AxisOrder[1] = 0 }), arrowsparse.ErrStructure},
		{"csf missing indptr", csf(func(x *wire.CSFIndex) { x.IndptrBuffers = x.IndptrBuffers[:1] }), arrowsparse.ErrStructure},
		{"csf unknown unit", csf(func(x *wire.CSFIndex) { x.IndptrBuffers[0].Length = 5 }), arrowsparse.ErrStructure},
		{"csf past the body", csf(func(x *wire.CSFIndex) { x.IndicesBuffers[2].Offset = 120 }), arrowsparse.ErrBufferSize},
		{"dense row-major", dense([]int64{2, 3}, nil, 24), nil},
		{"dense too short", dense([]int64{2, 3}, nil, 20), arrowsparse.ErrBufferSize},
		{"dense column-major", dense([]int64{2, 3}, []int64{4, 8}, 24), nil},
		{"dense strided over-run", dense([]int64{2, 3}, []int64{16, 4}, 24), arrowsparse.ErrBufferSize},
		{"dense negative stride", dense([]int64{2, 3}, []int64{-12, 4}, 24), arrowsparse.ErrShape},
		{"dense zero-size", dense([]int64{2, 0}, []int64{4, 4}, 0), nil},
		{"dense 0-d", dense([]int64{}, []int64{}, 4), nil},
		{"dense overflow", dense([]int64{1 << 62, 4}, nil, 4), arrowsparse.ErrOverflow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.m.Validate()
			if tc.kind == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tc.kind)
		})
	}
	assert.Error(t, (&wire.Message{Header: wire.HeaderSchema}).Validate())
}

// TestConstantsMatchSchema ties the model's constants to the generated
// bindings.
func TestConstantsMatchSchema(t *testing.T) {
	assert.EqualValues(t, flatbuf.MessageHeaderTensor, wire.HeaderTensor)
	assert.EqualValues(t, flatbuf.MessageHeaderSparseTensor, wire.HeaderSparseTensor)
	assert.EqualValues(t, flatbuf.MessageHeaderSchema, wire.HeaderSchema)
	assert.EqualValues(t, flatbuf.MessageHeaderDictionaryBatch, wire.HeaderDictionaryBatch)
	assert.EqualValues(t, flatbuf.MessageHeaderRecordBatch, wire.HeaderRecordBatch)
	assert.EqualValues(t, flatbuf.SparseTensorIndexSparseTensorIndexCOO, wire.IndexCOO)
	assert.EqualValues(t, flatbuf.SparseTensorIndexSparseMatrixIndexCSX, wire.IndexCSX)
	assert.EqualValues(t, flatbuf.SparseTensorIndexSparseTensorIndexCSF, wire.IndexCSF)
	assert.EqualValues(t, flatbuf.MetadataVersionV4, wire.V4)
	assert.EqualValues(t, flatbuf.MetadataVersionV5, wire.V5)
	assert.EqualValues(t, flatbuf.SparseMatrixCompressedAxisColumn, wire.AxisColumn)
	assert.Equal(t, "V5", wire.V5.String())
	assert.Equal(t, "SparseTensor", wire.HeaderSparseTensor.String())
	assert.Equal(t, "CSF", wire.IndexCSF.String())
	assert.Equal(t, "Column", wire.AxisColumn.String())
	assert.Equal(t, "elements", wire.CSFLengthElements.String())
}
