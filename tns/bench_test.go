package tns_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/tns"
)

// BenchmarkTNS reads and writes a random 3-d tensor of 1M entries
// (1000 × 1000 × 1000, float64 values uniform in [-1, 1)) in memory.
func BenchmarkTNS(b *testing.B) {
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(1, 1))
	const n = 1 << 20
	coords := make([]int32, 3*n)
	for i := range coords {
		coords[i] = int32(r.IntN(1000))
	}
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = r.Float64()*2 - 1
	}
	t, err := coo.FromSlices(mem, []int64{1000, 1000, 1000}, coords, coo.RowMajor, vals)
	if err != nil {
		b.Fatal(err)
	}
	defer t.Release()
	var buf bytes.Buffer
	if err := tns.Write(&buf, t); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	for _, w := range []struct {
		name string
		n    int
	}{{"workers=1", 1}, {"workers=2", 2}} {
		b.Run("read/"+w.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				x, err := tns.ReadBytes(data, tns.WithWorkers(w.n))
				if err != nil {
					b.Fatal(err)
				}
				x.Release()
			}
		})
		b.Run("write/"+w.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			var out bytes.Buffer
			for b.Loop() {
				out.Reset()
				if err := tns.Write(&out, t, tns.WithWorkers(w.n)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
