// Command gocompute makes the Go side of the compute checks of the live
// interop suite (interop/run.sh, check 5): reductions checked against
// NumPy and sparse products against scipy, by interop/compute_check.py.
//
//	gocompute write SEED DIR [WORKLOADS]
//
// write draws random tensors of ranks 0 to 4 (zero-size dimensions, empty
// tensors, duplicates and explicit zeros included) of every value type,
// each stored in one of the formats (COO, CSR, CSC, GCS, CSF, dense), and
// reduces each with every reduction over every set of axes and over all of
// them; and it draws random matrix pairs in every pair of compressed axes
// and multiplies them with gcs.MulMatrix. When WORKLOADS holds small
// versions of the bench workloads (a_powerlaw2d, b_tensor3d, written by
// the bench generator), it also multiplies a·a and a·aᵀ and reduces b
// over every set of axes.
//
// DIR gets raw little-endian arrays (NAME.bin) and one JSON manifest line
// per check in DIR/cases.jsonl: for a reduction, the operand's elements
// (row-major), the mask of its stored elements (for Count), the kind, the
// axes and the result's elements (or "error"); for a product, both
// operands' and the result's entries as coordinate triplets. The random
// choices depend only on SEED.
package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/compute"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/views"
)

func main() {
	if (len(os.Args) != 4 && len(os.Args) != 5) || os.Args[1] != "write" {
		fmt.Fprintln(os.Stderr, "usage: gocompute write SEED DIR [WORKLOADS]")
		os.Exit(2)
	}
	seed, err := strconv.ParseUint(os.Args[2], 10, 64)
	if err == nil {
		w := ""
		if len(os.Args) == 5 {
			w = os.Args[4]
		}
		err = write(seed, os.Args[3], w)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gocompute:", err)
		os.Exit(1)
	}
}

// writer holds the output directory and the manifest.
type writer struct {
	dir   string
	cases *json.Encoder
	n     int
	files int
	mem   *memory.CheckedAllocator
}

// file returns a new file name in the output directory.
func (w *writer) file() string {
	w.files++
	return fmt.Sprintf("a%06d.bin", w.files)
}

// array is how the manifest names a raw array file.
type array struct {
	File  string  `json:"file"`
	Dtype string  `json:"dtype"` // NumPy's name: int8 … float64, bool
	Shape []int64 `json:"shape"`
}

// reduceCase is one reduction check.
type reduceCase struct {
	Check  string `json:"check"` // "reduce"
	Name   string `json:"name"`
	Kind   string `json:"kind"` // sum prod min max count mean
	Axes   []int  `json:"axes"` // null: all
	Format string `json:"format"`
	X      array  `json:"x"`
	Stored array  `json:"stored"`
	Result *array `json:"result"` // nil when Go returned an error
	Error  string `json:"error,omitempty"`
}

// triplets are the entries of a matrix: rows, columns, values.
type triplets struct {
	Shape []int64 `json:"shape"`
	Rows  array   `json:"rows"`
	Cols  array   `json:"cols"`
	Vals  array   `json:"vals"`
}

// productCase is one SpGEMM check.
type productCase struct {
	Check string   `json:"check"` // "spgemm"
	Name  string   `json:"name"`
	A     triplets `json:"a"`
	B     triplets `json:"b"`
	C     triplets `json:"c"`
}

func write(seed uint64, dir, workloads string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "cases.jsonl"))
	if err != nil {
		return err
	}
	defer f.Close()
	w := &writer{dir: dir, cases: json.NewEncoder(f), mem: memory.NewCheckedAllocator(memory.NewGoAllocator())}
	r := rand.New(rand.NewPCG(seed, 0xc0ffee))
	if err := w.reductions(r); err != nil {
		return err
	}
	if err := w.products(r); err != nil {
		return err
	}
	if workloads != "" {
		if err := w.workloads(workloads); err != nil {
			return err
		}
	}
	if n := w.mem.CurrentAlloc(); n != 0 {
		return fmt.Errorf("leaked %d bytes", n)
	}
	fmt.Printf("gocompute: %d cases in %s\n", w.n, dir)
	return nil
}

var valueTypes = []arrow.DataType{
	arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
	arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64,
	arrow.FixedWidthTypes.Float16, arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64,
}

