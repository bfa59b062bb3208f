// Command tablecases makes the Go side of the live interop check of tensor
// columns (interop/run.sh, check 5).
//
//	tablecases write SEED DIR
//
// write builds tables of arrow.fixed_shape_tensor and
// arrow.variable_shape_tensor columns with package arrowext, for every value
// type, in each container: DIR/NAME.arrow (IPC file), NAME.arrows (IPC
// stream) and NAME.parquet. The cases cover ranks 1 to 5, permutations that
// are their own inverse and 3-cycles (made zero-copy from transposed views,
// or given to a builder), dim names, null rows, zero-size dimensions in
// variable-shape rows, uniform shapes, and a table with several columns.
// Parquet cases with null rows are few: pyarrow 25.0.1 cannot read them
// (see interop/pyarrow_tables.py pins).
//
// Each table comes with NAME.json, the document `sptensor dump --json`
// prints for it, computed from the tensors the case chose (not by reading
// the file back), and NAME.meta.json, the extension name and metadata of
// each column, which pyarrow's types must match. The random choices depend
// only on SEED. It prints "tablecases: N tables written".
package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/arrowext"
	"github.com/arrowsparse/arrowsparse/internal/tools/describe"
	"github.com/arrowsparse/arrowsparse/views"
)

func main() {
	if len(os.Args) != 4 || os.Args[1] != "write" {
		fmt.Fprintln(os.Stderr, "usage: tablecases write SEED DIR")
		os.Exit(2)
	}
	seed, err := strconv.ParseUint(os.Args[2], 10, 64)
	if err == nil {
		err = write(seed, os.Args[3])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "tablecases:", err)
		os.Exit(1)
	}
}

var valueTypes = []arrow.DataType{
	arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
	arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64,
	arrow.FixedWidthTypes.Float16, arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64,
}

var containers = []struct{ name, ext string }{
	{"ipc-file", ".arrow"}, {"ipc-stream", ".arrows"}, {"parquet", ".parquet"},
}

// column is one column of a case: the array and the logical tensors its
// rows must hold (nil for a null row).
type column struct {
	name string
	arr  arrow.Array
	rows []*views.View
}

func (c *column) release() {
	c.arr.Release()
	for _, v := range c.rows {
		if v != nil {
			v.Release()
		}
	}
}

type gen struct {
	r   *rand.Rand
	mem memory.Allocator
}

// randomView returns a row-major view of random values, special float
// values included.
func (g *gen) randomView(vt arrow.DataType, shape []int64) (*views.View, error) {
	v, err := views.Alloc(g.mem, vt, shape)
	if err != nil {
		return nil, err
	}
	b := v.Buffer().Bytes()
	for i := range b {
		b[i] = byte(g.r.Uint32())
	}
	return v, nil
}

// permutation returns a permutation of 0..n-1 of the kind k: 0 identity
// (nil), 1 reversed (its own inverse), 2 a 3-cycle (n ≥ 3), 3 random.
func (g *gen) permutation(n, k int) []int {
	switch {
	case k == 1:
		p := make([]int, n)
		for i := range p {
			p[i] = n - 1 - i
		}
		return p
	case k == 2 && n >= 3:
		p := []int{1, 2, 0}
		for i := 3; i < n; i++ {
			p = append(p, i)
		}
		return p
	case k == 3:
		return g.r.Perm(n)
	}
	return nil
}

// named returns v with the given dim names (the column's logical names, which
// its rows carry), releasing v.
func named(v *views.View, names []string) (*views.View, error) {
	defer v.Release()
	return v.WithDimNames(names...)
}

func names(n int, prefix string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}

// fromView makes a fixed-shape column from a transposed view of random
// values, without a copy: the transposition becomes the permutation.
func (g *gen) fromView(vt arrow.DataType, rank, permKind int, named bool) (column, error) {
	n := int64(1 + g.r.IntN(4))
	shape := []int64{n}
	for range rank {
		if permKind == 2 {
			shape = append(shape, 2+g.r.Int64N(3)) // no unit axis: the cycle shows
		} else {
			shape = append(shape, 1+g.r.Int64N(4))
		}
	}
	base, err := g.randomView(vt, shape)
	if err != nil {
		return column{}, err
	}
	defer base.Release()
	axes := []int{0}
	p := g.permutation(rank, permKind)
	for i := range rank {
		if p != nil {
			axes = append(axes, 1+p[i])
		} else {
			axes = append(axes, 1+i)
		}
	}
	v, err := base.Transpose(axes...)
	if err != nil {
		return column{}, err
	}
	defer v.Release()
	if named {
		nv, err := v.WithDimNames(append([]string{"row"}, names(rank, "d")...)...)
		if err != nil {
			return column{}, err
		}
		defer nv.Release()
		v = nv
	}
	arr, err := arrowext.NewFixedShapeTensorArray(g.mem, v)
	if err != nil {
		return column{}, err
	}
	c := column{name: "tensor", arr: arr}
	for i := range n {
		row, err := v.Index(0, i)
		if err != nil {
			return column{}, err
		}
		c.rows = append(c.rows, row)
	}
	return c, nil
}

