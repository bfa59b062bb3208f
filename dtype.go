package arrowsparse

import (
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Value is the set of Go types that hold tensor values: the Arrow tensor
// value types int8…int64, uint8…uint64, float16, float32 and float64
// (Arrow C++'s is_tensor_supported).
type Value interface {
	int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 |
		float16.Num | float32 | float64
}

// Number is Value without float16: the value types Go can add and multiply
// with its operators. Kernels for float16 widen to float32.
type Number interface {
	int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 |
		float32 | float64
}

// Float is the set of floating-point value types with Go operators.
type Float interface{ float32 | float64 }

// Index is the set of Go types that hold sparse indices: the Arrow sparse
// index types int8…int64 and uint8…uint32. uint64 is excluded, as Arrow C++
// rejects it.
type Index interface {
	int8 | int16 | int32 | int64 | uint8 | uint16 | uint32
}

// DataTypeOf returns the Arrow data type of the Go type T.
func DataTypeOf[T Value]() arrow.DataType {
	var z T
	switch any(z).(type) {
	case int8:
		return arrow.PrimitiveTypes.Int8
	case int16:
		return arrow.PrimitiveTypes.Int16
	case int32:
		return arrow.PrimitiveTypes.Int32
	case int64:
		return arrow.PrimitiveTypes.Int64
	case uint8:
		return arrow.PrimitiveTypes.Uint8
	case uint16:
		return arrow.PrimitiveTypes.Uint16
	case uint32:
		return arrow.PrimitiveTypes.Uint32
	case uint64:
		return arrow.PrimitiveTypes.Uint64
	case float16.Num:
		return arrow.FixedWidthTypes.Float16
	case float32:
		return arrow.PrimitiveTypes.Float32
	default:
		return arrow.PrimitiveTypes.Float64
	}
}

// IsValueType reports whether dt is one of the Arrow tensor value types.
func IsValueType(dt arrow.DataType) bool {
	if dt == nil {
		return false
	}
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
		return true
	}
	return false
}

// IsIndexType reports whether dt is one of the Arrow sparse index types.
func IsIndexType(dt arrow.DataType) bool {
	if dt == nil {
		return false
	}
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32:
		return true
	}
	return false
}

func typeName(dt arrow.DataType) string {
	if dt == nil {
		return "<nil>"
	}
	return dt.String()
}

// ByteWidth returns the width in bytes of a value or index type, or 0 if dt
// is neither.
func ByteWidth(dt arrow.DataType) int {
	if dt == nil {
		return 0
	}
	switch dt.ID() {
	case arrow.INT8, arrow.UINT8:
		return 1
	case arrow.INT16, arrow.UINT16, arrow.FLOAT16:
		return 2
	case arrow.INT32, arrow.UINT32, arrow.FLOAT32:
		return 4
	case arrow.INT64, arrow.UINT64, arrow.FLOAT64:
		return 8
	}
	return 0
}

// IndexMax returns the largest value an index type can hold, or 0 if dt is
// not an index type.
func IndexMax(dt arrow.DataType) int64 {
	if dt == nil {
		return 0
	}
	switch dt.ID() {
	case arrow.INT8:
		return math.MaxInt8
	case arrow.INT16:
		return math.MaxInt16
	case arrow.INT32:
		return math.MaxInt32
	case arrow.INT64:
		return math.MaxInt64
	case arrow.UINT8:
		return math.MaxUint8
	case arrow.UINT16:
		return math.MaxUint16
	case arrow.UINT32:
		return math.MaxUint32
	}
	return 0
}

// SmallestIndexType returns the narrowest signed index type that holds every
// value in 0..max: int8, int16, int32 or int64.
func SmallestIndexType(max int64) arrow.DataType {
	switch {
	case max <= math.MaxInt8:
		return arrow.PrimitiveTypes.Int8
	case max <= math.MaxInt16:
		return arrow.PrimitiveTypes.Int16
	case max <= math.MaxInt32:
		return arrow.PrimitiveTypes.Int32
	}
	return arrow.PrimitiveTypes.Int64
}

// TypeMatches reports whether the Go type T is the Go type of dt.
func TypeMatches[T Value](dt arrow.DataType) bool {
	return dt != nil && arrow.TypeEqual(DataTypeOf[T](), dt)
}

// AsSlice returns the first n elements of buf as a []T that aliases the
// buffer's memory (no copy). It returns an error wrapping ErrBufferSize if buf
// holds fewer than n elements, and ErrAlignment if buf's address is not a
// multiple of T's size. A nil or empty buffer gives a nil slice when n is 0.
func AsSlice[T Value](buf *memory.Buffer, n int64) ([]T, error) {
	var z T
	w := int64(unsafe.Sizeof(z))
	if n < 0 {
		return nil, errorf(ErrBufferSize, "negative element count %d", n)
	}
	if n == 0 {
		return nil, nil
	}
	if buf == nil {
		return nil, errorf(ErrBufferSize, "nil buffer for %d elements", n)
	}
	b := buf.Bytes()
	if int64(len(b))/w < n {
		return nil, errorf(ErrBufferSize, "buffer of %d bytes is too small for %d elements of %d bytes", len(b), n, w)
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	if uintptr(p)%uintptr(w) != 0 {
		return nil, errorf(ErrAlignment, "buffer address is not a multiple of the element width %d", w)
	}
	return unsafe.Slice((*T)(p), n), nil
}
