// Package exercise runs, on a tensor that a constructor or reader accepted,
// the operations a user would run next: every conversion between formats,
// ToDense, All, At, the DM views, the kernels and a write-back through IPC.
// The fuzz targets of the formats and of ipc call it, so that they fuzz the
// whole path and not only the decoder: an accepted tensor must never make
// a later operation panic, and no operation may allocate beyond a bound
// tied to the input.
//
// Operations whose output would exceed the budget (a dense copy of a huge
// shape, the index pointers of a hypersparse CSR) are skipped: producing
// that much output is what the caller asked for, not a fault. Every
// operation that runs is measured, and its allocation must stay within
// Bound(input, output).
package exercise

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/ipc"
	"github.com/arrowsparse/arrowsparse/views"
)

// Bound is the most an operation may allocate, in bytes, on an input of
// in bytes that produces an output of out bytes: 64× the input plus 8× the
// output plus 4 MiB of fixed overhead (goroutines, staging chunks, radix
// buckets).
func Bound(in, out int64) int64 { return 64*in + 8*out + 4<<20 }

// Runner runs the operations on tensors of one input.
type Runner struct {
	tb     testing.TB
	mem    memory.Allocator
	in     int64 // bytes of the input
	budget int64 // largest output an operation may produce
	ms     runtime.MemStats
}

// New returns a Runner for an input of in bytes, allowing outputs of up to
// 64× the input plus 1 MiB.
func New(tb testing.TB, mem memory.Allocator, in int64) *Runner {
	return &Runner{tb: tb, mem: mem, in: in, budget: 64*in + 1<<20}
}

// Run exercises x. It fails the test on a panic (which the fuzzer reports
// with its input), on an error that wraps none of Arrow's categories, and
// on an allocation beyond Bound.
func (r *Runner) Run(x arrowsparse.Tensor) {
	r.tb.Helper()
	switch t := x.(type) {
	case *coo.Tensor:
		r.coo(t)
	case *gcs.Matrix:
		r.matrix(t)
	case *gcs.Tensor:
		r.gcsTensor(t)
	case *csf.Tensor:
		r.csf(t)
	case *views.View:
		r.view(t)
	default:
		r.tb.Fatalf("exercise: unexpected tensor %T", x)
	}
	r.dense(x)
	r.writeBack(x)
	if s, ok := x.(arrowsparse.Sparse); ok {
		r.op("AppendValues", 16*x.NNZ(), func() error {
			s.AppendCoords(nil)
			_, err := arrowsparse.AppendValues[float64](nil, s)
			return err
		})
	}
}

// op runs f, which is expected to produce about out bytes, and checks its
// error and its allocation.
func (r *Runner) op(name string, out int64, f func() error) {
	r.tb.Helper()
	if out > r.budget || out < 0 {
		return
	}
	runtime.ReadMemStats(&r.ms)
	before := r.ms.TotalAlloc
	err := f()
	runtime.ReadMemStats(&r.ms)
	used := int64(r.ms.TotalAlloc - before)
	if err != nil && !errors.Is(err, arrow.ErrInvalid) && !errors.Is(err, arrow.ErrIndex) && !errors.Is(err, arrow.ErrType) {
		r.tb.Fatalf("%s: error wraps no Arrow category: %v", name, err)
	}
	if lim := Bound(r.in, out); used > lim {
		r.tb.Fatalf("%s: allocated %d bytes, more than the bound %d (input %d bytes, output %d)", name, used, lim, r.in, out)
	}
}

// release releases t if it is not nil (nor a nil pointer in an interface).
func release(t interface{ Release() }) {
	if t == nil {
		return
	}
	if v := reflect.ValueOf(t); v.Kind() == reflect.Pointer && v.IsNil() {
		return
	}
	t.Release()
}

// elems returns the number of elements of a shape, or -1 if it overflows.
func elems(shape []int64) int64 {
	n, err := arrowsparse.NumElements(shape)
	if err != nil {
		return -1
	}
	return n
}

