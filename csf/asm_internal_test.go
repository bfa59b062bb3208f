package csf

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse/coo"
)

// TestAssemblyMatchesGo checks that the assembly MTTKRP kernels give the
// same bits as the Go code, for every mode, ranks that leave columns for
// the Go code, and a sub-tensor (whose leaves do not start at 0).
func TestAssemblyMatchesGo(t *testing.T) {
	if !hasAVX {
		t.Skip("no assembly kernels on this machine")
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(51, 52))
	shape := []int64{7, 40, 300, 50}
	n := 20_000
	cs := make([]int64, 0, n*4)
	vs := make([]float64, n)
	for i := range n {
		for _, d := range shape {
			cs = append(cs, r.Int64N(d))
		}
		vs[i] = r.Float64() - 0.5
		if i%3 == 0 {
			cs[len(cs)-1] = 0 // some fibers with many values
		}
	}
	x, err := coo.FromSlices(mem, shape, cs, coo.RowMajor, vs)
	require.NoError(t, err)
	defer x.Release()
	i32, i64 := arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64
	var tensors []*Tensor
	defer func() {
		for _, tt := range tensors {
			tt.Release()
		}
	}()
	// Every pair of indptr and indices types the kernels read in place.
	for _, types := range [][2]arrow.DataType{{i64, i64}, {i32, i32}, {i64, i32}, {i32, i64}} {
		o := ConvertOptions{AxisOrder: []int{0, 2, 1, 3}, LevelIndptrTypes: []arrow.DataType{types[0], types[0], types[0]},
			LevelIndexTypes: []arrow.DataType{types[1], types[1], types[1], types[1]}}
		c4, err := FromCOO(mem, x, o)
		require.NoError(t, err)
		sub := c4.Sub(3) // a 3-level tree over dimensions 1, 2, 3
		c4.Release()
		x3, err := sub.ToCOO(mem, ConvertOptions{})
		require.NoError(t, err)
		o.AxisOrder, o.LevelIndptrTypes, o.LevelIndexTypes = []int{2, 1, 0}, o.LevelIndptrTypes[:2], o.LevelIndexTypes[:3]
		full, err := FromCOO(mem, x3, o)
		require.NoError(t, err)
		x3.Release()
		tensors = append(tensors, sub, full)
	}
	for _, tt := range tensors {
		sh := tt.Shape()
		for _, rank := range []int{16, 20, 37} {
			f := make([][]float64, 3)
			for k := range f {
				f[k] = make([]float64, sh[k]*int64(rank))
				for j := range f[k] {
					f[k][j] = r.Float64() - 0.5
				}
			}
			for mode := range 3 {
				for _, workers := range []int{1, 2} {
					got := make([]float64, sh[mode]*int64(rank))
					want := make([]float64, len(got))
					require.NoError(t, MTTKRP(got, tt, mode, f, rank, KernelOptions{Workers: workers}))
					hasAVX = false
					err := MTTKRP(want, tt, mode, f, rank, KernelOptions{Workers: workers})
					hasAVX = true
					require.NoError(t, err)
					for j := range want {
						require.Equal(t, math.Float64bits(want[j]), math.Float64bits(got[j]), "rank %d mode %d column %d", rank, mode, j)
					}
				}
			}
		}
	}
}

// TestMTTKRPPartitions runs the non-root modes through both parallel
// schemes (chunks with private outputs, and owned output rows) and checks
// that each gives the same bits for any number of workers, and that the
// two agree to rounding.
func TestMTTKRPPartitions(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	defer func(b int64, s int) { privateBudget, chunkShift = b, s }(privateBudget, chunkShift)
	chunkShift = 8
	r := rand.New(rand.NewPCG(53, 54))
	for _, shape := range [][]int64{{20, 30, 40}, {6, 7, 8, 9}} {
		n := 6000
		var cs []int64
		vs := make([]float64, n)
		for i := range n {
			for _, d := range shape {
				cs = append(cs, r.Int64N(d))
			}
			vs[i] = r.Float64() - 0.5
		}
		x, err := coo.FromSlices(mem, shape, cs, coo.RowMajor, vs)
		require.NoError(t, err)
		c, err := FromCOO(mem, x, ConvertOptions{})
		require.NoError(t, err)
		x.Release()
		for _, rank := range []int{5, 16, 21} {
			f := make([][]float64, len(shape))
			for k := range f {
				f[k] = make([]float64, shape[k]*int64(rank))
				for j := range f[k] {
					f[k][j] = r.Float64() - 0.5
				}
			}
			for mode := 1; mode < len(shape); mode++ {
				var results [2][]float64
				for s, budget := range []int64{64 << 20, 1} {
					privateBudget = budget
					for _, workers := range []int{1, 2, 3, 8} {
						got := make([]float64, shape[mode]*int64(rank))
						require.NoError(t, MTTKRP(got, c, mode, f, rank, KernelOptions{Workers: workers}))
						if results[s] == nil {
							results[s] = got
							continue
						}
						for j := range got {
							require.Equal(t, math.Float64bits(results[s][j]), math.Float64bits(got[j]), "scheme %d workers %d", s, workers)
						}
					}
				}
				for j := range results[0] {
					require.InDelta(t, results[0][j], results[1][j], 1e-9)
				}
			}
		}
		c.Release()
	}
}
