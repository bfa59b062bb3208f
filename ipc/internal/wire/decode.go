package wire

import (
	"github.com/apache/arrow-go/v18/arrow"
	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/ipc/internal/flatbuf"
)

// maxTypeTag is the largest tag of the Type union (LargeListView).
const maxTypeTag = 26

// DecodeMetadata decodes the flatbuffer Message in meta: the M metadata
// bytes of a frame, flatbuffer followed by any zero padding.
//
// It never panics. It first verifies the buffer as the C++ flatbuffers
// Verifier does for Arrow's VerifyMessage (bounds of every offset, vtable,
// vector and string; alignment of scalars and structs relative to the start
// of meta; required fields; nesting depth), then reads it through the
// generated bindings and applies the checks Arrow C++ makes when it opens a
// message and in GetTensorMetadata / GetSparseTensorMetadata:
//
//   - version V4 or V5;
//   - bodyLength ≥ 0;
//   - for Tensor and SparseTensor headers: a value type that is Int (bit
//     width 8, 16, 32 or 64) or FloatingPoint (HALF is float16, SINGLE
//     float32, anything else float64, as in C++), not NONE; dimension sizes
//     ≥ 0;
//   - Tensor: strides, if present and non-empty, one per dimension;
//   - SparseTensor: non_zero_length ≥ 0; index COO, CSX or CSF; CSX
//     compressedAxis Row or Column; index Int types of a supported width.
//
// Other header kinds (Schema, DictionaryBatch, RecordBatch) are accepted
// with only their table header verified; their content is not decoded.
// A NONE or unknown header kind, or a missing header, is an error.
//
// Checks that involve the body or the relations between fields (buffers
// inside the body, index types, per-kind rank rules) are in
// (*Message).Validate.
//
// The returned Message shares no memory with meta.
func DecodeMetadata(meta []byte) (m *Message, err error) {
	if len(meta) > maxFlatbufferSize {
		return nil, core.Errorf(arrowsparse.ErrBufferSize, "ipc: metadata of %d bytes exceeds the flatbuffers limit of %d bytes", len(meta), maxFlatbufferSize)
	}
	v := &verifier{buf: meta, maxTables: 8 * len(meta)}
	if err := v.message(); err != nil {
		return nil, err
	}
	// The verifier has checked everything the code below reads; a panic here
	// would be a bug in the verifier, reported as an error rather than a
	// crash.
	defer func() {
		if r := recover(); r != nil {
			m = nil
			err = core.Errorf(arrowsparse.ErrStructure, "ipc: corrupt flatbuffer metadata (%v)", r)
		}
	}()
	return decodeMessage(flatbuf.GetRootAsMessage(meta, 0))
}

func decodeMessage(fm *flatbuf.Message) (*Message, error) {
	m := &Message{
		Version:    MetadataVersion(fm.Version()),
		Header:     HeaderKind(fm.HeaderType()),
		BodyLength: fm.BodyLength(),
	}
	if m.Version < V4 {
		return nil, core.Errorf(arrowsparse.ErrStructure, "ipc: metadata version %s is too old (Arrow C++ reads V4 and V5)", m.Version)
	}
	if m.Version > V5 {
		return nil, core.Errorf(arrowsparse.ErrStructure, "ipc: metadata version %s is newer than V5, the latest this reader knows", m.Version)
	}
	if m.BodyLength < 0 {
		return nil, core.Errorf(arrowsparse.ErrBufferSize, "ipc: negative bodyLength %d", m.BodyLength)
	}
	if n := fm.CustomMetadataLength(); n > 0 {
		m.CustomMetadata = make([]KeyValue, n)
		var kv flatbuf.KeyValue
		for i := range m.CustomMetadata {
			fm.CustomMetadata(&kv, i)
			m.CustomMetadata[i] = KeyValue{Key: string(kv.Key()), Value: string(kv.Value())}
		}
	}
	var hdr flatbuffers.Table
	if m.Header == HeaderNone || !fm.Header(&hdr) {
		return nil, core.Errorf(arrowsparse.ErrStructure, "ipc: message has no header (header_type %s)", m.Header)
	}
	switch m.Header {
	case HeaderTensor:
		var ft flatbuf.Tensor
		ft.Init(hdr.Bytes, hdr.Pos)
		t, err := decodeTensor(&ft)
		if err != nil {
			return nil, err
		}
		m.Tensor = t
	case HeaderSparseTensor:
		var fst flatbuf.SparseTensor
		fst.Init(hdr.Bytes, hdr.Pos)
		st, err := decodeSparseTensor(&fst)
		if err != nil {
			return nil, err
		}
		m.SparseTensor = st
	case HeaderSchema, HeaderDictionaryBatch, HeaderRecordBatch:
		// Not a tensor message; the caller decides what to do with it.
	default:
		return nil, core.Errorf(arrowsparse.ErrStructure, "ipc: unknown message header type %d", uint8(m.Header))
	}
	return m, nil
}

