package mtx_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/testing/benchdata"
	"github.com/arrowsparse/arrowsparse/mtx"
)

// benchFile returns the Matrix Market file of the a_powerlaw2d workload
// (10M entries, 1M × 1M, unsorted, float64: about 335 MB), writing it next
// to the workload the first time. The anchor harness's fast_matrix_market
// and scipy timings (bench/mtx_anchors.py) read the same file.
func benchFile(b *testing.B) string {
	b.Helper()
	dir := benchdata.Dir(b, "a_powerlaw2d")
	path := filepath.Join(dir, "a_powerlaw2d.mtx")
	if _, err := os.Stat(path); err == nil {
		return path
	}
	t := benchdata.LoadCOO(b, "a_powerlaw2d")
	defer t.Release()
	tmp := path + ".tmp"
	if err := mtx.WriteFile(tmp, t); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	return path
}

var workerCounts = []struct {
	name string
	n    int
}{{"workers=1", 1}, {"workers=2", 2}}

// BenchmarkMTXRead reads the workload's .mtx file (ReadFile: parallel
// ReadAt and parsing), into int32 coordinates and float64 values.
func BenchmarkMTXRead(b *testing.B) {
	path := benchFile(b)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	for _, w := range workerCounts {
		b.Run("a_powerlaw2d/"+w.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(st.Size())
			for b.Loop() {
				m, err := mtx.ReadFile(path, mtx.WithWorkers(w.n))
				if err != nil {
					b.Fatal(err)
				}
				m.Release()
			}
		})
	}
}

// BenchmarkMTXWrite writes the workload (row-major coordinates) to a file.
func BenchmarkMTXWrite(b *testing.B) {
	benchFile(b)
	t := benchdata.LoadCOO(b, "a_powerlaw2d")
	defer t.Release()
	rm, err := t.WithLayout(memory.DefaultAllocator, coo.RowMajor)
	if err != nil {
		b.Fatal(err)
	}
	defer rm.Release()
	out := filepath.Join(b.TempDir(), "out.mtx")
	for _, w := range workerCounts {
		b.Run("a_powerlaw2d/"+w.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := mtx.WriteFile(out, rm, mtx.WithWorkers(w.n)); err != nil {
					b.Fatal(err)
				}
			}
			if st, err := os.Stat(out); err == nil {
				b.SetBytes(st.Size())
			}
		})
	}
}