// sum returns a+b, or -1 if either is negative (unknown) or it overflows.
func sum(a, b int64) int64 {
	if a < 0 || b < 0 || a > math.MaxInt64-b {
		return -1
	}
	return a + b
}

// mul returns a·b, or -1 if it overflows or either is negative.
func mul(a, b int64) int64 {
	if a < 0 || b < 0 {
		return -1
	}
	if a != 0 && b > (1<<62)/a {
		return -1
	}
	return a * b
}

func width(x arrowsparse.Tensor) int64 { return int64(arrowsparse.ByteWidth(x.DataType())) }

// dense runs ToDense when the dense result fits the budget.
func (r *Runner) dense(x arrowsparse.Tensor) {
	r.op("ToDense", mul(elems(x.Shape()), width(x)), func() error {
		d, err := x.ToDense(r.mem)
		release(d)
		return err
	})
}

// writeBack writes x as an IPC message and reads it again.
func (r *Runner) writeBack(x arrowsparse.Tensor) {
	r.op("WriteTensor", sum(2*r.in, mul(x.NNZ(), 8*int64(x.NumDims()+2))), func() error {
		var b bytes.Buffer
		if _, err := ipc.WriteTensor(&b, x, ipc.WithAllocator(r.mem)); err != nil {
			return err
		}
		m, err := ipc.ParseMessage(b.Bytes(), ipc.WithAllocator(r.mem))
		if err != nil {
			r.tb.Fatalf("a written tensor does not read back: %v", err)
		}
		m.Release()
		return nil
	})
}

// entries is the output size of a sparse result of x's entries.
func entries(x arrowsparse.Tensor) int64 {
	return mul(x.NNZ(), 8*int64(x.NumDims())+8)
}

func (r *Runner) coo(t *coo.Tensor) {
	nd := t.NumDims()
	shape := t.Shape()
	r.op("Validate", 0, t.Validate)
	if t.DataType().ID() == arrow.FLOAT64 {
		r.op("All", 8*int64(nd), func() error {
			for range coo.All[float64](t) {
			}
			return nil
		})
	}
	r.op("At", 8*int64(nd), func() error {
		if t.NNZ() == 0 || t.DataType().ID() != arrow.FLOAT64 {
			return nil
		}
		idx := make([]int64, nd)
		for k := range nd {
			idx[k] = t.Coord(0, k)
		}
		_ = coo.At[float64](t, idx...)
		return nil
	})
	for _, p := range []arrowsparse.Duplicates{arrowsparse.SumDuplicates, arrowsparse.KeepLast} {
		r.op("Canonicalize", entries(t), func() error {
			c, err := t.Canonicalize(r.mem, coo.ConvertOptions{Duplicates: p})
			release(c)
			return err
		})
	}
	r.op("WithLayout", entries(t), func() error {
		c, err := t.WithLayout(r.mem, 1-t.Layout())
		release(c)
		return err
	})
	r.op("WithIndexType", entries(t), func() error {
		c, err := t.WithIndexType(r.mem, arrow.PrimitiveTypes.Int64)
		release(c)
		return err
	})
	r.op("Permute", entries(t), func() error {
		perm := make([]int, nd)
		for k := range perm {
			perm[k] = nd - 1 - k
		}
		c, err := t.Permute(r.mem, perm...)
		release(c)
		return err
	})
	r.op("Record", mul(2, entries(t)), func() error {
		rec, err := t.ToRecord(r.mem)
		if err != nil {
			return err
		}
		defer rec.Release()
		back, err := coo.FromRecord(r.mem, rec, coo.RecordOptions{})
		if err != nil {
			r.tb.Fatalf("a COO tensor's record does not read back: %v", err)
		}
		back.Release()
		return nil
	})
	if nd >= 2 {
		r.op("csf.FromCOO", mul(3, entries(t)), func() error {
			c, err := csf.FromCOO(r.mem, t, csf.ConvertOptions{})
			if err == nil {
				r.csf(c)
			}
			release(c)
			return err
		})
	}
	if nd == 2 {
		for _, ax := range []gcs.Axis{gcs.Rows, gcs.Cols} {
			r.op("gcs.MatrixFromCOO", sum(mul(2, entries(t)), mul(shape[ax]+1, 8)), func() error {
				m, err := gcs.MatrixFromCOO(r.mem, t, ax, gcs.ConvertOptions{})
				release(m)
				return err
			})
		}
	}
	if nd >= 1 {
		r.op("gcs.FromCOO", sum(mul(2, entries(t)), mul(shape[0]+1, 8)), func() error {
			g, err := gcs.FromCOO(r.mem, t, gcs.ConvertOptions{})
			if err == nil {
				r.gcsTensor(g)
			}
			release(g)
			return err
		})
	}
}

