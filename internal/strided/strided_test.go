package strided

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWalkVisitsRowMajor(t *testing.T) {
	var got []int64
	var idxs [][]int64
	assert.True(t, Walk([]int64{2, 3}, []int64{10, 1}, 5, func(idx []int64, p int64) bool {
		got = append(got, p)
		idxs = append(idxs, append([]int64(nil), idx...))
		return true
	}))
	assert.Equal(t, []int64{5, 6, 7, 15, 16, 17}, got)
	assert.Equal(t, [][]int64{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}}, idxs)

	got = nil
	Walk(nil, nil, 3, func(idx []int64, p int64) bool { got = append(got, p); return true })
	assert.Equal(t, []int64{3}, got, "a 0-d layout is one element")
	got = nil
	Walk([]int64{4, 0, 2}, []int64{1, 1, 1}, 0, func(idx []int64, p int64) bool { got = append(got, p); return true })
	assert.Empty(t, got, "a zero dimension has no elements")

	n := 0
	assert.False(t, Walk([]int64{3, 3}, []int64{3, 1}, 0, func([]int64, int64) bool { n++; return n < 4 }))
	assert.Equal(t, 4, n, "stops when f returns false")

	// More axes than the inline index holds, with negative strides.
	shape := []int64{2, 1, 2, 1, 2, 1, 2, 1, 2, 2}
	strides := make([]int64, len(shape))
	s := int64(1)
	for k := len(shape) - 1; k >= 0; k-- {
		strides[k] = -s
		s *= shape[k]
	}
	got = nil
	Walk(shape, strides, s-1, func(_ []int64, p int64) bool { got = append(got, p); return true })
	assert.Len(t, got, int(s))
	for i, p := range got {
		assert.Equal(t, s-1-int64(i), p)
	}
}

func TestWalk2AndRows(t *testing.T) {
	var a, b []int64
	Walk2([]int64{2, 2}, []int64{2, 1}, []int64{1, 2}, 0, 100, func(p1, p2 int64) { a = append(a, p1); b = append(b, p2) })
	assert.Equal(t, []int64{0, 1, 2, 3}, a)
	assert.Equal(t, []int64{100, 102, 101, 103}, b)

	type row struct{ o0, start, n, stride int64 }
	var rows []row
	Rows([]int64{2, 4}, []int64{1, 2}, 7, func(outer []int64, start, n, stride int64) bool {
		rows = append(rows, row{outer[0], start, n, stride})
		return true
	})
	assert.Equal(t, []row{{0, 7, 4, 2}, {1, 8, 4, 2}}, rows)
	var one []int64
	Rows(nil, nil, 9, func(outer []int64, start, n, stride int64) bool { one = append(one, start, n, stride); return true })
	assert.Equal(t, []int64{9, 1, 1}, one)
	called := false
	Rows([]int64{3, 0}, []int64{0, 1}, 0, func([]int64, int64, int64, int64) bool { called = true; return true })
	assert.False(t, called)
}
