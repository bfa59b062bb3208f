package compute_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/compute"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
)

// TestParallelMatchesSerial runs the kernels on tensors large enough to be
// split among workers (and to take the radix sort of the reductions), and
// checks that 1 to 5 workers give the same bits as the dense reference:
// on operands that overlap in most places (the merges leave much of their
// room unused) and in few (they fill nearly all of it), so that the result
// is copied out of its room in one case and is a slice of it in the other,
// and the runs' blocks (pairs of runs, and a single last one for an odd
// number) are closed up.
func TestParallelMatchesSerial(t *testing.T) {
	if testing.Short() {
		t.Skip("large")
	}
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(7, 8))
	parallelMerges(t, mem, r, []int64{1000, 1200})
	parallelMerges(t, mem, r, []int64{300, 400})
	// A 3-d tensor whose reductions sort 200,000 keys.
	c3 := randomTensor(t, mem, r, []int64{60, 70, 80}, 200000, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int32)
	defer c3.Release()
	for _, rd := range reductions {
		for _, axes := range [][]int{{0}, {1}, {2}, {0, 2}, nil} {
			var first []float64
			for w := 1; w <= 3; w++ {
				res, err := rd.f(mem, c3, axes, compute.ReduceOptions{Workers: w, Format: compute.COO})
				require.NoError(t, err)
				d := denseOf[float64](t, mem, res)
				res.Release()
				if first == nil {
					first = d
				} else {
					require.True(t, equalValues(first, d), "%s %v with %d workers", rd.name, axes, w)
				}
			}
			dres, err := rd.f(mem, c3, axes, compute.ReduceOptions{Format: compute.Dense})
			require.NoError(t, err)
			require.True(t, equalValues(first, denseOf[float64](t, mem, dres)), "%s %v sparse and dense", rd.name, axes)
			dres.Release()
		}
	}
}

// parallelMerges is TestParallelMatchesSerial's check of the elementwise
// operations, on operands of the given shape.
func parallelMerges(t *testing.T, mem memory.Allocator, r *rand.Rand, shape []int64) {
	ca := randomTensor(t, mem, r, shape, 100000, arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Int32)
	defer ca.Release()
	cb := randomTensor(t, mem, r, shape, 80000, arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Int64)
	defer cb.Release()
	for _, f := range []string{"csr", "csc", "coo-canonical"} {
		a, b := as(t, mem, ca, f), as(t, mem, cb, f)
		for _, op := range binaryOps {
			var first []float64
			for w := 1; w <= 5; w++ {
				// Kept zeros, with an even number of workers, let the
				// results fill nearly all of their room.
				res, err := op.f(mem, a, b, compute.Options{Workers: w, KeepZeros: w%2 == 0})
				require.NoError(t, err)
				d := denseOf[float64](t, mem, res)
				res.Release()
				if first == nil {
					first = d
					x, y := denseOf[float64](t, mem, a), denseOf[float64](t, mem, b)
					want := make([]float64, len(x))
					for i := range x {
						want[i] = refNumber(op.name, x[i], y[i])
					}
					require.True(t, equalValues(want, d), "%s %s", f, op.name)
				} else {
					require.True(t, equalValues(first, d), "%s %s with %d workers", f, op.name, w)
				}
			}
		}
		// a - a cancels everything.
		z, err := compute.Subtract(mem, a, a, compute.Options{Workers: 2})
		require.NoError(t, err)
		assert.Equal(t, int64(0), z.NNZ())
		z.Release()
		a.Release()
		b.Release()
	}
}

// TestHypersparseReduce reduces a tensor whose result has more elements
// than int64 counts, which takes the sorted-coordinates path, and one
// whose keys need all 64 bits.
func TestHypersparseReduce(t *testing.T) {
	mem := testutil.Checked(t)
	big := int64(1) << 40
	coords := []int64{
		5, big - 1, 0,
		5, big - 1, 3,
		0, 7, 2,
		big - 1, 0, 1,
		0, 7, 1,
	}
	vals := []float64{1, 2, 3, 4, 5}
	x, err := coo.FromSlices(mem, []int64{big, big, 4}, coords, coo.RowMajor, vals)
	require.NoError(t, err)
	defer x.Release()
	s, err := compute.Sum(mem, x, []int{2}, compute.ReduceOptions{})
	require.NoError(t, err)
	defer s.Release()
	require.Equal(t, arrowsparse.FormatCOO, s.Format())
	got := map[[2]int64]float64{}
	for c, v := range coo.All[float64](s.(*coo.Tensor)) {
		got[[2]int64{c[0], c[1]}] = v
	}
	assert.Equal(t, map[[2]int64]float64{{0, 7}: 8, {5, big - 1}: 3, {big - 1, 0}: 4}, got)
	assert.True(t, s.(*coo.Tensor).IsCanonical())

	m, err := compute.Max(mem, x, []int{0, 2}, compute.ReduceOptions{})
	require.NoError(t, err)
	defer m.Release()
	got = map[[2]int64]float64{}
	for c, v := range coo.All[float64](m.(*coo.Tensor)) {
		got[[2]int64{c[0], 0}] = v
	}
	assert.Equal(t, map[[2]int64]float64{{0, 0}: 4, {7, 0}: 5, {big - 1, 0}: 2}, got)

	_, err = compute.Sum(mem, x, []int{2}, compute.ReduceOptions{Format: compute.Dense})
	require.ErrorIs(t, err, arrowsparse.ErrOverflow)
}

