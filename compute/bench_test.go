package compute_test

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/compute"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/testing/benchdata"
)

// The benchmarks below time the compute operations on the shared bench
// workloads (bench/README.md), next to the scipy and pydata/sparse anchors
// of bench/compute_anchors.py, which build the same operands:
//
//   - a: workload a_powerlaw2d as a canonical CSR with int32 indices and
//     float64 values (scipy's layout);
//   - a·2: a with every value doubled (the same pattern);
//   - a permuted: a with row i moved to (i·7919 + 13) mod n and column j
//     to (j·104729 + 7) mod n (a different pattern of the same
//     statistics);
//   - b: workload b_tensor3d as a canonical COO (pydata's layout).
//
// Run them with bench/compute.sh, or
//
//	BENCH_DATA=DIR go test -run '^$' -bench . -count 5 ./compute/

var (
	benchOnce sync.Once
	benchA    *gcs.Matrix
	benchA2   *gcs.Matrix
	benchAP   *gcs.Matrix
	benchB    *coo.Tensor
)

// permutedCOO returns workload a with rows and columns permuted as above.
func permutedCOO(b *testing.B, x *coo.Tensor) *coo.Tensor {
	n := x.Shape()[0]
	cs := x.AppendCoords(nil)
	for i := 0; i < len(cs); i += 2 {
		cs[i] = (cs[i]*7919 + 13) % n
		cs[i+1] = (cs[i+1]*104729 + 7) % n
	}
	vals, err := coo.Values[float64](x)
	if err != nil {
		b.Fatal(err)
	}
	p, err := coo.FromSlices(memory.NewGoAllocator(), x.Shape(), cs, coo.RowMajor, vals)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

func loadBench(b *testing.B) {
	benchOnce.Do(func() {
		loadWorkloads(b)
		// Collect the loading garbage (the workloads as read, the
		// canonicalisation's scratch) and return it to the OS now, so that
		// the first benchmark does not pay the collector and the
		// background scavenger for it (it showed as a 7× slower first
		// benchmark).
		runtime.GC()
		debug.FreeOSMemory()
	})
	if benchA == nil || benchB == nil {
		b.Skip("workloads not loaded")
	}
}

// loadWorkloads builds the operands of the benchmarks (see above).
func loadWorkloads(b *testing.B) {
	mem := benchdata.Allocator()
	i32 := arrow.PrimitiveTypes.Int32
	o := gcs.ConvertOptions{IndexType: i32, IndptrType: i32}
	x := benchdata.LoadCOO(b, "a_powerlaw2d")
	defer x.Release()
	var err error
	if benchA, err = gcs.MatrixFromCOO(mem, x, gcs.Rows, o); err != nil {
		b.Fatal(err)
	}
	s, err := compute.Scale(mem, benchA, 2.0, compute.Options{})
	if err != nil {
		b.Fatal(err)
	}
	benchA2 = s.(*gcs.Matrix)
	p := permutedCOO(b, x)
	defer p.Release()
	if benchAP, err = gcs.MatrixFromCOO(mem, p, gcs.Rows, o); err != nil {
		b.Fatal(err)
	}
	y := benchdata.LoadCOO(b, "b_tensor3d")
	defer y.Release()
	if benchB, err = y.Canonicalize(mem, coo.ConvertOptions{}); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkElementwise(b *testing.B) {
	for _, op := range []struct {
		name string
		f    func(memory.Allocator, arrowsparse.Tensor, arrowsparse.Tensor, compute.Options) (arrowsparse.Tensor, error)
	}{{"add", compute.Add}, {"multiply", compute.Multiply}} {
		for _, second := range []string{"scaled", "permuted"} {
			for _, workers := range []int{1, 2} {
				b.Run(fmt.Sprintf("%s/a_powerlaw2d/%s/workers=%d", op.name, second, workers), func(b *testing.B) {
					loadBench(b)
					y := benchA2
					if second == "permuted" {
						y = benchAP
					}
					mem := benchdata.Allocator()
					loop(b, func() error {
						r, err := op.f(mem, benchA, y, compute.Options{Workers: workers})
						if err == nil {
							r.Release()
						}
						return err
					})
				})
			}
		}
	}
}

func BenchmarkSumAxis(b *testing.B) {
	for axis := range 3 {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("b_tensor3d/axis=%d/workers=%d", axis, workers), func(b *testing.B) {
				loadBench(b)
				mem := memory.NewGoAllocator()
				loop(b, func() error {
					r, err := compute.Sum(mem, benchB, []int{axis}, compute.ReduceOptions{Workers: workers})
					if err == nil {
						r.Release()
					}
					return err
				})
			})
		}
	}
}

// cpuTime returns the user and system CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loop runs f once untimed (as the anchors warm up), then in b.Loop, and
// reports the CPU time per call next to the wall time: on a machine shared
// with other work, the CPU time moves less.
func loop(b *testing.B, f func() error) {
	if err := f(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	n := 0
	var cpu time.Duration
	for b.Loop() {
		c0 := cpuTime()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		cpu += cpuTime() - c0
		n++
	}
	b.ReportMetric(float64(cpu.Milliseconds())/float64(n), "cpu-ms/op")
}
