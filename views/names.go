package views

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	as "github.com/arrowsparse/arrowsparse"
)

// AllocNamed is Alloc with dimension names (one per dimension, or none).
// The returned view must be released by the caller.
func AllocNamed(mem memory.Allocator, dt arrow.DataType, shape []int64, names []string) (*View, error) {
	if err := as.CheckDimNames(names, len(shape)); err != nil {
		return nil, err
	}
	v, err := Alloc(mem, dt, shape)
	if err != nil {
		return nil, err
	}
	v.names = as.CloneDimNames(names)
	return v, nil
}
