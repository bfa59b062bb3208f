package wire

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// Union tags of the Type union used for tensor values and indices.
const (
	typeTagNone          = 0
	typeTagInt           = 2
	typeTagFloatingPoint = 3
)

// FloatingPoint.precision values.
const (
	precisionHalf   = 0
	precisionSingle = 1
	precisionDouble = 2
)

// Field ids of the tables the encoder writes (position in the schema).
const (
	msgVersion        = 0
	msgHeaderType     = 1
	msgHeader         = 2
	msgBodyLength     = 3
	msgCustomMetadata = 4

	kvKey   = 0
	kvValue = 1

	dimSize = 0
	dimName = 1

	tensorTypeType = 0
	tensorType     = 1
	tensorShape    = 2
	tensorStrides  = 3
	tensorData     = 4

	sparseTypeType      = 0
	sparseType          = 1
	sparseShape         = 2
	sparseNonZeroLength = 3
	sparseIndexType     = 4
	sparseIndex         = 5
	sparseData          = 6

	cooIndicesType    = 0
	cooIndicesStrides = 1
	cooIndicesBuffer  = 2
	cooIsCanonical    = 3

	csxCompressedAxis = 0
	csxIndptrType     = 1
	csxIndptrBuffer   = 2
	csxIndicesType    = 3
	csxIndicesBuffer  = 4

	csfIndptrType     = 0
	csfIndptrBuffers  = 1
	csfIndicesType    = 2
	csfIndicesBuffers = 3
	csfAxisOrder      = 4

	intBitWidth = 0
	intIsSigned = 1

	fpPrecision = 0
)

// EncodeMetadata returns the flatbuffer bytes of m: the Message table and
// everything it refers to, without framing or padding.
//
// For any message Arrow C++ can write, the bytes are identical to Arrow
// C++'s: objects are created in the order of Arrow's writer
// (metadata_internal.cc), fields are added in the order of the generated
// C++ CreateX helpers, vtables are de-duplicated by whole-vtable comparison,
// and default values are not stored. Concretely:
//
//   - Tensor: value type, then per dimension its name string (if HasName)
//     and TensorDim table, the TensorDim vector, the strides vector (if
//     HasStrides), the Tensor table.
//   - SparseTensor: value type, the dimensions as for Tensor, then the index
//     (COO: Int, strides vector if present, COO table; CSX: indptr Int,
//     indices Int, CSX table; CSF: indptr Int, indices Int, indicesBuffers
//     vector, indptrBuffers vector, axisOrder vector, CSF table), then the
//     SparseTensor table.
//   - Then, only if m.CustomMetadata is non-empty, for each entry its key
//     string, value string and KeyValue table (fields added value, key),
//     then the vector of KeyValue offsets. Arrow C++ never writes
//     custom_metadata for tensors; this position (after the header table,
//     before the Message table) is where Arrow C++'s WriteFBMessage builds
//     it for other messages.
//   - The Message table, with fields added as bodyLength, custom_metadata,
//     header, version, header_type. Defaults (bodyLength 0, non_zero_length
//     0, size 0, isCanonical false, compressedAxis Row, is_signed false,
//     precision HALF, version V1) are omitted.
//
// EncodeMetadata checks only what it needs to write the message: a Tensor or
// SparseTensor header that matches Header, supported value and index types
// and a known index kind. It does not call Validate.
func EncodeMetadata(m *Message) ([]byte, error) {
	if m == nil {
		return nil, core.Errorf(arrowsparse.ErrStructure, "ipc: nil message")
	}
	b := newBuilder(512)
	var header int
	var err error
	switch m.Header {
	case HeaderTensor:
		if m.Tensor == nil || m.SparseTensor != nil {
			return nil, core.Errorf(arrowsparse.ErrStructure, "ipc: message with header Tensor must have Tensor set and SparseTensor nil")
		}
		header, err = b.tensor(m.Tensor)
	case HeaderSparseTensor:
		if m.SparseTensor == nil || m.Tensor != nil {
			return nil, core.Errorf(arrowsparse.ErrStructure, "ipc: message with header SparseTensor must have SparseTensor set and Tensor nil")
		}
		header, err = b.sparseTensor(m.SparseTensor)
	default:
		return nil, core.Errorf(arrowsparse.ErrStructure, "ipc: cannot encode a %s message: only Tensor and SparseTensor headers are supported", m.Header)
	}
	if err != nil {
		return nil, err
	}

	var custom int
	if len(m.CustomMetadata) > 0 {
		kvs := make([]int, len(m.CustomMetadata))
		for i, kv := range m.CustomMetadata {
			key := b.createString(kv.Key)
			value := b.createString(kv.Value)
			b.startTable()
			b.addOffset(kvValue, value)
			b.addOffset(kvKey, key)
			kvs[i] = b.endTable()
		}
		custom = b.createOffsetVector(kvs)
	}

	b.startTable()
	b.addI64(msgBodyLength, m.BodyLength, 0)
	b.addOffset(msgCustomMetadata, custom)
	b.addOffset(msgHeader, header)
	b.addI16(msgVersion, int16(m.Version), 0)
	b.addU8(msgHeaderType, uint8(m.Header), 0)
	root := b.endTable()
	return b.finish(root), nil
}

