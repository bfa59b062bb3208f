package describe

import (
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowsparse/arrowsparse"
)

// Values are carried as their little-endian bit patterns, zero-extended to
// 64 bits, so that one representation serves every value type and NaN
// payloads, -0.0 and wrap-around survive untouched.

// exact is the magnitude above which 64-bit integers are written as strings.
const exact = uint64(1) << 53

// widthMask returns the mask of a value of w bytes.
func widthMask(w int) uint64 {
	if w >= 8 {
		return math.MaxUint64
	}
	return uint64(1)<<(8*uint(w)) - 1
}

// signed reports whether dt is a signed integer type.
func signed(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		return true
	}
	return false
}

// isFloat reports whether dt is a floating-point type.
func isFloat(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
		return true
	}
	return false
}

// IndexValue returns the integer of index type dt whose bits are x.
func IndexValue(dt arrow.DataType, x uint64) int64 {
	w := arrowsparse.ByteWidth(dt)
	x &= widthMask(w)
	if signed(dt) && w < 8 {
		shift := 64 - 8*uint(w)
		return int64(x<<shift) >> shift
	}
	return int64(x)
}

// HalfToFloat64 returns the exact value of an IEEE binary16 number.
func HalfToFloat64(h uint16) float64 {
	sign := h >> 15
	exp := int(h>>10) & 0x1f
	mant := float64(h & 0x3ff)
	var v float64
	switch exp {
	case 0:
		v = math.Ldexp(mant, -24)
	case 31:
		if mant != 0 {
			v = math.NaN()
		} else {
			v = math.Inf(1)
		}
	default:
		v = math.Ldexp(mant+1024, exp-25)
	}
	if sign != 0 {
		return -v
	}
	return v
}

// Float64ToHalf rounds d to the nearest binary16 number, ties to even.
func Float64ToHalf(d float64) uint16 {
	var sign uint16
	if math.Signbit(d) {
		sign = 0x8000
	}
	if math.IsNaN(d) {
		return sign | 0x7e00
	}
	a := math.Abs(d)
	if a >= 65520 { // halfway between the largest half (65504) and 2^16
		return sign | 0x7c00
	}
	if a < math.Ldexp(1, -14) { // subnormal: units of 2^-24
		return sign | uint16(math.RoundToEven(math.Ldexp(a, 24)))
	}
	_, e := math.Frexp(a) // a = f·2^e, f in [0.5, 1)
	exp := e - 1
	m := math.RoundToEven(math.Ldexp(a, 10-exp)) // in [1024, 2048]
	if m == 2048 {
		m = 1024
		exp++
	}
	if exp > 15 {
		return sign | 0x7c00
	}
	return sign | uint16(exp+15)<<10 | (uint16(m) - 1024)
}

// Float64 returns the value of a float type's bits as a float64 (exact).
func Float64(dt arrow.DataType, x uint64) float64 {
	switch dt.ID() {
	case arrow.FLOAT16:
		return HalfToFloat64(uint16(x))
	case arrow.FLOAT32:
		return float64(math.Float32frombits(uint32(x)))
	}
	return math.Float64frombits(x)
}

// FloatBits rounds d to the float type dt and returns its bits.
func FloatBits(dt arrow.DataType, d float64) uint64 {
	switch dt.ID() {
	case arrow.FLOAT16:
		return uint64(Float64ToHalf(d))
	case arrow.FLOAT32:
		return uint64(math.Float32bits(float32(d)))
	}
	return math.Float64bits(d)
}

// Add returns the sum of two values of type dt, computed in dt: integers
// wrap around, floats are rounded once to dt (a sum of two float16 or
// float32 values is exact in float64, so rounding it to dt is the sum in
// dt).
func Add(dt arrow.DataType, a, b uint64) uint64 {
	w := arrowsparse.ByteWidth(dt)
	if !isFloat(dt) {
		return (a + b) & widthMask(w)
	}
	if dt.ID() == arrow.FLOAT32 {
		return uint64(math.Float32bits(math.Float32frombits(uint32(a)) + math.Float32frombits(uint32(b))))
	}
	return FloatBits(dt, Float64(dt, a)+Float64(dt, b))
}

// IsZero reports whether the value is zero (either sign for floats).
func IsZero(dt arrow.DataType, x uint64) bool {
	w := arrowsparse.ByteWidth(dt)
	x &= widthMask(w)
	if isFloat(dt) {
		return x&^(uint64(1)<<(8*uint(w)-1)) == 0
	}
	return x == 0
}

// FormatFloat writes d as the interop schema does: the shortest decimal
// that reads back to d, in plain notation for decimal exponents from -5 to
// 16 and in scientific notation otherwise; "NaN", "Infinity" and
// "-Infinity" as JSON strings; -0.0 as -0.0.
func FormatFloat(d float64) string {
	switch {
	case math.IsNaN(d):
		return `"NaN"`
	case math.IsInf(d, 1):
		return `"Infinity"`
	case math.IsInf(d, -1):
		return `"-Infinity"`
	case d == 0:
		if math.Signbit(d) {
			return "-0.0"
		}
		return "0"
	}
	// The fewest significant digits whose correctly rounded decimal reads
	// back to d, as printf("%.*e") finds them. The shortest-uniqueness
	// digit count is a lower bound; the correctly rounded string of that
	// length can miss at a power of two (2^-24 needs 17 digits this way).
	s := strconv.FormatFloat(d, 'e', 16, 64)
	for p := sigDigits(strconv.FormatFloat(d, 'e', -1, 64)); p < 17; p++ {
		r := strconv.FormatFloat(d, 'e', p-1, 64)
		if x, err := strconv.ParseFloat(r, 64); err == nil && x == d {
			s = r
			break
		}
	}
	e := strings.IndexByte(s, 'e')
	exp, _ := strconv.Atoi(s[e+1:])
	if exp < -5 || exp >= 17 {
		return s
	}
	// The significant digits of the shortest form, then as many decimals
	// as they need: integral values come out with all their digits
	// (43884378102693888, not 43884378102693890), as printf's %.Nf does.
	return strconv.FormatFloat(d, 'f', max(0, sigDigits(s)-1-exp), 64)
}

// sigDigits counts the digits of the mantissa of a number in 'e' format.
func sigDigits(s string) int {
	n := 0
	for _, ch := range s {
		if ch == 'e' {
			break
		}
		if ch >= '0' && ch <= '9' {
			n++
		}
	}
	return n
}

// FormatValue writes a value of type dt as a JSON value of the interop
// schema: integers as numbers, or as decimal strings when their magnitude
// exceeds 2^53; floats as FormatFloat writes them.
func FormatValue(dt arrow.DataType, x uint64) string {
	if isFloat(dt) {
		return FormatFloat(Float64(dt, x))
	}
	w := arrowsparse.ByteWidth(dt)
	x &= widthMask(w)
	if signed(dt) {
		v := IndexValue(dt, x)
		s := strconv.FormatInt(v, 10)
		if v > int64(exact) || v < -int64(exact) {
			return `"` + s + `"`
		}
		return s
	}
	s := strconv.FormatUint(x, 10)
	if x > exact {
		return `"` + s + `"`
	}
	return s
}
