package textparse

import (
	"encoding/binary"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/float16"

	"github.com/arrowsparse/arrowsparse"
)

// exactPow10 holds the powers of ten that float64 represents exactly.
var exactPow10 = [...]float64{
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
}

// fastFloat parses the decimal number at the start of b with the fast path:
// [+-]? digits [. digits] [(e|E) [+-]? digits], at least one digit in the
// significand, at most 19 significant digits. It returns the value and the
// number of bytes the number spans. ok is false when the fast path cannot
// decide: another syntax (inf, nan, hex, underscores, a dangling exponent),
// more than 19 significant digits, a result outside the normal float64 range,
// or a product too close to a rounding boundary. The caller then hands the
// whole token to strconv.ParseFloat, so every result equals strconv's bit for
// bit. The caller must also check that the number ends the token.
func fastFloat(b []byte) (f float64, n int, ok bool) {
	i := 0
	neg := false
	if i < len(b) && (b[i] == '-' || b[i] == '+') {
		neg = b[i] == '-'
		i++
	}
	digits := false // any digit in the significand
	for i < len(b) && b[i] == '0' {
		i++
		digits = true
	}
	// w takes every significant digit; past 19 of them it is meaningless
	// and the fast path gives up.
	j := i
	w, i := digitRun(b, i, 0)
	nd := i - j
	q := 0 // the value is w·10^q
	if i < len(b) && b[i] == '.' {
		i++
		if nd == 0 {
			for i < len(b) && b[i] == '0' {
				i++
				q--
				digits = true
			}
		}
		j = i
		w, i = digitRun(b, i, w)
		nd += i - j
		q -= i - j
	}
	if !digits && nd == 0 {
		return 0, i, false
	}
	trunc := nd > 19
	if i < len(b) && b[i]|0x20 == 'e' {
		j := i + 1
		eneg := false
		if j < len(b) && (b[j] == '-' || b[j] == '+') {
			eneg = b[j] == '-'
			j++
		}
		if j >= len(b) || b[j]-'0' > 9 {
			return 0, i, false // "1e", "1e+": strconv decides (an error)
		}
		e := 0
		for ; j < len(b); j++ {
			c := b[j] - '0'
			if c > 9 {
				break
			}
			if e < 1<<20 {
				e = e*10 + int(c)
			}
		}
		if eneg {
			e = -e
		}
		q += e
		i = j
	}
	if trunc {
		return 0, i, false
	}
	if w == 0 {
		if neg {
			return math.Copysign(0, -1), i, true
		}
		return 0, i, true
	}
	if w <= 1<<53 && q >= -22 && q <= 22 {
		// Both operands are exact, so the one IEEE operation rounds
		// correctly (Clinger's fast path).
		f = float64(w)
		if q < 0 {
			f /= exactPow10[-q]
		} else {
			f *= exactPow10[q]
		}
		if neg {
			f = -f
		}
		return f, i, true
	}
	u, ok := eiselLemire(w, q)
	if !ok {
		return 0, i, false
	}
	if neg {
		u |= 1 << 63
	}
	return math.Float64frombits(u), i, true
}

// digitRun reads the digits at b[i:] into w (w·10 + digit each), eight at
// a time while it can, and returns w and the index after the digits.
func digitRun(b []byte, i int, w uint64) (uint64, int) {
	for i+8 <= len(b) {
		x := binary.LittleEndian.Uint64(b[i:])
		if !eightDigits(x) {
			break
		}
		w = w*100000000 + eightValue(x)
		i += 8
	}
	for i < len(b) {
		c := b[i] - '0'
		if c > 9 {
			break
		}
		w = w*10 + uint64(c)
		i++
	}
	return w, i
}

// eightDigits reports whether the 8 bytes of x (in memory order, read
// little-endian) are all ASCII digits: each byte's high nibble is 3 and
// stays 3 after adding 6. A byte that carries into its neighbour has a
// high nibble other than 3 itself, so the test fails either way.
func eightDigits(x uint64) bool {
	return (x&0xf0f0f0f0f0f0f0f0)|((x+0x0606060606060606)&0xf0f0f0f0f0f0f0f0)>>4 == 0x3333333333333333
}