func (r *Runner) matrix(m *gcs.Matrix) {
	r.op("Validate", 0, m.Validate)
	if m.DataType().ID() == arrow.FLOAT64 {
		r.op("All", 32, func() error {
			for range gcs.All[float64](m) {
			}
			return nil
		})
	}
	r.op("ToCOO", entries(m), func() error {
		c, err := m.ToCOO(r.mem, gcs.ConvertOptions{})
		release(c)
		return err
	})
	other := m.Cols()
	if m.Axis() == gcs.Cols {
		other = m.Rows()
	}
	r.op("transpose", sum(mul(2, entries(m)), mul(other+1, 8)), func() error {
		var c *gcs.Matrix
		var err error
		if m.Axis() == gcs.Rows {
			c, err = m.ToCSC(r.mem, gcs.ConvertOptions{})
		} else {
			c, err = m.ToCSR(r.mem, gcs.ConvertOptions{})
		}
		release(c)
		return err
	})
	r.op("WithIndexTypes", sum(mul(2, entries(m)), mul(m.Lanes()+1, 8)), func() error {
		c, err := m.WithIndexTypes(r.mem, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64)
		release(c)
		return err
	})
	r.op("DM", 64, func() error {
		g := gcs.FromMatrix(m)
		defer g.Release()
		d := g.DM()
		defer d.Release()
		r.dm(d)
		return nil
	})
	if m.DataType().ID() == arrow.FLOAT64 {
		r.op("MulVec", 8*(m.Rows()+m.Cols()), func() error {
			y := make([]float64, m.Rows())
			x := make([]float64, m.Cols())
			return gcs.MulVec(y, m, x, gcs.KernelOptions{})
		})
	}
}

func (r *Runner) dm(d *gcs.DM) {
	r.op("DM.ToDense", mul(elems(d.Shape()), width(d)), func() error {
		c, err := d.ToDense(r.mem)
		release(c)
		return err
	})
	r.op("DM.ToCOO", entries(d), func() error {
		c, err := d.ToCOO(r.mem, gcs.ConvertOptions{})
		release(c)
		return err
	})
	if d.NumDims() >= 1 {
		r.op("DM.Slice", 64, func() error {
			s, err := d.Slice(views.Range{Start: 0, Stop: views.None, Step: 2})
			if err != nil {
				return err
			}
			defer s.Release()
			if s.DataType().ID() == arrow.FLOAT64 {
				for range gcs.All[float64](s) {
				}
			}
			tr, err := s.Transpose()
			release(tr)
			return err
		})
	}
}

func (r *Runner) gcsTensor(g *gcs.Tensor) {
	r.op("Validate", 0, g.Validate)
	r.op("ToCOO", entries(g), func() error {
		c, err := g.ToCOO(r.mem, gcs.ConvertOptions{})
		release(c)
		return err
	})
	r.op("DM", 64, func() error {
		d := g.DM()
		defer d.Release()
		r.dm(d)
		return nil
	})
	r.op("Remap swapped", 64, func() error {
		s, err := g.Remap(r.mem, g.Mapping().Swapped(), gcs.ConvertOptions{})
		release(s)
		return err
	})
	r.matrix(g.Storage())
}

