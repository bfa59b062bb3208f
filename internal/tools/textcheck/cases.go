package textcheck

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/mtx"
	"github.com/arrowsparse/arrowsparse/tns"
	"github.com/arrowsparse/arrowsparse/views"
)

// ValueTypes are the value types the cases cover.
var ValueTypes = []arrow.DataType{
	arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Float32, arrow.FixedWidthTypes.Float16,
	arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
	arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32,
}

var indexTypes = []arrow.DataType{
	arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
	arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32,
}

// gen makes random content.
type gen struct {
	r   *rand.Rand
	mem memory.Allocator
}

// value returns a random value of dt as a float64 or int64 (in range).
func (g *gen) value(dt arrow.DataType, special bool) (float64, int64) {
	r := g.r
	switch dt.ID() {
	case arrow.FLOAT64, arrow.FLOAT32, arrow.FLOAT16:
		var f float64
		switch r.IntN(8) {
		case 0:
			f = math.Float64frombits(r.Uint64())
			if dt.ID() != arrow.FLOAT64 {
				f = float64(math.Float32frombits(r.Uint32()))
			}
		case 1:
			f = float64(r.IntN(2001) - 1000)
		default:
			f = r.Float64()*2 - 1
		}
		if special && r.IntN(6) == 0 {
			f = []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 5e-324, math.MaxFloat64, 1e-310}[r.IntN(7)]
		}
		if dt.ID() == arrow.FLOAT16 {
			f = float64(arrowsparse.HalfToFloat32(arrowsparse.Float32ToHalf(float32(f))))
		} else if dt.ID() == arrow.FLOAT32 {
			f = float64(float32(f))
		}
		if f == 0 && !special {
			f = 1
		}
		return f, 0
	}
	lo, hi := int64(math.MinInt8), int64(math.MaxInt8)
	switch dt.ID() {
	case arrow.INT16:
		lo, hi = math.MinInt16, math.MaxInt16
	case arrow.INT32:
		lo, hi = math.MinInt32, math.MaxInt32
	case arrow.INT64:
		lo, hi = -1<<61, 1<<61
	case arrow.UINT8:
		lo, hi = 0, math.MaxUint8
	case arrow.UINT16:
		lo, hi = 0, math.MaxUint16
	case arrow.UINT32:
		lo, hi = 0, math.MaxUint32
	}
	if r.IntN(2) == 0 {
		lo, hi = max(lo, -100), min(hi, 100)
	}
	x := lo + r.Int64N(hi-lo+1)
	if x == 0 && !special {
		x = 1
	}
	return 0, x
}

// put stores a value into a raw buffer of type dt.
func put(b []byte, dt arrow.DataType, i int64, f float64, x int64) {
	p := unsafe.Pointer(unsafe.SliceData(b))
	switch dt.ID() {
	case arrow.FLOAT64:
		*(*float64)(unsafe.Add(p, i*8)) = f
	case arrow.FLOAT32:
		*(*float32)(unsafe.Add(p, i*4)) = float32(f)
	case arrow.FLOAT16:
		*(*uint16)(unsafe.Add(p, i*2)) = arrowsparse.Float32ToHalf(float32(f)).Uint16()
	case arrow.INT8, arrow.UINT8:
		*(*uint8)(unsafe.Add(p, i)) = uint8(x)
	case arrow.INT16, arrow.UINT16:
		*(*uint16)(unsafe.Add(p, i*2)) = uint16(x)
	case arrow.INT32, arrow.UINT32:
		*(*uint32)(unsafe.Add(p, i*4)) = uint32(x)
	default:
		*(*uint64)(unsafe.Add(p, i*8)) = uint64(x)
	}
}

// entry is a generated entry.
type entry struct {
	c []int64
	f float64
	x int64
}

