package gcs_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/testing/exercise"
)

// encodeMatrix writes the constructor input of a real matrix, and a
// mapping of rank 2 (the identity).
func encodeMatrix(m *gcs.Matrix) []byte {
	var e exercise.Encoder
	e.ValueType(m.DataType())
	e.IndexType(m.IndptrType())
	e.IndexType(m.IndexType())
	e.Shape(m.Shape())
	e.Byte(byte(m.Axis()))
	e.Int(m.NNZ())
	e.Buffer(m.IndptrBuffer().Bytes())
	e.Buffer(m.IndicesBuffer().Bytes())
	e.Buffer(m.ValuesBuffer().Bytes())
	e.Shape(m.Shape())
	e.Byte(0)
	e.Byte(1)
	return e.B
}

// FuzzNew builds CSR and CSC matrices from raw types, shapes and buffers
// with New, and GCS tensors over those it accepts with NewTensor, and runs
// every operation on what is accepted (internal/testing/exercise).
func FuzzNew(f *testing.F) {
	exercise.Corpus(f, "../testdata/interop", func(x arrowsparse.Tensor) {
		switch t := x.(type) {
		case *gcs.Matrix:
			f.Add(encodeMatrix(t))
		case *gcs.Tensor:
			f.Add(encodeMatrix(t.Storage()))
		}
	})
	f.Fuzz(func(t *testing.T, data []byte) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		in := exercise.NewInput(data)
		vt, pt, it := in.ValueType(), in.IndexType(), in.IndexType()
		shape := in.Shape(3)
		axis := gcs.Axis(in.Byte() % 3)
		nnz := in.Int()
		indptr := in.Buffer(mem)
		defer indptr.Release()
		indices := in.Buffer(mem)
		defer indices.Release()
		values := in.Buffer(mem)
		defer values.Release()
		m, err := gcs.New(vt, pt, it, shape, axis, indptr, indices, values, nnz)
		if err != nil {
			return
		}
		defer m.Release()
		run := exercise.New(t, mem, int64(len(data)))
		run.Run(m)
		// A GCS tensor over the matrix, with a mapping from the input.
		tshape := in.Shape(5)
		dims := make([]int, len(tshape))
		for k := range dims {
			dims[k] = k
		}
		if n := len(dims); n > 1 {
			r := int(in.Byte())
			dims[0], dims[r%n] = dims[r%n], dims[0]
		}
		g, err := gcs.NewTensor(tshape, dims, int(in.Byte())%(len(tshape)+1), m)
		if err != nil {
			return
		}
		defer g.Release()
		run.Run(g)
	})
}
