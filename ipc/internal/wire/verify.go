package wire

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// The verifier checks a Message flatbuffer the way the C++ flatbuffers
// Verifier does when Arrow C++ calls VerifyMessage, for exactly the tables
// this package reads: every uoffset, soffset, vtable, vector and string must
// lie inside the buffer; scalars, offsets and structs must be aligned to
// their size relative to the start of the buffer; strings must end in a NUL
// byte; required fields must be present; tables may nest at most
// maxVerifyDepth deep and at most 8 × len(buf) tables may be visited.
//
// Headers other than Tensor and SparseTensor, and Type union members other
// than Int and FloatingPoint, are checked only up to their vtable, since
// their fields are never read.

const (
	maxVerifyDepth = 128
	// maxFlatbufferSize is FLATBUFFERS_MAX_BUFFER_SIZE (2^31-1).
	maxFlatbufferSize = math.MaxInt32
)

type verifier struct {
	buf       []byte
	depth     int
	tables    int
	maxTables int
}

// vtable describes a verified table.
type vtable struct {
	pos   int // position of the table (its soffset)
	vt    int // position of its vtable
	vsize int // vtable size in bytes
}

func (v *verifier) errorf(format string, args ...any) error {
	return core.Errorf(arrowsparse.ErrStructure, "ipc: invalid flatbuffer metadata: "+format, args...)
}

// inRange reports whether n bytes at pos lie inside the buffer, with the C++
// Verifier's strict test (n < size && pos <= size-n).
func (v *verifier) inRange(pos, n int) bool {
	return pos >= 0 && n >= 0 && n < len(v.buf) && pos <= len(v.buf)-n
}

// scalar checks a size-byte scalar at pos, aligned to align.
func (v *verifier) scalar(pos, size, align int, what string) error {
	if !v.inRange(pos, size) {
		return v.errorf("%s: %d bytes at %d lie outside the %d-byte buffer", what, size, pos, len(v.buf))
	}
	if pos&(align-1) != 0 {
		return v.errorf("%s at byte %d is not %d-byte aligned", what, pos, align)
	}
	return nil
}

func (v *verifier) u16(pos int) int { return int(binary.LittleEndian.Uint16(v.buf[pos:])) }
func (v *verifier) u32(pos int) uint32 {
	return binary.LittleEndian.Uint32(v.buf[pos:])
}

// offset follows the uoffset stored at pos and returns the target position.
func (v *verifier) offset(pos int, what string) (int, error) {
	if err := v.scalar(pos, 4, 4, what+" offset"); err != nil {
		return 0, err
	}
	o := v.u32(pos)
	if o == 0 || o > math.MaxInt32 {
		return 0, v.errorf("%s: offset %d at byte %d is zero or negative", what, int32(o), pos)
	}
	target := pos + int(o)
	if !v.inRange(target, 1) {
		return 0, v.errorf("%s: offset at byte %d points to %d, outside the %d-byte buffer", what, pos, target, len(v.buf))
	}
	return target, nil
}

// table checks a table header and its vtable (C++ VerifyTableStart). The
// caller must call leave when done with the table's fields.
func (v *verifier) table(pos int, what string) (vtable, error) {
	if err := v.scalar(pos, 4, 4, what+" vtable offset"); err != nil {
		return vtable{}, err
	}
	vt := pos - int(int32(v.u32(pos)))
	v.depth++
	v.tables++
	if v.depth > maxVerifyDepth {
		return vtable{}, v.errorf("%s: tables nested deeper than %d", what, maxVerifyDepth)
	}
	if v.tables > v.maxTables {
		return vtable{}, v.errorf("%s: more than %d tables", what, v.maxTables)
	}
	if err := v.scalar(vt, 2, 2, what+" vtable"); err != nil {
		return vtable{}, err
	}
	vsize := v.u16(vt)
	if vsize&1 != 0 {
		return vtable{}, v.errorf("%s: vtable size %d at byte %d is odd", what, vsize, vt)
	}
	if !v.inRange(vt, vsize) {
		return vtable{}, v.errorf("%s: %d-byte vtable at byte %d lies outside the %d-byte buffer", what, vsize, vt, len(v.buf))
	}
	return vtable{pos: pos, vt: vt, vsize: vsize}, nil
}

