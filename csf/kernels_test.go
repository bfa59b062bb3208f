package csf_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
	"github.com/arrowsparse/arrowsparse/views"
)

// mttkrpCOO is the plain reference MTTKRP on a COO tensor with int64
// coordinates: for every entry, the product of its value and the factor
// rows of the other dimensions is added to the output row of its mode
// coordinate, column by column in one pass. With several workers, each sums
// a contiguous range of entries into its own output, and the outputs are
// added at the end.
func mttkrpCOO[T arrowsparse.Float](x *coo.Tensor, mode int, factors [][]T, rank int, out []T, workers int) {
	cs, err := coo.Coords[int64](x)
	if err != nil {
		panic(err)
	}
	vs, err := coo.Values[T](x)
	if err != nil {
		panic(err)
	}
	nd := int64(x.NumDims())
	n := x.NNZ()
	si, sk := nd, int64(1)
	if x.Layout() == coo.ColMajor {
		si, sk = 1, n
	}
	r := int64(rank)
	clear(out)
	outs := make([][]T, workers)
	var wg sync.WaitGroup
	for w := range workers {
		o := out
		if w > 0 {
			o = make([]T, len(out))
		}
		outs[w] = o
		run := func() {
			rows := make([][]T, nd)
			for i := n * int64(w) / int64(workers); i < n*int64(w+1)/int64(workers); i++ {
				m := 0
				for k := range nd {
					if int(k) != mode {
						c := cs[i*si+k*sk]
						rows[m] = factors[k][c*r : (c+1)*r]
						m++
					}
				}
				c := cs[i*si+int64(mode)*sk]
				row := o[c*r : (c+1)*r]
				v := vs[i]
				if m == 2 {
					a, b := rows[0][:len(row)], rows[1][:len(row)]
					for j := range row {
						row[j] += v * a[j] * b[j]
					}
					continue
				}
				for j := range row {
					p := v
					for _, f := range rows[:m] {
						p *= f[j]
					}
					row[j] += p
				}
			}
		}
		if workers == 1 {
			run()
		} else {
			wg.Go(run)
		}
	}
	wg.Wait()
	for _, o := range outs[1:] {
		for j, v := range o {
			out[j] += v
		}
	}
}

func randomFactors(r *rand.Rand, shape []int64, rank int) [][]float64 {
	f := make([][]float64, len(shape))
	for k, d := range shape {
		f[k] = make([]float64, d*int64(rank))
		for j := range f[k] {
			f[k][j] = r.Float64()*2 - 1
		}
	}
	return f
}

func assertClose(t *testing.T, want, got []float64, msg string) {
	t.Helper()
	require.Len(t, got, len(want))
	for j := range want {
		if math.Abs(want[j]-got[j]) > 1e-9*(1+math.Abs(want[j])) {
			t.Fatalf("%s: element %d: want %v, got %v", msg, j, want[j], got[j])
		}
	}
}

