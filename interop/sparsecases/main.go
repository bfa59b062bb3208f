// Command sparsecases makes the Go side of the live interop check of the
// sparse tensor extension types (arrowsparse.coo, .csr, .csc, .csf, .gcs;
// interop/run.sh, check 6) with the Python package's
// python/tests/interop_ext.py.
//
//	sparsecases write SEED DIR
//	sparsecases check DIR
//
// write builds sparse columns with package arrowext for every format ×
// index type × value type × shape mode (fixed shape; varying shapes with
// dim names; varying shapes with a null row), as IPC files
// (DIR/NAME.arrow); a subset (every value type with one index type, every
// index type with one value type) also as IPC streams (NAME.arrows) and
// Parquet files (NAME.parquet, except columns with a shape field and null
// rows, which pyarrow 25 cannot read back: SPARSE.md 5), and a few special
// cases (duplicates in COO, GCS stored as CSC, LargeList fields, sparse
// vectors). Each file has the sidecar FILE.json that interop_ext.py check
// reads: the extension name, the metadata and every row described in the
// schema of testdata/interop/README.md, from the tensors the case chose
// (not by reading the file back). The random choices depend only on SEED.
//
// check reads every FILE.json sidecar of DIR (as interop_ext.py write
// makes them) and its file with package arrowext, and compares the
// extension name, the metadata (as JSON values) and every row: sparse rows
// by their summed, sorted entries, types, shape, names, nnz and flags,
// dense rows (arrow.fixed_shape_tensor, arrow.variable_shape_tensor) by
// their shape, names and every value's bits. It prints "N checked, M
// failed" last, and exits 1 if a file failed or none was found.
package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/arrowext"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/tools/describe"
	"github.com/arrowsparse/arrowsparse/views"
)

func main() {
	var err error
	switch {
	case len(os.Args) == 4 && os.Args[1] == "write":
		var seed uint64
		if seed, err = strconv.ParseUint(os.Args[2], 10, 64); err == nil {
			err = write(seed, os.Args[3])
		}
	case len(os.Args) == 3 && os.Args[1] == "check":
		var failed int
		failed, err = check(os.Args[2])
		if err == nil && failed > 0 {
			os.Exit(1)
		}
	default:
		fmt.Fprintln(os.Stderr, "usage: sparsecases write SEED DIR\n       sparsecases check DIR")
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "sparsecases:", err)
		os.Exit(1)
	}
}

var (
	indexTypes = []arrow.DataType{
		arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
		arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32,
	}
	valueTypes = []arrow.DataType{
		arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
		arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64,
		arrow.FixedWidthTypes.Float16, arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64,
	}
	formats = []arrowsparse.Format{arrowsparse.FormatCOO, arrowsparse.FormatCSR, arrowsparse.FormatCSC, arrowsparse.FormatCSF, arrowsparse.FormatGCS}
)

// gen makes random tensors.
type gen struct {
	r   *rand.Rand
	mem memory.Allocator
}

// dense returns a row-major tensor of small integer values, about 40%
// non-zero; negative values for signed and float types.
func (g *gen) dense(vt arrow.DataType, shape []int64) (*views.View, error) {
	v, err := views.Alloc(g.mem, vt, shape)
	if err != nil {
		return nil, err
	}
	b := v.Buffer().Bytes()
	w := arrowsparse.ByteWidth(vt)
	for p := range int(v.Len()) {
		if g.r.Float64() >= 0.4 {
			continue
		}
		x := int64(1 + g.r.IntN(100))
		switch vt.ID() {
		case arrow.FLOAT16:
			binary.LittleEndian.PutUint16(b[2*p:], float16.New(float32(x-50)/4).Uint16())
		case arrow.FLOAT32:
			binary.LittleEndian.PutUint32(b[4*p:], math.Float32bits(float32(x-50)/4))
		case arrow.FLOAT64:
			binary.LittleEndian.PutUint64(b[8*p:], math.Float64bits(float64(x-50)/4))
		case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
			x -= 50
			if x == 0 {
				x = 7
			}
			fallthrough
		default:
			for k := range w {
				b[p*w+k] = byte(uint64(x) >> (8 * k))
			}
		}
	}
	return v, nil
}

