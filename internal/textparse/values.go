package textparse

import (
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
)

// Lanes: chunk parsers store every value in a uint64 lane holding the bits
// of the output type in its low bytes (float64 bits, float32 bits, float16
// bits, or the two's complement integer), so that moving a chunk to the
// output is a truncating copy to the output width.

// ValueKind says how value tokens are read.
type ValueKind int8

const (
	// KindNone: the entry has no value token (pattern); the lane is the
	// output type's one.
	KindNone ValueKind = iota
	// KindFloat: a real number, rounded to the float output type.
	KindFloat
	// KindInt: an integer, stored in the integer output type.
	KindInt
	// KindIntAsFloat: an integer (the token must be one), converted to the
	// float output type.
	KindIntAsFloat
)

// Values describes how value tokens are read into lanes.
type Values struct {
	Kind  ValueKind
	Type  arrow.DataType
	Width int
	// For KindInt: the range of the output type.
	Min, Max   int64
	Unsigned64 bool
	// One is the lane of the value 1 (KindNone).
	One uint64
	id  arrow.Type
}

// NewValues returns how to read values of kind k into the output type dt
// (a tensor value type; checked by the caller).
func NewValues(k ValueKind, dt arrow.DataType) Values {
	v := Values{Kind: k, Type: dt, Width: arrowsparse.ByteWidth(dt), id: dt.ID()}
	switch dt.ID() {
	case arrow.FLOAT64:
		v.One = math.Float64bits(1)
	case arrow.FLOAT32:
		v.One = uint64(math.Float32bits(1))
	case arrow.FLOAT16:
		v.One = 0x3c00
	default:
		v.One = 1
	}
	switch dt.ID() {
	case arrow.INT8:
		v.Min, v.Max = math.MinInt8, math.MaxInt8
	case arrow.INT16:
		v.Min, v.Max = math.MinInt16, math.MaxInt16
	case arrow.INT32:
		v.Min, v.Max = math.MinInt32, math.MaxInt32
	case arrow.INT64:
		v.Min, v.Max = math.MinInt64, math.MaxInt64
	case arrow.UINT8:
		v.Min, v.Max = 0, math.MaxUint8
	case arrow.UINT16:
		v.Min, v.Max = 0, math.MaxUint16
	case arrow.UINT32:
		v.Min, v.Max = 0, math.MaxUint32
	case arrow.UINT64:
		v.Min, v.Max = 0, math.MaxInt64
		v.Unsigned64 = true
	}
	return v
}

// IsFloat reports whether dt is a floating-point type.
func IsFloat(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
		return true
	}
	return false
}

// isDelim reports whether c ends a token.
func isDelim(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// tokenEnd returns the index of the first delimiter at or after i.
func tokenEnd(data []byte, i int) int {
	for i < len(data) && !isDelim(data[i]) {
		i++
	}
	return i
}

// Parse reads the value token starting at data[i] (not a delimiter) and
// returns its lane and the index after the token. msg is non-empty when the
// token is not a valid value: a message naming the token.
func (v *Values) Parse(data []byte, i int) (lane uint64, next int, msg string) {
	switch v.Kind {
	case KindFloat:
		f, n, ok := fastFloat(data[i:])
		end := i + n
		if !ok || (end < len(data) && !isDelim(data[end])) {
			end = tokenEnd(data, i)
			f, ok = slowFloat(data[i:end])
			if !ok {
				return 0, end, "value " + quote(data[i:end]) + " is not a number"
			}
		}
		switch v.id {
		case arrow.FLOAT64:
			return math.Float64bits(f), end, ""
		case arrow.FLOAT32:
			return uint64(math.Float32bits(Float32Of(f, data[i:end]))), end, ""
		default:
			return uint64(Float16Of(f, data[i:end]).Uint16()), end, ""
		}
	case KindInt:
		if v.Unsigned64 {
			u, n, over := ScanUint64(data[i:])
			end := i + n
			if n == 0 || (end < len(data) && !isDelim(data[end])) {
				end = tokenEnd(data, i)
				return 0, end, "value " + quote(data[i:end]) + " is not an unsigned integer"
			}
			if over {
				return 0, end, "value " + quote(data[i:end]) + " does not fit uint64"
			}
			return u, end, ""
		}
		x, n, over := ScanInt(data[i:])
		end := i + n
		if n == 0 || (end < len(data) && !isDelim(data[end])) {
			end = tokenEnd(data, i)
			return 0, end, "value " + quote(data[i:end]) + " is not an integer"
		}
		if over || x < v.Min || x > v.Max {
			return 0, end, "value " + quote(data[i:end]) + " does not fit " + v.Type.String()
		}
		return uint64(x), end, ""
	case KindIntAsFloat:
		x, n, over := ScanInt(data[i:])
		end := i + n
		if n == 0 || (end < len(data) && !isDelim(data[end])) {
			end = tokenEnd(data, i)
			return 0, end, "value " + quote(data[i:end]) + " is not an integer"
		}
		if over {
			return 0, end, "value " + quote(data[i:end]) + " does not fit int64"
		}
		switch v.id {
		case arrow.FLOAT64:
			return math.Float64bits(float64(x)), end, ""
		case arrow.FLOAT32:
			return uint64(math.Float32bits(float32(x))), end, ""
		default:
			return uint64(Float16Of(float64(x), data[i:end]).Uint16()), end, ""
		}
	}
	return v.One, i, ""
}

// IsZero reports whether a lane holds zero (either sign for floats).
func (v *Values) IsZero(lane uint64) bool {
	switch v.id {
	case arrow.FLOAT64:
		return lane<<1 == 0
	case arrow.FLOAT32:
		return uint32(lane)<<1 == 0
	case arrow.FLOAT16:
		return uint16(lane)<<1 == 0
	}
	return lane == 0
}

// quote returns a token for a message, cut to 40 bytes.
func quote(b []byte) string {
	const max = 40
	if len(b) > max {
		return "\"" + string(b[:max]) + "…\""
	}
	return "\"" + string(b) + "\""
}

// Narrow writes the low width bytes of every lane to dst, which must hold
// len(lanes)·width bytes aligned for width.
func Narrow(dst []byte, width int, lanes []uint64) {
	if len(lanes) == 0 {
		return
	}
	switch width {
	case 8:
		copy(unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(dst))), len(lanes)), lanes)
	case 4:
		d := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(dst))), len(lanes))
		for i, l := range lanes {
			d[i] = uint32(l)
		}
	case 2:
		d := unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(dst))), len(lanes))
		for i, l := range lanes {
			d[i] = uint16(l)
		}
	case 1:
		d := dst[:len(lanes)]
		for i, l := range lanes {
			d[i] = uint8(l)
		}
	default:
		panic(arrowsparse.PanicError{Msg: "textparse: bad width"})
	}
}

