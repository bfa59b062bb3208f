package coo_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/testing/exercise"
)

// encodeCOO writes the constructor input of a real COO tensor.
func encodeCOO(t *coo.Tensor) []byte {
	var e exercise.Encoder
	e.ValueType(t.DataType())
	e.IndexType(t.IndexType())
	e.Shape(t.Shape())
	e.Byte(byte(t.Layout()))
	e.Int(t.NNZ())
	e.Buffer(t.CoordsBuffer().Bytes())
	e.Buffer(t.ValuesBuffer().Bytes())
	e.Byte(0)
	return e.B
}

// FuzzNew builds COO tensors from raw types, shapes and buffers with New,
// and runs every operation on those it accepts (internal/testing/exercise):
// nothing accepted may panic or allocate beyond a bound later.
func FuzzNew(f *testing.F) {
	exercise.Corpus(f, "../testdata/interop", func(x arrowsparse.Tensor) {
		if t, ok := x.(*coo.Tensor); ok {
			f.Add(encodeCOO(t))
		}
	})
	f.Fuzz(func(t *testing.T, data []byte) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		in := exercise.NewInput(data)
		vt, it := in.ValueType(), in.IndexType()
		shape := in.Shape(6)
		layout := coo.Layout(in.Byte() % 3)
		nnz := in.Int()
		coords := in.Buffer(mem)
		defer coords.Release()
		values := in.Buffer(mem)
		defer values.Release()
		var opts []coo.Option
		if c := in.Byte(); c&1 != 0 {
			opts = append(opts, coo.WithCanonicalClaim(c&2 != 0))
		}
		x, err := coo.New(vt, it, shape, coords, layout, values, nnz, opts...)
		if err != nil {
			return
		}
		defer x.Release()
		exercise.New(t, mem, int64(len(data))).Run(x)
	})
}