func (v *verifier) leave() { v.depth-- }

// fieldPos returns the position of field id of t, or -1 if it is absent.
func (v *verifier) fieldPos(t vtable, id int) int {
	vo := 4 + 2*id
	if vo >= t.vsize {
		return -1
	}
	fo := v.u16(t.vt + vo)
	if fo == 0 {
		return -1
	}
	return t.pos + fo
}

// scalarField checks an optional inline field of the given size and
// alignment; required makes its absence an error.
func (v *verifier) scalarField(t vtable, id, size, align int, required bool, what string) error {
	p := v.fieldPos(t, id)
	if p < 0 {
		if required {
			return v.errorf("required field %s is missing", what)
		}
		return nil
	}
	return v.scalar(p, size, align, what)
}

// offsetField follows an offset field; it returns -1 if the field is absent
// (an error if it is required).
func (v *verifier) offsetField(t vtable, id int, required bool, what string) (int, error) {
	p := v.fieldPos(t, id)
	if p < 0 {
		if required {
			return -1, v.errorf("required field %s is missing", what)
		}
		return -1, nil
	}
	return v.offset(p, what)
}

// vector checks the vector at pos and returns the number of elements.
func (v *verifier) vector(pos, elemSize int, what string) (int, error) {
	if err := v.scalar(pos, 4, 4, what+" length"); err != nil {
		return 0, err
	}
	n := v.u32(pos)
	if uint64(n) >= uint64(maxFlatbufferSize/elemSize) {
		return 0, v.errorf("%s: vector length %d at byte %d is too large", what, n, pos)
	}
	size := 4 + elemSize*int(n)
	if !v.inRange(pos, size) {
		return 0, v.errorf("%s: vector of %d elements at byte %d runs past the end of the %d-byte buffer", what, n, pos, len(v.buf))
	}
	return int(n), nil
}

// string checks the string at pos.
func (v *verifier) string(pos int, what string) error {
	n, err := v.vector(pos, 1, what)
	if err != nil {
		return err
	}
	end := pos + 4 + n
	if !v.inRange(end, 1) || v.buf[end] != 0 {
		return v.errorf("%s: string at byte %d is not NUL-terminated inside the buffer", what, pos)
	}
	return nil
}

// vectorField checks an optional vector field with elements of elemSize
// bytes and returns its position (-1 if absent) and length.
func (v *verifier) vectorField(t vtable, id, elemSize int, required bool, what string) (int, int, error) {
	p, err := v.offsetField(t, id, required, what)
	if err != nil || p < 0 {
		return p, 0, err
	}
	n, err := v.vector(p, elemSize, what)
	return p, n, err
}

// message verifies the root Message table.
func (v *verifier) message() error {
	root, err := v.offset(0, "root")
	if err != nil {
		return err
	}
	t, err := v.table(root, "Message")
	if err != nil {
		return err
	}
	defer v.leave()
	if err := v.scalarField(t, msgVersion, 2, 2, false, "Message.version"); err != nil {
		return err
	}
	if err := v.scalarField(t, msgHeaderType, 1, 1, false, "Message.header_type"); err != nil {
		return err
	}
	hdr, err := v.offsetField(t, msgHeader, false, "Message.header")
	if err != nil {
		return err
	}
	if hdr >= 0 {
		kind := HeaderKind(0)
		if p := v.fieldPos(t, msgHeaderType); p >= 0 {
			kind = HeaderKind(v.buf[p])
		}
		switch kind {
		case HeaderTensor:
			err = v.tensor(hdr)
		case HeaderSparseTensor:
			err = v.sparseTensor(hdr)
		case HeaderSchema, HeaderDictionaryBatch, HeaderRecordBatch:
			err = v.opaqueTable(hdr, "Message.header ("+kind.String()+")")
		}
		if err != nil {
			return err
		}
	}
	if err := v.scalarField(t, msgBodyLength, 8, 8, false, "Message.bodyLength"); err != nil {
		return err
	}
	p, n, err := v.vectorField(t, msgCustomMetadata, 4, false, "Message.custom_metadata")
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if err := v.keyValue(p + 4 + 4*i); err != nil {
			return err
		}
	}
	return nil
}

