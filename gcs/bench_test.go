package gcs_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/testing/benchdata"
	"github.com/arrowsparse/arrowsparse/views"
)

// The benchmarks below time the operations of the shared anchor table
// (bench/README.md) on the same 10M-entry workloads: coo_to_csr,
// csr_to_csc, spmv (int32 and int64 indices, 1 and 2 goroutines) and
// coo_to_gcxs from the unsorted 3-d COO. Run them with
//
//	BENCH_DATA=/work/benchdata go test -run '^$' -bench . -benchtime 5x -count 5 ./gcs/
//
// B/op is everything the call allocates, output buffers included.

// BenchmarkCOOToCSR converts workload a, unsorted, to a canonical CSR, at
// 100K to 100M entries, with int64 and int32 coordinates
// (internal/testing/benchdata.Forms2D): the anchors' coo_to_csr. The CSR keeps the
// COO's index type. cpu-ms/op is the process's CPU time.
func BenchmarkCOOToCSR(b *testing.B) {
	for _, f := range benchdata.Forms2D() {
		for _, workers := range []int{1, 2} {
			b.Run(f.Name(workers), func(b *testing.B) {
				x := f.Load(b)
				defer x.Release()
				mem := benchdata.Allocator()
				b.ReportAllocs()
				b.SetBytes(int64(x.CoordsBuffer().Len() + x.ValuesBuffer().Len()))
				cpu := benchdata.StartCPU()
				for b.Loop() {
					m, err := gcs.MatrixFromCOO(mem, x, gcs.Rows, gcs.ConvertOptions{Workers: workers})
					if err != nil {
						b.Fatal(err)
					}
					m.Release()
				}
				cpu.Report(b)
			})
		}
	}
}

// csrOf loads workload a as a canonical CSR with the given index type.
func csrOf(b *testing.B, it arrow.DataType) *gcs.Matrix {
	return csrOfWorkload(b, "a_powerlaw2d", it)
}

// csrOfWorkload loads a 2-d workload as a canonical CSR with the given
// index type.
func csrOfWorkload(b *testing.B, name string, it arrow.DataType) *gcs.Matrix {
	return csrOfForm(b, benchdata.Form{Workload: name}, it)
}

// csrOfForm loads a 2-d workload as a canonical CSR with the given index
// type (nil: the form's).
func csrOfForm(b *testing.B, f benchdata.Form, it arrow.DataType) *gcs.Matrix {
	x := f.Load(b)
	defer x.Release()
	m, err := gcs.MatrixFromCOO(benchdata.Allocator(), x, gcs.Rows, gcs.ConvertOptions{IndptrType: it, IndexType: it})
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// BenchmarkCSRToCSC transposes the canonical CSR of workload a at 100K to
// 100M entries, with the index type of each form of benchdata.Forms2D
// (int64, or int32 as scipy stores it): the anchors' csr_to_csc.
// cpu-ms/op is the process's CPU time.
func BenchmarkCSRToCSC(b *testing.B) {
	for _, f := range benchdata.Forms2D() {
		for _, workers := range []int{1, 2} {
			b.Run(f.Name(workers), func(b *testing.B) {
				m := csrOfForm(b, f, nil)
				defer m.Release()
				mem := benchdata.Allocator()
				b.ReportAllocs()
				cpu := benchdata.StartCPU()
				for b.Loop() {
					c, err := m.ToCSC(mem, gcs.ConvertOptions{Workers: workers})
					if err != nil {
						b.Fatal(err)
					}
					c.Release()
				}
				cpu.Report(b)
			})
		}
	}
}

func BenchmarkSpMV(b *testing.B) {
	for _, it := range []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("a_powerlaw2d/%s/workers=%d", it, workers), func(b *testing.B) {
				m := csrOf(b, it)
				defer m.Release()
				x := make([]float64, m.Cols())
				for i := range x {
					x[i] = float64(i%7) - 3
				}
				y := make([]float64, m.Rows())
				b.ReportAllocs()
				for b.Loop() {
					if err := gcs.MulVec(y, m, x, gcs.KernelOptions{Workers: workers}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkGCSFromCOO(b *testing.B) {
	for _, c := range []struct {
		name string
		dims []int
		p    int
	}{
		{"c0", []int{0, 1, 2}, 1},  // pydata compressed_axes=[0]
		{"c01", []int{0, 1, 2}, 2}, // pydata compressed_axes=[0, 1]
	} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("b_tensor3d/%s/workers=%d", c.name, workers), func(b *testing.B) {
				x := benchdata.LoadCOO(b, "b_tensor3d")
				defer x.Release()
				mem := benchdata.Allocator()
				b.ReportAllocs()
				for b.Loop() {
					g, err := fromCOOMapped(mem, x, c.dims, c.p, gcs.ConvertOptions{Workers: workers})
					if err != nil {
						b.Fatal(err)
					}
					g.Release()
				}
			})
		}
	}
}

// BenchmarkDMSlice iterates a DM slice of the 1M×1M CSR: every tenth row
// and the first half of the columns, transposed; only the lanes of the
// slice are visited, and the columns are found by binary search.
func BenchmarkDMSlice(b *testing.B) {
	m := csrOf(b, arrow.PrimitiveTypes.Int64)
	defer m.Release()
	d, err := gcs.NewDM(m.Shape(), []int{0, 1}, []int{1}, m)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Release()
	s, err := d.Slice(views.Range{Start: 0, Stop: views.None, Step: 10}, views.Span(0, m.Cols()/2))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Release()
	tr, err := s.Transpose()
	if err != nil {
		b.Fatal(err)
	}
	defer tr.Release()
	b.ReportAllocs()
	for b.Loop() {
		var sum float64
		n := 0
		for _, v := range gcs.All[float64](tr) {
			sum += v
			n++
		}
		if n == 0 {
			b.Fatal("empty slice")
		}
	}
}

// BenchmarkAt reads random elements of the 1M×1M CSR by binary search.
func BenchmarkAt(b *testing.B) {
	m := csrOf(b, arrow.PrimitiveTypes.Int64)
	defer m.Release()
	r := rand.New(rand.NewPCG(1, 1))
	idx := make([][2]int64, 1024)
	for i := range idx {
		idx[i] = [2]int64{r.Int64N(m.Rows()), r.Int64N(m.Cols())}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		p := idx[i%len(idx)]
		_ = gcs.At[float64](m, p[0], p[1])
		i++
	}
}