func dtypeName(dt arrow.DataType) string {
	switch dt.ID() {
	case arrow.FLOAT16:
		return "float16"
	case arrow.FLOAT32:
		return "float32"
	case arrow.FLOAT64:
		return "float64"
	}
	return dt.String() // int8 … uint64
}

// reductions writes the reduction checks.
func (w *writer) reductions(r *rand.Rand) error {
	kinds := []struct {
		name string
		f    func(memory.Allocator, arrowsparse.Tensor, []int, compute.ReduceOptions) (arrowsparse.Tensor, error)
	}{
		{"sum", compute.Sum}, {"prod", compute.Prod}, {"min", compute.Min},
		{"max", compute.Max}, {"count", compute.Count}, {"mean", compute.Mean},
	}
	formats := []compute.Format{compute.Auto, compute.Dense, compute.COO, compute.GCS}
	t := 0
	for _, dt := range valueTypes {
		for nd := 0; nd <= 4; nd++ {
			for range 3 {
				shape := make([]int64, nd)
				for k := range shape {
					shape[k] = 1 + r.Int64N(4)
					if r.IntN(10) == 0 {
						shape[k] = 0
					}
				}
				x, err := w.randomTensor(r, shape, dt)
				if err != nil {
					return err
				}
				name := fmt.Sprintf("t%d", t)
				t++
				xa, sa, err := w.dense(name, x)
				if err != nil {
					x.Release()
					return err
				}
				for _, axes := range subsets(nd) {
					for _, k := range kinds {
						o := compute.ReduceOptions{Format: formats[r.IntN(len(formats))]}
						c := reduceCase{Check: "reduce", Name: fmt.Sprintf("%s/%s/%s/%v/%s", name, x.Format(), k.name, axes, o.Format), Kind: k.name, Axes: axes, Format: o.Format.String(), X: xa, Stored: sa}
						res, err := k.f(w.mem, x, axes, o)
						if err != nil {
							c.Error = err.Error()
						} else {
							a, err := w.values(fmt.Sprintf("%s-r%d", name, w.n), res)
							res.Release()
							if err != nil {
								x.Release()
								return err
							}
							c.Result = &a
						}
						if err := w.emit(c); err != nil {
							x.Release()
							return err
						}
					}
				}
				x.Release()
			}
		}
	}
	return nil
}

func (w *writer) emit(c any) error {
	w.n++
	return w.cases.Encode(c)
}

// subsets returns nil (every axis) and every subset of 0..nd-1.
func subsets(nd int) [][]int {
	out := [][]int{nil}
	for m := range 1 << nd {
		s := []int{}
		for k := range nd {
			if m&(1<<k) != 0 {
				s = append(s, k)
			}
		}
		out = append(out, s)
	}
	return out
}

// randomTensor returns a random tensor of the shape and value type, with
// duplicates and explicit zeros, in a random format that can hold it.
// Floating-point values are ±1/2, ±1 or ±3/2, so that sums are exact in
// any order and products stay in range; integers come from their whole
// range, so that sums and products wrap.
func (w *writer) randomTensor(r *rand.Rand, shape []int64, dt arrow.DataType) (arrowsparse.Tensor, error) {
	nd := len(shape)
	n := r.IntN(14)
	for _, d := range shape {
		if d == 0 {
			n = 0
		}
	}
	coords := make([]int64, 0, n*nd)
	vw := arrowsparse.ByteWidth(dt)
	vals := make([]byte, n*vw)
	for i := range n {
		if i > 0 && r.IntN(4) == 0 {
			j := r.IntN(i)
			coords = append(coords, coords[j*nd:(j+1)*nd]...)
		} else {
			for _, d := range shape {
				coords = append(coords, r.Int64N(d))
			}
		}
		putRandom(vals[i*vw:(i+1)*vw], dt, r)
	}
	cb := memory.NewResizableBuffer(w.mem)
	defer cb.Release()
	cb.Resize(len(coords) * 8)
	for i, c := range coords {
		binary.LittleEndian.PutUint64(cb.Bytes()[8*i:], uint64(c))
	}
	vb := memory.NewResizableBuffer(w.mem)
	defer vb.Release()
	vb.Resize(len(vals))
	copy(vb.Bytes(), vals)
	c, err := coo.New(dt, arrow.PrimitiveTypes.Int64, shape, cb, coo.RowMajor, vb, int64(n))
	if err != nil {
		return nil, err
	}
	choices := []string{"coo", "gcs", "dense"}
	if nd == 2 {
		choices = append(choices, "csr", "csc")
	}
	if nd >= 2 {
		choices = append(choices, "csf")
	}
	switch choices[r.IntN(len(choices))] {
	case "gcs":
		defer c.Release()
		return gcs.FromCOO(w.mem, c, gcs.ConvertOptions{})
	case "dense":
		defer c.Release()
		d, err := c.ToDense(w.mem)
		if err != nil {
			return nil, err
		}
		defer d.Release()
		return views.Of(d)
	case "csr":
		defer c.Release()
		return gcs.MatrixFromCOO(w.mem, c, gcs.Rows, gcs.ConvertOptions{})
	case "csc":
		defer c.Release()
		return gcs.MatrixFromCOO(w.mem, c, gcs.Cols, gcs.ConvertOptions{})
	case "csf":
		defer c.Release()
		return csf.FromCOO(w.mem, c, csf.ConvertOptions{})
	}
	return c, nil
}