// tableHas reports whether field id of the table is present.
func tableHas(t flatbuffers.Table, id int) bool {
	return t.Offset(flatbuffers.VOffsetT(4+2*id)) != 0
}

func decodeTensor(ft *flatbuf.Tensor) (*Tensor, error) {
	var ut flatbuffers.Table
	ft.Type(&ut)
	typ, err := decodeValueType(uint8(ft.TypeType()), ut, "Tensor")
	if err != nil {
		return nil, err
	}
	shape, err := decodeShape(ft.ShapeLength(), ft.Shape, "Tensor")
	if err != nil {
		return nil, err
	}
	t := &Tensor{Type: typ, Shape: shape}
	if tableHas(ft.Table(), tensorStrides) {
		t.HasStrides = true
		t.Strides = make([]int64, ft.StridesLength())
		for i := range t.Strides {
			t.Strides[i] = ft.Strides(i)
		}
		if len(t.Strides) != 0 && len(t.Strides) != len(shape) {
			return nil, core.Errorf(arrowsparse.ErrShape, "ipc: Tensor has %d strides for %d dimensions", len(t.Strides), len(shape))
		}
	}
	var b flatbuf.Buffer
	ft.Data(&b)
	t.Data = Buffer{Offset: b.Offset(), Length: b.Length()}
	return t, nil
}

func decodeSparseTensor(fst *flatbuf.SparseTensor) (*SparseTensor, error) {
	var ut flatbuffers.Table
	fst.Type(&ut)
	typ, err := decodeValueType(uint8(fst.TypeType()), ut, "SparseTensor")
	if err != nil {
		return nil, err
	}
	shape, err := decodeShape(fst.ShapeLength(), fst.Shape, "SparseTensor")
	if err != nil {
		return nil, err
	}
	st := &SparseTensor{Type: typ, Shape: shape, NonZeroLength: fst.NonZeroLength()}
	if st.NonZeroLength < 0 {
		return nil, core.Errorf(arrowsparse.ErrShape, "ipc: SparseTensor has negative non_zero_length %d", st.NonZeroLength)
	}
	var b flatbuf.Buffer
	fst.Data(&b)
	st.Data = Buffer{Offset: b.Offset(), Length: b.Length()}

	var it flatbuffers.Table
	fst.SparseIndex(&it)
	switch kind := IndexKind(fst.SparseIndexType()); kind {
	case IndexCOO:
		var fc flatbuf.SparseTensorIndexCOO
		fc.Init(it.Bytes, it.Pos)
		x := &COOIndex{IsCanonical: fc.IsCanonical()}
		if x.IndicesType, err = decodeIndexType(fc.IndicesType(nil), "COO indicesType"); err != nil {
			return nil, err
		}
		if tableHas(fc.Table(), cooIndicesStrides) {
			x.HasIndicesStrides = true
			x.IndicesStrides = make([]int64, fc.IndicesStridesLength())
			for i := range x.IndicesStrides {
				x.IndicesStrides[i] = fc.IndicesStrides(i)
			}
		}
		fc.IndicesBuffer(&b)
		x.IndicesBuffer = Buffer{Offset: b.Offset(), Length: b.Length()}
		st.Index = x
	case IndexCSX:
		var fc flatbuf.SparseMatrixIndexCSX
		fc.Init(it.Bytes, it.Pos)
		x := &CSXIndex{CompressedAxis: CompressedAxis(fc.CompressedAxis())}
		if x.CompressedAxis != AxisRow && x.CompressedAxis != AxisColumn {
			return nil, core.Errorf(arrowsparse.ErrStructure, "ipc: CSX compressedAxis %d is neither Row (0) nor Column (1)", int16(x.CompressedAxis))
		}
		if x.IndptrType, err = decodeIndexType(fc.IndptrType(nil), "CSX indptrType"); err != nil {
			return nil, err
		}
		if x.IndicesType, err = decodeIndexType(fc.IndicesType(nil), "CSX indicesType"); err != nil {
			return nil, err
		}
		fc.IndptrBuffer(&b)
		x.IndptrBuffer = Buffer{Offset: b.Offset(), Length: b.Length()}
		fc.IndicesBuffer(&b)
		x.IndicesBuffer = Buffer{Offset: b.Offset(), Length: b.Length()}
		st.Index = x
	case IndexCSF:
		var fc flatbuf.SparseTensorIndexCSF
		fc.Init(it.Bytes, it.Pos)
		x := &CSFIndex{}
		if x.IndptrType, err = decodeIndexType(fc.IndptrType(nil), "CSF indptrType"); err != nil {
			return nil, err
		}
		if x.IndicesType, err = decodeIndexType(fc.IndicesType(nil), "CSF indicesType"); err != nil {
			return nil, err
		}
		x.IndptrBuffers = make([]Buffer, fc.IndptrBuffersLength())
		for i := range x.IndptrBuffers {
			fc.IndptrBuffers(&b, i)
			x.IndptrBuffers[i] = Buffer{Offset: b.Offset(), Length: b.Length()}
		}
		x.IndicesBuffers = make([]Buffer, fc.IndicesBuffersLength())
		for i := range x.IndicesBuffers {
			fc.IndicesBuffers(&b, i)
			x.IndicesBuffers[i] = Buffer{Offset: b.Offset(), Length: b.Length()}
		}
		x.AxisOrder = make([]int32, fc.AxisOrderLength())
		for i := range x.AxisOrder {
			x.AxisOrder[i] = fc.AxisOrder(i)
		}
		st.Index = x
	default:
		return nil, core.Errorf(arrowsparse.ErrStructure, "ipc: unrecognised sparse index type %d (want COO = 1, CSX = 2 or CSF = 3)", uint8(kind))
	}
	return st, nil
}

