package main

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	as "github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
)

// compressedIndexType returns the indices type of a CSR, CSC, GCS or CSF
// tensor, or nil.
func compressedIndexType(t as.Tensor) arrow.DataType { return nil }

// compressedToCOO converts a CSR, CSC, GCS or CSF tensor to canonical COO.
func compressedToCOO(mem memory.Allocator, t as.Tensor, it arrow.DataType) (*coo.Tensor, error) {
	return nil, fmt.Errorf("cannot convert a %s tensor yet", t.Format())
}

// convertCompressed converts t to CSR, CSC, CSF or GCS.
func convertCompressed(mem memory.Allocator, t as.Tensor, to string, o *convertOpts) (as.Tensor, error) {
	return nil, fmt.Errorf("conversion to %s is not available yet", to)
}
