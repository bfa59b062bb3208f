package coo_test

import (
	"testing"

	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/testing/benchdata"
)

// BenchmarkCanonicalize sorts and sums duplicates of the shared workloads
// (bench/README.md; internal/testing/benchdata lists them: workload a at 100K to
// 100M entries, and the 10M-entry tensors, delicious-4d's beyond 64-bit
// linear indices), the operation timed on the anchors as coo_sort: scipy
// sum_duplicates, pydata-sparse COO(), torch coalesce, and the plain-Go LSD
// radix baseline. B/op is everything the call allocates (the output
// buffers included); the input is 24 bytes per entry for a (16 for its
// int32 forms, benchdata.Forms2D), 32 for the 3-d tensors and 40 for
// delicious-4d. cpu-ms/op is the process's CPU time.
func BenchmarkCanonicalize(b *testing.B) {
	forms := benchdata.Forms2D()
	for _, w := range benchdata.Tensors {
		forms = append(forms, benchdata.Form{Workload: w})
	}
	for _, f := range forms {
		for _, workers := range []int{1, 2} {
			b.Run(f.Name(workers), func(b *testing.B) {
				x := f.Load(b)
				defer x.Release()
				mem := benchdata.Allocator()
				b.ReportAllocs()
				b.SetBytes(int64(x.CoordsBuffer().Len() + x.ValuesBuffer().Len()))
				cpu := benchdata.StartCPU()
				for b.Loop() {
					y, err := x.Canonicalize(mem, coo.ConvertOptions{Workers: workers})
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
