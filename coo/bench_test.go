package coo_test

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/testing/benchdata"
)

// BenchmarkCanonicalize sorts and sums duplicates of the shared 10M-entry
// workloads (bench/README.md), the operation timed on the anchors as
// coo_sort: scipy sum_duplicates, pydata-sparse COO(), torch coalesce, and
// the plain-Go LSD radix baseline. B/op is everything the call allocates
// (the output buffers included); the input is 240 MB (a) and 320 MB (b).
func BenchmarkCanonicalize(b *testing.B) {
	for _, w := range []string{"a_powerlaw2d", "b_tensor3d"} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d", w, workers), func(b *testing.B) {
				x := benchdata.LoadCOO(b, w)
				defer x.Release()
				mem := memory.NewGoAllocator()
				b.ReportAllocs()
				b.SetBytes(int64(x.CoordsBuffer().Len() + x.ValuesBuffer().Len()))
				for b.Loop() {
					y, err := x.Canonicalize(mem, coo.ConvertOptions{Workers: workers})
					if err != nil {
						b.Fatal(err)
					}
					y.Release()
				}
			})
		}
	}
}
