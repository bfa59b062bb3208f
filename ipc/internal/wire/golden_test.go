package wire_test

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse/ipc/internal/wire"
)

func readGolden(t *testing.T, name string) ([]byte, *wire.Frame) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(interop, "golden", name+".arrow"))
	require.NoError(t, err)
	f, err := wire.Parse(data)
	require.NoError(t, err)
	return data, f
}

// TestGoldenSizes checks M, body and total sizes of the golden messages
// against the table of spec §7.4.
func TestGoldenSizes(t *testing.T) {
	for _, tc := range []struct {
		name           string
		m, body, total int
	}{
		{"coo", 280, 64, 352},
		{"coo-noncanon", 280, 40, 328},
		{"coo-colmajor", 288, 64, 360},
		{"coo-zero", 272, 0, 280},
		{"csr", 288, 48, 344},
		{"csc", 296, 48, 352},
		{"csf", 408, 144, 560},
		{"csf32", 408, 88, 504},
		{"tensor", 184, 3, 195},
		{"tensor-colmajor", 248, 12, 268},
		{"tensor-strided", 248, 16, 272},
		{"tensor-zero", 248, 0, 256},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, f := readGolden(t, tc.name)
			assert.Equal(t, tc.total, len(data))
			assert.Equal(t, uint32(tc.m), binary.LittleEndian.Uint32(data[4:]))
			assert.Len(t, f.Metadata, tc.m)
			assert.Len(t, f.Body, tc.body)
			assert.Equal(t, int64(tc.body), f.Message.BodyLength)
		})
	}
}

// TestGoldenCOO is the worked example of spec §7.1.
func TestGoldenCOO(t *testing.T) {
	data, f := readGolden(t, "coo")
	assert.Equal(t, []byte{0xff, 0xff, 0xff, 0xff, 0x18, 0x01, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00}, data[:12])
	meta, err := wire.EncodeMetadata(f.Message)
	require.NoError(t, err)
	assert.Len(t, meta, 280, "the flatbuffer is exactly 280 bytes, with no padding")

	m := f.Message
	assert.Equal(t, wire.V5, m.Version)
	assert.Equal(t, wire.HeaderSparseTensor, m.Header)
	assert.Nil(t, m.CustomMetadata)
	st := m.SparseTensor
	require.NotNil(t, st)
	assert.Equal(t, arrow.PrimitiveTypes.Float32, st.Type)
	assert.Equal(t, []wire.Dim{{Size: 2, Name: "row", HasName: true}, {Size: 3, Name: "col", HasName: true}}, st.Shape)
	assert.Equal(t, int64(3), st.NonZeroLength)
	assert.Equal(t, wire.Buffer{Offset: 48, Length: 16}, st.Data, "data length is the padded size")
	assert.Equal(t, &wire.COOIndex{
		IndicesType:       arrow.PrimitiveTypes.Int64,
		IndicesStrides:    []int64{16, 8},
		HasIndicesStrides: true,
		IndicesBuffer:     wire.Buffer{Offset: 0, Length: 48},
		IsCanonical:       true,
	}, st.Index)

	body := f.Body
	require.Len(t, body, 64)
	for i, want := range []int64{0, 1, 1, 0, 1, 2} {
		assert.Equal(t, want, int64(binary.LittleEndian.Uint64(body[8*i:])))
	}
	for i, want := range []float32{1.5, 2.5, 3.5} {
		assert.Equal(t, want, math.Float32frombits(binary.LittleEndian.Uint32(body[48+4*i:])))
	}
	assert.Equal(t, []byte{0, 0, 0, 0}, body[60:])
	assert.Equal(t, &body[0], &data[288], "the body aliases the input at offset 288")
}

