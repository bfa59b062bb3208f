package ipc_test

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	as "github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
)

func errorsIsArrow(err error) bool {
	return errors.Is(err, arrow.ErrInvalid) || errors.Is(err, arrow.ErrIndex) || errors.Is(err, arrow.ErrType)
}

// sparseToCOO converts any sparse tensor of this module to COO.
func sparseToCOO(t *testing.T, mem memory.Allocator, x as.Tensor, s sidecar) *coo.Tensor {
	t.Helper()
	switch y := x.(type) {
	case *coo.Tensor:
		y.Retain()
		return y
	}
	t.Fatalf("no COO conversion for %T", x)
	return nil
}
