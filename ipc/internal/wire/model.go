package wire

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// MetadataVersion is the Message.version field. Arrow C++ writes V5 and
// reads V4 and V5; so does this package.
type MetadataVersion int16

// Metadata versions, with their wire values.
const (
	V1 MetadataVersion = 0
	V2 MetadataVersion = 1
	V3 MetadataVersion = 2
	V4 MetadataVersion = 3
	V5 MetadataVersion = 4
)

// String returns "V1" … "V5", or the number for other values.
func (v MetadataVersion) String() string {
	if v >= V1 && v <= V5 {
		return fmt.Sprintf("V%d", int(v)+1)
	}
	return fmt.Sprintf("MetadataVersion(%d)", int16(v))
}

// HeaderKind is the Message.header_type union tag.
type HeaderKind uint8

// Header kinds, with their tags in the MessageHeader union.
const (
	HeaderNone            HeaderKind = 0
	HeaderSchema          HeaderKind = 1
	HeaderDictionaryBatch HeaderKind = 2
	HeaderRecordBatch     HeaderKind = 3
	HeaderTensor          HeaderKind = 4
	HeaderSparseTensor    HeaderKind = 5
)

// String returns the union member's name.
func (k HeaderKind) String() string {
	switch k {
	case HeaderNone:
		return "NONE"
	case HeaderSchema:
		return "Schema"
	case HeaderDictionaryBatch:
		return "DictionaryBatch"
	case HeaderRecordBatch:
		return "RecordBatch"
	case HeaderTensor:
		return "Tensor"
	case HeaderSparseTensor:
		return "SparseTensor"
	}
	return fmt.Sprintf("MessageHeader(%d)", uint8(k))
}

// Buffer is the flatbuffers Buffer struct: a range of the message body.
// Offset is counted from the start of the body. Length is in bytes, except
// in the CSF index buffers Arrow C++ writes, where it is an element count
// (see CSFIndex).
type Buffer struct {
	Offset int64
	Length int64
}

// End returns Offset+Length and whether the sum fits in int64.
func (b Buffer) End() (int64, bool) {
	if b.Offset < 0 || b.Length < 0 {
		return 0, false
	}
	e := b.Offset + b.Length
	return e, e >= b.Offset
}

// Dim is one TensorDim: the size of a dimension and its name.
type Dim struct {
	Size int64
	// Name is the dimension's name; "" when the name string is absent.
	Name string
	// HasName reports whether the name string is present on the wire.
	// Arrow C++ writes one for every dimension, "" when the tensor has no
	// dim names; the encoder writes Name only when HasName is true.
	HasName bool
}

// KeyValue is one custom_metadata entry. An absent key or value string
// decodes as ""; the encoder always writes both strings.
type KeyValue struct {
	Key   string
	Value string
}

// Message is the decoded flatbuffer metadata of one encapsulated message.
//
// Exactly one of Tensor and SparseTensor is set when Header is HeaderTensor
// or HeaderSparseTensor; for other headers both are nil and the header's
// content is not decoded.
type Message struct {
	Version MetadataVersion
	Header  HeaderKind
	// BodyLength is the number of body bytes after the metadata; 0 is not
	// stored on the wire.
	BodyLength int64
	// CustomMetadata is written only when non-empty. Arrow C++ never writes
	// it for tensor messages.
	CustomMetadata []KeyValue

	Tensor       *Tensor
	SparseTensor *SparseTensor
}

// Tensor is the metadata of a dense Tensor message.
type Tensor struct {
	// Type is the value type: one of the Arrow integer types or float16,
	// float32, float64.
	Type  arrow.DataType
	Shape []Dim
	// Strides are byte strides, one per dimension. Absent (HasStrides
	// false) or empty means row-major. Arrow C++ always writes them.
	Strides    []int64
	HasStrides bool
	// Data is the values' range in the body. Arrow C++ writes {0,
	// bodyLength} and ignores the field on read: the whole body is the
	// data.
	Data Buffer
}