func TestMTTKRPAgainstCOO(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(21, 22))
	cases := []struct {
		shape []int64
		nnz   int
	}{
		{[]int64{5, 7}, 20},
		{[]int64{6, 5, 4}, 60},
		{[]int64{3, 9, 4, 5}, 150},
		{[]int64{30, 200, 40}, 20_000}, // several workers, one value per fiber mostly
		{[]int64{8, 6, 7, 5, 4}, 3000},
		{[]int64{4, 3}, 0},
	}
	for _, tc := range cases {
		x, _ := testutil.RandomCOO(t, mem, r, tc.shape, tc.nnz, coo.Layout(r.IntN(2)), i64, f64, 4)
		nd := len(tc.shape)
		for oi, order := range [][]int{nil, r.Perm(nd), r.Perm(nd)} {
			o := csf.ConvertOptions{AxisOrder: order, IndexType: []arrow.DataType{i32, i64}[r.IntN(2)]}
			if oi == 2 {
				// Mixed types per level: the kernels widen them.
				o.LevelIndexTypes = make([]arrow.DataType, nd)
				o.LevelIndptrTypes = make([]arrow.DataType, nd-1)
				for l := range nd {
					o.LevelIndexTypes[l] = []arrow.DataType{i16, u16, i32, u32, i64}[r.IntN(5)]
					if l < nd-1 {
						o.LevelIndptrTypes[l] = []arrow.DataType{i32, u32, i64}[r.IntN(3)]
					}
				}
			}
			c, err := csf.FromCOO(mem, x, o)
			require.NoError(t, err)
			for _, rank := range []int{1, 3, 16} {
				f := randomFactors(r, tc.shape, rank)
				for mode := range nd {
					want := make([]float64, tc.shape[mode]*int64(rank))
					mttkrpCOO(x, mode, f, rank, want, 1)
					ref2 := make([]float64, len(want))
					mttkrpCOO(x, mode, f, rank, ref2, 3)
					assertClose(t, want, ref2, "COO reference with 3 workers")
					var first []float64
					for _, workers := range []int{1, 2, 3, 7} {
						got := make([]float64, len(want))
						for j := range got {
							got[j] = math.NaN() // overwritten
						}
						fm := slices.Clone(f)
						fm[mode] = nil
						require.NoError(t, csf.MTTKRP(got, c, mode, fm, rank, csf.KernelOptions{Workers: workers}))
						msg := fmt.Sprintf("shape %v order %v rank %d mode %d workers %d", tc.shape, c.AxisOrder(), rank, mode, workers)
						assertClose(t, want, got, msg)
						if first == nil {
							first = got
						} else {
							// Bit for bit the same whatever the number of workers.
							for j := range got {
								require.Equal(t, math.Float64bits(first[j]), math.Float64bits(got[j]), msg)
							}
						}
					}
				}
			}
			c.Release()
		}
		x.Release()
	}
}

