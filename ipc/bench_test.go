package ipc_test

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/ipc"
)

// bigCOO returns a 1M × 1M COO message with 10M random entries (int64
// coordinates, float64 values; 240 MB of body), canonical or not.
func bigCOO(b *testing.B, canonical bool) ([]byte, int64) {
	b.Helper()
	const n, dim = 10_000_000, 1_000_000
	r := rand.New(rand.NewPCG(1, 1))
	coords := make([]int64, 2*n)
	vals := make([]float64, n)
	for i := range n {
		coords[2*i], coords[2*i+1] = r.Int64N(dim), r.Int64N(dim)
		vals[i] = r.Float64()
	}
	mem := memory.NewGoAllocator()
	t, err := coo.FromSlices(mem, []int64{dim, dim}, coords, coo.RowMajor, vals)
	if err != nil {
		b.Fatal(err)
	}
	if canonical {
		c, err := t.Canonicalize(mem, coo.ConvertOptions{})
		if err != nil {
			b.Fatal(err)
		}
		t.Release()
		t = c
	}
	defer t.Release()
	var buf bytes.Buffer
	if _, err := ipc.WriteTensor(&buf, t); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes(), int64(t.CoordsBuffer().Len() + t.ValuesBuffer().Len())
}

// BenchmarkReadCOO decodes a 10M-entry COO message from memory: trusted
// (O(ndim), zero-copy) and fully validated (every coordinate checked, the
// canonical claim verified), next to a copy() of the body in the same run.
func BenchmarkReadCOO(b *testing.B) {
	for _, canonical := range []bool{false, true} {
		name := "unsorted"
		if canonical {
			name = "canonical"
		}
		msg, body := bigCOO(b, canonical)
		b.Run(name+"/trusted", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(body)
			for b.Loop() {
				m, err := ipc.ParseMessage(msg, ipc.WithTrusted())
				if err != nil {
					b.Fatal(err)
				}
				m.Release()
			}
		})
		b.Run(name+"/validated", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(body)
			for b.Loop() {
				m, err := ipc.ParseMessage(msg)
				if err != nil {
					b.Fatal(err)
				}
				m.Release()
			}
		})
		b.Run(name+"/copy-body", func(b *testing.B) {
			dst := make([]byte, len(msg))
			b.SetBytes(body)
			for b.Loop() {
				copy(dst, msg)
			}
		})
	}
}

// BenchmarkWriteCOO writes the same message to io.Discard, next to a copy()
// of its bytes.
func BenchmarkWriteCOO(b *testing.B) {
	msg, body := bigCOO(b, false)
	m, err := ipc.ParseMessage(msg)
	if err != nil {
		b.Fatal(err)
	}
	defer m.Release()
	b.Run("discard", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(body)
		for b.Loop() {
			if _, err := ipc.WriteTensor(io.Discard, m.Tensor); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("buffer", func(b *testing.B) {
		// Into a reused bytes.Buffer: the body is copied once.
		var out bytes.Buffer
		out.Grow(len(msg))
		b.ReportAllocs()
		b.SetBytes(body)
		for b.Loop() {
			out.Reset()
			if _, err := ipc.WriteTensor(&out, m.Tensor); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("copy-body", func(b *testing.B) {
		dst := make([]byte, len(msg))
		b.SetBytes(body)
		for b.Loop() {
			copy(dst, msg)
		}
	})
}
