package arrowsparse

import (
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/float16"

	"github.com/arrowsparse/arrowsparse/internal/strided"
)

// Sparse is the optional interface of the sparse formats: *coo.Tensor,
// *gcs.Matrix, *gcs.Tensor and *csf.Tensor implement it. It lets code that
// learns the index and value types only at run time, such as a reader of
// IPC files, read any of them without a type switch of its own: the
// coordinates widened to int64 by AppendCoords, and the values converted to
// a Go type of its choice by AppendValues.
type Sparse interface {
	Tensor
	// IsCanonical reports whether the stored entries are sorted in the
	// format's order without duplicates.
	IsCanonical() bool
	// AppendCoords appends the coordinates of the stored entries, in
	// storage order, to dst: NumDims() int64s per entry, entry after entry.
	AppendCoords(dst []int64) []int64
	// ValueBytes returns the NNZ() stored values, in the order of
	// AppendCoords, as the little-endian bytes of DataType(). It aliases
	// the tensor's memory: the tensor must outlive it.
	ValueBytes() []byte
}

// AppendValues appends the values of t to dst, each converted to T as a Go
// conversion converts numbers (float16 through its exact float32 value;
// to float16 by rounding to nearest, ties to even): the stored values of a
// Sparse tensor, in the order of its AppendCoords, or the elements of a
// Dense tensor in row-major order. Conversions to float64 are exact for
// every value type but int64 and uint64 values beyond 2^53; use int64 or
// uint64 for those. It returns an error wrapping ErrUnsupportedType for a
// tensor that is neither Sparse nor Dense or has no tensor value type, and
// one wrapping ErrBufferSize or ErrOutOfRange for a Dense tensor whose
// buffer does not hold the elements its layout addresses.
func AppendValues[T Value](dst []T, t Tensor) ([]T, error) {
	dt := t.DataType()
	w := int64(ByteWidth(dt))
	if !IsValueType(dt) {
		return dst, errorf(ErrUnsupportedType, "%s is not a tensor value type", typeName(dt))
	}
	get := decoder(dt)
	switch x := t.(type) {
	case Sparse:
		b := x.ValueBytes()
		for p := int64(0); p+w <= int64(len(b)); p += w {
			dst = append(dst, convertValue[T](get(b[p:p+w])))
		}
		return dst, nil
	case Dense:
		shape, strides, off := x.Shape(), x.ElemStrides(), x.ElemOffset()
		var b []byte
		if buf := x.Buffer(); buf != nil {
			b = buf.Bytes()
		}
		if err := checkReach(shape, strides, off, int64(len(b))/w); err != nil {
			return dst, err
		}
		strided.Each(shape, strides, off, func(p int64) {
			dst = append(dst, convertValue[T](get(b[p*w:(p+1)*w])))
		})
		return dst, nil
	}
	return dst, errorf(ErrUnsupportedType, "a %s tensor of type %T is neither Sparse nor Dense", t.Format(), t)
}

// checkReach returns an error unless every element a layout addresses lies
// in [0, n).
func checkReach(shape, strides []int64, off, n int64) error {
	if len(strides) != len(shape) {
		return errorf(ErrShape, "%d strides for %d dimensions", len(strides), len(shape))
	}
	lo, hi := off, off
	for k, d := range shape {
		if d == 0 {
			return nil
		}
		span, ok := mulInt64(d-1, abs(strides[k]))
		if !ok || span > math.MaxInt64/2 {
			return errorf(ErrOverflow, "the layout of shape %v overflows int64", shape)
		}
		if strides[k] < 0 {
			lo -= span
		} else {
			hi += span
		}
		if lo < -math.MaxInt64/2 || hi > math.MaxInt64/2 {
			return errorf(ErrOverflow, "the layout of shape %v overflows int64", shape)
		}
	}
	if lo < 0 || hi >= n {
		return errorf(ErrOutOfRange, "the layout reaches elements %d to %d of a buffer of %d", lo, hi, n)
	}
	return nil
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// number is a value widened for conversion: exactly one of its fields is
// meaningful, by kind.
type number struct {
	kind int8 // 0 signed, 1 unsigned, 2 float
	i    int64
	u    uint64
	f    float64
}

// decoder returns the function that reads one little-endian value of dt.
func decoder(dt arrow.DataType) func(b []byte) number {
	switch dt.ID() {
	case arrow.INT8:
		return func(b []byte) number { return number{i: int64(int8(b[0]))} }
	case arrow.INT16:
		return func(b []byte) number { return number{i: int64(int16(binary.LittleEndian.Uint16(b)))} }
	case arrow.INT32:
		return func(b []byte) number { return number{i: int64(int32(binary.LittleEndian.Uint32(b)))} }
	case arrow.INT64:
		return func(b []byte) number { return number{i: int64(binary.LittleEndian.Uint64(b))} }
	case arrow.UINT8:
		return func(b []byte) number { return number{kind: 1, u: uint64(b[0])} }
	case arrow.UINT16:
		return func(b []byte) number { return number{kind: 1, u: uint64(binary.LittleEndian.Uint16(b))} }
	case arrow.UINT32:
		return func(b []byte) number { return number{kind: 1, u: uint64(binary.LittleEndian.Uint32(b))} }
	case arrow.UINT64:
		return func(b []byte) number { return number{kind: 1, u: binary.LittleEndian.Uint64(b)} }
	case arrow.FLOAT16:
		return func(b []byte) number {
			return number{kind: 2, f: float64(HalfToFloat32(float16.FromBits(binary.LittleEndian.Uint16(b))))}
		}
	case arrow.FLOAT32:
		return func(b []byte) number {
			return number{kind: 2, f: float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))}
		}
	}
	return func(b []byte) number { return number{kind: 2, f: math.Float64frombits(binary.LittleEndian.Uint64(b))} }
}

// convertValue converts a widened value to T as Go's conversions do.
func convertValue[T Value](n number) T {
	var z T
	switch any(z).(type) {
	case float16.Num:
		return any(Float32ToHalf(float32(n.float()))).(T)
	case float32:
		return any(float32(n.float())).(T)
	case float64:
		return any(n.float()).(T)
	case uint64:
		return any(n.uint()).(T)
	}
	x := n.int()
	switch any(z).(type) {
	case int8:
		return any(int8(x)).(T)
	case int16:
		return any(int16(x)).(T)
	case int32:
		return any(int32(x)).(T)
	case uint8:
		return any(uint8(x)).(T)
	case uint16:
		return any(uint16(x)).(T)
	case uint32:
		return any(uint32(x)).(T)
	}
	return any(x).(T)
}

func (n number) float() float64 {
	switch n.kind {
	case 0:
		return float64(n.i)
	case 1:
		return float64(n.u)
	}
	return n.f
}

func (n number) int() int64 {
	switch n.kind {
	case 0:
		return n.i
	case 1:
		return int64(n.u)
	}
	return int64(n.f)
}

func (n number) uint() uint64 {
	switch n.kind {
	case 0:
		return uint64(n.i)
	case 1:
		return n.u
	}
	return uint64(n.f)
}