// eightValue returns the value of 8 ASCII digits in x (the first digit in
// the lowest byte): pairs first (10·d0 + d1 in every even byte), then the
// four pairs weighted by 10^6, 10^4, 10^2 and 1 with two multiplications
// whose wanted sums land in the high 32 bits.
func eightValue(x uint64) uint64 {
	x -= 0x3030303030303030
	x = x*10 + x>>8
	const mask = 0x000000ff000000ff
	return ((x&mask)*(100+1000000<<32) + (x>>16&mask)*(1+10000<<32)) >> 32
}

// eiselLemire returns the bits of the float64 nearest to w·10^q (w > 0),
// ties to even, or ok = false when it cannot be sure (then the caller falls
// back to a slower exact method). The algorithm is Eisel and Lemire's
// (Lemire, "Number Parsing at a Gigabyte per Second", 2021): multiply the
// normalised significand by a truncated 128-bit power of ten, which brackets
// the exact product within an error smaller than one unit of the low 64
// bits, and accept the result only if that error cannot move the rounding.
func eiselLemire(w uint64, q int) (uint64, bool) {
	if q < pow10Min || q > pow10Max {
		return 0, false
	}
	p := pow10Table()[q-pow10Min]
	s := bits.LeadingZeros64(w)
	w <<= uint(s) // 2^63 ≤ w < 2^64
	// Y = w·T / 2^64 lies in [z, z + w) where z = w·hi (as zh:zl) and the
	// term w·lo/2^64 + w/2^64 is the unknown part below one unit of zl·w.
	zh, zl := bits.Mul64(w, p.hi)
	if zh&0x1ff == 0x1ff && zl+w < zl {
		// The unknown part could carry into the bits that decide the
		// rounding: add the high half of w·lo. What remains unknown is
		// below 2 units of zl.
		yh, _ := bits.Mul64(w, p.lo)
		var c uint64
		zl, c = bits.Add64(zl, yh, 0)
		zh += c
		if zh&0x1ff == 0x1ff && zl == math.MaxUint64 {
			return 0, false
		}
	}
	// zh ≥ 2^62. Keep 54 bits: the 53 of the result and a rounding bit.
	top := zh >> 63
	shift := 9 + top
	m := zh >> shift
	if zl == 0 && zh&(1<<shift-1) == 0 && m&3 == 1 {
		// The lower bound sits exactly halfway (or just below the true
		// value): ties-to-even and round-half-up may disagree.
		return 0, false
	}
	// x = zh·2^(e + 128 − s) approximately, so m counts units of
	// 2^(shift + e + 128 − s).
	exp := int(shift) + int(p.e) + 128 - s
	m = (m + m&1) >> 1 // round half up on the 54th bit (ties handled above)
	exp++
	if m == 1<<53 {
		m >>= 1
		exp++
	}
	// The value is m·2^exp with 2^52 ≤ m < 2^53.
	biased := exp + 52 + 1023
	if biased < 1 || biased > 2046 {
		return 0, false // subnormal, zero or overflow: strconv decides
	}
	return uint64(biased)<<52 | m&(1<<52-1), true
}