// TestGoldenCSF is the worked example of spec §7.2: CSF index lengths are
// element counts, offsets are padded byte positions.
func TestGoldenCSF(t *testing.T) {
	for _, tc := range []struct {
		name    string
		idx     arrow.DataType
		indptr  []wire.Buffer
		indices []wire.Buffer
		data    wire.Buffer
	}{
		{
			"csf", arrow.PrimitiveTypes.Int64,
			[]wire.Buffer{{Offset: 0, Length: 3}, {Offset: 24, Length: 4}},
			[]wire.Buffer{{Offset: 56, Length: 2}, {Offset: 72, Length: 3}, {Offset: 96, Length: 4}},
			wire.Buffer{Offset: 128, Length: 16},
		},
		{
			"csf32", arrow.PrimitiveTypes.Int32,
			[]wire.Buffer{{Offset: 0, Length: 3}, {Offset: 16, Length: 4}},
			[]wire.Buffer{{Offset: 32, Length: 2}, {Offset: 40, Length: 3}, {Offset: 56, Length: 4}},
			wire.Buffer{Offset: 72, Length: 16},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, f := readGolden(t, tc.name)
			st := f.Message.SparseTensor
			require.NotNil(t, st)
			assert.Equal(t, arrow.PrimitiveTypes.Int32, st.Type)
			sizes, names := shapeOf(st.Shape)
			assert.Equal(t, []int64{2, 3, 2}, sizes)
			assert.Equal(t, []string{"", "", ""}, names)
			assert.Equal(t, int64(4), st.NonZeroLength)
			assert.Equal(t, tc.data, st.Data)
			x, ok := st.Index.(*wire.CSFIndex)
			require.True(t, ok)
			assert.Equal(t, &wire.CSFIndex{
				IndptrType:     tc.idx,
				IndptrBuffers:  tc.indptr,
				IndicesType:    tc.idx,
				IndicesBuffers: tc.indices,
				AxisOrder:      []int32{0, 2, 1},
			}, x)
			unit, err := wire.DetectCSFLengthUnit(x)
			require.NoError(t, err)
			assert.Equal(t, wire.CSFLengthElements, unit)
			indptr, indices, err := wire.CSFCounts(x, unit)
			require.NoError(t, err)
			assert.Equal(t, []int64{3, 4}, indptr)
			assert.Equal(t, []int64{2, 3, 4}, indices)

			// C++'s whole-vtable de-duplication gives 408 bytes; a builder
			// that compared only field offsets would give 400.
			meta, err := wire.EncodeMetadata(f.Message)
			require.NoError(t, err)
			assert.Len(t, meta, 408)
		})
	}
}

// TestGoldenCSC is spec §7.3.
func TestGoldenCSC(t *testing.T) {
	_, f := readGolden(t, "csc")
	st := f.Message.SparseTensor
	require.NotNil(t, st)
	assert.Equal(t, &wire.CSXIndex{
		CompressedAxis: wire.AxisColumn,
		IndptrType:     arrow.PrimitiveTypes.Int32,
		IndptrBuffer:   wire.Buffer{Offset: 0, Length: 16},
		IndicesType:    arrow.PrimitiveTypes.Int32,
		IndicesBuffer:  wire.Buffer{Offset: 16, Length: 16},
	}, st.Index)
	assert.Equal(t, wire.Buffer{Offset: 32, Length: 16}, st.Data)
	assert.Equal(t, int64(48), f.Message.BodyLength)
	_, names := shapeOf(st.Shape)
	assert.Equal(t, []string{"row", "col"}, names)
}

// TestGoldenDense checks the dense golden messages of spec §5 and §4.4.
func TestGoldenDense(t *testing.T) {
	for _, tc := range []struct {
		name    string
		typ     arrow.DataType
		shape   []int64
		strides []int64
		names   []string
	}{
		{"tensor", arrow.PrimitiveTypes.Int8, []int64{3}, []int64{1}, []string{"x"}},
		{"tensor-colmajor", arrow.PrimitiveTypes.Int16, []int64{2, 3}, []int64{2, 4}, []string{"", ""}},
		// Non-contiguous source: C++ drops the names (spec §4.4 bug 6).
		{"tensor-strided", arrow.PrimitiveTypes.Int32, []int64{2, 2}, []int64{8, 4}, []string{"", ""}},
		{"tensor-zero", arrow.PrimitiveTypes.Float64, []int64{2, 0, 3}, []int64{8, 8, 8}, []string{"a", "b", "c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, f := readGolden(t, tc.name)
			tt := f.Message.Tensor
			require.NotNil(t, tt)
			assert.Equal(t, wire.HeaderTensor, f.Message.Header)
			assert.Equal(t, tc.typ, tt.Type)
			sizes, names := shapeOf(tt.Shape)
			assert.Equal(t, tc.shape, sizes)
			assert.Equal(t, tc.names, names)
			assert.True(t, tt.HasStrides)
			assert.Equal(t, tc.strides, tt.Strides)
			assert.Equal(t, wire.Buffer{Offset: 0, Length: f.Message.BodyLength}, tt.Data)
			assert.Zero(t, (8+len(f.Metadata))%64)
		})
	}
}

// TestGoldenCOOZero is the empty COO of spec §3.1: strides [w, w], empty
// buffers, bodyLength omitted.
func TestGoldenCOOZero(t *testing.T) {
	_, f := readGolden(t, "coo-zero")
	st := f.Message.SparseTensor
	require.NotNil(t, st)
	assert.Zero(t, f.Message.BodyLength)
	assert.Zero(t, st.NonZeroLength)
	x := st.Index.(*wire.COOIndex)
	assert.Equal(t, []int64{8, 8}, x.IndicesStrides)
	assert.Equal(t, wire.Buffer{}, x.IndicesBuffer)
	assert.Equal(t, wire.Buffer{}, st.Data)
	row, col := wire.COOStrides(0, 2, 8)
	assert.Equal(t, [2]int64{8, 8}, row)
	assert.Equal(t, [2]int64{8, 8}, col)
	row, col = wire.COOStrides(3, 2, 8)
	assert.Equal(t, [2]int64{16, 8}, row)
	assert.Equal(t, [2]int64{8, 24}, col)
}
