package wire

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// Validate checks the structural rules of a Tensor or SparseTensor message
// that can be decided from the metadata alone, with m.BodyLength as the body
// size. It returns nil for every message Arrow C++ writes, and an error
// (built with core.Errorf) for the malformed messages listed below,
// most of which Arrow C++ also rejects. It reads no body bytes: index
// values, indptr contents and canonical order are for the tensor layer.
//
// Common rules: a supported value type and shape (DecodeMetadata already
// ensures both for decoded messages).
//
// Tensor:
//   - strides, if present and non-empty, one per dimension, none negative
//     where the dimension has more than one element;
//   - the data the shape and strides address fits in the body (the largest
//     offset plus the value width is at most bodyLength), as Arrow C++'s
//     ValidateTensorParameters requires. Tensor.Data is not checked: Arrow
//     C++ ignores it and takes the whole body as the data.
//
// SparseTensor, all kinds:
//   - data inside the body and data.offset a multiple of 8 (the only
//     alignment Arrow C++ checks);
//   - every index buffer inside the body;
//   - index types from the Arrow sparse index types (uint64 is rejected)
//     and wide enough for the index tensors' dimensions, as Arrow C++'s
//     CheckSparseIndexMaximumValue requires.
//
// COO: indicesStrides, if present and non-empty, exactly 2 entries equal to
// the row-major or column-major byte strides of the N × ndim coordinate
// matrix (N = non_zero_length), with Arrow C++'s rule that both are [w, w]
// when N or ndim is 0; an indicesBuffer of at least N·ndim·w bytes. Absent
// strides mean row-major; unlike Arrow C++, which then insists on
// [ndim·w, w] even when N or ndim is 0, Validate accepts them for any N,
// since the coordinate matrix holds no bytes then.
//
// CSX: ndim 2; an indptrBuffer of at least (shape[axis]+1)·w bytes and an
// indicesBuffer of at least N·w bytes.
//
// CSF: ndim ≥ 2; ndim-1 indptr buffers, ndim indices buffers and ndim axis
// order entries; axisOrder a permutation of 0..ndim-1; buffer lengths in a
// recognisable unit (DetectCSFLengthUnit) whose byte extents lie inside the
// body. non_zero_length is not compared with the last level, as Arrow C++
// ignores it for CSF.
func (m *Message) Validate() error {
	if m == nil {
		return core.Errorf(arrowsparse.ErrStructure, "ipc: nil message")
	}
	if m.BodyLength < 0 {
		return core.Errorf(arrowsparse.ErrBufferSize, "ipc: negative bodyLength %d", m.BodyLength)
	}
	switch m.Header {
	case HeaderTensor:
		if m.Tensor == nil {
			return core.Errorf(arrowsparse.ErrStructure, "ipc: Tensor message without Tensor metadata")
		}
		return m.Tensor.validate(m.BodyLength)
	case HeaderSparseTensor:
		if m.SparseTensor == nil {
			return core.Errorf(arrowsparse.ErrStructure, "ipc: SparseTensor message without SparseTensor metadata")
		}
		return m.SparseTensor.validate(m.BodyLength)
	}
	return core.Errorf(arrowsparse.ErrStructure, "ipc: %s message is not a tensor message", m.Header)
}

func checkShape(shape []Dim, what string) ([]int64, error) {
	sizes := make([]int64, len(shape))
	for i, d := range shape {
		if d.Size < 0 {
			return nil, core.Errorf(arrowsparse.ErrShape, "ipc: %s dimension %d has negative size %d", what, i, d.Size)
		}
		sizes[i] = d.Size
	}
	return sizes, nil
}

