package views

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// BenchmarkMakeView measures making a view, which must take O(ndim) time
// and at most one allocation whatever the size of the data: compare the
// 1KiB and 1GiB rows.
func BenchmarkMakeView(b *testing.B) {
	for _, size := range []struct {
		name  string
		shape []int64
	}{
		{"1KiB", []int64{8, 16}},
		{"1GiB", []int64{8192, 16384}},
	} {
		n := size.shape[0] * size.shape[1]
		if n*8 > 1<<20 && testing.Short() {
			continue
		}
		// make([]byte) of 1 GiB maps zero pages lazily: nothing is touched.
		buf := memory.NewBufferBytes(make([]byte, n*8))
		v, err := Contiguous(arrow.PrimitiveTypes.Float64, buf, size.shape)
		if err != nil {
			b.Fatal(err)
		}
		r, err := v.Rotate(1, 3)
		if err != nil {
			b.Fatal(err)
		}
		rows, cols := size.shape[0], size.shape[1]
		ops := []struct {
			name string
			f    func() (interface{ Release() }, error)
		}{
			{"Slice", func() (interface{ Release() }, error) { return v.Slice(Range{1, rows - 1, 2}, Range{None, None, -3}) }},
			{"Index", func() (interface{ Release() }, error) { return v.Index(0, rows/2) }},
			{"Transpose", func() (interface{ Release() }, error) { return v.Transpose(1, 0) }},
			{"Flip", func() (interface{ Release() }, error) { return v.Flip(1) }},
			{"ExpandDims", func() (interface{ Release() }, error) { return v.ExpandDims(1) }},
			{"Squeeze", func() (interface{ Release() }, error) { return v.Squeeze() }},
			{"BroadcastTo", func() (interface{ Release() }, error) { return v.BroadcastTo([]int64{4, rows, cols}) }},
			{"Tile", func() (interface{ Release() }, error) { return v.Tile(2, 1) }},
			{"Reshape", func() (interface{ Release() }, error) { return v.Reshape(rows/2, 2, cols) }},
			{"Rotate", func() (interface{ Release() }, error) { return v.Rotate(0, 5) }},
			{"Remapped.Slice", func() (interface{ Release() }, error) { return r.Slice(Range{None, None, 2}) }},
			{"Remapped.Index", func() (interface{ Release() }, error) { return r.Index(1, 1) }},
		}
		for _, op := range ops {
			b.Run(op.name+"/"+size.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					x, err := op.f()
					if err != nil {
						b.Fatal(err)
					}
					x.Release()
				}
			})
		}
		r.Release()
		v.Release()
	}
}

