package compute_test

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/compute"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/testing/exercise"
)

// fuzzTensor builds a COO tensor from fuzz input, or nil if the
// constructor refuses the input.
func fuzzTensor(mem memory.Allocator, in *exercise.Input, shape []int64, vt arrow.DataType) *coo.Tensor {
	it := in.IndexType()
	layout := coo.Layout(in.Byte() % 2)
	nnz := in.Int() % 64
	cb := in.Buffer(mem)
	defer cb.Release()
	vb := in.Buffer(mem)
	defer vb.Release()
	x, err := coo.New(vt, it, shape, cb, layout, vb, nnz)
	if err != nil {
		return nil
	}
	return x
}

// FuzzCompute runs every operation on tensors made from fuzz bytes (any
// shape, huge and zero-size dimensions included, any types): none may
// panic, leak or fail with an error outside Arrow's categories, and no
// result may allocate beyond what the operands' sizes bound (results are
// sparse or, when dense, small).
func FuzzCompute(f *testing.F) {
	f.Add([]byte{2, 3, 4, 10, 2, 1, 5, 48, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 40, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	f.Add([]byte{3, 207, 0, 0, 0, 1, 0, 0, 0, 0, 2, 3, 9, 3, 2, 0, 4, 24, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Add([]byte{0, 9, 3, 1, 0, 8, 1, 1, 1, 1, 1, 1, 1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		in := exercise.NewInput(data)
		shape := in.Shape(4)
		vt := in.ValueType()
		a := fuzzTensor(mem, in, shape, vt)
		if a == nil {
			return
		}
		defer a.Release()
		b := fuzzTensor(mem, in, shape, vt)
		// Small: every shape a reduction can give is small. A dimension of
		// length 0 counts as 1, since reducing over it leaves the others
		// (a 0 × 48 × 2^60 operand has no elements, but its sum over the
		// first axis has 48 · 2^60).
		small := true
		cover := make([]int64, len(shape))
		for k, d := range shape {
			cover[k] = max(d, 1)
		}
		if n, err := arrowsparse.NumElements(cover); err != nil || n > 1<<12 {
			small = false
		}
		check := func(what string, r arrowsparse.Tensor, err error) {
			if err != nil {
				if !errors.Is(err, arrow.ErrInvalid) && !errors.Is(err, arrow.ErrIndex) && !errors.Is(err, arrow.ErrType) {
					t.Fatalf("%s: error outside Arrow's categories: %v", what, err)
				}
				return
			}
			if small {
				d, err := r.ToDense(mem)
				if err != nil {
					t.Fatalf("%s: ToDense: %v", what, err)
				}
				d.Release()
			}
			r.Release()
		}
		// CSR, CSC and GCS results have index pointers as long as their
		// first (CSC: second) axis, whatever the operands hold: like dense
		// results, they are bounded by the machine's memory, one buffer at
		// a time, and asked for only where the shape keeps them small (an
		// Add to GCS over a first axis of 8·10^8 took three 6.4 GB index
		// pointer arrays, each under the limit, and the kernel's OOM
		// killer ended the fuzzer).
		fewLanes := func(k int) bool { return len(shape) <= k || shape[k] <= 1<<16 }
		formats := []compute.Format{compute.Auto, compute.COO, compute.CSF}
		if fewLanes(0) {
			formats = append(formats, compute.GCS, compute.CSR)
		}
		if fewLanes(1) {
			formats = append(formats, compute.CSC)
		}
		if small {
			formats = append(formats, compute.Dense)
		}
		fm := formats[int(in.Byte())%len(formats)]
		if b != nil {
			defer b.Release()
			for _, op := range binaryOps {
				r, err := op.f(mem, a, b, compute.Options{Format: fm, Workers: 2})
				check(op.name, r, err)
			}
		}
		r, err := compute.Negate(mem, a, compute.Options{Format: fm})
		check("negate", r, err)
		r, err = compute.AsType(mem, a, arrow.PrimitiveTypes.Int16, compute.CastOptions{AllowIntOverflow: in.Byte()%2 == 0, AllowFloatTruncate: in.Byte()%2 == 0})
		check("astype", r, err)
		var axes []int
		if m := in.Byte(); m != 0 {
			axes = []int{}
			for k := range shape {
				if m&(1<<k) != 0 {
					axes = append(axes, k)
				}
			}
		}
		rfm := compute.Auto
		if in.Byte()%2 == 0 {
			rfm = compute.COO
		}
		for _, rd := range reductions {
			if !small && (rd.name == "prod" || rd.name == "mean") {
				// Over an axis of length 0 these fill the whole result
				// with 1 or NaN: a dense result as large as the shape
				// says, which the machine's memory bounds, not the input.
				continue
			}
			r, err := rd.f(mem, a, axes, compute.ReduceOptions{Format: rfm, KeepDims: in.Byte()%2 == 0, Workers: 2})
			check(rd.name, r, err)
		}
	})
}