// fixedBuilder makes a fixed-shape column of a given permuted type with a
// builder, with null rows when nulls is set.
func (g *gen) fixedBuilder(vt arrow.DataType, rank, permKind int, nulls bool) (column, error) {
	shape := make([]int64, rank)
	for k := range shape {
		shape[k] = 1 + g.r.Int64N(4)
	}
	typ, err := arrowext.NewFixedShapeTensorType(vt, shape, names(rank, "p"), g.permutation(rank, permKind))
	if err != nil {
		return column{}, err
	}
	b, err := arrowext.NewFixedShapeTensorBuilder(g.mem, typ)
	if err != nil {
		return column{}, err
	}
	defer b.Release()
	c := column{name: "tensor"}
	for i := range 2 + g.r.IntN(4) {
		if nulls && i%2 == 1 {
			if err := b.AppendNull(); err != nil {
				return column{}, err
			}
			c.rows = append(c.rows, nil)
			continue
		}
		v, err := g.randomView(vt, typ.LogicalShape())
		if err != nil {
			return column{}, err
		}
		if err := b.Append(v); err != nil {
			return column{}, err
		}
		if v, err = named(v, typ.LogicalDimNames()); err != nil {
			return column{}, err
		}
		c.rows = append(c.rows, v)
	}
	c.arr = b.NewArray()
	return c, nil
}

// variable makes a variable-shape column with rows of random shapes (zero
// sizes included), a permutation, names and a uniform dimension.
func (g *gen) variable(vt arrow.DataType, ndim, permKind int, nulls bool) (column, error) {
	perm := g.permutation(ndim, permKind)
	var uniform []int64
	uniDim := -1
	if ndim > 1 && g.r.IntN(2) == 0 {
		uniform = make([]int64, ndim)
		for k := range uniform {
			uniform[k] = arrowext.VariableDim
		}
		uniDim = g.r.IntN(ndim) // a physical axis
		uniform[uniDim] = 1 + g.r.Int64N(3)
	}
	typ, err := arrowext.NewVariableShapeTensorType(vt, ndim, names(ndim, "v"), perm, uniform)
	if err != nil {
		return column{}, err
	}
	b, err := arrowext.NewVariableShapeTensorBuilder(g.mem, typ)
	if err != nil {
		return column{}, err
	}
	defer b.Release()
	c := column{name: "tensor"}
	for i := range 2 + g.r.IntN(4) {
		if nulls && i%3 == 1 {
			if err := b.AppendNull(); err != nil {
				return column{}, err
			}
			c.rows = append(c.rows, nil)
			continue
		}
		logical := make([]int64, ndim)
		for k := range logical {
			logical[k] = g.r.Int64N(4)
			phys := k
			if perm != nil {
				phys = perm[k]
			}
			if phys == uniDim {
				logical[k] = uniform[uniDim]
			}
		}
		v, err := g.randomView(vt, logical)
		if err != nil {
			return column{}, err
		}
		if err := b.Append(v); err != nil {
			return column{}, err
		}
		if v, err = named(v, typ.LogicalDimNames()); err != nil {
			return column{}, err
		}
		c.rows = append(c.rows, v)
	}
	c.arr = b.NewArray()
	return c, nil
}

