package csf_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
	"github.com/arrowsparse/arrowsparse/views"
)

var (
	i8, i16, i32, i64 = arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64
	u8, u16, u32      = arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32
	f64               = arrow.PrimitiveTypes.Float64
)

// entriesOf reads a tensor's coordinates in tree order through All, and its
// values.
func entriesOf(t *testing.T, x *csf.Tensor) ([][]int64, []float64) {
	t.Helper()
	var cs [][]int64
	for c := range allAny(x) {
		cs = append(cs, slices.Clone(c))
	}
	return cs, valuesOf(x)
}

// allAny iterates over coordinates whatever the value type.
func allAny(x *csf.Tensor) func(func([]int64) bool) {
	return func(yield func([]int64) bool) {
		switch x.DataType().ID() {
		case arrow.FLOAT64:
			for c := range csf.All[float64](x) {
				if !yield(c) {
					return
				}
			}
		default:
			for c := range allBytes(x) {
				if !yield(c) {
					return
				}
			}
		}
	}
}

func allBytes(x *csf.Tensor) func(func([]int64, struct{}) bool) {
	switch x.DataType().ID() {
	case arrow.INT8:
		return drop(csf.All[int8](x))
	case arrow.INT16:
		return drop(csf.All[int16](x))
	case arrow.INT32:
		return drop(csf.All[int32](x))
	case arrow.INT64:
		return drop(csf.All[int64](x))
	case arrow.UINT8:
		return drop(csf.All[uint8](x))
	case arrow.UINT16:
		return drop(csf.All[uint16](x))
	case arrow.UINT32:
		return drop(csf.All[uint32](x))
	case arrow.UINT64:
		return drop(csf.All[uint64](x))
	case arrow.FLOAT16:
		return drop(csf.All[float16.Num](x))
	case arrow.FLOAT32:
		return drop(csf.All[float32](x))
	}
	return drop(csf.All[float64](x))
}

func drop[T any](seq func(func([]int64, T) bool)) func(func([]int64, struct{}) bool) {
	return func(yield func([]int64, struct{}) bool) {
		for c := range seq {
			if !yield(c, struct{}{}) {
				return
			}
		}
	}
}

// valuesOf returns a tensor's values as float64, in tree order.
func valuesOf(x *csf.Tensor) []float64 {
	c, err := x.Compact(memory.NewGoAllocator())
	if err != nil {
		panic(err)
	}
	defer c.Release()
	out := make([]float64, c.NNZ())
	for j := range out {
		out[j] = testutil.GetFloat(c.ValuesBuffer().Bytes(), c.DataType(), int64(j))
	}
	return out
}

// denseOf reads a dense tensor into a map of its non-zero elements.
func denseOf(t *testing.T, d arrowsparse.Dense) map[int64]float64 {
	t.Helper()
	out := map[int64]float64{}
	for q, x := range testutil.DenseValues(t, d) {
		if x != 0 {
			out[int64(q)] = x
		}
	}
	return out
}

// checkAgainst checks every way of reading x against want (linear index →
// value, in x's dimension numbering).
func checkAgainst(t *testing.T, mem memory.Allocator, x *csf.Tensor, want map[int64]float64) {
	t.Helper()
	require.NoError(t, x.Validate())
	require.EqualValues(t, len(want), x.NNZ())
	shape := x.Shape()
	order := x.AxisOrder()
	cs, vs := entriesOf(t, x)
	require.Len(t, cs, len(want))
	for j, c := range cs {
		assert.Equal(t, want[testutil.Linear(shape, c)], vs[j], "entry %d at %v", j, c)
		if j > 0 {
			// Tree order: increasing in axis order.
			a, b := make([]int64, len(c)), make([]int64, len(c))
			for l, k := range order {
				a[l], b[l] = cs[j-1][k], c[k]
			}
			assert.Equal(t, -1, slices.Compare(a, b), "tree order at %d", j)
		}
	}
	if x.DataType().ID() == arrow.FLOAT64 {
		for q, v := range want {
			assert.Equal(t, v, csf.At[float64](x, testutil.Unlinear(shape, q)...))
		}
		if n, _ := arrowsparse.NumElements(shape); n > 0 {
			q := int64(len(cs)*7919) % n
			assert.Equal(t, want[q], csf.At[float64](x, testutil.Unlinear(shape, q)...))
		}
	}
	d, err := x.ToDense(mem)
	require.NoError(t, err)
	assert.Equal(t, want, denseOf(t, d))
	assert.Equal(t, x.DimNames(), d.DimNames())
	d.Release()
	y, err := x.ToCOO(mem, csf.ConvertOptions{})
	require.NoError(t, err)
	require.NoError(t, y.Validate())
	d, err = y.ToDense(mem)
	require.NoError(t, err)
	assert.Equal(t, want, denseOf(t, d))
	d.Release()
	y.Release()
}

func randomOrder(r *rand.Rand, nd int) []int {
	if r.IntN(4) == 0 {
		return nil // the default
	}
	return r.Perm(nd)
}