func putRandom(b []byte, dt arrow.DataType, r *rand.Rand) {
	if r.IntN(8) == 0 {
		clear(b)
		return
	}
	f := float64(r.IntN(3)+1) / 2
	if r.IntN(2) == 0 {
		f = -f
	}
	switch dt.ID() {
	case arrow.FLOAT16:
		binary.LittleEndian.PutUint16(b, arrowsparse.Float32ToHalf(float32(f)).Uint16())
	case arrow.FLOAT32:
		binary.LittleEndian.PutUint32(b, math.Float32bits(float32(f)))
	case arrow.FLOAT64:
		binary.LittleEndian.PutUint64(b, math.Float64bits(f))
	default:
		v := r.Uint64()
		if r.IntN(2) == 0 {
			v = uint64(r.IntN(9) - 4)
		}
		for i := range b {
			b[i] = byte(v >> (8 * i))
		}
	}
}

// dense writes x's elements and the mask of its stored ones.
func (w *writer) dense(name string, x arrowsparse.Tensor) (array, array, error) {
	xa, err := w.values(name, x)
	if err != nil {
		return array{}, array{}, err
	}
	n, err := arrowsparse.NumElements(x.Shape())
	if err != nil {
		return array{}, array{}, err
	}
	mask := make([]byte, n)
	if s, ok := x.(arrowsparse.Sparse); ok {
		cs := s.AppendCoords(nil)
		shape := x.Shape()
		nd := len(shape)
		for i := range int(x.NNZ()) {
			q := int64(0)
			for k := range nd {
				q = q*shape[k] + cs[i*nd+k]
			}
			mask[q] = 1
		}
	} else {
		for i := range mask {
			mask[i] = 1
		}
	}
	sa := array{File: w.file(), Dtype: "bool", Shape: x.Shape()}
	return xa, sa, os.WriteFile(filepath.Join(w.dir, sa.File), mask, 0o644)
}

// values writes the elements of x, row-major, in its value type.
func (w *writer) values(name string, x arrowsparse.Tensor) (array, error) {
	d, err := x.ToDense(w.mem)
	if err != nil {
		return array{}, err
	}
	defer d.Release()
	v, err := views.Of(d)
	if err != nil {
		return array{}, err
	}
	defer v.Release()
	c, err := v.Copy(w.mem, views.CopyOptions{})
	if err != nil {
		return array{}, err
	}
	defer c.Release()
	wd := int64(arrowsparse.ByteWidth(c.DataType()))
	var b []byte
	if buf := c.Buffer(); buf != nil {
		b = buf.Bytes()[c.ElemOffset()*wd : (c.ElemOffset()+c.NNZ())*wd]
	}
	a := array{File: w.file(), Dtype: dtypeName(x.DataType()), Shape: x.Shape()}
	return a, os.WriteFile(filepath.Join(w.dir, a.File), b, 0o644)
}

