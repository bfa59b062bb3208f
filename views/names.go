package views

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/internal/core"
)

// AllocNamed is Alloc with dimension names (one per dimension, or none).
// The returned view must be released by the caller.
func AllocNamed(mem memory.Allocator, dt arrow.DataType, shape []int64, names []string) (*View, error) {
	if err := core.CheckDimNames(names, len(shape)); err != nil {
		return nil, err
	}
	v, err := Alloc(mem, dt, shape)
	if err != nil {
		return nil, err
	}
	v.names = core.CloneDimNames(names)
	return v, nil
}
