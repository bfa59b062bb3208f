// Package textcheck cross-checks the mtx and tns packages with reference
// readers and writers (scipy.io.mmread and mmwrite, and a reference FROSTT
// reader and writer in interop/textfmt_ref.py) through files and JSON
// sidecars that describe their content.
//
// A sidecar NAME.json beside NAME.mtx, NAME.mtx.gz, NAME.tns or
// NAME.tns.gz holds
//
//	{"kind": "coordinate" | "array" | "tns",
//	 "shape": [rows, cols, …],
//	 "dtype": "float64" | "float32" | "float16" | "int64" | … | "uint32",
//	 "entries": [["i", "j", …, "value"], …],   // coordinate and tns
//	 "dense": ["value", …]}                     // array, row-major
//
// Entries are every stored entry (duplicates and explicit zeros kept, a
// symmetric matrix expanded to both triangles), 0-based, sorted by their
// coordinates in row-major order. Values are decimal strings that read
// back to the exact value (or nan, inf, -inf); they are compared as values
// of dtype, NaN equal to NaN, and entries at equal coordinates as
// multisets, so that neither the order of duplicates nor the order of
// their summation matters. In dense arrays -0 equals 0, because
// scipy.io.mmread's array reader turns -0 into 0.
//
// It is used by the interop step of interop/run.sh (through
// interop/textfmtcheck) and by the tests of mtx and tns.
package textcheck

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/textparse"
	"github.com/arrowsparse/arrowsparse/mtx"
	"github.com/arrowsparse/arrowsparse/tns"
	"github.com/arrowsparse/arrowsparse/views"
)

// Sidecar describes the content of a file.
type Sidecar struct {
	Kind    string     `json:"kind"`
	Shape   []int64    `json:"shape"`
	DType   string     `json:"dtype"`
	Entries [][]string `json:"entries,omitempty"`
	Dense   []string   `json:"dense,omitempty"`
	// Read holds options for this library's reader: "value_type" (a dtype
	// name) and "shape" ("given" to pass the shape to the tns reader).
	Read map[string]string `json:"read,omitempty"`
}