// stringOf returns b as a string without copying; the string must not
// outlive b's contents (strconv does not keep it).
func stringOf(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// slowFloat parses a token with strconv.ParseFloat. An out-of-range value
// is accepted as the ±Inf that strconv returns; any other error is a
// syntax error (ok = false).
func slowFloat(tok []byte) (float64, bool) {
	f, err := strconv.ParseFloat(stringOf(tok), 64)
	if err != nil {
		if ne, isNum := err.(*strconv.NumError); isNum && ne.Err == strconv.ErrRange {
			return f, true
		}
		return 0, false
	}
	return f, true
}

// ParseFloat64 parses a whole token as strconv.ParseFloat(tok, 64) does,
// with out-of-range values accepted as ±Inf. ok is false for a syntax error.
func ParseFloat64(tok []byte) (float64, bool) {
	f, n, ok := fastFloat(tok)
	if ok && n == len(tok) {
		return f, true
	}
	return slowFloat(tok)
}

// ParseFloat32 parses a whole token to the nearest float32 (ties to even),
// the value strconv.ParseFloat(tok, 32) returns. It rounds the float64 value
// once more, which is exact unless the float64 lands exactly halfway
// between two float32s; then it compares the token's exact decimal value
// with that midpoint.
func ParseFloat32(tok []byte) (float32, bool) {
	f, ok := ParseFloat64(tok)
	if !ok {
		return 0, false
	}
	return Float32Of(f, tok), true
}

// Float32Of rounds f, the correctly rounded float64 of the number written in
// tok, to the float32 nearest to that number.
func Float32Of(f float64, tok []byte) float32 {
	g := float32(f)
	if float64(g) == f || f != f || math.IsInf(f, 0) {
		return g
	}
	a := math.Abs(f)
	// The float32s around a: lo < a < hi, where hi may be 2^128, the
	// first value past the largest float32 (g is then +Inf).
	gb := math.Float32bits(float32(a))
	var lob uint32
	if float64(math.Float32frombits(gb)) < a {
		lob = gb
	} else {
		lob = gb - 1
	}
	lo := float64(math.Float32frombits(lob))
	hi := float64(math.Float32frombits(lob + 1))
	if math.IsInf(hi, 1) {
		hi = 0x1p128
	}
	r := nearer(a, lo, hi, tok, lob&1 == 0)
	out := float32(r)
	if r == 0x1p128 {
		out = float32(math.Inf(1))
	}
	if f < 0 {
		return -out
	}
	return out
}

// Float16Of rounds f, the correctly rounded float64 of the number written in
// tok, to the float16 nearest to that number (ties to even), with overflow
// to infinity and subnormals.
func Float16Of(f float64, tok []byte) float16.Num {
	if f != f {
		return float16.FromBits(0x7e00) // the quiet NaN of arrowsparse.Float32ToHalf
	}
	neg := math.Signbit(f)
	a := math.Abs(f)
	var h uint16
	switch {
	case a >= 65520:
		// At or past the midpoint between the largest float16 (65504)
		// and 65536.
		h = 0x7c00
		if a == 65520 && !math.IsInf(a, 1) {
			if nearer(a, 65504, 65536, tok, false) == 65504 {
				h = 0x7bff
			}
		}
	default:
		// A candidate within one unit of a: the float32 path rounds
		// twice, so only its neighbours need a look.
		c := arrowsparse.Float32ToHalf(float32(a)).Uint16()
		cv := halfValue(c)
		if cv == a {
			h = c
			break
		}
		var lo, hi uint16
		if cv > a {
			lo, hi = c-1, c
		} else {
			lo, hi = c, c+1
		}
		r := nearer(a, halfValue(lo), halfValue(hi), tok, lo&1 == 0)
		h = lo
		if r == halfValue(hi) {
			h = hi
		}
	}
	if neg {
		h |= 0x8000
	}
	return float16.FromBits(h)
}

// halfValue returns the value of the non-negative float16 with bits h.
func halfValue(h uint16) float64 {
	return float64(arrowsparse.HalfToFloat32(float16.FromBits(h)))
}

// nearer returns lo or hi, whichever is nearer to the number written in tok,
// whose absolute value rounds to a in float64 (lo < a < hi, or a is the
// midpoint); on a tie it returns lo if loEven, else hi. Midpoints between
// narrower floats are float64 numbers, so a on either side of the midpoint
// says which side the exact number is on; only a == midpoint needs the
// exact decimal value.
func nearer(a, lo, hi float64, tok []byte, loEven bool) float64 {
	mid := lo + (hi-lo)/2 // exact: both have few significant bits
	switch {
	case a < mid:
		return lo
	case a > mid:
		return hi
	}
	c := compareExact(tok, mid)
	switch {
	case c < 0:
		return lo
	case c > 0:
		return hi
	case loEven:
		return lo
	}
	return hi
}

// compareExact compares the absolute value of the number written in tok
// with m exactly (-1, 0, +1). A token it cannot read exactly compares equal,
// which keeps the ties-to-even result of the float64 value.
func compareExact(tok []byte, m float64) int {
	s := strings.ReplaceAll(string(tok), "_", "")
	s = strings.TrimLeft(s, "+-")
	var x big.Rat
	if _, ok := x.SetString(s); !ok {
		return 0
	}
	var y big.Rat
	y.SetFloat64(m)
	return x.Cmp(&y)
}
