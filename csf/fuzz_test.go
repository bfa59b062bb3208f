package csf_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/internal/testing/exercise"
)

// encodeCSF writes the constructor input of a real (compact) CSF tensor.
func encodeCSF(t *csf.Tensor) []byte {
	var e exercise.Encoder
	e.ValueType(t.DataType())
	e.Shape(t.Shape())
	for _, a := range t.AxisOrder() {
		e.Byte(byte(a))
	}
	for l := range t.NumDims() {
		e.IndexType(t.IndexType(l))
		e.Int(t.LevelLen(l))
		e.Buffer(t.IndicesBuffer(l).Bytes())
		if l < t.NumDims()-1 {
			e.IndexType(t.IndptrType(l))
			e.Buffer(t.IndptrBuffer(l).Bytes())
		}
	}
	e.Int(t.NNZ())
	e.Buffer(t.ValuesBuffer().Bytes())
	return e.B
}

// FuzzNew builds CSF tensors from raw types, shapes, axis orders and level
// buffers with New, and runs every operation on those it accepts
// (internal/testing/exercise).
func FuzzNew(f *testing.F) {
	exercise.Corpus(f, "../testdata/interop", func(x arrowsparse.Tensor) {
		if t, ok := x.(*csf.Tensor); ok {
			f.Add(encodeCSF(t))
		}
	})
	f.Fuzz(func(t *testing.T, data []byte) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		in := exercise.NewInput(data)
		vt := in.ValueType()
		shape := in.Shape(5)
		nd := len(shape)
		order := make([]int, nd)
		for k := range order {
			order[k] = int(in.Byte())
			if nd > 0 {
				order[k] %= nd + 1 // sometimes out of range
			}
		}
		levels := make([]csf.Level, nd)
		var bufs []*memory.Buffer
		defer func() {
			for _, b := range bufs {
				b.Release()
			}
		}()
		for l := range levels {
			levels[l].IndexType = in.IndexType()
			levels[l].Len = in.Int()
			levels[l].Indices = in.Buffer(mem)
			bufs = append(bufs, levels[l].Indices)
			if l < nd-1 {
				levels[l].IndptrType = in.IndexType()
				levels[l].Indptr = in.Buffer(mem)
				bufs = append(bufs, levels[l].Indptr)
			}
		}
		nnz := in.Int()
		values := in.Buffer(mem)
		bufs = append(bufs, values)
		x, err := csf.New(vt, shape, order, levels, values, nnz)
		if err != nil {
			return
		}
		defer x.Release()
		exercise.New(t, mem, int64(len(data))).Run(x)
	})
}