// triplets writes the entries of a matrix, in storage order.
func (w *writer) triplets(name string, m *gcs.Matrix) (triplets, error) {
	cs := m.AppendCoords(nil)
	n := m.NNZ()
	rows, cols := make([]byte, 8*n), make([]byte, 8*n)
	for i := range n {
		binary.LittleEndian.PutUint64(rows[8*i:], uint64(cs[2*i]))
		binary.LittleEndian.PutUint64(cols[8*i:], uint64(cs[2*i+1]))
	}
	t := triplets{
		Shape: m.Shape(),
		Rows:  array{File: w.file(), Dtype: "int64", Shape: []int64{n}},
		Cols:  array{File: w.file(), Dtype: "int64", Shape: []int64{n}},
		Vals:  array{File: w.file(), Dtype: dtypeName(m.DataType()), Shape: []int64{n}},
	}
	for _, f := range []struct {
		a array
		b []byte
	}{{t.Rows, rows}, {t.Cols, cols}, {t.Vals, m.ValueBytes()}} {
		if err := os.WriteFile(filepath.Join(w.dir, f.a.File), f.b, 0o644); err != nil {
			return t, err
		}
	}
	return t, nil
}

// product multiplies a and b and writes the check.
func (w *writer) product(name string, a, b *gcs.Matrix) error {
	c, err := gcs.MulMatrix(w.mem, a, b, gcs.KernelOptions{})
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer c.Release()
	if !c.IsCanonical() {
		return fmt.Errorf("%s: the product is not canonical", name)
	}
	pc := productCase{Check: "spgemm", Name: name}
	if pc.A, err = w.triplets(name+"-a", a); err != nil {
		return err
	}
	if pc.B, err = w.triplets(name+"-b", b); err != nil {
		return err
	}
	if pc.C, err = w.triplets(name+"-c", c); err != nil {
		return err
	}
	return w.emit(pc)
}

// products writes the SpGEMM checks on random matrices.
func (w *writer) products(r *rand.Rand) error {
	vts := []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64}
	i := 0
	for _, vt := range vts {
		for range 6 {
			n, k, m := r.Int64N(40), r.Int64N(40), r.Int64N(40)
			for _, axes := range [][2]gcs.Axis{{gcs.Rows, gcs.Rows}, {gcs.Rows, gcs.Cols}, {gcs.Cols, gcs.Rows}, {gcs.Cols, gcs.Cols}} {
				a, err := w.randomMatrix(r, n, k, vt, axes[0])
				if err != nil {
					return err
				}
				b, err := w.randomMatrix(r, k, m, vt, axes[1])
				if err != nil {
					a.Release()
					return err
				}
				err = w.product(fmt.Sprintf("p%d/%s/%v", i, vt, axes), a, b)
				a.Release()
				b.Release()
				if err != nil {
					return err
				}
				i++
			}
		}
	}
	return nil
}

// randomMatrix returns a random matrix with duplicates and explicit zeros;
// integers stay small, so that products and sums fit (scipy's C++ kernels
// leave signed overflow undefined).
func (w *writer) randomMatrix(r *rand.Rand, rows, cols int64, vt arrow.DataType, axis gcs.Axis) (*gcs.Matrix, error) {
	n := 0
	if rows > 0 && cols > 0 {
		n = r.IntN(int(rows*cols/2) + 2)
	}
	coords := make([]int64, 0, 2*n)
	vw := arrowsparse.ByteWidth(vt)
	vals := make([]byte, n*vw)
	for i := range n {
		coords = append(coords, r.Int64N(rows), r.Int64N(cols))
		v := float64(r.IntN(9) - 4)
		if vt.ID() == arrow.FLOAT32 || vt.ID() == arrow.FLOAT64 {
			v += float64(r.IntN(4)) / 4
		}
		switch vt.ID() {
		case arrow.INT32:
			binary.LittleEndian.PutUint32(vals[i*vw:], uint32(int32(v)))
		case arrow.INT64:
			binary.LittleEndian.PutUint64(vals[i*vw:], uint64(int64(v)))
		case arrow.FLOAT32:
			binary.LittleEndian.PutUint32(vals[i*vw:], math.Float32bits(float32(v)))
		default:
			binary.LittleEndian.PutUint64(vals[i*vw:], math.Float64bits(v))
		}
	}
	cb := memory.NewResizableBuffer(w.mem)
	defer cb.Release()
	cb.Resize(len(coords) * 8)
	for i, c := range coords {
		binary.LittleEndian.PutUint64(cb.Bytes()[8*i:], uint64(c))
	}
	vb := memory.NewResizableBuffer(w.mem)
	defer vb.Release()
	vb.Resize(len(vals))
	copy(vb.Bytes(), vals)
	c, err := coo.New(vt, arrow.PrimitiveTypes.Int64, []int64{rows, cols}, cb, coo.RowMajor, vb, int64(n))
	if err != nil {
		return nil, err
	}
	defer c.Release()
	if r.IntN(2) == 0 {
		// Keep the duplicates: a physical transpose of a CSR built in entry
		// order sorts the lanes but does not combine them.
		m, err := gcs.MatrixFromCOO(w.mem, c, axis.Other(), gcs.ConvertOptions{Duplicates: arrowsparse.KeepFirst})
		if err != nil {
			return nil, err
		}
		defer m.Release()
		if axis == gcs.Rows {
			return m.ToCSR(w.mem, gcs.ConvertOptions{})
		}
		return m.ToCSC(w.mem, gcs.ConvertOptions{})
	}
	return gcs.MatrixFromCOO(w.mem, c, axis, gcs.ConvertOptions{})
}

