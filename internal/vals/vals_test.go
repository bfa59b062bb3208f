package vals

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/stretchr/testify/assert"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// words builds keysort words key<<ib | entry for (key, entry) pairs.
func words(ib uint, pairs ...[2]uint64) []uint64 {
	out := make([]uint64, len(pairs))
	for i, p := range pairs {
		out[i] = p[0]<<ib | p[1]
	}
	return out
}

func TestReduceWordsPolicies(t *testing.T) {
	nan := math.NaN()
	in := []float64{nan, 1, 5, 2, 7}
	// key 0: entries 0 (NaN), 1 (1); key 3: entries 2 (5), 3 (2), 4 (7).
	w := words(3, [2]uint64{0, 0}, [2]uint64{0, 1}, [2]uint64{3, 2}, [2]uint64{3, 3}, [2]uint64{3, 4})
	for _, c := range []struct {
		p    arrowsparse.Duplicates
		want []float64
	}{
		{arrowsparse.SumDuplicates, []float64{nan, 14}},
		{arrowsparse.KeepFirst, []float64{nan, 5}},
		{arrowsparse.KeepLast, []float64{1, 7}},
		{arrowsparse.KeepMin, []float64{1, 2}}, // NaN is never kept over a number
		{arrowsparse.KeepMax, []float64{1, 7}},
	} {
		out := make([]float64, 2)
		n, dup := For(arrow.PrimitiveTypes.Float64).ReduceWords(core.BytesOf(in), core.BytesOf(out), 0, w, 3, c.p)
		assert.Equal(t, 2, n)
		assert.True(t, dup)
		for i := range out {
			if math.IsNaN(c.want[i]) {
				assert.True(t, math.IsNaN(out[i]), "policy %s", c.p)
			} else {
				assert.Equal(t, c.want[i], out[i], "policy %s", c.p)
			}
		}
	}
}

// Integers wrap around in the value type; float16 sums round once per
// addition and keep subnormals (arrow-go's float16.Num.Add would flush them).
func TestReduceInValueType(t *testing.T) {
	i8 := []int8{100, 100}
	out8 := []int8{0}
	For(arrow.PrimitiveTypes.Int8).ReduceWords(core.BytesOf(i8), core.BytesOf(out8), 0, words(1, [2]uint64{0, 0}, [2]uint64{0, 1}), 1, arrowsparse.SumDuplicates)
	assert.Equal(t, int8(-56), out8[0])

	sub := float16.FromBits(1) // the smallest subnormal, 2^-24
	h := []float16.Num{sub, sub, sub}
	outh := []float16.Num{{}}
	For(arrow.FixedWidthTypes.Float16).ReduceWords(core.BytesOf(h), core.BytesOf(outh), 0, words(2, [2]uint64{0, 0}, [2]uint64{0, 1}, [2]uint64{0, 2}), 2, arrowsparse.SumDuplicates)
	assert.Equal(t, uint16(3), outh[0].Uint16())

	// 2048 + 1 rounds to 2048 in float16 (ties to even), + 1 again: 2048.
	big := []float16.Num{arrowsparse.Float32ToHalf(2048), arrowsparse.Float32ToHalf(1), arrowsparse.Float32ToHalf(1)}
	For(arrow.FixedWidthTypes.Float16).ReduceWords(core.BytesOf(big), core.BytesOf(outh), 0, words(2, [2]uint64{0, 0}, [2]uint64{0, 1}, [2]uint64{0, 2}), 2, arrowsparse.SumDuplicates)
	assert.Equal(t, float32(2048), arrowsparse.HalfToFloat32(outh[0]))
}

func TestScatterPolicies(t *testing.T) {
	in := []int32{4, 9, 2, 6}
	pos := []int64{3, 1, 3, 3}
	for _, c := range []struct {
		p    arrowsparse.Duplicates
		want []int32
		dup  bool
	}{
		{arrowsparse.SumDuplicates, []int32{0, 9, 0, 12}, false},
		{arrowsparse.KeepLast, []int32{0, 9, 0, 6}, false},
		{arrowsparse.KeepFirst, []int32{0, 9, 0, 4}, true},
		{arrowsparse.KeepMin, []int32{0, 9, 0, 2}, true},
		{arrowsparse.KeepMax, []int32{0, 9, 0, 6}, true},
		{arrowsparse.RejectDuplicates, []int32{0, 9, 0, 4}, true},
	} {
		dense := make([]int32, 4)
		seen := make([]uint64, 1)
		dup := For(arrow.PrimitiveTypes.Int32).Scatter(core.BytesOf(dense), pos, core.BytesOf(in), 0, c.p, seen)
		assert.Equal(t, c.want, dense, "policy %s", c.p)
		assert.Equal(t, c.dup, dup, "policy %s", c.p)
	}
}

// Negative zero is zero and NaN is not, for every float width.
func TestNonzero(t *testing.T) {
	negz := math.Copysign(0, -1)
	f64 := []float64{0, negz, math.NaN(), 1, 0, -2}
	out := make([]float64, 6)
	cols := make([]int64, 6)
	ops := For(arrow.PrimitiveTypes.Float64)
	assert.EqualValues(t, 3, ops.CountNonzero(core.BytesOf(f64), 0, 6, 1))
	n := ops.CollectNonzero(core.BytesOf(f64), 0, 6, 1, core.BytesOf(out), 0, cols)
	assert.Equal(t, 3, n)
	assert.Equal(t, []int64{2, 3, 5}, cols[:n])
	// Every other element, from the end: 0, NaN, negz... strided access.
	assert.EqualValues(t, 2, ops.CountNonzero(core.BytesOf(f64), 5, 3, -2)) // -2, 1, negz

	h := []float16.Num{float16.FromBits(0x8000), float16.FromBits(0x7e00), float16.FromBits(1), {}}
	hops := For(arrow.FixedWidthTypes.Float16)
	assert.EqualValues(t, 2, hops.CountNonzero(core.BytesOf(h), 0, 4, 1))
}
