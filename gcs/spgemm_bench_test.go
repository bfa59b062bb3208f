package gcs_test

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/testing/benchdata"
)

// BenchmarkMulMatrix times C = A·A for the SpGEMM workload, a_powerlaw2d
// generated with 5M entries (bench/compute.sh: gen -only a -a-nnz 5000000,
// linked as a_powerlaw2d_spgemm), as a canonical CSR with int32 indices,
// scipy's layout for A @ A. It also reports the peak resident memory the
// product adds (the Linux high-water mark reset before the call, less the
// memory resident before it), which bench/compute_anchors.py measures the
// same way for scipy.
func BenchmarkMulMatrix(b *testing.B) {
	x := benchdata.LoadCOO(b, "a_powerlaw2d_spgemm")
	m, err := gcs.MatrixFromCOO(benchdata.Allocator(), x, gcs.Rows, gcs.ConvertOptions{IndexType: i32, IndptrType: i32})
	x.Release()
	if err != nil {
		b.Fatal(err)
	}
	defer m.Release()
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("a_powerlaw2d_spgemm/workers=%d", workers), func(b *testing.B) {
			mem := memory.NewCheckedAllocator(benchdata.Allocator())
			peak := peakRSS(func() {
				c, err := gcs.MulMatrix(mem, m, m, gcs.KernelOptions{Workers: workers})
				if err != nil {
					b.Fatal(err)
				}
				c.Release()
			})
			runtime.GC()
			b.ReportAllocs()
			var cpu time.Duration
			for b.Loop() {
				c0 := cpuTime()
				c, err := gcs.MulMatrix(mem, m, m, gcs.KernelOptions{Workers: workers})
				if err != nil {
					b.Fatal(err)
				}
				c.Release()
				cpu += cpuTime() - c0
			}
			b.ReportMetric(peak, "peak-MB")
			b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}

// cpuTime returns the user and system CPU time the process has used: on
// a machine shared with other work it moves less than the wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakRSS runs f once and returns the growth of the process's resident
// memory high-water mark over the memory resident before, in MiB, or 0
// where /proc does not say.
func peakRSS(f func()) float64 {
	runtime.GC()
	debug.FreeOSMemory()
	before := procStatus("VmRSS")
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		f()
		return 0
	}
	f()
	return float64(procStatus("VmHWM")-before) / 1024
}

// procStatus returns a field of /proc/self/status in KiB.
func procStatus(field string) int64 {
	fh, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			v, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return v
		}
	}
	return 0
}