// sparse converts a dense tensor to format f with index type it.
func (g *gen) sparse(d *views.View, f arrowsparse.Format, it arrow.DataType, order, dims []int, part int, axis gcs.Axis) (arrowsparse.Tensor, error) {
	switch f {
	case arrowsparse.FormatCOO:
		return coo.FromDense(g.mem, d, coo.ConvertOptions{IndexType: it})
	case arrowsparse.FormatCSR:
		return gcs.MatrixFromDense(g.mem, d, gcs.Rows, gcs.ConvertOptions{IndexType: it, IndptrType: it})
	case arrowsparse.FormatCSC:
		return gcs.MatrixFromDense(g.mem, d, gcs.Cols, gcs.ConvertOptions{IndexType: it, IndptrType: it})
	case arrowsparse.FormatCSF:
		return csf.FromDense(g.mem, d, csf.ConvertOptions{IndexType: it, IndptrType: it, AxisOrder: order})
	}
	mp, err := gcs.NewMapping(d.Shape(), dims, part)
	if err != nil {
		return nil, err
	}
	t, err := gcs.FromDense(g.mem, d, gcs.ConvertOptions{IndexType: it, IndptrType: it, Mapping: mp})
	if err != nil || axis == gcs.Rows {
		return t, err
	}
	defer t.Release()
	return t.WithStorage(g.mem, axis, gcs.ConvertOptions{IndexType: it, IndptrType: it})
}

// sparseCase is one column to write.
type sparseCase struct {
	name       string
	col        *arrowext.SparseTensorArray
	rows       []arrowsparse.Tensor
	containers []string
}

func (c *sparseCase) release() {
	c.col.Release()
	for _, r := range c.rows {
		if r != nil {
			r.Release()
		}
	}
}

// column builds a case's column from its rows (nil: null).
func column(mem memory.Allocator, p arrowext.SparseTensorParams, rows []arrowsparse.Tensor) (*arrowext.SparseTensorArray, error) {
	return arrowext.NewSparseTensorArray(mem, p, rows)
}

// formatCase makes the rows of one format × value type × index type ×
// mode case.
func (g *gen) formatCase(f arrowsparse.Format, vt, it arrow.DataType, mode string) (sparseCase, error) {
	nd := 3
	if f == arrowsparse.FormatCSR || f == arrowsparse.FormatCSC {
		nd = 2
	}
	base := []int64{4, 5, 3}[:nd]
	var order, dims []int
	part := 0
	if f == arrowsparse.FormatCSF {
		order = []int{2, 0, 1}[:nd]
		if nd == 2 {
			order = []int{1, 0}
		}
	}
	if f == arrowsparse.FormatGCS {
		dims, part = []int{2, 0, 1}, 1
	}
	var shapes [][]int64
	switch mode {
	case "fixed":
		shapes = [][]int64{base, nil, base, base}
	case "varying":
		shapes = [][]int64{base, grow(base), append([]int64{0}, base[1:]...), append(slices.Clone(base[:nd-1]), 1)}
	default: // varying-nulls
		shapes = [][]int64{base, grow(base), nil, append([]int64{0}, base[1:]...)}
	}
	c := sparseCase{name: fmt.Sprintf("%s-%s-%s-%s", strings.ToLower(f.String()), describe.TypeName(vt), describe.TypeName(it), mode)}
	for i, s := range shapes {
		if s == nil {
			c.rows = append(c.rows, nil)
			continue
		}
		d, err := g.dense(vt, s)
		if err != nil {
			return c, err
		}
		if mode == "fixed" && i == 2 {
			clear(d.Buffer().Bytes()) // a row without entries
		}
		x, err := g.sparse(d, f, it, order, dims, part, gcs.Rows)
		d.Release()
		if err != nil {
			return c, err
		}
		c.rows = append(c.rows, x)
	}
	p := arrowext.SparseTensorParams{Format: f, IndexType: it, IndptrType: it, ValueType: vt, AxisOrder: order, Dimensions: dims, Partitioning: part}
	if mode == "varying" {
		p.DimNames = []string{"i", "j", "k"}[:nd]
	}
	col, err := column(g.mem, p, c.rows)
	if err != nil {
		return c, fmt.Errorf("%s: %w", c.name, err)
	}
	c.col = col
	return c, nil
}

