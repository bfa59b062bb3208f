package describe

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/views"
)

// eachDense gives the row-major elements, whatever the chunk length and
// the layout: negative, zero and permuted strides, offsets, every rank.
func TestEachDense(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 300 {
		nd := rng.IntN(5)
		shape := make([]int64, nd)
		for k := range shape {
			shape[k] = int64(rng.IntN(5))
			if rng.IntN(8) == 0 {
				shape[k] = 1
			}
		}
		dt := []arrow.DataType{arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Uint64, arrow.PrimitiveTypes.Float32, arrow.FixedWidthTypes.Float16}[rng.IntN(4)]
		base, err := views.Alloc(mem, dt, shape)
		require.NoError(t, err)
		b := base.Buffer().Bytes()
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		var v *views.View = base
		v.Retain()
		for range rng.IntN(3) {
			var next *views.View
			switch rng.IntN(3) {
			case 0:
				if nd > 0 {
					next, err = v.Flip(rng.IntN(nd))
				}
			case 1:
				perm := rng.Perm(nd)
				next, err = v.Transpose(perm...)
			case 2:
				bs := append([]int64(nil), v.Shape()...)
				for k := range bs {
					if bs[k] == 1 {
						bs[k] = int64(rng.IntN(4))
					}
				}
				next, err = v.BroadcastTo(bs)
			}
			require.NoError(t, err)
			if next != nil {
				v.Release()
				v = next
			}
		}
		want, err := valueBits(nil, nil, v)
		require.NoError(t, err)
		for _, chunk := range []int64{1, 2, 3, 5, 7, 64, 1 << 12} {
			var got []uint64
			require.NoError(t, eachDense(v, chunk, func(bits []uint64) error {
				assert.LessOrEqual(t, int64(len(bits)), chunk)
				got = append(got, bits...)
				return nil
			}))
			if len(want) == 0 {
				assert.Empty(t, got, "trial %d", trial)
			} else {
				assert.Equal(t, want, got, "trial %d shape %v strides %v chunk %d", trial, v.Shape(), v.ElemStrides(), chunk)
			}
		}
		v.Release()
		base.Release()
	}
	// Errors of f stop the walk.
	v, err := views.Alloc(mem, arrow.PrimitiveTypes.Int8, []int64{4, 4})
	require.NoError(t, err)
	defer v.Release()
	calls := 0
	err = eachDense(v, 4, func([]uint64) error { calls++; return fmt.Errorf("stop") })
	assert.EqualError(t, err, "stop")
	assert.Equal(t, 1, calls)
}

var _ arrowsparse.Dense = (*box)(nil)
