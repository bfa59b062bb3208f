package coo_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/arrowext"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/testing/exercise"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
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

// FuzzFromTable reads Arrow IPC streams as tables with FromRecordReader and
// FromTable, and runs every operation on the tensors they accept. Seeds
// are real tables (ToRecords of tensors of every rank, with names, shapes
// and several batches) and the same with their shape metadata changed.
func FuzzFromTable(f *testing.F) {
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(3, 4))
	for _, shape := range [][]int64{{5}, {4, 7}, {3, 4, 5}, {2, 3, 2, 3}, {6, 0}} {
		x, _ := testutil.RandomCOO(f, mem, r, shape, 12, coo.RowMajor, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Float32, 4)
		recs, err := x.ToRecords(mem, 5)
		if err != nil {
			f.Fatal(err)
		}
		var buf bytes.Buffer
		w := ipc.NewWriter(&buf, ipc.WithSchema(recs[0].Schema()))
		for _, rec := range recs {
			if err := w.Write(rec); err != nil {
				f.Fatal(err)
			}
			rec.Release()
		}
		w.Close()
		x.Release()
		f.Add(buf.Bytes(), byte(0))
		f.Add(bytes.Replace(buf.Bytes(), []byte(`"shape":[`), []byte(`"shape":[9`), 1), byte(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, how byte) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		// arrowext's reader verifies the stream's flatbuffers first (arrow-go's
		// own reader trusts them and can be made to allocate without bound).
		tbl, err := arrowext.ReadIPCStream(bytes.NewReader(data), arrowext.WithAllocator(mem))
		if err != nil {
			return
		}
		defer tbl.Release()
		var x *coo.Tensor
		if how&1 == 0 {
			tr := array.NewTableReader(tbl, int64(how>>1)+1)
			x, err = coo.FromRecordReader(mem, tr, coo.RecordOptions{})
			tr.Release()
		} else {
			x, err = coo.FromTable(mem, tbl, coo.RecordOptions{})
		}
		if err != nil {
			if !errors.Is(err, arrow.ErrInvalid) && !errors.Is(err, arrow.ErrIndex) && !errors.Is(err, arrow.ErrType) {
				t.Fatalf("error outside Arrow's categories: %v", err)
			}
			return
		}
		defer x.Release()
		exercise.New(t, mem, int64(len(data))).Run(x)
	})
}