func TestReduceErrors(t *testing.T) {
	mem := testutil.Checked(t)
	m, err := gcs.FromSlices(mem, gcs.Rows, []int64{2, 3}, []int32{0, 1, 2}, []int32{0, 2}, []float32{1, 2})
	require.NoError(t, err)
	defer m.Release()
	for _, axes := range [][]int{{2}, {-3}, {0, 0}, {1, -1}} {
		_, err := compute.Sum(mem, m, axes, compute.ReduceOptions{})
		require.ErrorIs(t, err, arrowsparse.ErrShape, "%v", axes)
		require.ErrorIs(t, err, arrow.ErrInvalid, "%v", axes)
	}
	_, err = compute.Sum(mem, m, nil, compute.ReduceOptions{IndexType: arrow.PrimitiveTypes.Uint64})
	require.ErrorIs(t, err, arrow.ErrType)
	_, err = compute.Sum(mem, m, nil, compute.ReduceOptions{Format: compute.CSR})
	require.ErrorIs(t, err, arrowsparse.ErrShape, "a 0-d result cannot be CSR")
	e, err := gcs.FromSlices(mem, gcs.Rows, []int64{2, 0}, []int32{0, 0, 0}, []int32{}, []float32{})
	require.NoError(t, err)
	defer e.Release()
	_, err = compute.Min(mem, e, []int{1}, compute.ReduceOptions{})
	require.ErrorIs(t, err, arrowsparse.ErrShape)
	p, err := compute.Prod(mem, e, []int{1}, compute.ReduceOptions{})
	require.NoError(t, err)
	defer p.Release()
	assert.Equal(t, []float32{1, 1}, denseOf[float32](t, mem, p))
}

// TestEmptyAxisLargeResult sums over an axis of length 0 of a tensor whose
// other axis is huge: the result, all zeros, is an empty sparse tensor,
// never a dense one.
func TestEmptyAxisLargeResult(t *testing.T) {
	mem := testutil.Checked(t)
	x, err := coo.FromSlices(mem, []int64{1 << 40, 0}, []int32{}, coo.RowMajor, []float32{})
	require.NoError(t, err)
	defer x.Release()
	for _, f := range []func(memory.Allocator, arrowsparse.Tensor, []int, compute.ReduceOptions) (arrowsparse.Tensor, error){compute.Sum, compute.Count} {
		r, err := f(mem, x, []int{1}, compute.ReduceOptions{})
		require.NoError(t, err)
		assert.Equal(t, arrowsparse.FormatCOO, r.Format())
		assert.Equal(t, []int64{1 << 40}, r.Shape())
		assert.Equal(t, int64(0), r.NNZ())
		r.Release()
	}
	_, err = compute.Max(mem, x, []int{1}, compute.ReduceOptions{})
	require.ErrorIs(t, err, arrowsparse.ErrShape)
	_, err = compute.Prod(mem, x, []int{1}, compute.ReduceOptions{})
	require.ErrorIs(t, err, arrowsparse.ErrOverflow, "2^40 ones do not fit in memory")
}

