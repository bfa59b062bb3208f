package keysort

import "math/bits"

// layout maps the keys of one sort, w words each (word 0 most significant,
// compared lexicographically), to their effective keys: the concatenation
// of the bits in which the keys differ. Word q of every key has the same
// bits at and above tops[q] (high[q]), so only its lowest tops[q] bits
// carry order; they sit at bits [off[q], off[q]+tops[q]) of the effective
// key, which has k bits in all. Numeric order of effective keys is the
// lexicographic order of the keys.
type layout struct {
	tops []uint
	high []uint64
	off  []uint
	k    uint
}

// newLayout returns the layout for words whose varying bits are tops and
// whose constant bits are high.
func newLayout(tops []uint, high []uint64) layout {
	l := layout{tops: tops, high: high, off: make([]uint, len(tops))}
	for q := len(tops) - 1; q >= 0; q-- {
		l.off[q] = l.k
		l.k += tops[q]
	}
	return l
}

// surveyLayout returns the layout of keys whose words differ from first
// in the bits of diff.
func surveyLayout(first, diff []uint64) layout {
	w := len(first)
	tops := make([]uint, w)
	high := make([]uint64, w)
	for q := range w {
		tops[q] = uint(bits.Len64(diff[q]))
		high[q] = first[q] &^ lowMask(tops[q])
	}
	return newLayout(tops, high)
}

// guessLayout returns the layout of keys that use every bit below
// keyBits[q] in word q.
func guessLayout(keyBits []uint) layout {
	tops := make([]uint, len(keyBits))
	for q, b := range keyBits {
		tops[q] = min(b, 64)
	}
	return newLayout(tops, make([]uint64, len(keyBits)))
}

// sameSplit reports whether l and o compute the same bucket of every key
// when the top d bits of the effective key pick the bucket.
func (l *layout) sameSplit(o *layout) bool {
	if l.k != o.k {
		return false
	}
	for q := range l.tops {
		if l.tops[q] != o.tops[q] {
			return false
		}
	}
	return true
}

// lowMask returns a mask of the lowest b bits (b ≤ 64).
func lowMask(b uint) uint64 {
	if b >= 64 {
		return ^uint64(0)
	}
	return uint64(1)<<b - 1
}

// unpack writes the key words of the effective key e (least significant
// word first) to k.
func (l *layout) unpack(e, k []uint64) {
	for q, t := range l.tops {
		k[q] = l.high[q] | extract(e, l.off[q], t)
	}
}

// pack2 returns the effective key of the two key words k0, k1 as a 128-bit
// number hi:lo.
func (l *layout) pack2(k0, k1 uint64) (hi, lo uint64) {
	t1 := l.tops[1]
	a, b := k0&lowMask(l.tops[0]), k1&lowMask(t1)
	switch {
	case t1 == 0:
		return 0, a
	case t1 >= 64:
		return a, b
	}
	return a >> (64 - t1), a<<t1 | b
}

// unpack2 returns the two key words of the effective key hi:lo.
func (l *layout) unpack2(hi, lo uint64) (k0, k1 uint64) {
	t1 := l.tops[1]
	k1 = l.high[1] | lo&lowMask(t1)
	return l.high[0] | shr128(hi, lo, t1)&lowMask(l.tops[0]), k1
}

// shr128 returns the low 64 bits of hi:lo >> s, s ≤ 128.
func shr128(hi, lo uint64, s uint) uint64 {
	switch {
	case s == 0:
		return lo
	case s < 64:
		return lo>>s | hi<<(64-s)
	case s < 128:
		return hi >> (s - 64)
	}
	return 0
}

// extract returns bits [lo, lo+n) of the multi-word number e (least
// significant word first), n ≤ 64; bits beyond e are zero.
func extract(e []uint64, lo, n uint) uint64 {
	if n == 0 {
		return 0
	}
	i, s := int(lo/64), lo%64
	var v uint64
	if i < len(e) {
		v = e[i] >> s
	}
	if s > 0 && s+n > 64 && i+1 < len(e) {
		v |= e[i+1] << (64 - s)
	}
	return v & lowMask(n)
}

// compareLE compares two multi-word numbers of equal length, least
// significant word first.
func compareLE(a, b []uint64) int {
	for i := len(a) - 1; i >= 0; i-- {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}