func TestPropertyFromCOO(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(3, 5))
	policies := []arrowsparse.Duplicates{arrowsparse.SumDuplicates, arrowsparse.KeepLast, arrowsparse.KeepFirst, arrowsparse.KeepMin, arrowsparse.KeepMax}
	for trial := range 300 {
		shape := testutil.RandomShape(r, 2, 5, 7, 30)
		nd := len(shape)
		it := testutil.IndexTypes[trial%len(testutil.IndexTypes)]
		vt := testutil.ValueTypes[trial%len(testutil.ValueTypes)]
		layout := coo.Layout(r.IntN(2))
		x, m := testutil.RandomCOO(t, mem, r, shape, r.IntN(40), layout, it, vt, 4)
		o := csf.ConvertOptions{AxisOrder: randomOrder(r, nd), Duplicates: policies[trial%len(policies)], Workers: 1 + r.IntN(3)}
		if trial%3 == 0 {
			// A type per level, as narrow as fits.
			o.LevelIndexTypes = make([]arrow.DataType, nd)
			o.LevelIndptrTypes = make([]arrow.DataType, nd-1)
			for l := range nd {
				o.LevelIndexTypes[l] = []arrow.DataType{u8, i8, i16}[r.IntN(3)]
				if l < nd-1 {
					o.LevelIndptrTypes[l] = []arrow.DataType{u8, i16, u32, i64}[r.IntN(4)]
				}
			}
		}
		c, err := csf.FromCOO(mem, x, o)
		require.NoError(t, err, "trial %d shape %v", trial, shape)
		want := m.Combined(o.Duplicates)
		checkAgainst(t, mem, c, want)
		if o.AxisOrder == nil {
			assert.Equal(t, csf.DefaultAxisOrder(shape), c.AxisOrder())
		}

		// Another axis order.
		perm := r.Perm(nd)
		w, err := c.WithAxisOrder(mem, perm...)
		require.NoError(t, err)
		assert.Equal(t, perm, w.AxisOrder())
		checkAgainst(t, mem, w, want)
		w.Release()

		// A sub-tensor below a random root coordinate, and below a path.
		if nd >= 3 && shape[c.AxisOrder()[0]] > 0 {
			order := c.AxisOrder()
			fix := []int64{r.Int64N(shape[order[0]])}
			if nd >= 4 && shape[order[1]] > 0 {
				fix = append(fix, r.Int64N(shape[order[1]]))
			}
			s := c.Sub(fix...)
			sub := map[int64]float64{}
			for q, v := range want {
				cc := testutil.Unlinear(shape, q)
				match := true
				for l, f := range fix {
					match = match && cc[order[l]] == f
				}
				if !match {
					continue
				}
				var rest []int64
				for k := range nd {
					if !slices.Contains(order[:len(fix)], k) {
						rest = append(rest, cc[k])
					}
				}
				sub[testutil.Linear(s.Shape(), rest)] = v
			}
			checkAgainst(t, mem, s, sub)
			if s.NumDims() >= 2 {
				ws, err := s.WithAxisOrder(mem, r.Perm(s.NumDims())...)
				require.NoError(t, err)
				checkAgainst(t, mem, ws, sub)
				ws.Release()
			}
			k, err := s.Compact(mem)
			require.NoError(t, err)
			checkAgainst(t, mem, k, sub)
			k.Release()
			u, err := s.WithIndexTypes(mem, i64, i32)
			require.NoError(t, err)
			require.True(t, u.IsCompact())
			for l := range u.NumDims() {
				require.Equal(t, i32, u.IndexType(l))
				if l < u.NumDims()-1 {
					require.Equal(t, i64, u.IndptrType(l))
				}
			}
			checkAgainst(t, mem, u, sub)
			u.Release()
			s.Release()
		}

		// Dense round trip.
		d, err := c.ToDense(mem)
		require.NoError(t, err)
		f, err := csf.FromDense(mem, d, csf.ConvertOptions{AxisOrder: o.AxisOrder, IndexType: it})
		require.NoError(t, err)
		checkAgainst(t, mem, f, want)
		f.Release()
		d.Release()
		c.Release()
		x.Release()
	}
}

// TestLargeParallel exercises the parallel sort and build with a tensor
// large enough for several chunks, and checks that the buffers do not
// depend on the number of workers.
func TestLargeParallel(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(11, 12))
	shape := []int64{40, 1000, 30}
	x, m := testutil.RandomCOO(t, mem, r, shape, 150_000, coo.ColMajor, i32, f64, 4)
	defer x.Release()
	want := m.Combined(arrowsparse.SumDuplicates)
	var first *csf.Tensor
	for _, workers := range []int{1, 2, 3, 5} {
		for _, order := range [][]int{{0, 1, 2}, {2, 1, 0}, nil} {
			c, err := csf.FromCOO(mem, x, csf.ConvertOptions{AxisOrder: order, Workers: workers})
			require.NoError(t, err)
			if order != nil && order[0] == 0 {
				if first == nil {
					first = c
					checkAgainst(t, mem, c, want)
					continue
				}
				fp, fx := levels(t, first)
				cp, cx := levels(t, c)
				assert.Equal(t, fp, cp)
				assert.Equal(t, fx, cx)
				assert.Equal(t, valuesOf(first), valuesOf(c))
			} else {
				checkAgainst(t, mem, c, want)
			}
			c.Release()
		}
	}
	first.Release()
}

