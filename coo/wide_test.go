package coo_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
)

// wideSizes cross the sort's thresholds: insertion-sorted buckets (≤ 48),
// one bucket (< 4096), and bucket counts that grow with the entries.
var wideSizes = []int{1, 47, 49, 4095, 4096, 33_000, 140_000}

// checkCanonical compares a canonical tensor with the reference.
func checkCanonical(t *testing.T, y *coo.Tensor, wc [][]int64, wv []float64) {
	t.Helper()
	require.True(t, y.IsCanonical())
	require.EqualValues(t, len(wc), y.NNZ())
	nd := y.NumDims()
	vb := y.ValuesBuffer().Bytes()
	for i := range wc {
		for k := range nd {
			if y.Coord(int64(i), k) != wc[i][k] {
				require.Equal(t, wc[i], coordRow(y, i), "entry %d", i)
			}
		}
		if g := testutil.GetFloat(vb, y.DataType(), int64(i)); g != wv[i] {
			require.Equal(t, wv[i], g, "entry %d", i)
		}
	}
}

func coordRow(y *coo.Tensor, i int) []int64 {
	c := make([]int64, y.NumDims())
	for k := range c {
		c[k] = y.Coord(int64(i), k)
	}
	return c
}

// Canonicalisation of key spaces of 63, 64, 65, 100 and 190 bits (one to
// three key words), for every index type (shapes it can hold), both
// layouts, sizes across the sort's thresholds, duplicates and clusters,
// every duplicate policy, on 1 and 2 workers, agrees with a comparison sort
// of the coordinate tuples.
func TestCanonicalizeWideKeys(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(21, 22))
	policies := []arrowsparse.Duplicates{arrowsparse.SumDuplicates, arrowsparse.KeepFirst, arrowsparse.KeepLast, arrowsparse.KeepMin, arrowsparse.KeepMax}
	trial := 0
	for _, keyBits := range []uint{63, 64, 65, 100, 190} {
		for _, it := range testutil.IndexTypes {
			for s := range 2 {
				trial++
				n := wideSizes[(trial*3+s)%len(wideSizes)]
				shape := testutil.WideShape(keyBits, it, trial%3 == 0)
				if len(shape) > 4 {
					n = min(n, 20_000) // long rows: fewer entries
				}
				layout := coo.Layout(trial % 2)
				vt := testutil.ValueTypes[trial%len(testutil.ValueTypes)]
				p := policies[trial%len(policies)]
				workers := 1 + trial%2
				name := fmt.Sprintf("bits=%d/%s/%v/n=%d/%s/%s/%s/workers=%d", keyBits, it, shape, n, layout, vt, p, workers)
				t.Run(name, func(t *testing.T) {
					x, tu := testutil.RandomTuples(t, mem, r, shape, n, layout, it, vt, 3, 1+trial%4)
					defer x.Release()
					y, err := x.Canonicalize(mem, coo.ConvertOptions{Duplicates: p, Workers: workers})
					require.NoError(t, err)
					defer y.Release()
					wc, wv := tu.Canonical(p, nil)
					checkCanonical(t, y, wc, wv)
					z, err := x.Canonicalize(mem, coo.ConvertOptions{Duplicates: arrowsparse.RejectDuplicates, Workers: workers})
					if len(wc) < n {
						require.ErrorIs(t, err, arrowsparse.ErrNotCanonical)
					} else {
						require.NoError(t, err)
						z.Release()
					}
				})
				if t.Failed() {
					return
				}
			}
		}
	}
}
