package coo_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/benchdata"
)

// BenchmarkCanonicalize sorts and sums duplicates of the shared workloads
// (bench/README.md; internal/benchdata lists them: workload a at 1M to
// 100M entries, and the 10M-entry tensors, delicious-4d's beyond 64-bit
// linear indices), the operation timed on the anchors as coo_sort: scipy
// sum_duplicates, pydata-sparse COO(), torch coalesce, and the plain-Go LSD
// radix baseline. B/op is everything the call allocates (the output
// buffers included); the input is 24 bytes per entry for a (16 for its
// int32 100M version), 32 for the 3-d tensors and 40 for delicious-4d.
func BenchmarkCanonicalize(b *testing.B) {
	for _, w := range append(slices.Clone(benchdata.Sizes2D), benchdata.Tensors...) {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d", w, workers), func(b *testing.B) {
				x := benchdata.LoadCOO(b, w)
				defer x.Release()
				mem := memory.NewGoAllocator()
				b.ReportAllocs()
				b.SetBytes(int64(x.CoordsBuffer().Len() + x.ValuesBuffer().Len()))
				cpu := benchdata.StartCPU()
				for b.Loop() {
					y, err := x.CanonicalizeWith(mem, coo.CanonOptions{Workers: workers})
					if err != nil {
						b.Fatal(err)
					}
					y.Release()
				}
				cpu.Report(b)
			})
		}
	}
}