// TestHypersparseReduceRandom reduces random tensors whose results have
// more elements than int64 counts (keys of two and three 64-bit words),
// large enough for the radix sort's buckets and workers, against a map,
// with KeepDims and without, on 1 and 2 workers.
func TestHypersparseReduceRandom(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(71, 72))
	for _, shape := range [][]int64{
		{1 << 40, 1 << 40, 6},
		{1<<62 + 3, 5, 1 << 62, 1 << 30},
	} {
		nd := len(shape)
		for _, n := range []int{300, 70_000} {
			cs := make([]int64, n*nd)
			vs := make([]float64, n)
			for i := range n {
				for k, d := range shape {
					// Few distinct values per axis: many duplicates after
					// the reduction.
					cs[i*nd+k] = []int64{0, 1, d / 3, d - 1}[r.IntN(4)]
					if d <= 6 {
						cs[i*nd+k] = r.Int64N(d)
					}
				}
				vs[i] = float64(r.IntN(100))
			}
			x, err := coo.FromSlices(mem, shape, cs, coo.RowMajor, vs)
			require.NoError(t, err)
			reduced := nd - 1
			for _, keep := range []bool{false, true} {
				for _, workers := range []int{1, 2} {
					s, err := compute.Sum(mem, x, []int{reduced}, compute.ReduceOptions{KeepDims: keep, Workers: workers})
					require.NoError(t, err)
					want := map[[4]int64]float64{}
					for i := range n {
						var k [4]int64
						copy(k[:], cs[i*nd:i*nd+reduced])
						want[k] += vs[i]
					}
					for k, v := range want {
						if v == 0 {
							delete(want, k)
						}
					}
					got := map[[4]int64]float64{}
					var last []int64
					for c, v := range coo.All[float64](s.(*coo.Tensor)) {
						require.True(t, last == nil || slicesLess(last, c), "result not in canonical order")
						last = append(last[:0], c...)
						var k [4]int64
						copy(k[:], c[:reduced])
						if keep {
							require.Equal(t, int64(0), c[reduced])
						}
						got[k] = v
					}
					require.Equal(t, want, got, "shape %v n=%d keep=%v workers=%d", shape, n, keep, workers)
					s.Release()
				}
			}
			x.Release()
		}
	}
}

func slicesLess(a, b []int64) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// TestHypersparseMerge: matrices with millions of lanes and a handful of
// entries merge by coordinates (the lane merge's arrays per lane would be
// gigabytes for 2^31 rows, which FuzzCompute ran out of memory on), CSR
// and CSC, for every operation, against a map of the entries; and the
// memory the call takes beyond its result stays far below one array of
// 8 bytes per lane.
func TestHypersparseMerge(t *testing.T) {
	const lanes = 1 << 22
	for _, axis := range []gcs.Axis{gcs.Rows, gcs.Cols} {
		mem := testutil.Checked(t)
		build := func(entries map[int64]float64) *gcs.Matrix {
			ptr := make([]int32, lanes+1)
			var idx []int32
			var val []float64
			keys := make([]int64, 0, len(entries))
			for k := range entries {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				ptr[k/3+1]++
				idx = append(idx, int32(k%3))
				val = append(val, entries[k])
			}
			for i := range lanes {
				ptr[i+1] += ptr[i]
			}
			shape := []int64{lanes, 3}
			if axis == gcs.Cols {
				shape = []int64{3, lanes}
			}
			m, err := gcs.FromSlices(mem, axis, shape, ptr, idx, val)
			require.NoError(t, err)
			return m
		}
		// Keys lane·3 + index; lane 7 holds entries of both, one of which
		// cancels in the difference.
		ea := map[int64]float64{21: 1, 22: 2, 3 * 1000: 3, 3*(lanes-1) + 2: 4}
		eb := map[int64]float64{22: -2, 23: 5, 3 * 999999: 6}
		a, b := build(ea), build(eb)
		for _, op := range binaryOps {
			before := mem.CurrentAlloc()
			var peak int
			res, err := op.f(peakAllocator{mem, &peak}, a, b, compute.Options{Workers: 2})
			require.NoError(t, err)
			m := res.(*gcs.Matrix)
			assert.Equal(t, axis, m.Axis())
			assert.Less(t, peak-before, 2*(lanes+1)*4, "%s: more than the result's pointers and a copy", op.name)
			got := map[int64]float64{}
			for c, v := range gcs.All[float64](m) {
				lane, i := c[0], c[1]
				if axis == gcs.Cols {
					lane, i = c[1], c[0]
				}
				got[lane*3+i] = v
			}
			want := map[int64]float64{}
			for k := range ea {
				want[k] = refNumber(op.name, ea[k], eb[k])
			}
			for k := range eb {
				want[k] = refNumber(op.name, ea[k], eb[k])
			}
			for k, v := range want {
				if v == 0 {
					delete(want, k)
				}
			}
			assert.Equal(t, want, got, op.name)
			res.Release()
		}
		a.Release()
		b.Release()
	}
}

// peakAllocator passes allocations to a checked allocator and records the
// most it has held at once.
type peakAllocator struct {
	*testutil.CheckedAllocator
	peak *int
}

func (p peakAllocator) Allocate(n int) []byte {
	b := p.CheckedAllocator.Allocate(n)
	*p.peak = max(*p.peak, p.CurrentAlloc())
	return b
}

func (p peakAllocator) AllocateUninitialized(n int) []byte {
	b := p.CheckedAllocator.AllocateUninitialized(n)
	*p.peak = max(*p.peak, p.CurrentAlloc())
	return b
}

func (p peakAllocator) Reallocate(n int, b []byte) []byte {
	b = p.CheckedAllocator.Reallocate(n, b)
	*p.peak = max(*p.peak, p.CurrentAlloc())
	return b
}
