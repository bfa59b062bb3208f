package coords

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse/internal/core"
)

// Keys agrees with the definition Σ coord[k]·strides[k] for every rank,
// layout and axis order (the rank-2 and rank-3 row-major paths included).
func TestKeysAnyAxisOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, shape := range [][]int64{{7}, {5, 9}, {4, 6, 3}, {3, 2, 5, 4}} {
		nd := len(shape)
		n := int64(50)
		orders := [][]int{nil}
		for range 4 {
			orders = append(orders, r.Perm(nd))
		}
		for _, colMajor := range []bool{false, true} {
			data := make([]int64, n*int64(nd))
			m := Matrix{Type: arrow.PrimitiveTypes.Int64, Data: core.BytesOf(data), N: n, Shape: shape, ColMajor: colMajor}
			for i := range n {
				for k := range nd {
					v := r.Int64N(shape[k])
					if colMajor {
						data[int64(k)*n+i] = v
					} else {
						data[i*int64(nd)+int64(k)] = v
					}
				}
			}
			for _, order := range orders {
				lin, ok := Linearize(shape, order, n)
				require.True(t, ok)
				got := make([]uint64, n)
				m.Ops().Keys(m, lin.Strides)(0, int(n), got)
				for i := range n {
					var want uint64
					for k := range nd {
						want += uint64(m.Ops().At(m, i, k)) * lin.Strides[k]
					}
					require.Equal(t, want, got[i], "shape %v order %v col-major %v entry %d", shape, order, colMajor, i)
				}
			}
		}
	}
}
