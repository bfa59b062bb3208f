package arrowext_test

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
	"github.com/arrowsparse/arrowsparse/views"
)

var (
	sparseIndexTypes = testutil.IndexTypes
	sparseValueTypes = testutil.ValueTypes
	sparseFormatList = []arrowsparse.Format{arrowsparse.FormatCOO, arrowsparse.FormatCSR, arrowsparse.FormatCSC, arrowsparse.FormatCSF, arrowsparse.FormatGCS}
)

// putValue writes the small integer x as element p of a buffer of type dt.
func putValue(b []byte, dt arrow.DataType, p int, x int) { testutil.PutFloat(b, dt, p, float64(x)) }

// randomDense returns a row-major dense tensor of the shape with about a
// fraction density of non-zero elements, small integers.
func randomDense(t testing.TB, r *rand.Rand, mem memory.Allocator, dt arrow.DataType, shape []int64, density float64) *views.View {
	t.Helper()
	v, err := views.Alloc(mem, dt, shape)
	require.NoError(t, err)
	n := int(v.Len())
	b := v.Buffer().Bytes()
	for p := range n {
		if r.Float64() < density {
			putValue(b, dt, p, 1+r.IntN(100))
		}
	}
	return v
}

// sparseOf converts a dense tensor to format f with index type it: CSF
// with axis order order (nil: reversed), GCS with dims and partitioning.
func sparseOf(t testing.TB, mem memory.Allocator, d *views.View, f arrowsparse.Format, it arrow.DataType, order, dims []int, part int) arrowsparse.Tensor {
	t.Helper()
	var out arrowsparse.Tensor
	var err error
	switch f {
	case arrowsparse.FormatCOO:
		out, err = coo.FromDense(mem, d, coo.ConvertOptions{IndexType: it})
	case arrowsparse.FormatCSR:
		out, err = gcs.MatrixFromDense(mem, d, gcs.Rows, gcs.ConvertOptions{IndexType: it, IndptrType: it})
	case arrowsparse.FormatCSC:
		out, err = gcs.MatrixFromDense(mem, d, gcs.Cols, gcs.ConvertOptions{IndexType: it, IndptrType: it})
	case arrowsparse.FormatCSF:
		out, err = csf.FromDense(mem, d, csf.ConvertOptions{IndexType: it, IndptrType: it, AxisOrder: order})
	case arrowsparse.FormatGCS:
		mp, merr := gcs.NewMapping(d.Shape(), dims, part)
		require.NoError(t, merr)
		out, err = gcs.FromDense(mem, d, gcs.ConvertOptions{IndexType: it, IndptrType: it, Mapping: mp})
	}
	require.NoError(t, err)
	return out
}

// denseBytes returns the row-major bytes of any tensor.
func denseBytes(t testing.TB, mem memory.Allocator, x arrowsparse.Tensor) []byte {
	t.Helper()
	d, err := x.ToDense(mem)
	require.NoError(t, err)
	defer d.Release()
	v, err := views.Of(d)
	require.NoError(t, err)
	defer v.Release()
	return viewBytes(t, mem, v)
}

func releaseTensors(ts []arrowsparse.Tensor) {
	for _, x := range ts {
		if x != nil {
			x.Release()
		}
	}
}
