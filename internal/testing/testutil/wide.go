package testutil

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
)

// Tuples is a reference model of a COO tensor of any shape, its linear
// indices beyond int64 included: the entries' coordinates and values in
// storage order.
type Tuples struct {
	Shape  []int64
	Coords [][]int64
	Vals   []float64
}

// Canonical returns the distinct coordinate tuples, with the axes taken in
// order (nil: 0, 1, …) and listed in that order, ascending, and the values
// that the entries of each combine to, in storage order, under policy p
// (as Ref.Combined).
func (tu Tuples) Canonical(p arrowsparse.Duplicates, order []int) ([][]int64, []float64) {
	nd := len(tu.Shape)
	if order == nil {
		order = make([]int, nd)
		for k := range order {
			order[k] = k
		}
	}
	perm := make([][]int64, len(tu.Coords))
	for i, c := range tu.Coords {
		perm[i] = make([]int64, nd)
		for l, k := range order {
			perm[i][l] = c[k]
		}
	}
	idx := make([]int, len(perm))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return slices.Compare(perm[a], perm[b]) })
	var cs [][]int64
	var vs []float64
	for q, i := range idx {
		v := tu.Vals[i]
		if q > 0 && slices.Equal(perm[i], perm[idx[q-1]]) {
			acc := &vs[len(vs)-1]
			switch p {
			case arrowsparse.SumDuplicates:
				*acc += v
			case arrowsparse.KeepLast:
				*acc = v
			case arrowsparse.KeepMin:
				*acc = math.Min(*acc, v)
			case arrowsparse.KeepMax:
				*acc = math.Max(*acc, v)
			}
			continue
		}
		cs = append(cs, perm[i])
		vs = append(vs, v)
	}
	return cs, vs
}

// IndexBits returns the number of bits of a coordinate the index type
// holds: 7 for int8, 8 for uint8, …, 63 for int64.
func IndexBits(it arrow.DataType) uint {
	return uint(bits.Len64(uint64(arrowsparse.IndexMax(it))))
}

// WideShape returns a shape of about 2^keyBits elements (the product's
// bit length is keyBits) whose extents it can hold, as few dimensions as
// that allows; if odd is set, extents are not powers of two.
func WideShape(keyBits uint, it arrow.DataType, odd bool) []int64 {
	per := IndexBits(it)
	var shape []int64
	for left := keyBits; left > 0; {
		b := min(per, left)
		d := int64(math.MaxInt64) // 2^63 is beyond int64
		if b < 63 {
			d = int64(1) << b
		}
		shape = append(shape, d)
		left -= b
	}
	if odd {
		for k, d := range shape {
			if d >= 4 {
				shape[k] = d - d/4 // 3/4 of a power of two
			}
		}
	}
	return shape
}

// RandomTuples returns a random COO tensor of the given shape with nnz
// entries, stored as RandomCOO stores them, and its reference. Each entry
// after the first repeats the coordinates of a random earlier entry with
// probability 1/dupEvery (never if dupEvery ≤ 0); a coordinate is drawn
// from the first 4 of its dimension with probability 1/clusterIn (never if
// clusterIn ≤ 0), and uniformly otherwise. The caller releases the tensor.
func RandomTuples(t testing.TB, mem memory.Allocator, r *rand.Rand, shape []int64, nnz int, layout coo.Layout, indexType, valueType arrow.DataType, dupEvery, clusterIn int) (*coo.Tensor, Tuples) {
	t.Helper()
	nd := len(shape)
	tu := Tuples{Shape: shape, Coords: make([][]int64, nnz), Vals: make([]float64, nnz)}
	for i := range nnz {
		c := make([]int64, nd)
		if i > 0 && dupEvery > 0 && r.IntN(dupEvery) == 0 {
			copy(c, tu.Coords[r.IntN(i)])
		} else {
			for k := range c {
				c[k] = r.Int64N(shape[k])
				if clusterIn > 0 && r.IntN(clusterIn) == 0 {
					c[k] = r.Int64N(min(shape[k], 4))
				}
			}
		}
		tu.Coords[i] = c
		tu.Vals[i] = float64(r.IntN(3) + 1)
	}
	ib := memory.NewResizableBuffer(mem)
	defer ib.Release()
	ib.Resize(nnz * nd * arrowsparse.ByteWidth(indexType))
	for i, c := range tu.Coords {
		for k, v := range c {
			j := i*nd + k
			if layout == coo.ColMajor {
				j = k*nnz + i
			}
			PutInt(ib.Bytes(), indexType, j, v)
		}
	}
	vb := memory.NewResizableBuffer(mem)
	defer vb.Release()
	vb.Resize(nnz * arrowsparse.ByteWidth(valueType))
	for j, v := range tu.Vals {
		PutFloat(vb.Bytes(), valueType, j, v)
	}
	x, err := coo.New(valueType, indexType, shape, ib, layout, vb, int64(nnz))
	require.NoError(t, err)
	return x, tu
}
