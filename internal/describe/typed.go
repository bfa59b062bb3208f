package describe

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/float16"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// widen converts typed indices to int64.
func widen[I arrowsparse.Index](s []I, err error) ([]int64, error) {
	if err != nil {
		return nil, err
	}
	out := make([]int64, len(s))
	for i, x := range s {
		out[i] = int64(x)
	}
	return out, nil
}

// indexAccessor is a library accessor of typed indices, instantiated for
// every index type.
type indexAccessor struct {
	i8  func() ([]int8, error)
	i16 func() ([]int16, error)
	i32 func() ([]int32, error)
	i64 func() ([]int64, error)
	u8  func() ([]uint8, error)
	u16 func() ([]uint16, error)
	u32 func() ([]uint32, error)
}

// load calls the accessor of index type dt and widens its result.
func (a indexAccessor) load(dt arrow.DataType) ([]int64, error) {
	switch dt.ID() {
	case arrow.INT8:
		return widen(a.i8())
	case arrow.INT16:
		return widen(a.i16())
	case arrow.INT32:
		return widen(a.i32())
	case arrow.INT64:
		return widen(a.i64())
	case arrow.UINT8:
		return widen(a.u8())
	case arrow.UINT16:
		return widen(a.u16())
	case arrow.UINT32:
		return widen(a.u32())
	}
	return nil, fmt.Errorf("describe: %s is not an index type", dt)
}

// bitsOf returns typed values as bits.
func bitsOf[T arrowsparse.Value](s []T, err error) ([]uint64, error) {
	if err != nil {
		return nil, err
	}
	return loadBits(core.BytesOf(s), arrowsparse.ByteWidth(arrowsparse.DataTypeOf[T]()), int64(len(s))), nil
}

// valueAccessor is a library accessor of typed values, instantiated for
// every value type.
type valueAccessor struct {
	i8  func() ([]int8, error)
	i16 func() ([]int16, error)
	i32 func() ([]int32, error)
	i64 func() ([]int64, error)
	u8  func() ([]uint8, error)
	u16 func() ([]uint16, error)
	u32 func() ([]uint32, error)
	u64 func() ([]uint64, error)
	f16 func() ([]float16.Num, error)
	f32 func() ([]float32, error)
	f64 func() ([]float64, error)
}

// load calls the accessor of value type dt and returns the values' bits.
func (a valueAccessor) load(dt arrow.DataType) ([]uint64, error) {
	switch dt.ID() {
	case arrow.INT8:
		return bitsOf(a.i8())
	case arrow.INT16:
		return bitsOf(a.i16())
	case arrow.INT32:
		return bitsOf(a.i32())
	case arrow.INT64:
		return bitsOf(a.i64())
	case arrow.UINT8:
		return bitsOf(a.u8())
	case arrow.UINT16:
		return bitsOf(a.u16())
	case arrow.UINT32:
		return bitsOf(a.u32())
	case arrow.UINT64:
		return bitsOf(a.u64())
	case arrow.FLOAT16:
		return bitsOf(a.f16())
	case arrow.FLOAT32:
		return bitsOf(a.f32())
	case arrow.FLOAT64:
		return bitsOf(a.f64())
	}
	return nil, fmt.Errorf("describe: %s is not a value type", dt)
}
