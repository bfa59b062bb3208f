package coords

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/keysort"
)

// randomMatrix returns n random entries of shape, row- or column-major.
func randomMatrix(r *rand.Rand, shape []int64, n int64, colMajor bool) (Matrix, []int64) {
	nd := int64(len(shape))
	data := make([]int64, n*nd)
	for i := range n {
		for k := range nd {
			v := r.Int64N(shape[k])
			if colMajor {
				data[k*n+i] = v
			} else {
				data[i*nd+k] = v
			}
		}
	}
	return Matrix{Type: arrow.PrimitiveTypes.Int64, Data: core.BytesOf(data), N: n, Shape: shape, ColMajor: colMajor}, data
}

var shapes = [][]int64{
	{7}, {5, 9}, {4, 6, 3}, {3, 2, 5, 4},
	{1 << 40, 1 << 30},                      // 70 bits: two parts
	{532924, 17262471, 2480308, 1443},       // FROSTT delicious: 75 bits
	{1 << 62, 1 << 62, 1 << 62, 3},          // 188 bits
	{1<<63 - 1, 1<<63 - 1, 1<<63 - 1, 1, 5}, // 192 bits, a unit axis
}

// Keys agrees with the definition Σ coord[k]·strides[q][k] for every rank,
// layout, axis order and number of parts (the rank-2 and rank-3 paths
// included), and compared word by word keys order entries as their
// coordinate tuples in axis order.
func TestKeysAnyAxisOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, shape := range shapes {
		nd := len(shape)
		n := int64(60)
		orders := [][]int{nil}
		for range 4 {
			orders = append(orders, r.Perm(nd))
		}
		for _, colMajor := range []bool{false, true} {
			m, _ := randomMatrix(r, shape, n, colMajor)
			for _, order := range orders {
				lin := Linearize(shape, order)
				w := len(lin.KeyBits)
				got := make([]uint64, n*int64(w))
				m.Ops().Keys(m, lin.Strides)(0, int(n), got)
				key := func(i int64) []uint64 { return got[i*int64(w) : (i+1)*int64(w)] }
				tuple := func(i int64) []int64 {
					c := make([]int64, nd)
					for j, k := range lin.Axes {
						c[j] = m.Ops().At(m, i, k)
					}
					return c
				}
				for i := range n {
					for q := range w {
						var want uint64
						for k := range nd {
							want += uint64(m.Ops().At(m, i, k)) * lin.Strides[q][k]
						}
						require.Equal(t, want, key(i)[q], "shape %v order %v col-major %v entry %d word %d", shape, order, colMajor, i, q)
						if lin.KeyBits[q] < 64 {
							require.Less(t, want, uint64(1)<<lin.KeyBits[q])
						}
					}
					for j := range n {
						require.Equal(t, slices.Compare(tuple(i), tuple(j)), slices.Compare(key(i), key(j)))
					}
				}
			}
		}
	}
}

// Linearize cuts parts from the last axis up, each fitting in 64 bits.
func TestLinearizeParts(t *testing.T) {
	for _, c := range []struct {
		shape   []int64
		bounds  []int
		keyBits []uint
	}{
		{[]int64{}, []int{0, 0}, []uint{0}},
		{[]int64{1_000_000, 1_000_000}, []int{0, 2}, []uint{40}},
		{[]int64{1 << 32, 1 << 32}, []int{0, 1, 2}, []uint{32, 32}},
		{[]int64{1<<32 - 1, 1 << 32}, []int{0, 2}, []uint{64}},
		{[]int64{1<<32 + 1, 1 << 32}, []int{0, 1, 2}, []uint{33, 32}},
		{[]int64{532924, 17262471, 2480308, 1443}, []int{0, 1, 4}, []uint{20, 56}},
		{[]int64{1 << 62, 1 << 62, 1 << 62, 3}, []int{0, 1, 2, 4}, []uint{62, 62, 64}},
	} {
		lin := Linearize(c.shape, nil)
		require.Equal(t, c.bounds, lin.Bounds, "%v", c.shape)
		require.Equal(t, c.keyBits, lin.KeyBits, "%v", c.shape)
	}
}

// Emit writes back the coordinates of the distinct keys of a bucket, for
// single-word keys given by base and for key tables of any width.
func TestEmit(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, shape := range shapes {
		nd := len(shape)
		n := int64(200)
		m, _ := randomMatrix(r, shape, n, false)
		lin := Linearize(shape, nil)
		w := len(lin.KeyBits)
		keys := make([]uint64, n*int64(w))
		m.Ops().Keys(m, lin.Strides)(0, int(n), keys)
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		key := func(i int) []uint64 { return keys[i*w : (i+1)*w] }
		slices.SortStableFunc(idx, func(a, b int) int { return slices.Compare(key(a), key(b)) })
		// A bucket of every entry, ranked by distinct key.
		const ib = 8
		b := &keysort.Bucket{IB: ib, W: w}
		var want []int64
		for q, i := range idx {
			if q == 0 || !slices.Equal(key(i), key(idx[q-1])) {
				b.Tab = append(b.Tab, key(i)...)
				for k := range nd {
					want = append(want, m.Ops().At(m, int64(i), k))
				}
			}
			b.Words = append(b.Words, uint64(len(b.Tab)/w-1)<<ib|uint64(i))
		}
		check := func(b *keysort.Bucket) {
			out := make([]int64, (n+3)*int64(nd))
			u := m.Ops().Emit(core.BytesOf(out), &lin, 3, b)
			require.Equal(t, len(want)/max(nd, 1), u, "%v", shape)
			require.Equal(t, want, out[3*nd:(3+u)*nd], "%v", shape)
		}
		check(b)
		if w == 1 && nd > 0 {
			// Base + key number, as a bucket of narrow keys gives them.
			base := b.Tab[0]
			nb := *b
			nb.Tab = nil
			nb.Base = base
			nb.Words = nil
			for _, x := range b.Words {
				nb.Words = append(nb.Words, (b.Tab[x>>ib]-base)<<ib|x&(1<<ib-1))
			}
			check(&nb)
		}
	}
}