// write writes every case to dir.
func write(seed uint64, dir string) error {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	g := &gen{r: rand.New(rand.NewPCG(seed, 0x7461626c65)), mem: memory.DefaultAllocator}
	count := 0
	for _, ct := range containers {
		parquet := ct.name == "parquet"
		for ti, vt := range valueTypes {
			tn := describe.TypeName(vt)
			rank := 1 + ti%5
			permKind := ti % 4
			if rank >= 3 && ti%2 == 0 {
				permKind = 2 // a 3-cycle
			}
			var cases []struct {
				name string
				make func() (column, error)
			}
			add := func(name string, f func() (column, error)) {
				cases = append(cases, struct {
					name string
					make func() (column, error)
				}{name, f})
			}
			add(fmt.Sprintf("view-%s-r%d-p%d", tn, rank, permKind), func() (column, error) { return g.fromView(vt, rank, permKind, ti%2 == 1) })
			add(fmt.Sprintf("view3cycle-%s-r%d", tn, max(rank, 3)), func() (column, error) { return g.fromView(vt, max(rank, 3), 2, true) })
			nulls := !parquet || ti < 2 // few Parquet cases with nulls: pyarrow cannot read them
			add(fmt.Sprintf("builder-%s-r%d-p%d-nulls%v", tn, 1+(ti+2)%5, (ti+1)%4, nulls), func() (column, error) {
				return g.fixedBuilder(vt, 1+(ti+2)%5, (ti+1)%4, nulls)
			})
			add(fmt.Sprintf("variable-%s-n%d-p%d-nulls%v", tn, 1+ti%4, (ti+2)%4, nulls), func() (column, error) {
				return g.variable(vt, 1+ti%4, (ti+2)%4, nulls)
			})
			for _, cs := range cases {
				c, err := cs.make()
				if err != nil {
					return fmt.Errorf("%s: %w", cs.name, err)
				}
				err = writeCase(g.mem, filepath.Join(dir, ct.name+"-"+cs.name), ct.name, ct.ext, []column{c}, nil)
				c.release()
				if err != nil {
					return fmt.Errorf("%s: %w", cs.name, err)
				}
				count++
			}
		}
		// A table of several columns, with a column of another type.
		f, err := g.fromView(arrow.PrimitiveTypes.Float32, 3, 2, true)
		if err != nil {
			return err
		}
		f.name = "fixed"
		v, err := g.variable(arrow.PrimitiveTypes.Int32, 2, 1, !parquet)
		if err != nil {
			return err
		}
		v.name = "variable"
		ids := array.NewInt64Builder(g.mem)
		for i := range f.arr.Len() {
			ids.Append(int64(i))
		}
		idArr := ids.NewArray()
		ids.Release()
		n := min(f.arr.Len(), v.arr.Len())
		cut := func(c column) column {
			s := array.NewSlice(c.arr, 0, int64(n))
			c.arr.Release()
			for _, r := range c.rows[n:] {
				if r != nil {
					r.Release()
				}
			}
			return column{name: c.name, arr: s, rows: c.rows[:n]}
		}
		f, v = cut(f), cut(v)
		id := array.NewSlice(idArr, 0, int64(n))
		idArr.Release()
		err = writeCase(g.mem, filepath.Join(dir, ct.name+"-multi"), ct.name, ct.ext, []column{f, v}, id)
		f.release()
		v.release()
		id.Release()
		if err != nil {
			return fmt.Errorf("multi: %w", err)
		}
		count++
	}
	fmt.Printf("tablecases: %d tables written\n", count)
	return nil
}

// writeCase writes one table (the tensor columns, then extra if not nil,
// named "id") and its two sidecars.
func writeCase(mem memory.Allocator, stem, container, ext string, cols []column, extra arrow.Array) error {
	var fields []arrow.Field
	var arrs []arrow.Array
	var doc []describe.TableColumn
	type meta struct {
		Name      string `json:"name"`
		Extension string `json:"extension"`
		Metadata  string `json:"metadata"`
	}
	var metas []meta
	for _, c := range cols {
		ext := c.arr.DataType().(arrow.ExtensionType)
		fields = append(fields, arrow.Field{Name: c.name, Type: ext, Nullable: true})
		arrs = append(arrs, c.arr)
		doc = append(doc, describe.TableColumn{Name: c.name, Type: ext.ExtensionName(), Rows: c.rows})
		metas = append(metas, meta{c.name, ext.ExtensionName(), ext.Serialize()})
	}
	if extra != nil {
		fields = append(fields, arrow.Field{Name: "id", Type: extra.DataType()})
		arrs = append(arrs, extra)
	}
	schema := arrow.NewSchema(fields, nil)
	rec := array.NewRecordBatch(schema, arrs, int64(arrs[0].Len()))
	defer rec.Release()
	tbl := array.NewTableFromRecords(schema, []arrow.RecordBatch{rec})
	defer tbl.Release()
	f, err := os.Create(stem + ext)
	if err != nil {
		return err
	}
	switch container {
	case "ipc-file":
		err = arrowext.WriteIPCFile(f, tbl, arrowext.WithAllocator(mem))
	case "ipc-stream":
		err = arrowext.WriteIPCStream(f, tbl, arrowext.WithAllocator(mem))
	default:
		err = arrowext.WriteParquet(f, tbl, arrowext.WithAllocator(mem))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	js, err := describe.TableJSON(doc)
	if err != nil {
		return err
	}
	if err := os.WriteFile(stem+".json", js, 0o666); err != nil {
		return err
	}
	mj, err := json.Marshal(map[string]any{"container": container, "columns": metas})
	if err != nil {
		return err
	}
	return os.WriteFile(stem+".meta.json", mj, 0o666)
}