func (t *Tensor) validate(bodyLen int64) error {
	if err := core.CheckValueType(t.Type); err != nil {
		return err
	}
	sizes, err := checkShape(t.Shape, "Tensor")
	if err != nil {
		return err
	}
	w := int64(arrowsparse.ByteWidth(t.Type))
	n, err := arrowsparse.NumElements(sizes)
	if err != nil {
		return err
	}
	strides := t.Strides
	if len(strides) == 0 {
		// Row-major: the data is n·w contiguous bytes.
		size, ok := core.MulInt64(n, w)
		if !ok {
			return core.Errorf(arrowsparse.ErrOverflow, "ipc: Tensor of %d elements of %d bytes overflows int64", n, w)
		}
		if size > bodyLen {
			return core.Errorf(arrowsparse.ErrBufferSize, "ipc: Tensor of %d elements of %d bytes needs %d bytes but bodyLength is %d", n, w, size, bodyLen)
		}
		return nil
	}
	if len(strides) != len(sizes) {
		return core.Errorf(arrowsparse.ErrShape, "ipc: Tensor has %d strides for %d dimensions", len(strides), len(sizes))
	}
	if n == 0 {
		return nil // a zero-size tensor addresses nothing
	}
	var last int64
	for i, s := range strides {
		if sizes[i] <= 1 {
			continue
		}
		if s < 0 {
			return core.Errorf(arrowsparse.ErrShape, "ipc: Tensor stride %d is negative (%d); negative strides are not supported", i, s)
		}
		step, ok := core.MulInt64(sizes[i]-1, s)
		if ok {
			last, ok = core.AddInt64(last, step)
		}
		if !ok {
			return core.Errorf(arrowsparse.ErrOverflow, "ipc: Tensor strides %v with shape %v overflow int64", strides, sizes)
		}
	}
	if end, ok := core.AddInt64(last, w); !ok || end > bodyLen {
		return core.Errorf(arrowsparse.ErrBufferSize, "ipc: Tensor shape %v with strides %v addresses bytes up to %d but bodyLength is %d", sizes, strides, last+w, bodyLen)
	}
	return nil
}

// inBody checks that b lies inside a body of bodyLen bytes; extent is the
// number of bytes it covers (its Length, or more for CSF element counts).
func inBody(b Buffer, extent, bodyLen int64, what string) error {
	if b.Offset < 0 || b.Length < 0 {
		return core.Errorf(arrowsparse.ErrBufferSize, "ipc: %s {offset %d, length %d} has a negative offset or length", what, b.Offset, b.Length)
	}
	end, ok := core.AddInt64(b.Offset, extent)
	if !ok || end > bodyLen {
		return core.Errorf(arrowsparse.ErrBufferSize, "ipc: %s {offset %d, length %d} ends past the %d-byte body", what, b.Offset, b.Length, bodyLen)
	}
	return nil
}

// needBytes checks that buf.Length holds count elements of width w.
func needBytes(buf Buffer, count, w int64, what string) error {
	need, ok := core.MulInt64(count, w)
	if !ok {
		return core.Errorf(arrowsparse.ErrOverflow, "ipc: %s: %d elements of %d bytes overflow int64", what, count, w)
	}
	if buf.Length < need {
		return core.Errorf(arrowsparse.ErrBufferSize, "ipc: %s has %d bytes, too few for %d elements of %d bytes", what, buf.Length, count, w)
	}
	return nil
}

// checkIndexFits checks that field (such as "COO indicesType") is a sparse
// index type that holds max; what names the quantity.
func checkIndexFits(dt arrow.DataType, max int64, field, what string) error {
	if err := core.CheckIndexFits(dt, max, what); err != nil {
		return core.Errorf(arrowsparse.ErrUnsupportedType, "ipc: %s: %w", field, err)
	}
	return nil
}

func (st *SparseTensor) validate(bodyLen int64) error {
	if err := core.CheckValueType(st.Type); err != nil {
		return err
	}
	sizes, err := checkShape(st.Shape, "SparseTensor")
	if err != nil {
		return err
	}
	if st.NonZeroLength < 0 {
		return core.Errorf(arrowsparse.ErrShape, "ipc: SparseTensor has negative non_zero_length %d", st.NonZeroLength)
	}
	if err := inBody(st.Data, st.Data.Length, bodyLen, "SparseTensor data buffer"); err != nil {
		return err
	}
	if st.Data.Offset%8 != 0 {
		return core.Errorf(arrowsparse.ErrAlignment, "ipc: SparseTensor data buffer offset %d is not a multiple of 8", st.Data.Offset)
	}
	ndim := int64(len(sizes))
	nnz := st.NonZeroLength
	switch x := st.Index.(type) {
	case *COOIndex:
		if x == nil {
			break
		}
		return x.validate(sizes, nnz, bodyLen)
	case *CSXIndex:
		if x == nil {
			break
		}
		return x.validate(sizes, nnz, bodyLen)
	case *CSFIndex:
		if x == nil {
			break
		}
		_, _, err := x.validate(ndim, bodyLen)
		return err
	}
	return core.Errorf(arrowsparse.ErrStructure, "ipc: SparseTensor without an index")
}