func grow(s []int64) []int64 {
	out := make([]int64, len(s))
	for i, d := range s {
		out[i] = d + 1
	}
	return out
}

// specialCases are the cases beyond the product.
func (g *gen) specialCases() ([]sparseCase, error) {
	var out []sparseCase
	f64 := arrow.PrimitiveTypes.Float64
	// COO with duplicates, not canonical
	dup, err := coo.FromSlices(g.mem, []int64{2, 2}, []int16{0, 1, 0, 1, 1, 0}, coo.RowMajor, []float64{1, 2, 4})
	if err != nil {
		return nil, err
	}
	rows := []arrowsparse.Tensor{dup, nil}
	col, err := column(g.mem, arrowext.SparseTensorParams{Format: arrowsparse.FormatCOO}, rows)
	if err != nil {
		return nil, err
	}
	out = append(out, sparseCase{name: "coo-duplicates", col: col, rows: rows})
	// GCS stored as CSC, 1-d and 3-d
	for _, shape := range [][]int64{{7}, {3, 4, 2}} {
		var rows []arrowsparse.Tensor
		nd := len(shape)
		dims, part := []int{0}, 1
		if nd == 3 {
			dims, part = []int{1, 2, 0}, 2
		}
		for range 3 {
			d, err := g.dense(f64, shape)
			if err != nil {
				return nil, err
			}
			x, err := g.sparse(d, arrowsparse.FormatGCS, arrow.PrimitiveTypes.Int32, nil, dims, part, gcs.Cols)
			d.Release()
			if err != nil {
				return nil, err
			}
			rows = append(rows, x)
		}
		col, err := column(g.mem, arrowext.SparseTensorParams{Format: arrowsparse.FormatGCS, Dimensions: dims, Partitioning: part, CompressedAxis: gcs.Cols}, rows)
		if err != nil {
			return nil, err
		}
		out = append(out, sparseCase{name: fmt.Sprintf("gcs-csc-%dd", nd), col: col, rows: rows})
	}
	// LargeList fields
	for _, f := range []arrowsparse.Format{arrowsparse.FormatCOO, arrowsparse.FormatCSR, arrowsparse.FormatCSF} {
		c, err := g.formatCase(f, arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Int32, "varying")
		if err != nil {
			return nil, err
		}
		p := c.col.TensorType().Params()
		c.col.Release()
		p.LargeLists = true
		if c.col, err = column(g.mem, p, c.rows); err != nil {
			return nil, err
		}
		c.name = "large-" + c.name
		out = append(out, c)
	}
	// sparse vectors: a COO column of 1-d rows sharing one CSR matrix's
	// arrays
	d, err := g.dense(f64, []int64{20, 30})
	if err != nil {
		return nil, err
	}
	m, err := gcs.MatrixFromDense(g.mem, d, gcs.Rows, gcs.ConvertOptions{IndexType: arrow.PrimitiveTypes.Int32, IndptrType: arrow.PrimitiveTypes.Int32})
	d.Release()
	if err != nil {
		return nil, err
	}
	vec, err := arrowext.VectorsFromCSR(g.mem, m)
	m.Release()
	if err != nil {
		return nil, err
	}
	var vrows []arrowsparse.Tensor
	for i := range vec.Len() {
		x, err := vec.Row(i)
		if err != nil {
			return nil, err
		}
		vrows = append(vrows, x)
	}
	out = append(out, sparseCase{name: "vectors", col: vec, rows: vrows})
	return out, nil
}

