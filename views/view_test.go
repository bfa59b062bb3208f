package views

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// The GCS introduction: the 2×3 array 1..6 with strides (-1,-2) at offset 5 is stored
// in memory as 6 3 5 2 4 1.
func TestNegativeStrides(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	buf := core.NewZeroedBuffer(mem, 6*8)
	defer buf.Release()
	copy(core.MustSlice[float64](buf, 6), []float64{6, 3, 5, 2, 4, 1})

	v, err := New(arrow.PrimitiveTypes.Float64, buf, 5, []int64{2, 3}, []int64{-1, -2})
	require.NoError(t, err)
	defer v.Release()
	want := [][]float64{{1, 2, 3}, {4, 5, 6}}
	locs := [][]int64{{5, 3, 1}, {4, 2, 0}}
	for i := range int64(2) {
		for j := range int64(3) {
			assert.Equal(t, want[i][j], At[float64](v, i, j))
			assert.Equal(t, locs[i][j], v.Offset(i, j))
		}
	}
	c, err := v.Copy(mem, CopyOptions{})
	require.NoError(t, err)
	defer c.Release()
	assert.Equal(t, []float64{1, 2, 3, 4, 5, 6}, data[float64](c))
}

func TestNewRejectsOutOfBounds(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	buf := core.NewZeroedBuffer(mem, 6*8)
	defer buf.Release()
	_, err := New(arrow.PrimitiveTypes.Float64, buf, 0, []int64{2, 4}, []int64{3, 1})
	require.ErrorIs(t, err, arrow.ErrInvalid)
	_, err = New(arrow.PrimitiveTypes.Float64, buf, 4, []int64{2, 3}, []int64{-1, -2})
	require.ErrorIs(t, err, arrowsparse.ErrBufferSize)
	_, err = New(arrow.PrimitiveTypes.Float64, buf, -1, []int64{1}, []int64{1})
	require.ErrorIs(t, err, arrow.ErrIndex)
	_, err = New(arrow.PrimitiveTypes.Float64, buf, 0, []int64{3, 1 << 62}, []int64{1 << 62, 4})
	require.ErrorIs(t, err, arrowsparse.ErrOverflow)
	_, err = New(arrow.BinaryTypes.String, buf, 0, []int64{1}, []int64{1})
	require.ErrorIs(t, err, arrow.ErrType)
}

// Exactly column-major strides survive normalisation, unit axes included,
// so that a column-major Arrow tensor keeps the strides Arrow C++ gave it;
// other unit-axis strides are normalised (the NuMojo view proposal).
func TestColumnMajorUnitAxesKept(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	buf := core.NewZeroedBuffer(mem, 64*8)
	defer buf.Release()
	for _, c := range []struct {
		shape, strides, want []int64
	}{
		{[]int64{1, 7}, []int64{1, 1}, []int64{1, 1}},           // column-major: kept
		{[]int64{5, 1, 5}, []int64{1, 5, 5}, []int64{1, 5, 5}},  // column-major: kept
		{[]int64{1, 7}, []int64{100, 1}, []int64{7, 1}},         // the NuMojo view proposal: normalised
		{[]int64{5, 1, 5}, []int64{1, 3, 5}, []int64{1, 25, 5}}, // normalised (row-major value)
	} {
		v, err := New(arrow.PrimitiveTypes.Float64, buf, 0, c.shape, c.strides)
		require.NoError(t, err)
		assert.Equal(t, c.want, v.ElemStrides(), "shape %v strides %v", c.shape, c.strides)
		assert.True(t, v.IsFContiguous())
		v.Release()
	}
}