func (x *COOIndex) validate(sizes []int64, nnz, bodyLen int64) error {
	ndim := int64(len(sizes))
	if err := checkIndexFits(x.IndicesType, max(nnz, ndim), "COO indicesType", "max(N, ndim)"); err != nil {
		return err
	}
	w := int64(arrowsparse.ByteWidth(x.IndicesType))
	if len(x.IndicesStrides) > 0 {
		if len(x.IndicesStrides) != 2 {
			return core.Errorf(arrowsparse.ErrShape, "ipc: COO indicesStrides has %d entries, want 2 (for the N × ndim coordinate matrix)", len(x.IndicesStrides))
		}
		row, col := COOStrides(nnz, ndim, w)
		s := [2]int64{x.IndicesStrides[0], x.IndicesStrides[1]}
		if s != row && s != col {
			return core.Errorf(arrowsparse.ErrShape, "ipc: COO indicesStrides %v are neither row-major %v nor column-major %v for a %d × %d coordinate matrix of %d-byte indices", x.IndicesStrides, row, col, nnz, ndim, w)
		}
	}
	count, ok := core.MulInt64(nnz, ndim)
	if !ok {
		return core.Errorf(arrowsparse.ErrOverflow, "ipc: COO coordinate matrix %d × %d overflows int64", nnz, ndim)
	}
	if err := needBytes(x.IndicesBuffer, count, w, "COO indicesBuffer"); err != nil {
		return err
	}
	return inBody(x.IndicesBuffer, x.IndicesBuffer.Length, bodyLen, "COO indicesBuffer")
}

// COOStrides returns the row-major and column-major byte strides of an
// n × ndim coordinate matrix of w-byte indices, as Arrow C++ computes them:
// [ndim·w, w] and [w, n·w], both [w, w] when n or ndim is 0. Arrow C++ writes
// the row-major ones for the coordinate tensors it builds.
func COOStrides(n, ndim, w int64) (rowMajor, colMajor [2]int64) {
	if n == 0 || ndim == 0 {
		return [2]int64{w, w}, [2]int64{w, w}
	}
	return [2]int64{ndim * w, w}, [2]int64{w, n * w}
}

func (x *CSXIndex) validate(sizes []int64, nnz, bodyLen int64) error {
	if len(sizes) != 2 {
		return core.Errorf(arrowsparse.ErrShape, "ipc: a CSR/CSC index needs a 2-d shape, got %d dimensions", len(sizes))
	}
	axis := 0
	if x.CompressedAxis == AxisColumn {
		axis = 1
	} else if x.CompressedAxis != AxisRow {
		return core.Errorf(arrowsparse.ErrStructure, "ipc: CSX compressedAxis %d is neither Row (0) nor Column (1)", int16(x.CompressedAxis))
	}
	nptr, ok := core.AddInt64(sizes[axis], 1)
	if !ok {
		return core.Errorf(arrowsparse.ErrOverflow, "ipc: CSX dimension %d overflows", sizes[axis])
	}
	if err := checkIndexFits(x.IndptrType, nptr, "CSX indptrType", "the indptr length"); err != nil {
		return err
	}
	if err := checkIndexFits(x.IndicesType, nnz, "CSX indicesType", "nnz"); err != nil {
		return err
	}
	if err := needBytes(x.IndptrBuffer, nptr, int64(arrowsparse.ByteWidth(x.IndptrType)), "CSX indptrBuffer"); err != nil {
		return err
	}
	if err := needBytes(x.IndicesBuffer, nnz, int64(arrowsparse.ByteWidth(x.IndicesType)), "CSX indicesBuffer"); err != nil {
		return err
	}
	if err := inBody(x.IndptrBuffer, x.IndptrBuffer.Length, bodyLen, "CSX indptrBuffer"); err != nil {
		return err
	}
	return inBody(x.IndicesBuffer, x.IndicesBuffer.Length, bodyLen, "CSX indicesBuffer")
}

