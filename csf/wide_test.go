package csf_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
)

// checkTree compares the values of a CSF tensor, in tree order, with the
// reference tuples (in its axis order) and values.
func checkTree(t *testing.T, c *csf.Tensor, wc [][]int64, wv []float64) {
	t.Helper()
	require.NoError(t, c.Validate())
	require.EqualValues(t, len(wc), c.NNZ())
	order := c.AxisOrder()
	q := 0
	for idx, v := range csf.All[float64](c) {
		for l, k := range order {
			if idx[k] != wc[q][l] {
				got := make([]int64, len(order))
				for l, k := range order {
					got[l] = idx[k]
				}
				require.Equal(t, wc[q], got, "entry %d", q)
			}
		}
		if v != wv[q] {
			require.Equal(t, wv[q], v, "entry %d", q)
		}
		q++
	}
	require.Equal(t, len(wc), q)
}

// FromCOO and WithAxisOrder on key spaces of 63, 64, 65, 100 and 190 bits
// (one to three key words), for every index type (shapes it holds), both
// layouts, sizes across the sort's thresholds, duplicates, every policy,
// the default and random axis orders, on 1 and 2 workers, agree with a
// comparison sort of the coordinate tuples.
func TestFromCOOWideKeys(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(51, 52))
	sizes := []int{1, 47, 49, 4095, 4096, 33_000, 140_000}
	policies := []arrowsparse.Duplicates{arrowsparse.SumDuplicates, arrowsparse.KeepFirst, arrowsparse.KeepLast, arrowsparse.KeepMin, arrowsparse.KeepMax}
	trial := 0
	for _, keyBits := range []uint{63, 64, 65, 100, 190} {
		for _, it := range testutil.IndexTypes {
			trial++
			shape := testutil.WideShape(keyBits, it, trial%3 == 0)
			if len(shape) == 1 { // a CSF tensor has two dimensions or more
				shape = []int64{1 << (keyBits / 2), 1 << (keyBits - keyBits/2)}
			}
			nd := len(shape)
			// Many dimensions make each entry long: fewer entries.
			n := sizes[trial%len(sizes)]
			if nd > 8 {
				n = min(n, 20_000)
			}
			var order []int
			if trial%2 == 0 {
				order = r.Perm(nd)
			}
			layout := coo.Layout(trial % 2)
			p := policies[trial%len(policies)]
			workers := 1 + trial%2
			name := fmt.Sprintf("bits=%d/%s/%v/n=%d/order=%v/%s/%s", keyBits, it, shape, n, order, layout, p)
			t.Run(name, func(t *testing.T) {
				x, tu := testutil.RandomTuples(t, mem, r, shape, n, layout, it, testutil.ValueTypes[10], 3, 1+trial%4)
				defer x.Release()
				c, err := csf.FromCOO(mem, x, csf.ConvertOptions{AxisOrder: order, Duplicates: p, Workers: workers})
				require.NoError(t, err)
				defer c.Release()
				wc, wv := tu.Canonical(p, c.AxisOrder())
				checkTree(t, c, wc, wv)

				// Another axis order: the leaves are sorted again.
				other := slices.Clone(c.AxisOrder())
				slices.Reverse(other)
				w, err := c.WithAxisOrder(mem, other...)
				require.NoError(t, err)
				defer w.Release()
				wc, wv = tu.Canonical(p, other)
				checkTree(t, w, wc, wv)
			})
			if t.Failed() {
				return
			}
		}
	}
}
