package textparse

import "math"

// ScanUint reads the decimal digits at the start of b. n is the number of
// digits (0 if b does not start with one); overflow reports a value above
// math.MaxInt64, in which case v is meaningless.
func ScanUint(b []byte) (v uint64, n int, overflow bool) {
	for n < len(b) {
		c := b[n] - '0'
		if c > 9 {
			break
		}
		v = v*10 + uint64(c)
		n++
	}
	if n > 18 {
		// 19 digits or more may overflow: redo with checks.
		v = 0
		for _, ch := range b[:n] {
			c := uint64(ch - '0')
			if v > (math.MaxInt64-c)/10 {
				overflow = true
			}
			v = v*10 + c
		}
	}
	return v, n, overflow
}

// ScanInt reads an optionally signed decimal integer at the start of b into
// an int64. n is the number of bytes read (0 if there is no digit after the
// sign); overflow reports a value outside int64.
func ScanInt(b []byte) (v int64, n int, overflow bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
		n = 1
	}
	var u uint64
	d := 0
	for d < len(b) {
		c := b[d] - '0'
		if c > 9 {
			break
		}
		if u > (math.MaxUint64-uint64(c))/10 {
			overflow = true
		}
		u = u*10 + uint64(c)
		d++
	}
	if d == 0 {
		return 0, 0, false
	}
	n += d
	if neg {
		if u > 1<<63 {
			overflow = true
		}
		return -int64(u), n, overflow
	}
	if u > math.MaxInt64 {
		overflow = true
	}
	return int64(u), n, overflow
}

// ScanUint64 reads an unsigned decimal integer (an optional '+', then
// digits) at the start of b into a uint64. n is the number of bytes read (0
// if there is no digit); overflow reports a value above math.MaxUint64.
func ScanUint64(b []byte) (v uint64, n int, overflow bool) {
	if len(b) > 0 && b[0] == '+' {
		b = b[1:]
		n = 1
	}
	d := 0
	for d < len(b) {
		c := b[d] - '0'
		if c > 9 {
			break
		}
		if v > (math.MaxUint64-uint64(c))/10 {
			overflow = true
		}
		v = v*10 + uint64(c)
		d++
	}
	if d == 0 {
		return 0, 0, false
	}
	return v, n + d, overflow
}