// CSFLengthUnit is the unit of the Length of CSF index buffers.
type CSFLengthUnit int8

// CSF length units.
const (
	// CSFLengthElements: lengths are element counts, as every released
	// Arrow C++ (up to 25.x and the 26 development line) writes and reads.
	CSFLengthElements CSFLengthUnit = iota + 1
	// CSFLengthBytes: lengths are byte sizes, as the Arrow format defines a
	// Buffer length and as apache/arrow PR #50817 would write them.
	CSFLengthBytes
)

// String returns "elements" or "bytes".
func (u CSFLengthUnit) String() string {
	switch u {
	case CSFLengthElements:
		return "elements"
	case CSFLengthBytes:
		return "bytes"
	}
	return "unknown"
}

// DetectCSFLengthUnit tells whether the buffer lengths of x are element
// counts or bytes, from the first level: in a valid CSF, indptr[0] has one
// more entry than indices[0]. With Lp and Li the lengths of indptrBuffers[0]
// and indicesBuffers[0] and wp, wi the widths, element counts satisfy
// Lp == Li+1 and byte lengths satisfy Lp%wp == 0, Li%wi == 0 and
// Lp/wp == Li/wi+1. When both hold the two readings give the same counts,
// and CSFLengthElements is returned. An error (ErrStructure) means that
// neither holds, or that x has no levels or unsupported index types.
func DetectCSFLengthUnit(x *CSFIndex) (CSFLengthUnit, error) {
	if x == nil || len(x.IndptrBuffers) == 0 || len(x.IndicesBuffers) == 0 {
		return 0, core.Errorf(arrowsparse.ErrStructure, "ipc: CSF index without indptr or indices buffers")
	}
	wp := int64(arrowsparse.ByteWidth(x.IndptrType))
	wi := int64(arrowsparse.ByteWidth(x.IndicesType))
	if wp == 0 || wi == 0 {
		return 0, core.Errorf(arrowsparse.ErrUnsupportedType, "ipc: CSF index types %s and %s must be integer types", typeName(x.IndptrType), typeName(x.IndicesType))
	}
	lp, li := x.IndptrBuffers[0].Length, x.IndicesBuffers[0].Length
	if li >= 0 && lp == li+1 {
		return CSFLengthElements, nil
	}
	if lp >= 0 && li >= 0 && lp%wp == 0 && li%wi == 0 && lp/wp == li/wi+1 {
		return CSFLengthBytes, nil
	}
	return 0, core.Errorf(arrowsparse.ErrStructure, "ipc: CSF buffer lengths %d (indptr[0]) and %d (indices[0]) are neither element counts (want %d = %d+1) nor byte sizes of %d- and %d-byte integers with one more indptr entry", lp, li, lp, li, wp, wi)
}