func TestMTTKRPFloat32AndSub(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(23, 24))
	shape := []int64{5, 6, 7}
	x, _ := testutil.RandomCOO(t, mem, r, shape, 80, coo.RowMajor, i64, f64, 4)
	defer x.Release()
	c, err := csf.FromCOO(mem, x, csf.ConvertOptions{})
	require.NoError(t, err)
	defer c.Release()
	// The sub-tensor of the root coordinate 2 against its compacted copy
	// and against the dense reference.
	s := c.Sub(2)
	defer s.Release()
	k, err := s.Compact(mem)
	require.NoError(t, err)
	defer k.Release()
	sy, err := s.ToCOO(mem, csf.ConvertOptions{})
	require.NoError(t, err)
	defer sy.Release()
	f := randomFactors(r, s.Shape(), 4)
	for mode := range 2 {
		want := make([]float64, s.Shape()[mode]*4)
		mttkrpCOO(sy, mode, f, 4, want, 1)
		got := make([]float64, len(want))
		require.NoError(t, csf.MTTKRP(got, s, mode, f, 4, csf.KernelOptions{}))
		assertClose(t, want, got, "sub-tensor")
		require.NoError(t, csf.MTTKRP(got, k, mode, f, 4, csf.KernelOptions{}))
		assertClose(t, want, got, "compacted sub-tensor")
	}

	// float32 values and factors.
	d, err := c.ToView(mem, csf.ConvertOptions{})
	require.NoError(t, err)
	defer d.Release()
	d32, err := views.Alloc(mem, arrow.PrimitiveTypes.Float32, shape)
	require.NoError(t, err)
	defer d32.Release()
	for idx, v := range views.All[float64](d) {
		require.NoError(t, views.Set(d32, float32(v), idx...))
	}
	c32, err := csf.FromDense(mem, d32, csf.ConvertOptions{AxisOrder: []int{1, 0, 2}})
	require.NoError(t, err)
	defer c32.Release()
	f32 := make([][]float32, 3)
	for k := range f32 {
		f32[k] = make([]float32, shape[k]*4)
		for j := range f32[k] {
			f32[k][j] = float32(r.IntN(5)) - 2
		}
	}
	for mode := range 3 {
		got := make([]float32, shape[mode]*4)
		require.NoError(t, csf.MTTKRP(got, c32, mode, f32, 4, csf.KernelOptions{Workers: 2}))
		// Small integers: exact in float32.
		want := make([]float32, len(got))
		for idx, v := range views.All[float32](d32) {
			for j := range 4 {
				p := v
				for k := range 3 {
					if k != mode {
						p *= f32[k][idx[k]*4+int64(j)]
					}
				}
				want[idx[mode]*4+int64(j)] += p
			}
		}
		assert.Equal(t, want, got, "float32 mode %d", mode)
	}

	// Errors.
	f = randomFactors(r, shape, 4)
	got := make([]float64, 5*4)
	require.NoError(t, csf.MTTKRP(got, c, 0, f, 4, csf.KernelOptions{}))
	require.ErrorIs(t, csf.MTTKRP(got, c, 3, f, 4, csf.KernelOptions{}), arrowsparse.ErrShape)
	require.ErrorIs(t, csf.MTTKRP(got, c, 0, f, -1, csf.KernelOptions{}), arrowsparse.ErrShape)
	require.ErrorIs(t, csf.MTTKRP(got, c, 0, [][]float64{f[0], f[1][:5], f[2]}, 4, csf.KernelOptions{}), arrowsparse.ErrBufferSize)
	require.ErrorIs(t, csf.MTTKRP(got, c, 0, f[:2], 4, csf.KernelOptions{}), arrowsparse.ErrShape)
	require.ErrorIs(t, csf.MTTKRP(got[:3], c, 0, f, 4, csf.KernelOptions{}), arrowsparse.ErrBufferSize)
	require.ErrorIs(t, csf.MTTKRP(got, c, 1, f, 4, csf.KernelOptions{}), arrowsparse.ErrBufferSize) // 6 rows do not fit in 20 elements
	require.ErrorIs(t, csf.MTTKRP(make([]float32, 20), c, 0, f32, 4, csf.KernelOptions{}), arrow.ErrType)
}

