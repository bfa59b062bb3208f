package gcs_test

import (
	"os"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/gcs"
)

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func simple(ptr, idx []int64, v, x, y []float64) {
	for k := 0; k+1 < len(ptr); k++ {
		var s float64
		for j := ptr[k]; j < ptr[k+1]; j++ {
			s += v[j] * x[idx[j]]
		}
		y[k] = s
	}
}

func slicedSimple(ptr, idx []int64, v, x, y []float64) {
	y = y[:len(ptr)-1]
	for k := range y {
		lo, hi := ptr[k], ptr[k+1]
		ids := idx[lo:hi]
		vs := v[lo:hi]
		vs = vs[:len(ids)]
		var s float64
		for j, c := range ids {
			s += vs[j] * x[c]
		}
		y[k] = s
	}
}

func twoAcc(ptr, idx []int64, v, x, y []float64) {
	y = y[:len(ptr)-1]
	for k := range y {
		lo, hi := ptr[k], ptr[k+1]
		ids := idx[lo:hi]
		vs := v[lo:hi]
		vs = vs[:len(ids)]
		var s0, s1 float64
		j := 0
		for ; j+2 <= len(ids); j += 2 {
			s0 += vs[j] * x[ids[j]]
			s1 += vs[j+1] * x[ids[j+1]]
		}
		if j < len(ids) {
			s0 += vs[j] * x[ids[j]]
		}
		y[k] = s0 + s1
	}
}

func unsafeSimple(ptr, idx []int64, v, x, y []float64) {
	pp := unsafe.Pointer(&ptr[0])
	ip := unsafe.Pointer(&idx[0])
	vp := unsafe.Pointer(&v[0])
	xp := unsafe.Pointer(&x[0])
	n := len(ptr) - 1
	lo := *(*int64)(pp)
	for k := 0; k < n; k++ {
		hi := *(*int64)(unsafe.Add(pp, 8*(k+1)))
		var s float64
		for j := lo; j < hi; j++ {
			c := *(*int64)(unsafe.Add(ip, 8*j))
			s += *(*float64)(unsafe.Add(vp, 8*j)) * *(*float64)(unsafe.Add(xp, 8*c))
		}
		y[k] = s
		lo = hi
	}
}

func unsafeTwo(ptr, idx []int64, v, x, y []float64) {
	pp := unsafe.Pointer(&ptr[0])
	ip := unsafe.Pointer(&idx[0])
	vp := unsafe.Pointer(&v[0])
	xp := unsafe.Pointer(&x[0])
	n := len(ptr) - 1
	lo := *(*int64)(pp)
	for k := 0; k < n; k++ {
		hi := *(*int64)(unsafe.Add(pp, 8*(k+1)))
		var s0, s1 float64
		j := lo
		for ; j+1 < hi; j += 2 {
			c0 := *(*int64)(unsafe.Add(ip, 8*j))
			c1 := *(*int64)(unsafe.Add(ip, 8*j+8))
			s0 += *(*float64)(unsafe.Add(vp, 8*j)) * *(*float64)(unsafe.Add(xp, 8*c0))
			s1 += *(*float64)(unsafe.Add(vp, 8*j+8)) * *(*float64)(unsafe.Add(xp, 8*c1))
		}
		if j < hi {
			c0 := *(*int64)(unsafe.Add(ip, 8*j))
			s0 += *(*float64)(unsafe.Add(vp, 8*j)) * *(*float64)(unsafe.Add(xp, 8*c0))
		}
		y[k] = s0 + s1
		lo = hi
	}
}

func checkedX(ptr, idx []int64, v, x, y []float64) {
	n := len(ptr) - 1
	lo := ptr[0]
	v = v[:len(idx)]
	for k := 0; k < n; k++ {
		hi := ptr[k+1]
		var s0, s1 float64
		j := lo
		for ; j+1 < hi; j += 2 {
			s0 += v[j] * x[idx[j]]
			s1 += v[j+1] * x[idx[j+1]]
		}
		if j < hi {
			s0 += v[j] * x[idx[j]]
		}
		y[k] = s0 + s1
		lo = hi
	}
}

func TestTmpSpMV(t *testing.T) {
	if os.Getenv("BENCH_DATA") == "" {
		t.Skip()
	}
	x0 := loadA(t)
	defer x0.Release()
	m, err := gcs.FromCOO(memory.NewGoAllocator(), x0, gcs.Rows, gcs.ConvertOptions{IndptrType: arrow.PrimitiveTypes.Int64})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Release()
	ptr, _ := gcs.Indptr[int64](m)
	idx, _ := gcs.Indices[int64](m)
	v, _ := gcs.Values[float64](m)
	x := make([]float64, m.Cols())
	for i := range x {
		x[i] = float64(i%7) - 3
	}
	y := make([]float64, m.Rows())
	if os.Getenv("HUGE") != "" {
		x = hugeCopy(x)
		y = hugeCopy(y)
		ptr = hugeCopyI(ptr)
		idx = hugeCopyI(idx)
		v = hugeCopy(v)
	}
	for round := 0; round < 3; round++ {
		for _, c := range []struct {
			name string
			f    func()
		}{
			{"lib", func() { gcs.MulVec(y, m, false, x, 1) }},
			{"libT", func() { gcs.MulVec(y, m, false, x, 1) }},
			{"unsafeSimple", func() { unsafeSimple(ptr, idx, v, x, y) }},
			{"lib2", func() { gcs.MulVec(y, m, false, x, 2) }},
		} {
			best := time.Hour
			for i := 0; i < 60; i++ {
				c0 := time.Now()
				c.f()
				best = min(best, time.Since(c0))
			}
			t.Logf("%s cpu best %v", c.name, best)
		}
	}
}

func hugeAlloc(n int) []byte {
	b, err := syscall.Mmap(-1, 0, n+(2<<20), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		panic(err)
	}
	if err := syscall.Madvise(b, 14); err != nil { // MADV_HUGEPAGE
		panic(err)
	}
	return b
}

func hugeCopy(s []float64) []float64 {
	b := hugeAlloc(8 * len(s))
	out := unsafe.Slice((*float64)(unsafe.Pointer(&b[0])), len(s))
	copy(out, s)
	return out
}

func hugeCopyI(s []int64) []int64 {
	b := hugeAlloc(8 * len(s))
	out := unsafe.Slice((*int64)(unsafe.Pointer(&b[0])), len(s))
	copy(out, s)
	return out
}