func decodeShape(n int, get func(*flatbuf.TensorDim, int) bool, what string) ([]Dim, error) {
	shape := make([]Dim, n)
	var fd flatbuf.TensorDim
	for i := range shape {
		get(&fd, i)
		d := Dim{Size: fd.Size(), HasName: tableHas(fd.Table(), dimName)}
		if d.HasName {
			d.Name = string(fd.Name())
		}
		if d.Size < 0 {
			return nil, core.Errorf(arrowsparse.ErrShape, "ipc: %s dimension %d has negative size %d", what, i, d.Size)
		}
		shape[i] = d
	}
	return shape, nil
}

// typeNames names the members of the Type union, by tag.
var typeNames = [...]string{
	"NONE", "Null", "Int", "FloatingPoint", "Binary", "Utf8", "Bool", "Decimal",
	"Date", "Time", "Timestamp", "Interval", "List", "Struct_", "Union",
	"FixedSizeBinary", "FixedSizeList", "Map", "Duration", "LargeBinary",
	"LargeUtf8", "LargeList", "RunEndEncoded", "BinaryView", "Utf8View",
	"ListView", "LargeListView",
}

// decodeValueType converts a Type union member to a tensor value type.
func decodeValueType(tag uint8, t flatbuffers.Table, what string) (arrow.DataType, error) {
	switch tag {
	case typeTagNone:
		return nil, core.Errorf(arrowsparse.ErrStructure, "ipc: %s value type is NONE", what)
	case typeTagInt:
		var fi flatbuf.Int
		fi.Init(t.Bytes, t.Pos)
		return intType(&fi, what+" value type")
	case typeTagFloatingPoint:
		var ff flatbuf.FloatingPoint
		ff.Init(t.Bytes, t.Pos)
		switch ff.Precision() {
		case flatbuf.PrecisionHALF:
			return arrow.FixedWidthTypes.Float16, nil
		case flatbuf.PrecisionSINGLE:
			return arrow.PrimitiveTypes.Float32, nil
		default: // DOUBLE, and any other value, as in Arrow C++
			return arrow.PrimitiveTypes.Float64, nil
		}
	}
	if int(tag) < len(typeNames) {
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "ipc: %s value type %s (Type tag %d) is not a tensor type (want Int or FloatingPoint)", what, typeNames[tag], tag)
	}
	return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "ipc: %s value type has unknown Type tag %d", what, tag)
}

func decodeIndexType(fi *flatbuf.Int, what string) (arrow.DataType, error) {
	return intType(fi, what)
}

// intType converts an Int table as Arrow C++'s IntFromFlatbuffer does.
func intType(fi *flatbuf.Int, what string) (arrow.DataType, error) {
	signed := fi.IsSigned()
	switch w := fi.BitWidth(); w {
	case 8:
		if signed {
			return arrow.PrimitiveTypes.Int8, nil
		}
		return arrow.PrimitiveTypes.Uint8, nil
	case 16:
		if signed {
			return arrow.PrimitiveTypes.Int16, nil
		}
		return arrow.PrimitiveTypes.Uint16, nil
	case 32:
		if signed {
			return arrow.PrimitiveTypes.Int32, nil
		}
		return arrow.PrimitiveTypes.Uint32, nil
	case 64:
		if signed {
			return arrow.PrimitiveTypes.Int64, nil
		}
		return arrow.PrimitiveTypes.Uint64, nil
	default:
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "ipc: %s: Int bitWidth %d is not supported (want 8, 16, 32 or 64)", what, w)
	}
}
