package gcs

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// WithValues returns a matrix with the receiver's shape, names, index
// buffers and flags, and the NNZ values held by values, of type valueType
// (which may differ from the receiver's), in storage order. It shares the
// index buffers and the values buffer without copying and retains them; the
// caller keeps its own reference to values. A value type that is not a
// tensor value type is an error wrapping arrowsparse.ErrUnsupportedType,
// and a buffer too small or misaligned for NNZ values one wrapping
// arrowsparse.ErrBufferSize or ErrAlignment. It is how element-wise
// functions of the stored values (compute.Map, compute.AsType) keep the
// structure. The result must be released by the caller.
func (m *Matrix) WithValues(valueType arrow.DataType, values *memory.Buffer) (*Matrix, error) {
	if err := core.CheckValueType(valueType); err != nil {
		return nil, err
	}
	if err := core.CheckBuffer(values, m.nnz, valueType, "gcs: values"); err != nil {
		return nil, err
	}
	t := m.clone()
	if t.values != nil {
		t.values.Release()
	}
	t.valueType = valueType
	if values != nil {
		values.Retain()
	}
	t.values = values
	core.AdoptExact(&t.values, m.nnz*int64(arrowsparse.ByteWidth(valueType)))
	return t, nil
}

// WithValues returns the tensor with its storage's values replaced, as
// Matrix.WithValues does: the mapping, names and index buffers are shared,
// and values (NNZ values of valueType in storage order) is retained. The
// result must be released by the caller.
func (t *Tensor) WithValues(valueType arrow.DataType, values *memory.Buffer) (*Tensor, error) {
	m, err := t.m.WithValues(valueType, values)
	if err != nil {
		return nil, err
	}
	return newTensor(t.mp, m, t.names), nil
}