// BenchmarkCopy compares materialising views with the builtin copy() of
// the same number of bytes, between buffers allocated and touched before
// the timer starts. Rates are reported as bytes of the view per second.
func BenchmarkCopy(b *testing.B) {
	const mib = 1 << 20
	// Each layout gives the float64 source array for a view of nbytes, and
	// the view.
	layouts := []struct {
		name   string
		parent func(rows int64) []int64 // rows = nbytes / 8 / 8192
		view   func(a *View) (copier, error)
	}{
		{"contiguous", func(r int64) []int64 { return []int64{r, 8192} },
			func(a *View) (copier, error) { return a.Slice() }},
		// rows of 8192 out of 8200: one memmove per row
		{"contiguous-last-axis", func(r int64) []int64 { return []int64{r, 8200} },
			func(a *View) (copier, error) { return a.Slice(Full(), Span(0, 8192)) }},
		// an r×8192 matrix transposed: 8192×8192 at 512 MiB
		{"transposed", func(r int64) []int64 { return []int64{r, 8192} },
			func(a *View) (copier, error) { return a.T(), nil }},
		{"strided", func(r int64) []int64 { return []int64{r, 16384} },
			func(a *View) (copier, error) { return a.Slice(Full(), Range{None, None, 2}) }},
		{"reversed", func(r int64) []int64 { return []int64{r, 8192} },
			func(a *View) (copier, error) { return a.Flip(1) }},
		{"rotated", func(r int64) []int64 { return []int64{r, 8192} },
			func(a *View) (copier, error) { return a.Rotate(1, 1000) }},
	}
	sizes := []int64{1 * mib, 256 * mib, 512 * mib}
	for _, nbytes := range sizes {
		if nbytes > mib && testing.Short() {
			continue
		}
		b.Run(fmt.Sprintf("builtin-copy/%dMiB", nbytes/mib), func(b *testing.B) {
			src, dst := make([]byte, nbytes), make([]byte, nbytes)
			rng := rand.New(rand.NewPCG(1, 1))
			for i := range src {
				src[i] = byte(rng.Uint32())
			}
			clear(dst)
			b.SetBytes(nbytes)
			b.ReportAllocs()
			for b.Loop() {
				copy(dst, src)
			}
		})
	}
	for _, l := range layouts {
		for _, nbytes := range sizes {
			if nbytes > mib && testing.Short() {
				continue
			}
			parent := l.parent(nbytes / 8 / 8192)
			for _, workers := range []int{1, 2} {
				name := fmt.Sprintf("%s/%dMiB", l.name, nbytes/mib)
				if workers > 1 {
					if nbytes < 256*mib {
						continue
					}
					name = fmt.Sprintf("%s-%dworkers/%dMiB", l.name, workers, nbytes/mib)
				}
				b.Run(name, func(b *testing.B) {
					src, dst := copyBenchViews(b, parent, l.view)
					defer src.Release()
					defer dst.Release()
					b.SetBytes(src.Len() * 8)
					b.ReportAllocs()
					for b.Loop() {
						if err := src.CopyTo(memory.DefaultAllocator, dst, CopyOptions{Workers: workers}); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// BenchmarkMaterialise compares Copy, which allocates its result, with
// allocating a slice and copy()ing into it: fresh memory costs page faults
// in both.
func BenchmarkMaterialise(b *testing.B) {
	if testing.Short() {
		b.Skip("512 MiB buffers")
	}
	const n = 8192
	b.Run("builtin-make-copy/512MiB", func(b *testing.B) {
		src := make([]float64, n*n)
		for i := range src {
			src[i] = float64(i)
		}
		b.SetBytes(n * n * 8)
		b.ReportAllocs()
		for b.Loop() {
			dst := make([]float64, n*n)
			copy(dst, src)
		}
	})
	b.Run("transposed-Copy/8192x8192", func(b *testing.B) {
		src, dst := copyBenchViews(b, []int64{n, n}, func(a *View) (copier, error) { return a.T(), nil })
		defer src.Release()
		dst.Release()
		mem := memory.NewGoAllocator()
		b.SetBytes(n * n * 8)
		b.ReportAllocs()
		for b.Loop() {
			c, err := src.Copy(mem, CopyOptions{})
			if err != nil {
				b.Fatal(err)
			}
			c.Release()
		}
	})
}

// copyBenchViews returns a view made by view over a float64 array of shape
// parent holding random values, and a contiguous destination of the view's
// shape, both touched.
func copyBenchViews(b *testing.B, parent []int64, view func(a *View) (copier, error)) (copier, *View) {
	mem := memory.NewGoAllocator()
	a, err := Alloc(mem, arrow.PrimitiveTypes.Float64, parent)
	if err != nil {
		b.Fatal(err)
	}
	defer a.Release()
	d := data[float64](a)
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range d {
		d[i] = rng.Float64()
	}
	src, err := view(a)
	if err != nil {
		b.Fatal(err)
	}
	dst, err := Alloc(mem, arrow.PrimitiveTypes.Float64, src.Shape())
	if err != nil {
		b.Fatal(err)
	}
	return src, dst
}

// copier is what the copy benchmark needs of *View and *Remapped.
type copier interface {
	CopyTo(memory.Allocator, *View, CopyOptions) error
	Copy(memory.Allocator, CopyOptions) (*View, error)
	Shape() []int64
	Len() int64
	Release()
}

// BenchmarkCopyRatio alternates copy() of the view's bytes and the view's
// CopyTo in every iteration and reports their time ratio (x-copy: 1 is as
// fast as copy()), which is robust to other load on the machine.
func BenchmarkCopyRatio(b *testing.B) {
	if testing.Short() {
		b.Skip("256 and 512 MiB buffers")
	}
	for _, tc := range []struct {
		name   string
		parent []int64
		view   func(a *View) (copier, error)
	}{
		{"contiguous-last-axis/256MiB", []int64{4096, 8200}, func(a *View) (copier, error) { return a.Slice(Full(), Span(0, 8192)) }},
		{"transposed/8192x8192", []int64{8192, 8192}, func(a *View) (copier, error) { return a.T(), nil }},
	} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d", tc.name, workers), func(b *testing.B) {
				src, dst := copyBenchViews(b, tc.parent, tc.view)
				defer src.Release()
				defer dst.Release()
				n := src.Len() * 8
				from, to := make([]byte, n), make([]byte, n)
				for i := range from {
					from[i] = byte(i)
				}
				clear(to)
				var tCopy, tView time.Duration
				b.SetBytes(n)
				for b.Loop() {
					t0 := time.Now()
					copy(to, from)
					t1 := time.Now()
					if err := src.CopyTo(memory.DefaultAllocator, dst, CopyOptions{Workers: workers}); err != nil {
						b.Fatal(err)
					}
					tCopy += t1.Sub(t0)
					tView += time.Since(t1)
				}
				b.ReportMetric(float64(tView)/float64(tCopy), "x-copy")
				b.ReportMetric(float64(n)*float64(b.N)/tCopy.Seconds()/1e9, "copy-GB/s")
				b.ReportMetric(float64(n)*float64(b.N)/tView.Seconds()/1e9, "view-GB/s")
			})
		}
	}
}
