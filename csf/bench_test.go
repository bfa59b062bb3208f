package csf_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/internal/testing/benchdata"
)

// BenchmarkFromCOO converts the shared unsorted 10M-entry tensor (b_tensor3d
// of bench/README.md: 10,000³, 755 duplicates) to CSF in the default axis
// order, summing duplicates. The anchor is pydata-sparse's GCXS.from_coo
// with compressed_axes [0, 1] on the same unsorted data (coo_to_gcxs_c01_nocanon).
// It reports the CSF and COO index sizes.
//
// The other 10M-entry tensors of internal/testing/benchdata.Tensors (10^6 per mode,
// delicious-4d beyond 64-bit linear indices, nell-2) run the same way, and
// so does workload a at 100K to 100M entries (benchdata.Sizes2D), a CSF
// matrix being a CSR with explicit row numbers.
func BenchmarkFromCOO(b *testing.B) {
	for _, w := range append(benchdata.Tensors[:len(benchdata.Tensors):len(benchdata.Tensors)], benchdata.Sizes2D...) {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d", w, workers), func(b *testing.B) {
				x := benchdata.LoadCOO(b, w)
				defer x.Release()
				mem := benchdata.Allocator()
				b.ReportAllocs()
				b.SetBytes(int64(x.CoordsBuffer().Len() + x.ValuesBuffer().Len()))
				var idx int64
				cpu := benchdata.StartCPU()
				for b.Loop() {
					y, err := csf.FromCOO(mem, x, csf.ConvertOptions{Workers: workers})
					if err != nil {
						b.Fatal(err)
					}
					idx = y.IndexBytes()
					y.Release()
				}
				cpu.Report(b)
				b.ReportMetric(float64(idx)/1e6, "csf-index-MB")
				b.ReportMetric(float64(x.CoordsBuffer().Len())/1e6, "coo-index-MB")
			})
		}
	}
}

// BenchmarkMTTKRP times MTTKRP at rank 16 on b_tensor3d: on the CSF tensor
// in the default axis order (0, 1, 2), with int64 indices, for each mode
// (the root, middle and leaf levels), and the plain COO reference
// (mttkrpCOO) on the same data as loaded (unsorted), and for mode 0 also
// canonical (sorted row-major, duplicates summed, which helps the
// reference's output rows stay in cache).
func BenchmarkMTTKRP(b *testing.B) {
	x := benchdata.LoadCOO(b, "b_tensor3d")
	defer x.Release()
	mem := benchdata.Allocator()
	c, err := csf.FromCOO(mem, x, csf.ConvertOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Release()
	sorted, err := x.Canonicalize(mem, coo.ConvertOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer sorted.Release()
	const rank = 16
	shape := x.Shape()
	f := randomFactors(rand.New(rand.NewPCG(1, 1)), shape, rank)
	for _, mode := range []int{0, 1, 2} {
		out := make([]float64, shape[mode]*rank)
		for _, workers := range []int{1, 2} {
			name := fmt.Sprintf("b_tensor3d/rank=%d/mode=%d/%%s/workers=%d", rank, mode, workers)
			b.Run(fmt.Sprintf(name, "csf"), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := csf.MTTKRP(out, c, mode, f, rank, csf.KernelOptions{Workers: workers}); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(fmt.Sprintf(name, "coo-reference"), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					mttkrpCOO(x, mode, f, rank, out, workers)
				}
			})
			if mode != 0 {
				continue
			}
			b.Run(fmt.Sprintf(name, "coo-reference-sorted"), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					mttkrpCOO(sorted, mode, f, rank, out, workers)
				}
			})
		}
	}
}

// BenchmarkWithAxisOrder rebuilds the CSF tensor of b_tensor3d in the axis
// order (2, 1, 0): the tree is walked for the new keys, which are sorted
// as FromCOO sorts them (what CP-ALS needs to put each mode at the root).
func BenchmarkWithAxisOrder(b *testing.B) {
	x := benchdata.LoadCOO(b, "b_tensor3d")
	defer x.Release()
	mem := benchdata.Allocator()
	c, err := csf.FromCOO(mem, x, csf.ConvertOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Release()
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("b_tensor3d/order=2,1,0/workers=%d", workers), func(b *testing.B) {
			// WithAxisOrder uses GOMAXPROCS goroutines.
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(workers))
			b.ReportAllocs()
			for b.Loop() {
				y, err := c.WithAxisOrder(mem, 2, 1, 0)
				if err != nil {
					b.Fatal(err)
				}
				y.Release()
			}
		})
	}
}
