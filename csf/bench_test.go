package csf_test

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/internal/benchdata"
)

// BenchmarkFromCOO converts the shared unsorted 10M-entry tensor (b_tensor3d
// of bench/README.md: 10,000³, 755 duplicates) to CSF in the default axis
// order, summing duplicates. The anchor is pydata-sparse's GCXS.from_coo
// with compressed_axes [0, 1] on the same unsorted data (coo_to_gcxs_c01_nocanon).
// It reports the CSF and COO index sizes.
func BenchmarkFromCOO(b *testing.B) {
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("b_tensor3d/workers=%d", workers), func(b *testing.B) {
			x := benchdata.LoadCOO(b, "b_tensor3d")
			defer x.Release()
			mem := memory.NewGoAllocator()
			b.ReportAllocs()
			b.SetBytes(int64(x.CoordsBuffer().Len() + x.ValuesBuffer().Len()))
			var idx int64
			for b.Loop() {
				y, err := csf.FromCOO(mem, x, csf.Options{Workers: workers})
				if err != nil {
					b.Fatal(err)
				}
				idx = y.IndexBytes()
				y.Release()
			}
			b.ReportMetric(float64(idx)/1e6, "csf-index-MB")
			b.ReportMetric(float64(x.CoordsBuffer().Len())/1e6, "coo-index-MB")
		})
	}
}