func (r *Runner) csf(t *csf.Tensor) {
	nd := t.NumDims()
	shape := t.Shape()
	r.op("Validate", 0, t.Validate)
	r.op("ToCOO", entries(t), func() error {
		c, err := t.ToCOO(r.mem, csf.ConvertOptions{})
		release(c)
		return err
	})
	r.op("WithAxisOrder", mul(3, entries(t)), func() error {
		order := t.AxisOrder()
		for i, j := 0, len(order)-1; i < j; i, j = i+1, j-1 {
			order[i], order[j] = order[j], order[i]
		}
		c, err := t.WithAxisOrder(r.mem, order...)
		release(c)
		return err
	})
	r.op("WithIndexTypes", mul(2, entries(t)), func() error {
		c, err := t.WithIndexTypes(r.mem, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64)
		release(c)
		return err
	})
	r.op("All", 8*int64(nd), func() error {
		if t.DataType().ID() != arrow.FLOAT64 {
			return nil
		}
		for idx := range csf.All[float64](t) {
			_ = csf.At[float64](t, idx...)
			break
		}
		return nil
	})
	if t.DataType().ID() == arrow.FLOAT64 {
		mode := t.AxisOrder()[0]
		r.op("TTV", sum(mul(2, entries(t)), mul(shape[mode], 8)), func() error {
			v := make([]float64, shape[mode])
			y, err := csf.TTV(r.mem, t, mode, v, csf.KernelOptions{})
			release(y)
			return err
		})
		const rank = 2
		out := mul(shape[mode], 8*rank)
		for _, n := range shape {
			if f := mul(n, 8*rank); f < 0 || out < 0 {
				out = -1
			} else {
				out += f
			}
		}
		r.op("MTTKRP", out, func() error {
			factors := make([][]float64, nd)
			for k, n := range shape {
				factors[k] = make([]float64, n*rank)
			}
			dst := make([]float64, shape[mode]*rank)
			return csf.MTTKRP(dst, t, mode, factors, rank, csf.KernelOptions{})
		})
	}
}

func (r *Runner) view(v *views.View) {
	r.op("Copy", mul(v.Len(), width(v)), func() error {
		c, err := v.Copy(r.mem, views.CopyOptions{})
		release(c)
		return err
	})
	r.op("Elements", 0, func() error {
		if v.DataType().ID() != arrow.FLOAT64 {
			return nil
		}
		n := 0
		for range views.Elements[float64](v) {
			if n++; n > 1<<16 {
				break
			}
		}
		return nil
	})
	// The non-zeros of a view are at most its elements.
	out := mul(v.Len(), 8*int64(v.NumDims())+16)
	r.op("coo.FromDense", out, func() error {
		c, err := coo.FromDense(r.mem, v, coo.ConvertOptions{})
		release(c)
		return err
	})
	if v.NumDims() >= 2 {
		r.op("csf.FromDense", mul(3, out), func() error {
			c, err := csf.FromDense(r.mem, v, csf.ConvertOptions{})
			release(c)
			return err
		})
	}
	if v.NumDims() == 2 {
		r.op("gcs.MatrixFromDense", sum(out, mul(v.Shape()[0]+1, 16)), func() error {
			m, err := gcs.MatrixFromDense(r.mem, v, gcs.Rows, gcs.ConvertOptions{})
			release(m)
			return err
		})
	}
}

// String describes the runner, for test logs.
func (r *Runner) String() string {
	return fmt.Sprintf("exercise(input %d bytes, output budget %d)", r.in, r.budget)
}

// Input reads the parameters of a constructor from fuzz bytes: small
// integers, types, shapes and raw buffers. Reads past the end give zeros.
type Input struct{ b []byte }

// NewInput returns an Input over b.
func NewInput(b []byte) *Input { return &Input{b} }

// Byte returns the next byte.
func (in *Input) Byte() byte {
	if len(in.b) == 0 {
		return 0
	}
	c := in.b[0]
	in.b = in.b[1:]
	return c
}