// CSFCounts returns the number of entries of every indptr and indices
// buffer of x, reading the lengths in the given unit. For byte lengths, a
// length that is not a multiple of the width is an error.
func CSFCounts(x *CSFIndex, unit CSFLengthUnit) (indptr, indices []int64, err error) {
	wp := int64(arrowsparse.ByteWidth(x.IndptrType))
	wi := int64(arrowsparse.ByteWidth(x.IndicesType))
	if wp == 0 || wi == 0 {
		return nil, nil, core.Errorf(arrowsparse.ErrUnsupportedType, "ipc: CSF index types %s and %s must be integer types", typeName(x.IndptrType), typeName(x.IndicesType))
	}
	conv := func(bufs []Buffer, w int64, what string) ([]int64, error) {
		out := make([]int64, len(bufs))
		for i, b := range bufs {
			if b.Length < 0 {
				return nil, core.Errorf(arrowsparse.ErrBufferSize, "ipc: CSF %s[%d] has negative length %d", what, i, b.Length)
			}
			switch unit {
			case CSFLengthElements:
				out[i] = b.Length
			case CSFLengthBytes:
				if b.Length%w != 0 {
					return nil, core.Errorf(arrowsparse.ErrBufferSize, "ipc: CSF %s[%d] length %d is not a multiple of the %d-byte width", what, i, b.Length, w)
				}
				out[i] = b.Length / w
			default:
				return nil, core.Errorf(arrowsparse.ErrStructure, "ipc: unknown CSF length unit %d", unit)
			}
		}
		return out, nil
	}
	if indptr, err = conv(x.IndptrBuffers, wp, "indptrBuffers"); err != nil {
		return nil, nil, err
	}
	if indices, err = conv(x.IndicesBuffers, wi, "indicesBuffers"); err != nil {
		return nil, nil, err
	}
	return indptr, indices, nil
}

func (x *CSFIndex) validate(ndim, bodyLen int64) (indptr, indices []int64, err error) {
	if ndim < 2 {
		return nil, nil, core.Errorf(arrowsparse.ErrShape, "ipc: a CSF index needs at least 2 dimensions, got %d", ndim)
	}
	if int64(len(x.IndptrBuffers)) != ndim-1 || int64(len(x.IndicesBuffers)) != ndim || int64(len(x.AxisOrder)) != ndim {
		return nil, nil, core.Errorf(arrowsparse.ErrStructure, "ipc: inconsistent CSF index: %d indptr buffers, %d indices buffers and %d axisOrder entries for %d dimensions (want %d, %d, %d)",
			len(x.IndptrBuffers), len(x.IndicesBuffers), len(x.AxisOrder), ndim, ndim-1, ndim, ndim)
	}
	perm := make([]int, len(x.AxisOrder))
	for i, a := range x.AxisOrder {
		perm[i] = int(a)
	}
	if err := core.CheckPermutation(perm, int(ndim), "CSF axisOrder"); err != nil {
		return nil, nil, core.Errorf(arrowsparse.ErrStructure, "ipc: %w", err)
	}
	if err := core.CheckIndexType(x.IndptrType); err != nil {
		return nil, nil, core.Errorf(arrowsparse.ErrUnsupportedType, "ipc: CSF indptrType: %w", err)
	}
	if err := core.CheckIndexType(x.IndicesType); err != nil {
		return nil, nil, core.Errorf(arrowsparse.ErrUnsupportedType, "ipc: CSF indicesType: %w", err)
	}
	unit, err := DetectCSFLengthUnit(x)
	if err != nil {
		return nil, nil, err
	}
	if indptr, indices, err = CSFCounts(x, unit); err != nil {
		return nil, nil, err
	}
	wp := int64(arrowsparse.ByteWidth(x.IndptrType))
	wi := int64(arrowsparse.ByteWidth(x.IndicesType))
	check := func(bufs []Buffer, counts []int64, w int64, dt arrow.DataType, what string) error {
		for i, b := range bufs {
			extent, ok := core.MulInt64(counts[i], w)
			if !ok {
				return core.Errorf(arrowsparse.ErrOverflow, "ipc: CSF %s[%d]: %d elements overflow", what, i, counts[i])
			}
			if err := inBody(b, extent, bodyLen, "CSF "+what+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
			// Arrow C++ checks the length of each index tensor against
			// the type's maximum.
			if err := checkIndexFits(dt, counts[i], "CSF "+what, "a level length"); err != nil {
				return err
			}
		}
		return nil
	}
	if err := check(x.IndptrBuffers, indptr, wp, x.IndptrType, "indptrBuffers"); err != nil {
		return nil, nil, err
	}
	if err := check(x.IndicesBuffers, indices, wi, x.IndicesType, "indicesBuffers"); err != nil {
		return nil, nil, err
	}
	return indptr, indices, nil
}
