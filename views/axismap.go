package views

import (
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/internal/core"
)

// axisMap is the index map of one axis of a remapped view. Logical index
// i ∈ [0, n) of the axis goes to physical index p ∈ [0, plen), and the axis
// contributes p·stride elements to the address:
//
//	x = ((a + i·b) mod mod)·c + d   if mod > 0
//	x = a + i·b                     if mod = 0
//	p = tab[x]                      if tab != nil
//	p = x                           otherwise
//
// The zero axisMap is a plain axis: p = i. An axis without a table always
// has mod > 0, c = 1 and d = 0: any affine part folds into the view's
// offset and stride. When mod > 0, 0 ≤ a, b < mod.
//
// Rotation sets mod to the axis length (dtype-next's offsets), Tile sets it to
// the period (dtype-next's max-shape), and Select installs tab, an immutable
// table of physical indices that the view's derivatives share. hold, when
// not nil, is the Arrow buffer that owns tab; every view with the map
// retains it.
type axisMap struct {
	mod, a, b, c, d int64
	tab             []int64
	hold            *memory.Buffer
	plen            int64
}

func (m *axisMap) plain() bool { return m.mod == 0 && m.tab == nil }

// phys returns the physical index of logical index i, which must be in
// range.
func (m *axisMap) phys(i int64) int64 {
	var x int64
	if m.mod > 0 {
		x = mulAddMod(i, m.b, m.a, m.mod)*m.c + m.d
	} else {
		x = m.a + i*m.b
	}
	if m.tab != nil {
		return m.tab[x]
	}
	return x
}

// inverse returns the smallest logical index i ∈ [0, n) whose physical
// index is p, and whether there is one.
func (m *axisMap) inverse(p, n int64) (int64, bool) {
	if m.tab == nil {
		return m.invertX(p, n)
	}
	best, found := int64(0), false
	for x, q := range m.tab {
		if q != p {
			continue
		}
		if i, ok := m.invertX(int64(x), n); ok && (!found || i < best) {
			best, found = i, true
		}
	}
	return best, found
}

// invertX returns the smallest i ∈ [0, n) that the affine or modular part
// of the map sends to x.
func (m *axisMap) invertX(x, n int64) (int64, bool) {
	if m.mod == 0 {
		d := x - m.a
		if m.b == 0 {
			return 0, d == 0 && n > 0
		}
		if d%m.b != 0 {
			return 0, false
		}
		i := d / m.b
		return i, i >= 0 && i < n
	}
	y := x
	if m.tab != nil {
		y -= m.d
		if m.c == 0 {
			if y != 0 {
				return 0, false
			}
			return 0, n > 0
		}
		if y%m.c != 0 {
			return 0, false
		}
		y /= m.c
	}
	if y < 0 || y >= m.mod {
		return 0, false
	}
	i, ok := solveLinearMod(m.a, m.b, y, m.mod)
	return i, ok && i < n
}

// solveLinearMod returns the smallest i ≥ 0 with (a + i·b) mod M = y, for
// 0 ≤ a, b, y < M, and whether there is one.
func solveLinearMod(a, b, y, M int64) (int64, bool) {
	r := y - a
	if r < 0 {
		r += M
	}
	if b == 0 {
		return 0, r == 0
	}
	g, inv := gcdInverse(b, M)
	if r%g != 0 {
		return 0, false
	}
	Mg := M / g
	return mulAddMod(r/g, inv, 0, Mg), true
}

// gcdInverse returns g = gcd(b, M) and the inverse of b/g modulo M/g (0 when
// M/g is 1), for 0 < b < M.
func gcdInverse(b, M int64) (g, inv int64) {
	// extended Euclid on (M, b): track the coefficient of b only.
	r0, r1 := M, b
	t0, t1 := int64(0), int64(1)
	for r1 != 0 {
		q := r0 / r1
		r0, r1 = r1, r0-q*r1
		t0, t1 = t1, t0-q*t1
	}
	g = r0
	Mg := M / g
	if Mg == 1 {
		return g, 0
	}
	inv = t0 % Mg
	if inv < 0 {
		inv += Mg
	}
	return g, inv
}

// mulAddMod returns (a + i·b) mod M for i ≥ 0, 0 ≤ a, b < M, without
// overflow.
func mulAddMod(i, b, a, M int64) int64 {
	hi, lo := bits.Mul64(uint64(i), uint64(b))
	um := uint64(M)
	var r uint64
	if hi == 0 {
		r = lo % um
	} else {
		_, r = bits.Div64(hi%um, lo, um)
	}
	r += uint64(a) // < 2M ≤ 2^64
	if r >= um {
		r -= um
	}
	return int64(r)
}

// floorMod returns x mod M in [0, M), for M > 0.
func floorMod(x, M int64) int64 {
	r := x % M
	if r < 0 {
		r += M
	}
	return r
}

// noWrap reports whether x_i = (a + i·b) mod M is affine for i ∈ [0, n),
// and if so returns the step e with x_i = a + i·e (e = b or b − M).
func noWrap(a, b, M, n int64) (int64, bool) {
	if b == 0 || n <= 1 {
		return b, true
	}
	if ext, ok := core.MulInt64(n-1, b); ok && ext < M-a {
		return b, true
	}
	if ext, ok := core.MulInt64(n-1, M-b); ok && ext <= a {
		return b - M, true
	}
	return 0, false
}

// materialise returns the table of physical indices of logical indices
// 0..n-1 of a remapped axis, in a new Go slice.
func (m *axisMap) materialise(n int64) []int64 {
	t := make([]int64, n)
	for i := range t {
		t[i] = m.phys(int64(i))
	}
	return t
}

// canonAxis simplifies the map of axis k of a view under construction:
// an axis of length ≤ 1 becomes plain (its one element folded into the
// offset), a modular axis that does not wrap becomes affine, and an affine
// axis without a table folds into the offset and stride.
func (v *viewBase) canonAxis(k int) {
	m := &v.maps[k]
	if m.plain() {
		return
	}
	n, s := v.shape[k], v.strides[k]
	if n <= 1 {
		if n == 1 {
			v.offset += m.phys(0) * s
		}
		*m = axisMap{}
		return
	}
	if m.mod > 0 {
		e, ok := noWrap(m.a, m.b, m.mod, n)
		if !ok {
			return
		}
		if m.tab == nil {
			v.offset += m.a * s
			v.strides[k] = e * s
			*m = axisMap{}
			return
		}
		m.a, m.b = m.a*m.c+m.d, e*m.c
		m.mod, m.c, m.d = 0, 1, 0
	}
}