// cooOf builds a COO tensor from entries.
func (g *gen) cooOf(dt, it arrow.DataType, shape []int64, es []entry, layout coo.Layout) (*coo.Tensor, error) {
	n := int64(len(es))
	nd := int64(len(shape))
	cb := memory.NewResizableBuffer(g.mem)
	cb.Resize(int(n * nd * int64(arrowsparse.ByteWidth(it))))
	vb := memory.NewResizableBuffer(g.mem)
	vb.Resize(int(n * int64(arrowsparse.ByteWidth(dt))))
	defer cb.Release()
	defer vb.Release()
	for i, e := range es {
		for k, c := range e.c {
			pos := int64(i)*nd + int64(k)
			if layout == coo.ColMajor {
				pos = int64(k)*n + int64(i)
			}
			put(cb.Bytes(), it, pos, 0, c)
		}
		put(vb.Bytes(), dt, int64(i), e.f, e.x)
	}
	return coo.New(dt, it, shape, cb, layout, vb, n)
}

// negate returns the negated value of an entry.
func negate(e entry) entry { return entry{c: []int64{e.c[1], e.c[0]}, f: -e.f, x: -e.x} }

// matrix returns the entries of a random rows × cols matrix with the given
// symmetry (all of them, both triangles).
func (g *gen) matrix(dt arrow.DataType, rows, cols int64, sym mtx.Symmetry, dups bool) []entry {
	r := g.r
	var es []entry
	seen := map[[2]int64]bool{}
	n := int64(0)
	if rows*cols > 0 {
		n = r.Int64N(rows*cols) + 1
	}
	for range n {
		i, j := r.Int64N(rows), r.Int64N(cols)
		if sym != mtx.General && i < j {
			i, j = j, i
		}
		if sym == mtx.SkewSymmetric && i == j {
			continue
		}
		if seen[[2]int64{i, j}] && !dups {
			continue
		}
		seen[[2]int64{i, j}] = true
		f, x := g.value(dt, true)
		if sym == mtx.SkewSymmetric {
			// Values whose negation is what the other side computes.
			if f != f || math.IsInf(f, 0) {
				f = 1.5
			}
			x %= 100
		}
		e := entry{c: []int64{i, j}, f: f, x: x}
		es = append(es, e)
		if sym != mtx.General && i != j {
			m := entry{c: []int64{j, i}, f: f, x: x}
			if sym == mtx.SkewSymmetric {
				m = negate(e)
			}
			es = append(es, m)
		}
	}
	r.Shuffle(len(es), func(a, b int) { es[a], es[b] = es[b], es[a] })
	return es
}

