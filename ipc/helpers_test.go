package ipc_test

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/gcs"
)

func errorsIsArrow(err error) bool {
	return errors.Is(err, arrow.ErrInvalid) || errors.Is(err, arrow.ErrIndex) || errors.Is(err, arrow.ErrType)
}

// sparseToCOO converts any sparse tensor of this module to COO.
func sparseToCOO(t *testing.T, mem memory.Allocator, x arrowsparse.Tensor, s sidecar) *coo.Tensor {
	t.Helper()
	switch y := x.(type) {
	case *coo.Tensor:
		assert.Equal(t, "COO", s.Format)
		assert.Equal(t, s.IndexType, typeName(y.IndexType()))
		require.NotNil(t, s.IsCanonical)
		y.Retain()
		return y
	case *csf.Tensor:
		assert.Equal(t, "CSF", s.Format)
		assert.Equal(t, s.AxisOrder, y.AxisOrder())
		for l := range y.NumDims() {
			assert.Equal(t, s.IndexType, typeName(y.IndexType(l)))
			if l < y.NumDims()-1 {
				assert.Equal(t, s.IndptrType, typeName(y.IndptrType(l)))
			}
		}
		c, err := y.ToCOO(mem, csf.ConvertOptions{})
		require.NoError(t, err)
		return c
	case *gcs.Matrix:
		want := "CSR"
		if y.Axis() == gcs.Cols {
			want = "CSC"
		}
		assert.Equal(t, want, s.Format)
		assert.Equal(t, s.IndexType, typeName(y.IndexType()))
		assert.Equal(t, s.IndptrType, typeName(y.IndptrType()))
		c, err := y.ToCOO(mem, gcs.ConvertOptions{})
		require.NoError(t, err)
		return c
	}
	t.Fatalf("no COO conversion for %T", x)
	return nil
}
