package gcs_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowsparse/arrowsparse/gcs"
)

// BenchmarkMulVecOneCore times y = A·x on one core for workload a with
// int32 and int64 indices (bench/compute.sh runs it next to scipy's A @ x
// on the same matrix and x[j] = j%7 - 3), reporting the CPU time too.
func BenchmarkMulVecOneCore(b *testing.B) {
	for _, it := range []arrow.DataType{i32, i64} {
		b.Run(fmt.Sprintf("a_powerlaw2d/%s/csr", it), func(b *testing.B) {
			m := csrOf(b, it)
			defer m.Release()
			x := make([]float64, m.Cols())
			for i := range x {
				x[i] = float64(i%7) - 3
			}
			y := make([]float64, m.Rows())
			if err := gcs.MulVec(y, m, x, gcs.KernelOptions{Workers: 1}); err != nil { // warm-up
				b.Fatal(err)
			}
			runtime.GC()
			b.ReportAllocs()
			var cpu time.Duration
			for b.Loop() {
				c0 := cpuTime()
				if err := gcs.MulVec(y, m, x, gcs.KernelOptions{Workers: 1}); err != nil {
					b.Fatal(err)
				}
				cpu += cpuTime() - c0
			}
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}
