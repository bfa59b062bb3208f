package gcs_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/testing/benchdata"
)

// BenchmarkMulVecOneCore times y = A·x on one core for workload a with
// int32 and int64 indices (bench/compute.sh runs it next to scipy's A @ x
// on the same matrix and x[j] = j%7 - 3), reporting the CPU time too. The
// csr forms keep the matrix, x and y on the Go heap; csr-hugepages takes
// them from an arrowsparse.HugePageAllocator, in transparent huge pages as
// NumPy allocates scipy's arrays (the like-for-like comparison).
func BenchmarkMulVecOneCore(b *testing.B) {
	for _, it := range []arrow.DataType{i32, i64} {
		for _, huge := range []bool{false, true} {
			name := fmt.Sprintf("a_powerlaw2d/%s/csr", it)
			var mem memory.Allocator = memory.NewGoAllocator()
			if huge {
				name += "-hugepages"
				mem = arrowsparse.NewHugePageAllocator()
			}
			b.Run(name, func(b *testing.B) {
				x := benchdata.Form{Workload: "a_powerlaw2d"}.Load(b)
				m, err := gcs.MatrixFromCOO(mem, x, gcs.Rows, gcs.ConvertOptions{IndptrType: it, IndexType: it})
				x.Release()
				if err != nil {
					b.Fatal(err)
				}
				defer m.Release()
				xb, yb := memory.NewResizableBuffer(mem), memory.NewResizableBuffer(mem)
				defer xb.Release()
				defer yb.Release()
				xb.Resize(int(m.Cols()) * 8)
				yb.Resize(int(m.Rows()) * 8)
				xs, ys := arrow.Float64Traits.CastFromBytes(xb.Bytes()), arrow.Float64Traits.CastFromBytes(yb.Bytes())
				for i := range xs {
					xs[i] = float64(i%7) - 3
				}
				if err := gcs.MulVec(ys, m, xs, gcs.KernelOptions{Workers: 1}); err != nil { // warm-up
					b.Fatal(err)
				}
				runtime.GC()
				b.ReportAllocs()
				var cpu time.Duration
				for b.Loop() {
					c0 := cpuTime()
					if err := gcs.MulVec(ys, m, xs, gcs.KernelOptions{Workers: 1}); err != nil {
						b.Fatal(err)
					}
					cpu += cpuTime() - c0
				}
				b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
			})
		}
	}
}
