package gcs_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
)

// wideSizes cross the sort's thresholds: insertion-sorted buckets (≤ 48),
// one bucket (< 4096), and bucket counts that grow with the entries.
var wideSizes = []int{1, 47, 49, 4095, 4096, 33_000, 140_000}

// checkStorage compares the elements of x, in storage order, with the
// reference tuples (in the storage's axis order, dims) and values.
func checkStorage[X gcs.Sparse](t *testing.T, x X, dims []int, wc [][]int64, wv []float64) {
	t.Helper()
	q := 0
	for idx, v := range gcs.All[float64](x) {
		require.Less(t, q, len(wc), "more elements than the reference")
		for l, k := range dims {
			if idx[k] != wc[q][l] {
				require.Equal(t, wc[q], permuted(idx, dims), "element %d", q)
			}
		}
		if v != wv[q] {
			require.Equal(t, wv[q], v, "element %d", q)
		}
		q++
	}
	require.Equal(t, len(wc), q)
}

func permuted(idx []int64, dims []int) []int64 {
	out := make([]int64, len(dims))
	for l, k := range dims {
		out[l] = idx[k]
	}
	return out
}

// COO→CSR and COO→CSC of matrices whose linear keys take 63 to 78 bits (one
// or two key words), for every index type that holds the coordinates, both
// layouts, sizes across the sort's thresholds, duplicates, every policy,
// on 1 and 2 workers, agree with a comparison sort.
func TestFromCOOWideKeys(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(31, 32))
	policies := []arrowsparse.Duplicates{arrowsparse.SumDuplicates, arrowsparse.KeepFirst, arrowsparse.KeepLast, arrowsparse.KeepMin, arrowsparse.KeepMax}
	trial := 0
	for _, keyBits := range []uint{63, 64, 65, 70, 78} {
		for _, axis := range []gcs.Axis{gcs.Rows, gcs.Cols} {
			for s := range 3 {
				trial++
				n := wideSizes[(trial*2+s)%len(wideSizes)]
				// Few lanes (the pointers are allocated), long lanes.
				lanes := int64(1) << (8 + trial%6)
				long := int64(1) << (keyBits - uint(8+trial%6))
				if keyBits-uint(8+trial%6) >= 63 {
					long = 1<<63 - 2 // the largest a reduced shape allows
				}
				shape := []int64{lanes, long}
				dims := []int{0, 1}
				if axis == gcs.Cols {
					shape = []int64{long, lanes}
					dims = []int{1, 0}
				}
				layout := coo.Layout(trial % 2)
				p := policies[trial%len(policies)]
				workers := 1 + trial%2
				name := fmt.Sprintf("bits=%d/%s/%v/n=%d/%s/%s/workers=%d", keyBits, axis, shape, n, layout, p, workers)
				t.Run(name, func(t *testing.T) {
					x, tu := testutil.RandomTuples(t, mem, r, shape, n, layout, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64, 3, 1+trial%4)
					defer x.Release()
					m, err := gcs.MatrixFromCOO(mem, x, axis, gcs.ConvertOptions{Duplicates: p, Workers: workers})
					require.NoError(t, err)
					defer m.Release()
					require.True(t, m.IsCanonical())
					wc, wv := tu.Canonical(p, dims)
					checkStorage(t, m, dims, wc, wv)
				})
				if t.Failed() {
					return
				}
			}
		}
	}
}

// FromCOO and Remap of tensors whose reduced matrices have linear
// keys of one or two words agree with a comparison sort in the storage's
// axis order, for every index type that holds the coordinates.
func TestTensorWideKeys(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(33, 34))
	trial := 0
	for _, it := range testutil.IndexTypes {
		for _, keyBits := range []uint{40, 63, 64, 65, 67} {
			trial++
			// Dimensions of the index type's range, the first few small
			// enough for pointers over them.
			per := testutil.IndexBits(it)
			shape := []int64{4, 8}
			for left := keyBits - 5; left > 0; {
				b := min(per, left)
				d := int64(1) << b
				if b >= 62 {
					d = 1<<62 + 1 // the columns' product stays below 2^63-1
				}
				shape = append(shape, d)
				left -= b
			}
			nd := len(shape)
			n := []int{1, 49, 4096, 33_000}[trial%4]
			layout := coo.Layout(trial % 2)
			name := fmt.Sprintf("%s/bits=%d/%v/n=%d", it, keyBits, shape, n)
			t.Run(name, func(t *testing.T) {
				x, tu := testutil.RandomTuples(t, mem, r, shape, n, layout, it, arrow.PrimitiveTypes.Float64, 4, 3)
				defer x.Release()
				dims := make([]int, nd)
				for k := range dims {
					dims[k] = k
				}
				mp, err := gcs.NewMapping(shape, dims, 2)
				require.NoError(t, err)
				g, err := gcs.FromCOO(mem, x, gcs.ConvertOptions{Mapping: mp, Workers: 1 + trial%2})
				require.NoError(t, err)
				defer g.Release()
				wc, wv := tu.Canonical(arrowsparse.SumDuplicates, dims)
				checkStorage(t, g, dims, wc, wv)

				// Another order, compressed over the two small dimensions:
				// a sort again.
				other := append([]int{1, 0}, dims[2:]...)
				slices.Reverse(other[2:])
				omp, err := gcs.NewMapping(shape, other, 2)
				require.NoError(t, err)
				s, err := g.Remap(mem, omp, gcs.ConvertOptions{Workers: 1 + trial%2})
				require.NoError(t, err)
				defer s.Release()
				wc, wv = tu.Canonical(arrowsparse.SumDuplicates, other)
				checkStorage(t, s, other, wc, wv)
			})
			if t.Failed() {
				return
			}
		}
	}
}