// write writes every case in its containers, with sidecars.
func write(seed uint64, dir string) error {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	mem := memory.NewGoAllocator()
	g := &gen{r: rand.New(rand.NewPCG(seed, seed^0x5eed)), mem: mem}
	var cases []sparseCase
	for _, f := range formats {
		for vi, vt := range valueTypes {
			for ii, it := range indexTypes {
				subset := ii == vi%len(indexTypes) || vi == (ii*3)%len(valueTypes)
				for _, mode := range []string{"fixed", "varying", "varying-nulls"} {
					c, err := g.formatCase(f, vt, it, mode)
					if err != nil {
						return err
					}
					c.containers = []string{".arrow"}
					if subset {
						c.containers = append(c.containers, ".arrows")
						if mode != "varying-nulls" {
							c.containers = append(c.containers, ".parquet")
						}
					}
					cases = append(cases, c)
				}
			}
		}
	}
	special, err := g.specialCases()
	if err != nil {
		return err
	}
	for i := range special {
		special[i].containers = []string{".arrow", ".arrows"}
		if special[i].col.TensorType().FixedShape() != nil || special[i].col.NullN() == 0 {
			special[i].containers = append(special[i].containers, ".parquet")
		}
	}
	cases = append(cases, special...)
	n := 0
	for _, c := range cases {
		for _, ext := range c.containers {
			if err := writeCase(mem, filepath.Join(dir, c.name+ext), ext, c); err != nil {
				return fmt.Errorf("%s%s: %w", c.name, ext, err)
			}
			n++
		}
		c.release()
	}
	fmt.Printf("sparsecases: wrote %d files with sidecars to %s\n", n, dir)
	return nil
}

var containerNames = map[string]string{".arrow": "ipc-file", ".arrows": "ipc-stream", ".parquet": "parquet"}

// writeCase writes one file of a one-column table "tensor" and its
// sidecar.
func writeCase(mem memory.Allocator, path, ext string, c sparseCase) error {
	typ := c.col.TensorType()
	schema := arrow.NewSchema([]arrow.Field{{Name: "tensor", Type: typ, Nullable: true}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{c.col}, int64(c.col.Len()))
	defer rec.Release()
	tbl := array.NewTableFromRecords(schema, []arrow.RecordBatch{rec})
	defer tbl.Release()
	var buf bytes.Buffer
	var err error
	switch ext {
	case ".arrow":
		err = arrowext.WriteIPCFile(&buf, tbl, arrowext.WithAllocator(mem))
	case ".arrows":
		err = arrowext.WriteIPCStream(&buf, tbl, arrowext.WithAllocator(mem))
	default:
		err = arrowext.WriteParquet(&buf, tbl, arrowext.WithAllocator(mem))
	}
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o666); err != nil {
		return err
	}
	rows := make([]json.RawMessage, len(c.rows))
	for i, x := range c.rows {
		if x == nil {
			rows[i] = json.RawMessage("null")
			continue
		}
		d, err := describe.Sparse(x, typ.CanonicalClaim())
		if err != nil {
			return err
		}
		d.DimNames = typ.DimNames() // the column's names are the rows'
		rows[i] = d.JSON()
	}
	side := map[string]any{
		"container": containerNames[ext],
		"writer":    "arrowsparse-go arrowext (interop/sparsecases)",
		"columns": []map[string]any{{
			"name": "tensor", "extension_name": typ.ExtensionName(),
			"extension_metadata": json.RawMessage(typ.Serialize()), "rows": rows,
		}},
	}
	js, err := json.MarshalIndent(side, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path+".json", append(js, '\n'), 0o666)
}

// sidecar is interop_ext.py's description of a file.
type sidecar struct {
	Container string `json:"container"`
	Columns   []struct {
		Name              string            `json:"name"`
		ExtensionName     string            `json:"extension_name"`
		ExtensionMetadata json.RawMessage   `json:"extension_metadata"`
		Rows              []json.RawMessage `json:"rows"`
	} `json:"columns"`
}