// workloads multiplies and reduces the small bench workloads in dir.
func (w *writer) workloads(dir string) error {
	a, err := loadCOO(w.mem, filepath.Join(dir, "a_powerlaw2d"))
	if err != nil {
		return err
	}
	defer a.Release()
	m, err := gcs.MatrixFromCOO(w.mem, a, gcs.Rows, gcs.ConvertOptions{IndexType: arrow.PrimitiveTypes.Int32, IndptrType: arrow.PrimitiveTypes.Int32})
	if err != nil {
		return err
	}
	defer m.Release()
	if err := w.product("workload-a/a·a", m, m); err != nil {
		return err
	}
	mt := m.T()
	defer mt.Release()
	if err := w.product("workload-a/a·aT", m, mt); err != nil {
		return err
	}
	b, err := loadCOO(w.mem, filepath.Join(dir, "b_tensor3d"))
	if err != nil {
		return err
	}
	defer b.Release()
	xa, sa, err := w.dense("workload-b", b)
	if err != nil {
		return err
	}
	for _, axes := range subsets(3) {
		res, err := compute.Sum(w.mem, b, axes, compute.ReduceOptions{Format: compute.COO})
		if err != nil {
			return err
		}
		a, err := w.values(fmt.Sprintf("workload-b-sum-%d", w.n), res)
		res.Release()
		if err != nil {
			return err
		}
		if err := w.emit(reduceCase{Check: "reduce", Name: fmt.Sprintf("workload-b/sum/%v", axes), Kind: "sum", Axes: axes, Format: "COO", X: xa, Stored: sa, Result: &a}); err != nil {
			return err
		}
	}
	return nil
}

// loadCOO reads a bench workload (header.json, int64 mode-major
// coordinates, float64 values) into a COO tensor.
func loadCOO(mem memory.Allocator, dir string) (*coo.Tensor, error) {
	var h struct {
		Shape      []int64 `json:"shape"`
		Nnz        int64   `json:"nnz"`
		CoordsFile string  `json:"coords_file"`
		ValuesFile string  `json:"values_file"`
	}
	hb, err := os.ReadFile(filepath.Join(dir, "header.json"))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(hb, &h); err != nil {
		return nil, err
	}
	cs, err := os.ReadFile(filepath.Join(dir, h.CoordsFile))
	if err != nil {
		return nil, err
	}
	vs, err := os.ReadFile(filepath.Join(dir, h.ValuesFile))
	if err != nil {
		return nil, err
	}
	cb := memory.NewResizableBuffer(mem)
	defer cb.Release()
	cb.Resize(len(cs))
	copy(cb.Bytes(), cs)
	vb := memory.NewResizableBuffer(mem)
	defer vb.Release()
	vb.Resize(len(vs))
	copy(vb.Bytes(), vs)
	return coo.New(arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Int64, h.Shape, cb, coo.ColMajor, vb, h.Nnz)
}