// Column is an output buffer of fixed-width elements that grows.
type Column struct {
	mem   memory.Allocator
	buf   *memory.Buffer
	Width int
}

// NewColumn returns a column with room for n elements of the given width.
func NewColumn(mem memory.Allocator, width int, n int64) *Column {
	c := &Column{mem: mem, buf: memory.NewResizableBuffer(mem), Width: width}
	c.Reserve(n)
	return c
}

// Cap returns the number of elements the column has room for.
func (c *Column) Cap() int64 { return int64(c.buf.Len() / c.Width) }

// Reserve makes room for at least n elements, keeping the content.
func (c *Column) Reserve(n int64) {
	if n > c.Cap() {
		c.buf.Resize(int(n) * c.Width)
	}
}

// Bytes returns the bytes of elements [off, off+n).
func (c *Column) Bytes(off, n int64) []byte {
	w := int64(c.Width)
	return c.buf.Bytes()[off*w : (off+n)*w]
}

// Widen changes the width to w > Width, converting the first n elements
// (non-negative integers) in place.
func (c *Column) Widen(w int, n int64) {
	old := c.Width
	c.buf.Resize(int(max(c.Cap(), n)) * w)
	b := c.buf.Bytes()
	// Backwards, so that no element is overwritten before it is read.
	for i := n - 1; i >= 0; i-- {
		var x uint64
		switch old {
		case 1:
			x = uint64(b[i])
		case 2:
			x = uint64(*(*uint16)(unsafe.Pointer(&b[i*2])))
		case 4:
			x = uint64(*(*uint32)(unsafe.Pointer(&b[i*4])))
		}
		switch w {
		case 2:
			*(*uint16)(unsafe.Pointer(&b[i*2])) = uint16(x)
		case 4:
			*(*uint32)(unsafe.Pointer(&b[i*4])) = uint32(x)
		case 8:
			*(*uint64)(unsafe.Pointer(&b[i*8])) = x
		}
	}
	c.Width = w
}

// Finish cuts the column to n elements and returns its buffer, which the
// caller must release; the column is empty afterwards.
func (c *Column) Finish(n int64) *memory.Buffer {
	c.buf.Resize(int(n) * c.Width)
	b := c.buf
	c.buf = nil
	return b
}

// Release frees the column's buffer (if Finish has not taken it).
func (c *Column) Release() {
	if c != nil && c.buf != nil {
		c.buf.Release()
		c.buf = nil
	}
}

// Value is one stored value, read from a raw buffer for comparison:
// floating-point values as float64 (Float set), uint64 values in U, and
// every other integer type exactly in I.
type Value struct {
	F     float64
	I     int64
	U     uint64
	Float bool
}

// IsZero reports whether v is zero (either zero, for floats).
func (v Value) IsZero() bool { return v.F == 0 && v.I == 0 && v.U == 0 }

// ValueAt reads value i of a raw buffer b of type dt (a tensor value type).
func ValueAt(b []byte, dt arrow.DataType, i int64) Value {
	p := unsafe.Pointer(unsafe.SliceData(b))
	switch dt.ID() {
	case arrow.FLOAT64:
		return Value{F: *(*float64)(unsafe.Add(p, i*8)), Float: true}
	case arrow.FLOAT32:
		return Value{F: float64(*(*float32)(unsafe.Add(p, i*4))), Float: true}
	case arrow.FLOAT16:
		return Value{F: float64(arrowsparse.HalfToFloat32(float16.FromBits(*(*uint16)(unsafe.Add(p, i*2))))), Float: true}
	case arrow.INT8:
		return Value{I: int64(*(*int8)(unsafe.Add(p, i)))}
	case arrow.INT16:
		return Value{I: int64(*(*int16)(unsafe.Add(p, i*2)))}
	case arrow.INT32:
		return Value{I: int64(*(*int32)(unsafe.Add(p, i*4)))}
	case arrow.INT64:
		return Value{I: *(*int64)(unsafe.Add(p, i*8))}
	case arrow.UINT8:
		return Value{I: int64(*(*uint8)(unsafe.Add(p, i)))}
	case arrow.UINT16:
		return Value{I: int64(*(*uint16)(unsafe.Add(p, i*2)))}
	case arrow.UINT32:
		return Value{I: int64(*(*uint32)(unsafe.Add(p, i*4)))}
	}
	return Value{U: *(*uint64)(unsafe.Add(p, i*8))}
}