// TestHypersparseFallback uses shapes whose linear keys do not fit in 64
// bits, so that the conversions sort keys of one word per part of the
// levels.
func TestHypersparseFallback(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(41, 42))
	// Two and three key words, few distinct values far apart.
	for _, tc := range []struct {
		shape []int64
		n     int
	}{{[]int64{1 << 40, 3, 1 << 30, 1 << 20}, 50}, {[]int64{1 << 40, 3, 1 << 30, 1 << 20}, 30_000}, {[]int64{1 << 62, 3, 1 << 10, 5}, 20_000}} {
		shape, n := tc.shape, tc.n
		nd := len(shape)
		flat := make([]int64, 0, n*nd)
		vals := make([]float64, n)
		want := map[[4]int64]float64{}
		var prev [4]int64
		for i := range n {
			var c [4]int64
			if i > 0 && r.IntN(3) == 0 {
				c = prev
			} else {
				for k := range c {
					c[k] = r.Int64N(min(shape[k], 50)) * (shape[k] / 50) // few distinct values, far apart
				}
			}
			prev = c
			flat = append(flat, c[:]...)
			vals[i] = float64(r.IntN(5) + 1)
			want[c] += vals[i]
		}
		x, err := coo.FromSlices(mem, shape, flat, coo.RowMajor, vals)
		require.NoError(t, err)
		check := func(c *csf.Tensor, shape []int64, want map[[4]int64]float64) {
			t.Helper()
			require.NoError(t, c.Validate())
			require.EqualValues(t, len(want), c.NNZ())
			var prev []int64
			for idx, v := range csf.All[float64](c) {
				var key [4]int64
				copy(key[:], idx)
				require.Equal(t, want[key], v, "at %v", idx)
				require.Equal(t, v, csf.At[float64](c, idx...))
				cur := make([]int64, len(idx))
				for l, k := range c.AxisOrder() {
					cur[l] = idx[k]
				}
				if prev != nil {
					require.Equal(t, -1, slices.Compare(prev, cur))
				}
				prev = cur
			}
		}
		for _, workers := range []int{1, 3} {
			c, err := csf.FromCOO(mem, x, csf.ConvertOptions{AxisOrder: []int{2, 0, 3, 1}, Workers: workers})
			require.NoError(t, err)
			check(c, shape, want)
			w, err := c.WithAxisOrder(mem, 3, 2, 1, 0)
			require.NoError(t, err)
			check(w, shape, want)
			w.Release()
			// TTV along dimension 1 (size 3) with v = [1 1 1] merges it away.
			y, err := csf.TTV(mem, c, 1, []float64{1, 1, 1}, csf.KernelOptions{Workers: workers})
			require.NoError(t, err)
			merged := map[[4]int64]float64{}
			for k, v := range want {
				merged[[4]int64{k[0], k[2], k[3]}] += v
			}
			require.EqualValues(t, len(merged), y.NNZ())
			for idx, v := range csf.All[float64](y) {
				require.Equal(t, merged[[4]int64{idx[0], idx[1], idx[2]}], v)
			}
			y.Release()
			c.Release()
		}
		x.Release()
	}
}

// TestFromDenseStrided converts transposed and flipped dense views: any
// strides work, negative zero is zero and NaN is stored.
func TestFromDenseStrided(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(61, 62))
	shape := []int64{4, 3, 5}
	d, err := views.Alloc(mem, f64, shape)
	require.NoError(t, err)
	defer d.Release()
	for q := range int64(60) {
		if r.IntN(3) == 0 {
			require.NoError(t, views.Set(d, float64(q+1), testutil.Unlinear(shape, q)...))
		}
	}
	require.NoError(t, views.Set(d, math.Copysign(0, -1), 0, 0, 0))
	require.NoError(t, views.Set(d, math.NaN(), 3, 2, 4))
	tr, err := d.Transpose(2, 0, 1)
	require.NoError(t, err)
	defer tr.Release()
	fl, err := tr.Flip(1)
	require.NoError(t, err)
	defer fl.Release()
	for _, v := range []*views.View{d, tr, fl} {
		for _, order := range [][]int{nil, {2, 1, 0}, {1, 0, 2}} {
			c, err := csf.FromDense(mem, v, csf.ConvertOptions{AxisOrder: order, IndexType: i16})
			require.NoError(t, err)
			require.NoError(t, c.Validate())
			n := 0
			for idx, x := range csf.All[float64](c) {
				want := views.At[float64](v, idx...)
				if math.IsNaN(want) {
					assert.True(t, math.IsNaN(x))
				} else {
					assert.Equal(t, want, x)
					assert.NotZero(t, x)
				}
				n++
			}
			nz := 0
			for _, x := range views.All[float64](v) {
				if x != 0 {
					nz++
				}
			}
			assert.Equal(t, nz, n)
			c.Release()
		}
	}
}