func (b *builder) tensor(t *Tensor) (int, error) {
	tag, typ, err := b.valueType(t.Type)
	if err != nil {
		return 0, err
	}
	shape := b.dims(t.Shape)
	var strides int
	if t.HasStrides {
		strides = b.createInt64Vector(t.Strides)
	}
	b.startTable()
	b.addBuffer(tensorData, t.Data)
	b.addOffset(tensorStrides, strides)
	b.addOffset(tensorShape, shape)
	b.addOffset(tensorType, typ)
	b.addU8(tensorTypeType, tag, typeTagNone)
	return b.endTable(), nil
}

func (b *builder) sparseTensor(st *SparseTensor) (int, error) {
	tag, typ, err := b.valueType(st.Type)
	if err != nil {
		return 0, err
	}
	shape := b.dims(st.Shape)
	var index int
	var kind IndexKind
	switch x := st.Index.(type) {
	case *COOIndex:
		if x == nil {
			break
		}
		kind = IndexCOO
		indices, err := b.intType(x.IndicesType, "COO indicesType")
		if err != nil {
			return 0, err
		}
		var strides int
		if x.HasIndicesStrides {
			strides = b.createInt64Vector(x.IndicesStrides)
		}
		b.startTable()
		b.addBuffer(cooIndicesBuffer, x.IndicesBuffer)
		b.addOffset(cooIndicesStrides, strides)
		b.addOffset(cooIndicesType, indices)
		b.addBool(cooIsCanonical, x.IsCanonical)
		index = b.endTable()
	case *CSXIndex:
		if x == nil {
			break
		}
		kind = IndexCSX
		if x.CompressedAxis != AxisRow && x.CompressedAxis != AxisColumn {
			return 0, core.Errorf(arrowsparse.ErrStructure, "ipc: CSX compressedAxis %d is neither Row (0) nor Column (1)", int16(x.CompressedAxis))
		}
		indptr, err := b.intType(x.IndptrType, "CSX indptrType")
		if err != nil {
			return 0, err
		}
		indices, err := b.intType(x.IndicesType, "CSX indicesType")
		if err != nil {
			return 0, err
		}
		b.startTable()
		b.addBuffer(csxIndicesBuffer, x.IndicesBuffer)
		b.addOffset(csxIndicesType, indices)
		b.addBuffer(csxIndptrBuffer, x.IndptrBuffer)
		b.addOffset(csxIndptrType, indptr)
		b.addI16(csxCompressedAxis, int16(x.CompressedAxis), int16(AxisRow))
		index = b.endTable()
	case *CSFIndex:
		if x == nil {
			break
		}
		kind = IndexCSF
		indptr, err := b.intType(x.IndptrType, "CSF indptrType")
		if err != nil {
			return 0, err
		}
		indices, err := b.intType(x.IndicesType, "CSF indicesType")
		if err != nil {
			return 0, err
		}
		indicesBufs := b.createBufferVector(x.IndicesBuffers)
		indptrBufs := b.createBufferVector(x.IndptrBuffers)
		axisOrder := b.createInt32Vector(x.AxisOrder)
		b.startTable()
		b.addOffset(csfAxisOrder, axisOrder)
		b.addOffset(csfIndicesBuffers, indicesBufs)
		b.addOffset(csfIndicesType, indices)
		b.addOffset(csfIndptrBuffers, indptrBufs)
		b.addOffset(csfIndptrType, indptr)
		index = b.endTable()
	}
	if kind == IndexNone {
		return 0, core.Errorf(arrowsparse.ErrStructure, "ipc: sparse tensor without an index (want *COOIndex, *CSXIndex or *CSFIndex)")
	}
	b.startTable()
	b.addI64(sparseNonZeroLength, st.NonZeroLength, 0)
	b.addBuffer(sparseData, st.Data)
	b.addOffset(sparseIndex, index)
	b.addOffset(sparseShape, shape)
	b.addOffset(sparseType, typ)
	b.addU8(sparseIndexType, uint8(kind), 0)
	b.addU8(sparseTypeType, tag, typeTagNone)
	return b.endTable(), nil
}