// SparseTensor is the metadata of a SparseTensor message.
type SparseTensor struct {
	// Type is the value type, as for Tensor.
	Type  arrow.DataType
	Shape []Dim
	// NonZeroLength is the number of stored values (0 is not stored on the
	// wire). Arrow C++ ignores it for CSF.
	NonZeroLength int64
	// Index is one of *COOIndex, *CSXIndex and *CSFIndex.
	Index SparseIndex
	// Data is the values' range in the body; its offset must be a multiple
	// of 8.
	Data Buffer
}

// IndexKind is the SparseTensorIndex union tag.
type IndexKind uint8

// Sparse index kinds, with their union tags.
const (
	IndexNone IndexKind = 0
	IndexCOO  IndexKind = 1
	IndexCSX  IndexKind = 2
	IndexCSF  IndexKind = 3
)

// String returns "COO", "CSX", "CSF" or the tag.
func (k IndexKind) String() string {
	switch k {
	case IndexNone:
		return "NONE"
	case IndexCOO:
		return "COO"
	case IndexCSX:
		return "CSX"
	case IndexCSF:
		return "CSF"
	}
	return fmt.Sprintf("SparseTensorIndex(%d)", uint8(k))
}

// SparseIndex is the sparse index of a SparseTensor: *COOIndex, *CSXIndex
// or *CSFIndex.
type SparseIndex interface {
	// Kind returns the union tag.
	Kind() IndexKind
	isSparseIndex()
}

var (
	_ SparseIndex = (*COOIndex)(nil)
	_ SparseIndex = (*CSXIndex)(nil)
	_ SparseIndex = (*CSFIndex)(nil)
)

// COOIndex is a SparseTensorIndexCOO: the coordinates of the N stored
// values as an N × ndim integer matrix in IndicesBuffer.
type COOIndex struct {
	// IndicesType is the coordinates' integer type.
	IndicesType arrow.DataType
	// IndicesStrides are the byte strides of the N × ndim matrix: [ndim·w,
	// w] for row-major, [w, N·w] for column-major, [w, w] when N or ndim is
	// 0. Absent (HasIndicesStrides false) means row-major. Arrow C++ always
	// writes them.
	IndicesStrides    []int64
	HasIndicesStrides bool
	IndicesBuffer     Buffer
	// IsCanonical is the flag as written: rows sorted, no duplicates. It is
	// not checked here.
	IsCanonical bool
}

// CompressedAxis is SparseMatrixIndexCSX.compressedAxis.
type CompressedAxis int16

// Compressed axes: Row is CSR, Column is CSC.
const (
	AxisRow    CompressedAxis = 0
	AxisColumn CompressedAxis = 1
)

// String returns "Row" or "Column".
func (a CompressedAxis) String() string {
	switch a {
	case AxisRow:
		return "Row"
	case AxisColumn:
		return "Column"
	}
	return fmt.Sprintf("SparseMatrixCompressedAxis(%d)", int16(a))
}

// CSXIndex is a SparseMatrixIndexCSX: a CSR (AxisRow) or CSC (AxisColumn)
// matrix index.
type CSXIndex struct {
	CompressedAxis CompressedAxis
	IndptrType     arrow.DataType
	IndptrBuffer   Buffer
	IndicesType    arrow.DataType
	IndicesBuffer  Buffer
}

// CSFIndex is a SparseTensorIndexCSF. Arrow C++ writes the Length of every
// indptr and indices buffer as an element count, not bytes; see
// DetectCSFLengthUnit.
type CSFIndex struct {
	IndptrType     arrow.DataType
	IndptrBuffers  []Buffer // ndim-1 buffers
	IndicesType    arrow.DataType
	IndicesBuffers []Buffer // ndim buffers
	AxisOrder      []int32  // ndim entries, a permutation of the dimensions
}

// Kind returns IndexCOO.
func (*COOIndex) Kind() IndexKind { return IndexCOO }

// Kind returns IndexCSX.
func (*CSXIndex) Kind() IndexKind { return IndexCSX }

// Kind returns IndexCSF.
func (*CSFIndex) Kind() IndexKind { return IndexCSF }

func (*COOIndex) isSparseIndex() {}
func (*CSXIndex) isSparseIndex() {}
func (*CSFIndex) isSparseIndex() {}
