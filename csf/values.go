package csf

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// WithValues returns a tensor with the receiver's shape, names, axis order
// and levels, and the NNZ values held by values, of type valueType (which
// may differ from the receiver's), in tree order (the order of
// ValueBytes). It shares the level buffers and the values buffer without
// copying and retains them; the caller keeps its own reference to values.
// A value type that is not a tensor value type is an error wrapping
// arrowsparse.ErrUnsupportedType, and a buffer too small or misaligned for
// NNZ values one wrapping arrowsparse.ErrBufferSize or ErrAlignment. The
// result must be released by the caller.
func (t *Tensor) WithValues(valueType arrow.DataType, values *memory.Buffer) (*Tensor, error) {
	if err := core.CheckValueType(valueType); err != nil {
		return nil, err
	}
	if err := core.CheckBuffer(values, t.nnz, valueType, "csf: values"); err != nil {
		return nil, err
	}
	d := t.derived()
	d.valueType = valueType
	copy(d.levels, t.levels)
	d.values = values
	d.retainBuffers()
	core.AdoptExact(&d.values, t.nnz*int64(arrowsparse.ByteWidth(valueType)))
	// The new values start at the tensor's first leaf.
	d.vshift, _ = t.leafRange()
	return d, nil
}