// check reads every sidecar's file of dir and compares.
func check(dir string) (int, error) {
	sides, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return 0, err
	}
	failed := 0
	for _, s := range sides {
		problems := checkFile(s)
		if len(problems) > 0 {
			failed++
			fmt.Printf("FAIL %s\n", strings.TrimSuffix(filepath.Base(s), ".json"))
			for i, p := range problems {
				if i == 10 {
					break
				}
				fmt.Printf("     %s\n", p)
			}
		}
	}
	fmt.Printf("%d checked, %d failed\n", len(sides), failed)
	if len(sides) == 0 {
		return 1, nil
	}
	return failed, nil
}

func checkFile(side string) []string {
	data, err := os.ReadFile(side)
	if err != nil {
		return []string{err.Error()}
	}
	var doc sidecar
	if err := json.Unmarshal(data, &doc); err != nil {
		return []string{"sidecar: " + err.Error()}
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	path := strings.TrimSuffix(side, ".json")
	raw, err := os.ReadFile(path)
	if err != nil {
		return []string{err.Error()}
	}
	var tbl arrow.Table
	switch doc.Container {
	case "ipc-file":
		tbl, err = arrowext.ReadIPCFileBytes(raw, arrowext.WithAllocator(mem))
	case "ipc-stream":
		tbl, err = arrowext.ReadIPCStream(bytes.NewReader(raw), arrowext.WithAllocator(mem))
	case "parquet":
		tbl, err = arrowext.ReadParquet(bytes.NewReader(raw), arrowext.WithAllocator(mem))
	default:
		return []string{"unknown container " + doc.Container}
	}
	if err != nil {
		return []string{"read: " + err.Error()}
	}
	var problems []string
	for _, want := range doc.Columns {
		idx := tbl.Schema().FieldIndices(want.Name)
		if len(idx) != 1 {
			problems = append(problems, fmt.Sprintf("column %q is missing", want.Name))
			continue
		}
		problems = append(problems, checkColumn(mem, tbl.Column(idx[0]), want.ExtensionName, want.ExtensionMetadata, want.Rows)...)
	}
	tbl.Release()
	if mem.CurrentAlloc() != 0 {
		problems = append(problems, fmt.Sprintf("%d bytes not released", mem.CurrentAlloc()))
	}
	return problems
}

// checkColumn compares one column with its sidecar description.
func checkColumn(mem memory.Allocator, col *arrow.Column, extName string, extMeta json.RawMessage, rows []json.RawMessage) []string {
	var problems []string
	bad := func(format string, args ...any) {
		problems = append(problems, fmt.Sprintf("column %q: ", col.Name())+fmt.Sprintf(format, args...))
	}
	ext, ok := col.DataType().(arrow.ExtensionType)
	if !ok {
		bad("type %s is not an extension type", col.DataType())
		return problems
	}
	if ext.ExtensionName() != extName {
		bad("extension %q, expected %q", ext.ExtensionName(), extName)
	}
	var got, want any
	gotMeta := ext.Serialize()
	if err := json.Unmarshal([]byte(gotMeta), &got); err != nil {
		bad("metadata %s: %v", gotMeta, err)
	}
	if err := json.Unmarshal(extMeta, &want); err != nil {
		bad("sidecar metadata: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		bad("metadata %s differs from %s", gotMeta, extMeta)
	}
	i := 0
	for _, ch := range col.Data().Chunks() {
		for r := range ch.Len() {
			if i >= len(rows) {
				bad("more rows than the %d expected", len(rows))
				return problems
			}
			if msg := checkRow(mem, ch, r, rows[i]); msg != "" {
				bad("row %d: %s", i, msg)
			}
			i++
		}
	}
	if i != len(rows) {
		bad("%d rows, expected %d", i, len(rows))
	}
	return problems
}

// checkRow compares row r of a chunk with its description.
func checkRow(mem memory.Allocator, ch arrow.Array, r int, raw json.RawMessage) string {
	isNull := string(bytes.TrimSpace(raw)) == "null"
	if sp, ok := ch.(*arrowext.SparseTensorArray); ok {
		x, err := sp.Row(r)
		if err != nil {
			return err.Error()
		}
		if x == nil || isNull {
			if (x == nil) != isNull {
				return fmt.Sprintf("null %v, expected %v", x == nil, isNull)
			}
			return ""
		}
		defer x.Release()
		got, err := describe.Sparse(x, sp.TensorType().CanonicalClaim())
		if err != nil {
			return err.Error()
		}
		want, err := describe.ParseJSON(raw)
		if err != nil {
			return "sidecar: " + err.Error()
		}
		return compareSparse(want, got)
	}
	v, err := arrowext.Row(ch, r)
	if err != nil {
		return err.Error()
	}
	if v == nil || isNull {
		if (v == nil) != isNull {
			return fmt.Sprintf("null %v, expected %v", v == nil, isNull)
		}
		return ""
	}
	defer v.Release()
	want, err := describe.ParseJSON(raw)
	if err != nil {
		return "sidecar: " + err.Error()
	}
	if !slices.Equal(v.Shape(), want.Shape) || !slices.Equal(v.DimNames(), want.DimNames) || describe.TypeName(v.DataType()) != describe.TypeName(want.ValueType) {
		return fmt.Sprintf("dense %s%v %v, expected %s%v %v", v.DataType(), v.Shape(), v.DimNames(), want.ValueType, want.Shape, want.DimNames)
	}
	c, err := v.Copy(mem, views.CopyOptions{})
	if err != nil {
		return err.Error()
	}
	defer c.Release()
	w := arrowsparse.ByteWidth(c.DataType())
	b := c.Buffer().Bytes()
	if int(c.Len()) != len(want.DenseValues) {
		return fmt.Sprintf("%d values, expected %d", c.Len(), len(want.DenseValues))
	}
	for k := range int(c.Len()) {
		var x uint64
		for j := range w {
			x |= uint64(b[k*w+j]) << (8 * j)
		}
		if x != want.DenseValues[k] {
			return fmt.Sprintf("value %d: %s, expected %s", k, describe.FormatValue(c.DataType(), x), describe.FormatValue(c.DataType(), want.DenseValues[k]))
		}
	}
	return ""
}

// compareSparse compares two descriptions of a sparse tensor.
func compareSparse(want, got *describe.Content) string {
	var diffs []string
	diff := func(what string, w, g any) {
		diffs = append(diffs, fmt.Sprintf("%s: expected %v, got %v", what, w, g))
	}
	if want.Format != got.Format {
		diff("format", want.Format, got.Format)
	}
	for _, p := range [][3]any{{"value_type", want.ValueType, got.ValueType}, {"index_type", want.IndexType, got.IndexType}, {"indptr_type", want.IndptrType, got.IndptrType}} {
		w, _ := p[1].(arrow.DataType)
		g, _ := p[2].(arrow.DataType)
		if p[0] == "indptr_type" && want.Format == "COO" {
			continue
		}
		if describe.TypeName(w) != describe.TypeName(g) {
			diff(p[0].(string), w, g)
		}
	}
	if !slices.Equal(want.Shape, got.Shape) {
		diff("shape", want.Shape, got.Shape)
	}
	if !slices.Equal(want.DimNames, got.DimNames) {
		diff("dim_names", want.DimNames, got.DimNames)
	}
	if want.NNZ != got.NNZ {
		diff("nnz", want.NNZ, got.NNZ)
	}
	if want.Format == "COO" && want.IsCanonical != got.IsCanonical {
		diff("is_canonical", want.IsCanonical, got.IsCanonical)
	}
	if want.Format == "CSF" && !slices.Equal(want.AxisOrder, got.AxisOrder) {
		diff("axis_order", want.AxisOrder, got.AxisOrder)
	}
	we, ge := want.Entries, got.Entries
	switch {
	case we.Len() != ge.Len():
		diff("entries", we.Len(), ge.Len())
	default:
		for i := range we.Len() {
			if !slices.Equal(we.At(i), ge.At(i)) || we.Values[i] != ge.Values[i] {
				diff(fmt.Sprintf("entry %d", i), fmt.Sprint(we.At(i), describe.FormatValue(want.ValueType, we.Values[i])), fmt.Sprint(ge.At(i), describe.FormatValue(got.ValueType, ge.Values[i])))
				break
			}
		}
	}
	return strings.Join(diffs, "; ")
}