// Files returns the data files of dir that have a sidecar, sorted.
func Files(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		for _, ext := range []string{".mtx", ".mtx.gz", ".tns", ".tns.gz"} {
			if strings.HasSuffix(n, ext) {
				if _, err := os.Stat(SidecarPath(filepath.Join(dir, n))); err == nil {
					out = append(out, filepath.Join(dir, n))
				}
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// SidecarPath returns the sidecar of a data file.
func SidecarPath(path string) string {
	path = strings.TrimSuffix(path, ".gz")
	return strings.TrimSuffix(strings.TrimSuffix(path, ".mtx"), ".tns") + ".json"
}

// ReadSidecar reads the sidecar of a data file.
func ReadSidecar(path string) (Sidecar, error) {
	var s Sidecar
	b, err := os.ReadFile(SidecarPath(path))
	if err != nil {
		return s, err
	}
	err = json.Unmarshal(b, &s)
	return s, err
}

// WriteSidecar writes the sidecar of a data file.
func WriteSidecar(path string, s Sidecar) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return os.WriteFile(SidecarPath(path), b, 0o644)
}

// CheckDir reads every data file of dir with this library and compares it
// with its sidecar. It returns the number of files checked and one message
// per failure.
func CheckDir(dir string) (int, []string, error) {
	files, err := Files(dir)
	if err != nil {
		return 0, nil, err
	}
	var fails []string
	for _, f := range files {
		if err := CheckFile(f); err != nil {
			fails = append(fails, fmt.Sprintf("%s: %v", filepath.Base(f), err))
		}
	}
	return len(files), fails, nil
}

// CheckFile reads one data file with this library and compares it with its
// sidecar.
func CheckFile(path string) error {
	sc, err := ReadSidecar(path)
	if err != nil {
		return err
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	err = checkFile(mem, path, sc)
	if n := mem.CurrentAlloc(); n != 0 && err == nil {
		err = fmt.Errorf("leaked %d bytes", n)
	}
	return err
}

func checkFile(mem memory.Allocator, path string, sc Sidecar) error {
	var vt arrow.DataType
	if name := sc.Read["value_type"]; name != "" {
		var err error
		if vt, err = TypeOf(name); err != nil {
			return err
		}
	}
	if sc.Kind == "tns" {
		opts := []tns.ReadOption{tns.WithAllocator(mem)}
		if vt != nil {
			opts = append(opts, tns.WithValueType(vt))
		}
		if sc.Read["shape"] == "given" {
			opts = append(opts, tns.WithShape(sc.Shape...))
		}
		t, err := tns.ReadFile(path, opts...)
		if err != nil {
			return err
		}
		defer t.Release()
		return compareCOO(mem, t, sc)
	}
	opts := []mtx.ReadOption{mtx.WithAllocator(mem)}
	if vt != nil {
		opts = append(opts, mtx.WithValueType(vt))
	}
	m, err := mtx.ReadFile(path, opts...)
	if err != nil {
		return err
	}
	defer m.Release()
	if got := m.Header.Layout.String(); got != sc.Kind {
		return fmt.Errorf("layout %s, want %s", got, sc.Kind)
	}
	if m.Dense != nil {
		return compareDense(m.Dense, sc)
	}
	return compareCOO(mem, m.COO, sc)
}

// TypeOf returns the Arrow type of a numpy-style dtype name.
func TypeOf(name string) (arrow.DataType, error) {
	switch name {
	case "float64":
		return arrow.PrimitiveTypes.Float64, nil
	case "float32":
		return arrow.PrimitiveTypes.Float32, nil
	case "float16":
		return arrow.FixedWidthTypes.Float16, nil
	case "int8":
		return arrow.PrimitiveTypes.Int8, nil
	case "int16":
		return arrow.PrimitiveTypes.Int16, nil
	case "int32":
		return arrow.PrimitiveTypes.Int32, nil
	case "int64":
		return arrow.PrimitiveTypes.Int64, nil
	case "uint8":
		return arrow.PrimitiveTypes.Uint8, nil
	case "uint16":
		return arrow.PrimitiveTypes.Uint16, nil
	case "uint32":
		return arrow.PrimitiveTypes.Uint32, nil
	case "uint64":
		return arrow.PrimitiveTypes.Uint64, nil
	}
	return nil, fmt.Errorf("unknown dtype %q", name)
}

// DTypeName returns the numpy-style name of an Arrow value type.
func DTypeName(dt arrow.DataType) string {
	if dt.ID() == arrow.FLOAT16 {
		return "float16"
	}
	return dt.String()
}

// num is a value for comparison, as the text packages read it.
type num textparse.Value

func (a num) equal(b num) bool {
	if a.Float {
		if a.F != a.F || b.F != b.F {
			return a.F != a.F && b.F != b.F
		}
		return math.Float64bits(a.F) == math.Float64bits(b.F)
	}
	return a == b
}

func (a num) String() string {
	switch {
	case a.Float:
		return strconv.FormatFloat(a.F, 'g', -1, 64)
	case a.U != 0:
		return strconv.FormatUint(a.U, 10)
	}
	return strconv.FormatInt(a.I, 10)
}

// parseNum reads a sidecar value as a value of dtype.
func parseNum(s string, dtype string) (num, error) {
	switch dtype {
	case "float64", "float32", "float16":
		f, err := strconv.ParseFloat(s, 64)
		if err != nil && !strings.Contains(err.Error(), "range") {
			return num{}, err
		}
		switch dtype {
		case "float32":
			f = float64(float32(f))
		case "float16":
			f = float64(arrowsparse.HalfToFloat32(arrowsparse.Float32ToHalf(float32(f))))
		}
		return num{F: f, Float: true}, nil
	case "uint64", "uint32", "uint16", "uint8":
		u, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return num{}, err
		}
		if dtype != "uint64" {
			return num{I: int64(u)}, nil
		}
		return num{U: u}, nil
	}
	i, err := strconv.ParseInt(s, 10, 64)
	return num{I: i}, err
}

// numAt reads value i of a raw buffer of type dt.
func numAt(b []byte, dt arrow.DataType, i int64) num { return num(textparse.ValueAt(b, dt, i)) }

func shapeEqual(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if a[k] != b[k] {
			return false
		}
	}
	return true
}

// item is an entry for comparison.
type item struct {
	c []int64
	v num
}

// key orders values within a group of equal coordinates.
func (n num) key() uint64 {
	switch {
	case n.Float:
		return math.Float64bits(n.F)
	case n.U != 0:
		return n.U
	}
	return uint64(n.I) ^ 1<<63
}

func sortItems(its []item) {
	sort.Slice(its, func(a, b int) bool {
		x, y := its[a], its[b]
		for k := range x.c {
			if x.c[k] != y.c[k] {
				return x.c[k] < y.c[k]
			}
		}
		return x.v.key() < y.v.key()
	})
}

// itemsOf returns the entries of a COO tensor.
func itemsOf(t *coo.Tensor) []item {
	n, nd := t.NNZ(), t.NumDims()
	its := make([]item, n)
	var vb []byte
	if n > 0 {
		vb = t.ValuesBuffer().Bytes()
	}
	for i := range n {
		c := make([]int64, nd)
		for k := range c {
			c[k] = t.Coord(i, k)
		}
		its[i] = item{c: c, v: numAt(vb, t.DataType(), i)}
	}
	sortItems(its)
	return its
}

// compareCOO compares a COO tensor with a sidecar.
func compareCOO(_ memory.Allocator, t *coo.Tensor, sc Sidecar) error {
	if !shapeEqual(t.Shape(), sc.Shape) {
		return fmt.Errorf("shape %v, want %v", t.Shape(), sc.Shape)
	}
	if err := t.Validate(); err != nil {
		return fmt.Errorf("invalid tensor: %w", err)
	}
	if t.NNZ() != int64(len(sc.Entries)) {
		return fmt.Errorf("%d entries, want %d", t.NNZ(), len(sc.Entries))
	}
	nd := t.NumDims()
	want := make([]item, len(sc.Entries))
	for i, e := range sc.Entries {
		if len(e) != nd+1 {
			return fmt.Errorf("sidecar entry %d has %d fields", i, len(e))
		}
		c := make([]int64, nd)
		for k := range c {
			x, err := strconv.ParseInt(e[k], 10, 64)
			if err != nil {
				return err
			}
			c[k] = x
		}
		v, err := parseNum(e[nd], sc.DType)
		if err != nil {
			return err
		}
		want[i] = item{c: c, v: v}
	}
	sortItems(want)
	got := itemsOf(t)
	for i := range got {
		if !shapeEqual(got[i].c, want[i].c) || !got[i].v.equal(want[i].v) {
			return fmt.Errorf("entry %d: %v = %v, want %v = %v", i, got[i].c, got[i].v, want[i].c, want[i].v)
		}
	}
	return nil
}

// compareDense compares a dense matrix with a sidecar.
func compareDense(v *views.View, sc Sidecar) error {
	shape := v.Shape()
	if !shapeEqual(shape, sc.Shape) {
		return fmt.Errorf("shape %v, want %v", shape, sc.Shape)
	}
	if int64(len(sc.Dense)) != shape[0]*shape[1] {
		return fmt.Errorf("sidecar has %d values for shape %v", len(sc.Dense), shape)
	}
	b := v.Buffer().Bytes()
	for i := range shape[0] {
		for j := range shape[1] {
			want, err := parseNum(sc.Dense[i*shape[1]+j], sc.DType)
			if err != nil {
				return err
			}
			got := numAt(b, v.DataType(), v.Offset(i, j))
			if got.Float && got.F == 0 && want.F == 0 {
				continue // -0 and 0: see the package doc
			}
			if !got.equal(want) {
				return fmt.Errorf("element (%d, %d): %v, want %v", i, j, got, want)
			}
		}
	}
	return nil
}

// EntriesOf returns the sidecar entries of a COO tensor.
func EntriesOf(t *coo.Tensor) [][]string {
	its := itemsOf(t)
	out := make([][]string, len(its))
	for i, it := range its {
		e := make([]string, 0, len(it.c)+1)
		for _, c := range it.c {
			e = append(e, strconv.FormatInt(c, 10))
		}
		out[i] = append(e, numText(it.v))
	}
	return out
}

// DenseOf returns the sidecar values of a dense matrix, row-major.
func DenseOf(d arrowsparse.Dense) []string {
	shape := d.Shape()
	st := d.ElemStrides()
	b := d.Buffer().Bytes()
	out := make([]string, 0, shape[0]*shape[1])
	for i := range shape[0] {
		for j := range shape[1] {
			out = append(out, numText(numAt(b, d.DataType(), d.ElemOffset()+i*st[0]+j*st[1])))
		}
	}
	return out
}

func numText(n num) string {
	if n.Float {
		switch {
		case n.F != n.F:
			return "nan"
		case math.IsInf(n.F, 1):
			return "inf"
		case math.IsInf(n.F, -1):
			return "-inf"
		}
	}
	return n.String()
}