// dims writes the name strings and TensorDim tables, then their vector.
func (b *builder) dims(shape []Dim) int {
	offs := make([]int, len(shape))
	for i, d := range shape {
		var name int
		if d.HasName {
			name = b.createString(d.Name)
		}
		b.startTable()
		b.addI64(dimSize, d.Size, 0)
		b.addOffset(dimName, name)
		offs[i] = b.endTable()
	}
	return b.createOffsetVector(offs)
}

// valueType writes the Type union member for a tensor value type and
// returns its tag and offset.
func (b *builder) valueType(dt arrow.DataType) (uint8, int, error) {
	if err := core.CheckValueType(dt); err != nil {
		return 0, 0, core.Errorf(arrowsparse.ErrUnsupportedType, "ipc: value type: %w", err)
	}
	switch dt.ID() {
	case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
		p := int16(precisionDouble)
		switch dt.ID() {
		case arrow.FLOAT16:
			p = precisionHalf
		case arrow.FLOAT32:
			p = precisionSingle
		}
		b.startTable()
		b.addI16(fpPrecision, p, precisionHalf)
		return typeTagFloatingPoint, b.endTable(), nil
	}
	off, err := b.intType(dt, "value type")
	return typeTagInt, off, err
}

// intType writes an Int table for an integer type (bitWidth, then
// is_signed, as C++ CreateInt adds them).
func (b *builder) intType(dt arrow.DataType, what string) (int, error) {
	width, signed, ok := intParams(dt)
	if !ok {
		return 0, core.Errorf(arrowsparse.ErrUnsupportedType, "ipc: %s %s is not an integer type", what, typeName(dt))
	}
	b.startTable()
	b.addI32(intBitWidth, width, 0)
	b.addBool(intIsSigned, signed)
	return b.endTable(), nil
}

func intParams(dt arrow.DataType) (width int32, signed, ok bool) {
	if dt == nil {
		return 0, false, false
	}
	switch dt.ID() {
	case arrow.INT8:
		return 8, true, true
	case arrow.INT16:
		return 16, true, true
	case arrow.INT32:
		return 32, true, true
	case arrow.INT64:
		return 64, true, true
	case arrow.UINT8:
		return 8, false, true
	case arrow.UINT16:
		return 16, false, true
	case arrow.UINT32:
		return 32, false, true
	case arrow.UINT64:
		return 64, false, true
	}
	return 0, false, false
}

func typeName(dt arrow.DataType) string {
	if dt == nil {
		return "<nil>"
	}
	return dt.String()
}
