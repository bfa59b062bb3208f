package views_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/testing/exercise"
	"github.com/arrowsparse/arrowsparse/views"
)

// encodeView writes the constructor input of a real view.
func encodeView(v *views.View) []byte {
	var e exercise.Encoder
	e.ValueType(v.DataType())
	e.Buffer(v.Buffer().Bytes())
	e.Int(v.ElemOffset())
	e.Shape(v.Shape())
	for _, s := range v.ElemStrides() {
		e.Byte(byte(s >> 63 & 1))
		if s < 0 {
			s = -s
		}
		e.Int(s)
	}
	return e.B
}

// FuzzNew builds views from raw types, buffers, offsets, shapes and signed
// strides with New, and runs every operation on those it accepts,
// conversions to the sparse formats included (internal/testing/exercise).
func FuzzNew(f *testing.F) {
	exercise.Corpus(f, "../testdata/interop", func(x arrowsparse.Tensor) {
		if v, ok := x.(*views.View); ok {
			f.Add(encodeView(v))
		}
	})
	f.Fuzz(func(t *testing.T, data []byte) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		in := exercise.NewInput(data)
		dt := in.ValueType()
		buf := in.Buffer(mem)
		defer buf.Release()
		off := in.Int()
		shape := in.Shape(6)
		strides := make([]int64, len(shape))
		for k := range strides {
			neg := in.Byte()&1 != 0
			strides[k] = in.Int()
			if neg {
				strides[k] = -strides[k]
			}
		}
		v, err := views.New(dt, buf, off, shape, strides)
		if err != nil {
			return
		}
		defer v.Release()
		exercise.New(t, mem, int64(len(data))).Run(v)
	})
}