// Int returns a non-negative integer from the next bytes: one byte below
// 200 is itself; otherwise the following 1–8 bytes, so that huge values
// (up to 2^63-1) occur.
func (in *Input) Int() int64 {
	c := in.Byte()
	if c < 200 {
		return int64(c)
	}
	n := int(c-200)%8 + 1
	var v uint64
	for range n {
		v = v<<8 | uint64(in.Byte())
	}
	return int64(v >> 1)
}

// Shape returns a shape of up to maxDims dimensions.
func (in *Input) Shape(maxDims int) []int64 {
	nd := int(in.Byte()) % (maxDims + 1)
	shape := make([]int64, nd)
	for k := range shape {
		shape[k] = in.Int()
	}
	return shape
}

var (
	valueTypes = []arrow.DataType{
		arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
		arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64,
		arrow.FixedWidthTypes.Float16, arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64,
		arrow.FixedWidthTypes.Boolean, // not a tensor type: constructors must refuse it
	}
	indexTypes = []arrow.DataType{
		arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
		arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32,
		arrow.PrimitiveTypes.Uint64, // not an index type: constructors must refuse it
	}
)

// ValueType returns a value type (rarely one that is not).
func (in *Input) ValueType() arrow.DataType { return valueTypes[int(in.Byte())%len(valueTypes)] }

// IndexType returns an index type (rarely one that is not).
func (in *Input) IndexType() arrow.DataType { return indexTypes[int(in.Byte())%len(indexTypes)] }

// Buffer returns a buffer from mem holding the next n bytes (fewer at the
// end of the input), n capped at the bytes left: its length is what the
// input really has. The caller releases it.
func (in *Input) Buffer(mem memory.Allocator) *memory.Buffer {
	n := min(int(in.Int()), len(in.b))
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(n)
	copy(buf.Bytes(), in.b[:n])
	in.b = in.b[n:]
	return buf
}

// Encoder writes what Input reads, to make seeds from real tensors.
type Encoder struct{ B []byte }

// Byte appends one byte.
func (e *Encoder) Byte(c byte) { e.B = append(e.B, c) }

// Int appends a non-negative integer as Input.Int reads it.
func (e *Encoder) Int(v int64) {
	if v >= 0 && v < 200 {
		e.B = append(e.B, byte(v))
		return
	}
	u := uint64(v) << 1
	e.B = append(e.B, 207) // eight bytes follow
	for s := 56; s >= 0; s -= 8 {
		e.B = append(e.B, byte(u>>s))
	}
}

// Shape appends a shape as Input.Shape reads it.
func (e *Encoder) Shape(shape []int64) {
	e.Byte(byte(len(shape)))
	for _, d := range shape {
		e.Int(d)
	}
}

// ValueType appends the code of a value type.
func (e *Encoder) ValueType(dt arrow.DataType) { e.Byte(byte(typeIndex(valueTypes, dt))) }

// IndexType appends the code of an index type.
func (e *Encoder) IndexType(dt arrow.DataType) { e.Byte(byte(typeIndex(indexTypes, dt))) }

// Buffer appends a buffer's bytes with their length.
func (e *Encoder) Buffer(b []byte) {
	e.Int(int64(len(b)))
	e.B = append(e.B, b...)
}

func typeIndex(list []arrow.DataType, dt arrow.DataType) int {
	for i, t := range list {
		if arrow.TypeEqual(t, dt) {
			return i
		}
	}
	return 0
}

// Corpus calls f with the tensor of every valid message of the interop
// corpus under dir (testdata/interop: golden and cpp-corpus), to seed the
// fuzz targets with real tensors.
func Corpus(tb testing.TB, dir string, f func(arrowsparse.Tensor)) {
	tb.Helper()
	for _, sub := range []string{"golden", "cpp-corpus"} {
		files, err := filepath.Glob(filepath.Join(dir, sub, "*.arrow"))
		if err != nil {
			tb.Fatal(err)
		}
		for _, p := range files {
			m, err := ipc.ReadFile(p)
			if err != nil {
				continue
			}
			f(m.Tensor)
			m.Release()
		}
	}
}
