package mtx_test

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/internal/benchdata"
	"github.com/arrowsparse/arrowsparse/mtx"
)

// benchFile returns the .mtx file of the a_powerlaw2d workload, writing it
// next to the workload the first time.
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

func BenchmarkRead(b *testing.B) {
	path := benchFile(b)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	for _, w := range []int{1, 2} {
		b.Run("a_powerlaw2d/workers="+string(rune('0'+w)), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(st.Size())
			for b.Loop() {
				m, err := mtx.ReadFile(path, mtx.WithWorkers(w), mtx.WithAllocator(memory.DefaultAllocator))
				if err != nil {
					b.Fatal(err)
				}
				m.Release()
			}
		})
	}
}

func BenchmarkWrite(b *testing.B) {
	benchFile(b)
	t := benchdata.LoadCOO(b, "a_powerlaw2d")
	defer t.Release()
	for _, w := range []int{1, 2} {
		b.Run("a_powerlaw2d/workers="+string(rune('0'+w)), func(b *testing.B) {
			b.ReportAllocs()
			var n countWriter
			for b.Loop() {
				n = 0
				if err := mtx.Write(&n, t, mtx.WithWriteWorkers(w)); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(n))
		})
	}
}

type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

var _ io.Writer = (*countWriter)(nil)
