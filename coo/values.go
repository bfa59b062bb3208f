package coo

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// WithValues returns a tensor with the receiver's shape, names, coordinates
// and canonical flag, and the NNZ values held by values, of type valueType
// (which may differ from the receiver's), in entry order. It shares the
// coordinate buffer and the values buffer without copying and retains
// them; the caller keeps its own reference to values. A value type that is
// not a tensor value type is an error wrapping
// arrowsparse.ErrUnsupportedType, and a buffer too small or misaligned for
// NNZ values one wrapping arrowsparse.ErrBufferSize or ErrAlignment. The
// result must be released by the caller.
func (t *Tensor) WithValues(valueType arrow.DataType, values *memory.Buffer) (*Tensor, error) {
	if err := core.CheckValueType(valueType); err != nil {
		return nil, err
	}
	if err := core.CheckBuffer(values, t.nnz, valueType, "coo: value"); err != nil {
		return nil, err
	}
	if t.coords != nil {
		t.coords.Retain()
	}
	if values != nil {
		values.Retain()
	}
	d := t.derived(t.coords, t.layout, values, t.nnz, t.canonical)
	d.valueType = valueType
	d.claimedNot = t.claimedNot
	core.AdoptExact(&d.values, t.nnz*int64(arrowsparse.ByteWidth(valueType)))
	return d, nil
}