// WriteCases writes files with this library, with sidecars describing
// their content, for a reference reader to check. It returns the number
// of files.
func WriteCases(dir string, seed uint64) (int, error) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	g := &gen{r: rand.New(rand.NewPCG(seed, 15)), mem: mem}
	n := 0
	write := func(name string, sc Sidecar, f func(path string) error) error {
		path := filepath.Join(dir, name)
		if err := f(path); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		n++
		return WriteSidecar(path, sc)
	}
	syms := []mtx.Symmetry{mtx.General, mtx.Symmetric, mtx.SkewSymmetric, mtx.Hermitian}
	for _, dt := range ValueTypes {
		dname := DTypeName(dt)
		for _, sym := range syms {
			if sym == mtx.SkewSymmetric && strings.HasPrefix(dname, "uint") {
				continue
			}
			for shapeClass := range 4 {
				rows, cols := int64(1+g.r.IntN(12)), int64(1+g.r.IntN(12))
				switch shapeClass {
				case 1:
					rows, cols = 0, 0
				case 2:
					rows, cols = 1, 1
				case 3:
					rows, cols = int64(50+g.r.IntN(100)), int64(50+g.r.IntN(100))
				}
				if sym != mtx.General {
					cols = rows
				}
				dups := sym == mtx.General && (dname == "float64" || dname == "int64")
				es := g.matrix(dt, rows, cols, sym, dups)
				it := indexTypes[g.r.IntN(len(indexTypes))]
				layout := coo.Layout(g.r.IntN(2))
				t, err := g.cooOf(dt, it, []int64{rows, cols}, es, layout)
				if err != nil {
					return n, err
				}
				ents := EntriesOf(t)
				base := fmt.Sprintf("go_coo_%s_%s_%d", dname, sym, shapeClass)
				readAs := map[string]string{"value_type": dname}
				sc := Sidecar{Kind: "coordinate", Shape: []int64{rows, cols}, DType: dname, Entries: ents, Read: readAs}
				ext := ".mtx"
				if shapeClass == 3 && g.r.IntN(2) == 0 {
					ext = ".mtx.gz"
				}
				err = write(base+ext, sc, func(p string) error {
					return mtx.WriteFile(p, t, mtx.WithSymmetry(sym), mtx.WithAllocator(mem), mtx.WithComments("written by arrowsparse", "case "+base))
				})
				if err == nil && dname == "float64" && sym != mtx.SkewSymmetric && shapeClass != 1 {
					ps := sc
					ps.Read = nil
					ps.Entries = make([][]string, len(ents))
					for i, e := range ents {
						ps.Entries[i] = []string{e[0], e[1], "1"}
					}
					err = write(base+"_pattern.mtx", ps, func(p string) error {
						return mtx.WriteFile(p, t, mtx.WithSymmetry(sym), mtx.WithPattern(), mtx.WithAllocator(mem))
					})
				}
				t.Release()
				if err != nil {
					return n, err
				}
				// The same matrix as a dense array.
				if dups {
					continue
				}
				d, err := g.dense(dt, rows, cols, es)
				if err != nil {
					return n, err
				}
				sc = Sidecar{Kind: "array", Shape: []int64{rows, cols}, DType: dname, Dense: DenseOf(d), Read: readAs}
				err = write(fmt.Sprintf("go_array_%s_%s_%d.mtx", dname, sym, shapeClass), sc, func(p string) error {
					return mtx.WriteFile(p, d, mtx.WithSymmetry(sym), mtx.WithAllocator(mem))
				})
				d.Release()
				if err != nil {
					return n, err
				}
			}
		}
	}
	// FROSTT tensors of ranks 1 to 5.
	for _, dt := range []arrow.DataType{arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32} {
		for rank := 1; rank <= 5; rank++ {
			shape := make([]int64, rank)
			for k := range shape {
				shape[k] = int64(1 + g.r.IntN(20))
			}
			nnz := g.r.IntN(200) + 1
			es := make([]entry, nnz)
			for i := range es {
				c := make([]int64, rank)
				for k := range c {
					c[k] = g.r.Int64N(shape[k])
				}
				f, x := g.value(dt, false)
				es[i] = entry{c: c, f: f, x: x}
			}
			// The largest corner, so that the inferred shape is the shape.
			last := make([]int64, rank)
			for k := range last {
				last[k] = shape[k] - 1
			}
			es[0].c = last
			t, err := g.cooOf(dt, indexTypes[g.r.IntN(len(indexTypes))], shape, es, coo.Layout(g.r.IntN(2)))
			if err != nil {
				return n, err
			}
			ents := EntriesOf(t)
			{
				sc := Sidecar{Kind: "tns", Shape: shape, DType: DTypeName(dt), Entries: ents, Read: map[string]string{"value_type": DTypeName(dt)}}
				err = write(fmt.Sprintf("go_tns_%s_rank%d.tns", DTypeName(dt), rank), sc, func(p string) error {
					return tns.WriteFile(p, t, tns.WithComments("written by arrowsparse"), tns.WithAllocator(mem))
				})
			}
			t.Release()
			if err != nil {
				return n, err
			}
		}
	}
	if cur := mem.CurrentAlloc(); cur != 0 {
		return n, fmt.Errorf("textcheck: leaked %d bytes", cur)
	}
	return n, nil
}

// dense returns the entries as a dense matrix in a random memory order:
// row-major, column-major or a transposed view.
func (g *gen) dense(dt arrow.DataType, rows, cols int64, es []entry) (*views.View, error) {
	w := int64(arrowsparse.ByteWidth(dt))
	buf := memory.NewResizableBuffer(g.mem)
	buf.Resize(int(rows * cols * w))
	defer buf.Release()
	clear(buf.Bytes())
	colMajor := g.r.IntN(2) == 0
	for _, e := range es {
		pos := e.c[0]*cols + e.c[1]
		if colMajor {
			pos = e.c[0] + e.c[1]*rows
		}
		put(buf.Bytes(), dt, pos, e.f, e.x)
	}
	if colMajor {
		return views.New(dt, buf, 0, []int64{rows, cols}, []int64{1, rows})
	}
	return views.New(dt, buf, 0, []int64{rows, cols}, []int64{cols, 1})
}