// opaqueTable checks only a table's header and vtable.
func (v *verifier) opaqueTable(pos int, what string) error {
	_, err := v.table(pos, what)
	if err == nil {
		v.leave()
	}
	return err
}

// tableAt follows the uoffset of a vector element at pos (C++ reads it
// without VerifyOffset; the table check bounds the result).
func (v *verifier) tableAt(pos int) int {
	return pos + int(v.u32(pos))
}

func (v *verifier) keyValue(elem int) error {
	t, err := v.table(v.tableAt(elem), "KeyValue")
	if err != nil {
		return err
	}
	defer v.leave()
	for _, f := range []struct {
		id   int
		name string
	}{{kvKey, "KeyValue.key"}, {kvValue, "KeyValue.value"}} {
		p, err := v.offsetField(t, f.id, false, f.name)
		if err != nil {
			return err
		}
		if p >= 0 {
			if err := v.string(p, f.name); err != nil {
				return err
			}
		}
	}
	return nil
}

// typeUnion checks a Type union member given its tag field and value field.
func (v *verifier) typeUnion(t vtable, tagID, valID int, what string) error {
	if err := v.scalarField(t, tagID, 1, 1, false, what+"_type"); err != nil {
		return err
	}
	p, err := v.offsetField(t, valID, true, what)
	if err != nil {
		return err
	}
	tag := 0
	if tp := v.fieldPos(t, tagID); tp >= 0 {
		tag = int(v.buf[tp])
	}
	switch tag {
	case typeTagNone:
		return nil
	case typeTagInt:
		return v.intTable(p, what+" (Int)")
	case typeTagFloatingPoint:
		ft, err := v.table(p, what+" (FloatingPoint)")
		if err != nil {
			return err
		}
		defer v.leave()
		return v.scalarField(ft, fpPrecision, 2, 2, false, what+".precision")
	}
	if tag <= maxTypeTag {
		return v.opaqueTable(p, fmt.Sprintf("%s (Type tag %d)", what, tag))
	}
	return nil // unknown union members are not verified, as in C++
}

func (v *verifier) intTable(pos int, what string) error {
	t, err := v.table(pos, what)
	if err != nil {
		return err
	}
	defer v.leave()
	if err := v.scalarField(t, intBitWidth, 4, 4, false, what+".bitWidth"); err != nil {
		return err
	}
	return v.scalarField(t, intIsSigned, 1, 1, false, what+".is_signed")
}

// requiredInt checks a required Int table field.
func (v *verifier) requiredInt(t vtable, id int, what string) error {
	p, err := v.offsetField(t, id, true, what)
	if err != nil {
		return err
	}
	return v.intTable(p, what)
}

// shape checks a required [TensorDim] field.
func (v *verifier) shape(t vtable, id int, what string) error {
	p, n, err := v.vectorField(t, id, 4, true, what)
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		dt, err := v.table(v.tableAt(p+4+4*i), fmt.Sprintf("%s[%d]", what, i))
		if err != nil {
			return err
		}
		if err := v.scalarField(dt, dimSize, 8, 8, false, "TensorDim.size"); err != nil {
			return err
		}
		np, err := v.offsetField(dt, dimName, false, "TensorDim.name")
		if err != nil {
			return err
		}
		if np >= 0 {
			if err := v.string(np, "TensorDim.name"); err != nil {
				return err
			}
		}
		v.leave()
	}
	return nil
}

func (v *verifier) tensor(pos int) error {
	t, err := v.table(pos, "Tensor")
	if err != nil {
		return err
	}
	defer v.leave()
	if err := v.typeUnion(t, tensorTypeType, tensorType, "Tensor.type"); err != nil {
		return err
	}
	if err := v.shape(t, tensorShape, "Tensor.shape"); err != nil {
		return err
	}
	if _, _, err := v.vectorField(t, tensorStrides, 8, false, "Tensor.strides"); err != nil {
		return err
	}
	return v.scalarField(t, tensorData, 16, 8, true, "Tensor.data")
}

