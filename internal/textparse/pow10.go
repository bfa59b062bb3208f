package textparse

import (
	"math/big"
	"sync"
)

// The decimal exponents the 128-bit power table covers. A decimal
// significand of up to 19 digits times 10^q is a normal float64 only for q
// in about [-343, 308]; the table is a little wider and every result is
// range-checked anyway.
const (
	pow10Min = -348
	pow10Max = 347
)

// pow128 is the truncated 128-bit approximation of a power of ten: for the
// decimal exponent q,
//
//	hi·2^64 + lo = ⌊10^q / 2^e⌋,  2^127 ≤ hi·2^64 + lo < 2^128.
//
// Truncation (rounding down) is what the error analysis in floatBits
// relies on: the true product lies in [w·T, w·(T+1)).
type pow128 struct {
	hi, lo uint64
	e      int32
}

var pow10Table = sync.OnceValue(func() []pow128 {
	t := make([]pow128, pow10Max-pow10Min+1)
	ten := big.NewInt(10)
	x := new(big.Int)
	p := new(big.Int)
	mask := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 64), big.NewInt(1))
	set := func(q int, v *big.Int, e int) {
		if v.BitLen() != 128 {
			panic("textparse: power table entry is not 128 bits")
		}
		lo := new(big.Int).And(v, mask).Uint64()
		hi := new(big.Int).Rsh(v, 64).Uint64()
		t[q-pow10Min] = pow128{hi: hi, lo: lo, e: int32(e)}
	}
	for q := 0; q <= pow10Max; q++ {
		p.Exp(ten, big.NewInt(int64(q)), nil)
		l := p.BitLen()
		if l >= 128 {
			x.Rsh(p, uint(l-128)) // floor
		} else {
			x.Lsh(p, uint(128-l)) // exact
		}
		set(q, x, l-128)
	}
	for q := -1; q >= pow10Min; q-- {
		p.Exp(ten, big.NewInt(int64(-q)), nil)
		// 10^q = 2^k / 10^-q / 2^k with k = 127 + bitlen(10^-q): the
		// quotient lies in (2^127, 2^128) because 10^-q is no power of two.
		k := 127 + p.BitLen()
		x.Lsh(big.NewInt(1), uint(k))
		x.Quo(x, p) // floor, both positive
		set(q, x, -k)
	}
	return t
})
