package csf_test

import (
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/internal/benchdata"
)

func threadCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func cpuTime(f func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0 := threadCPU()
	f()
	return threadCPU() - t0
}

func TestTmpCPU(t *testing.T) {
	if os.Getenv("TMPCPU") == "" {
		t.Skip()
	}
	x := benchdata.LoadCOO(t, "b_tensor3d")
	defer x.Release()
	mem := memory.NewGoAllocator()
	c, _ := csf.FromCOO(mem, x, csf.ConvertOptions{})
	defer c.Release()
	f := randomFactors(rand.New(rand.NewPCG(1, 1)), x.Shape(), 16)
	out := make([]float64, 10000*16)
	var a, b, d []time.Duration
	for range 7 {
		a = append(a, cpuTime(func() { csf.MTTKRP(c, 0, f, 16, out, csf.KernelOptions{Workers: 1}) }))
		b = append(b, cpuTime(func() { mttkrpCOO(x, 0, f, 16, out, 1) }))
		d = append(d, cpuTime(func() { y, _ := csf.FromCOO(mem, x, csf.ConvertOptions{Workers: 1}); y.Release() }))
	}
	slices.Sort(a)
	slices.Sort(b)
	slices.Sort(d)
	t.Logf("csf mttkrp cpu: min %v med %v", a[0], a[3])
	t.Logf("coo fused cpu: min %v med %v", b[0], b[3])
	t.Logf("fromcoo cpu: min %v med %v", d[0], d[3])
	for mode := range 3 {
		out := make([]float64, 10000*16)
		var m, q []time.Duration
		for range 3 {
			m = append(m, cpuTime(func() { csf.MTTKRP(c, mode, f, 16, out, csf.KernelOptions{Workers: 1}) }))
			q = append(q, cpuTime(func() { mttkrpCOO(x, mode, f, 16, out, 1) }))
		}
		slices.Sort(m)
		slices.Sort(q)
		t.Logf("mode %d: csf %v coo %v", mode, m[1], q[1])
	}
}

func TestTmpHyper(t *testing.T) {
	if os.Getenv("TMPCPU") == "" {
		t.Skip()
	}
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(1, 2))
	n := 10_000_000
	shape := []int64{1_000_000, 1_000_000, 1_000_000}
	cs := make([]int64, 3*n)
	for i := range cs {
		cs[i] = r.Int64N(1_000_000)
	}
	vs := make([]float64, n)
	x, _ := coo.FromSlices(mem, shape, cs, coo.ColMajor, vs)
	defer x.Release()
	for _, w := range []int{1, 2} {
		start := time.Now()
		var c *csf.Tensor
		d := cpuTime(func() { c, _ = csf.FromCOO(mem, x, csf.ConvertOptions{Workers: w}) })
		t.Logf("hyper workers=%d: wall %v cpu(main thread) %v nnz %d idx %d MB", w, time.Since(start), d, c.NNZ(), c.IndexBytes()>>20)
		c.Release()
	}
}

func TestTmpModes(t *testing.T) {
	if os.Getenv("TMPCPU") == "" {
		t.Skip()
	}
	x := benchdata.LoadCOO(t, "b_tensor3d")
	defer x.Release()
	mem := memory.NewGoAllocator()
	c, _ := csf.FromCOO(mem, x, csf.ConvertOptions{})
	defer c.Release()
	f := randomFactors(rand.New(rand.NewPCG(1, 1)), x.Shape(), 16)
	out := make([]float64, 10000*16)
	for mode := range 3 {
		for _, w := range []int{1, 2} {
			var ds []time.Duration
			for range 5 {
				s := time.Now()
				csf.MTTKRP(c, mode, f, 16, out, csf.KernelOptions{Workers: w})
				ds = append(ds, time.Since(s))
			}
			slices.Sort(ds)
			t.Logf("mode %d workers %d: %v", mode, w, ds[2])
		}
	}
}