func (v *verifier) sparseTensor(pos int) error {
	t, err := v.table(pos, "SparseTensor")
	if err != nil {
		return err
	}
	defer v.leave()
	if err := v.typeUnion(t, sparseTypeType, sparseType, "SparseTensor.type"); err != nil {
		return err
	}
	if err := v.shape(t, sparseShape, "SparseTensor.shape"); err != nil {
		return err
	}
	if err := v.scalarField(t, sparseNonZeroLength, 8, 8, false, "SparseTensor.non_zero_length"); err != nil {
		return err
	}
	if err := v.scalarField(t, sparseIndexType, 1, 1, false, "SparseTensor.sparseIndex_type"); err != nil {
		return err
	}
	ip, err := v.offsetField(t, sparseIndex, true, "SparseTensor.sparseIndex")
	if err != nil {
		return err
	}
	tag := IndexNone
	if p := v.fieldPos(t, sparseIndexType); p >= 0 {
		tag = IndexKind(v.buf[p])
	}
	switch tag {
	case IndexCOO:
		err = v.coo(ip)
	case IndexCSX:
		err = v.csx(ip)
	case IndexCSF:
		err = v.csf(ip)
	}
	if err != nil {
		return err
	}
	return v.scalarField(t, sparseData, 16, 8, true, "SparseTensor.data")
}

func (v *verifier) coo(pos int) error {
	t, err := v.table(pos, "SparseTensorIndexCOO")
	if err != nil {
		return err
	}
	defer v.leave()
	if err := v.requiredInt(t, cooIndicesType, "SparseTensorIndexCOO.indicesType"); err != nil {
		return err
	}
	if _, _, err := v.vectorField(t, cooIndicesStrides, 8, false, "SparseTensorIndexCOO.indicesStrides"); err != nil {
		return err
	}
	if err := v.scalarField(t, cooIndicesBuffer, 16, 8, true, "SparseTensorIndexCOO.indicesBuffer"); err != nil {
		return err
	}
	return v.scalarField(t, cooIsCanonical, 1, 1, false, "SparseTensorIndexCOO.isCanonical")
}

func (v *verifier) csx(pos int) error {
	t, err := v.table(pos, "SparseMatrixIndexCSX")
	if err != nil {
		return err
	}
	defer v.leave()
	if err := v.scalarField(t, csxCompressedAxis, 2, 2, false, "SparseMatrixIndexCSX.compressedAxis"); err != nil {
		return err
	}
	if err := v.requiredInt(t, csxIndptrType, "SparseMatrixIndexCSX.indptrType"); err != nil {
		return err
	}
	if err := v.scalarField(t, csxIndptrBuffer, 16, 8, true, "SparseMatrixIndexCSX.indptrBuffer"); err != nil {
		return err
	}
	if err := v.requiredInt(t, csxIndicesType, "SparseMatrixIndexCSX.indicesType"); err != nil {
		return err
	}
	return v.scalarField(t, csxIndicesBuffer, 16, 8, true, "SparseMatrixIndexCSX.indicesBuffer")
}

func (v *verifier) csf(pos int) error {
	t, err := v.table(pos, "SparseTensorIndexCSF")
	if err != nil {
		return err
	}
	defer v.leave()
	if err := v.requiredInt(t, csfIndptrType, "SparseTensorIndexCSF.indptrType"); err != nil {
		return err
	}
	if _, _, err := v.vectorField(t, csfIndptrBuffers, 16, true, "SparseTensorIndexCSF.indptrBuffers"); err != nil {
		return err
	}
	if err := v.requiredInt(t, csfIndicesType, "SparseTensorIndexCSF.indicesType"); err != nil {
		return err
	}
	if _, _, err := v.vectorField(t, csfIndicesBuffers, 16, true, "SparseTensorIndexCSF.indicesBuffers"); err != nil {
		return err
	}
	_, _, err = v.vectorField(t, csfAxisOrder, 4, true, "SparseTensorIndexCSF.axisOrder")
	return err
}