func TestTTV(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(31, 32))
	for trial := range 60 {
		shape := testutil.RandomShape(r, 2, 5, 7, 30)
		nd := len(shape)
		x, m := testutil.RandomCOO(t, mem, r, shape, r.IntN(60), coo.RowMajor, i16, f64, 4)
		c, err := csf.FromCOO(mem, x, csf.ConvertOptions{AxisOrder: randomOrder(r, nd), Workers: 1 + r.IntN(3)})
		require.NoError(t, err)
		want := m.Combined(arrowsparse.SumDuplicates)
		for mode := range nd {
			v := make([]float64, shape[mode])
			for j := range v {
				v[j] = float64(r.IntN(5) - 2)
			}
			// Reference: a dense sum over the model, and its structure.
			rest := slices.Delete(slices.Clone(shape), mode, mode+1)
			ref := map[int64]float64{}
			structure := map[int64]bool{}
			for q, val := range want {
				cc := testutil.Unlinear(shape, q)
				p := testutil.Linear(rest, slices.Delete(slices.Clone(cc), mode, mode+1))
				ref[p] += val * v[cc[mode]]
				structure[p] = true
			}
			nonzero := map[int64]float64{}
			for p, val := range ref {
				if val != 0 {
					nonzero[p] = val
				}
			}
			dv, err := csf.TTVDense(mem, c, mode, v, csf.KernelOptions{})
			require.NoError(t, err)
			assert.Equal(t, nonzero, denseOf(t, dv), "trial %d TTVDense mode %d", trial, mode)
			dv.Release()
			if nd < 3 {
				_, err := csf.TTV(mem, c, mode, v, csf.KernelOptions{})
				require.ErrorIs(t, err, arrowsparse.ErrShape)
				continue
			}
			for _, workers := range []int{1, 3} {
				y, err := csf.TTV(mem, c, mode, v, csf.KernelOptions{Workers: workers})
				require.NoError(t, err)
				require.NoError(t, y.Validate())
				assert.Equal(t, rest, y.Shape())
				d, err := y.ToDense(mem)
				require.NoError(t, err)
				assert.Equal(t, nonzero, denseOf(t, d), "trial %d TTV mode %d", trial, mode)
				d.Release()
				assert.EqualValues(t, len(structure), y.NNZ(), "structural result")
				if c.AxisOrder()[nd-1] == mode && y.NNZ() > 0 {
					// The leaf mode shares the upper levels.
					assert.True(t, y.IndicesBuffer(0) == c.IndicesBuffer(0))
				}
				y.Release()
			}
		}
		c.Release()
		x.Release()
	}
	// Errors.
	x, _ := testutil.RandomCOO(t, mem, r, []int64{3, 4, 5}, 10, coo.RowMajor, i16, f64, 4)
	defer x.Release()
	c, err := csf.FromCOO(mem, x, csf.ConvertOptions{})
	require.NoError(t, err)
	defer c.Release()
	_, err = csf.TTV(mem, c, 0, []float64{1, 2}, csf.KernelOptions{})
	require.ErrorIs(t, err, arrowsparse.ErrShape)
	_, err = csf.TTV(mem, c, 3, []float64{1, 2}, csf.KernelOptions{})
	require.ErrorIs(t, err, arrowsparse.ErrShape)
	_, err = csf.TTV(mem, c, 0, []float32{1, 2, 3}, csf.KernelOptions{})
	require.ErrorIs(t, err, arrow.ErrType)
}

// TestTTVSub runs TTV and TTVDense on sub-tensors, whose levels and values
// do not start at the first node of their buffers.
func TestTTVSub(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(33, 34))
	shape := []int64{4, 5, 6, 3}
	x, _ := testutil.RandomCOO(t, mem, r, shape, 200, coo.ColMajor, i32, f64, 4)
	defer x.Release()
	c, err := csf.FromCOO(mem, x, csf.ConvertOptions{AxisOrder: []int{1, 3, 0, 2}})
	require.NoError(t, err)
	defer c.Release()
	for fix := range int64(5) {
		s := c.Sub(fix) // dims 0, 2, 3 of c; levels 3, 0, 2 → order [2 0 1]
		d, err := s.ToView(mem, csf.ConvertOptions{})
		require.NoError(t, err)
		sh := s.Shape()
		for mode := range 3 {
			v := make([]float64, sh[mode])
			for j := range v {
				v[j] = float64(r.IntN(7) - 3)
			}
			rest := slices.Delete(slices.Clone(sh), mode, mode+1)
			want := map[int64]float64{}
			for idx, val := range views.All[float64](d) {
				q := testutil.Linear(rest, slices.Delete(slices.Clone(idx), mode, mode+1))
				want[q] += val * v[idx[mode]]
			}
			for q, val := range want {
				if val == 0 {
					delete(want, q)
				}
			}
			y, err := csf.TTV(mem, s, mode, v, csf.KernelOptions{Workers: 2})
			require.NoError(t, err)
			require.NoError(t, y.Validate())
			yd, err := y.ToDense(mem)
			require.NoError(t, err)
			assert.Equal(t, want, denseOf(t, yd), "fix %d mode %d", fix, mode)
			yd.Release()
			yc, err := y.Compact(mem)
			require.NoError(t, err)
			require.NoError(t, yc.Validate())
			yc.Release()
			y.Release()
			dv, err := csf.TTVDense(mem, s, mode, v, csf.KernelOptions{})
			require.NoError(t, err)
			assert.Equal(t, want, denseOf(t, dv))
			dv.Release()
		}
		d.Release()
		s.Release()
	}
}
