package arrowext

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// The extension names of the sparse tensor types (SPARSE.md): one name
// per storage format. They do not use Arrow's reserved "arrow." prefix.
const (
	SparseCOOName = "arrowsparse.coo"
	SparseCSRName = "arrowsparse.csr"
	SparseCSCName = "arrowsparse.csc"
	SparseCSFName = "arrowsparse.csf"
	SparseGCSName = "arrowsparse.gcs"
)

// sparseFormats are the formats of the sparse types, in the order of their
// names.
var sparseFormats = []arrowsparse.Format{arrowsparse.FormatCOO, arrowsparse.FormatCSR, arrowsparse.FormatCSC, arrowsparse.FormatCSF, arrowsparse.FormatGCS}

// sparseName returns the extension name of a sparse format, or "".
func sparseName(f arrowsparse.Format) string {
	switch f {
	case arrowsparse.FormatCOO:
		return SparseCOOName
	case arrowsparse.FormatCSR:
		return SparseCSRName
	case arrowsparse.FormatCSC:
		return SparseCSCName
	case arrowsparse.FormatCSF:
		return SparseCSFName
	case arrowsparse.FormatGCS:
		return SparseGCSName
	}
	return ""
}

// minDims is the smallest number of dimensions of each format.
func minDims(f arrowsparse.Format) int {
	switch f {
	case arrowsparse.FormatCSR, arrowsparse.FormatCSC, arrowsparse.FormatCSF:
		return 2
	}
	return 1
}

// sparseArrayNames returns the names of a format's list fields (without
// "shape"), in storage order. ndim must be bounded by the caller (for CSF
// it is the length of the axis order).
func sparseArrayNames(f arrowsparse.Format, ndim int) []string {
	switch f {
	case arrowsparse.FormatCOO:
		return []string{"indices", "values"}
	case arrowsparse.FormatCSF:
		names := make([]string, 0, 2*ndim)
		names = append(names, "indices_0")
		for l := 1; l < ndim; l++ {
			s := strconv.Itoa(l)
			names = append(names, "pointers_to_"+s, "indices_"+s)
		}
		return append(names, "values")
	}
	return []string{"pointers_to_1", "indices_1", "values"}
}

// typeNames maps the spec's type names to Arrow types.
var typeNames = map[string]arrow.DataType{
	"int8":    arrow.PrimitiveTypes.Int8,
	"int16":   arrow.PrimitiveTypes.Int16,
	"int32":   arrow.PrimitiveTypes.Int32,
	"int64":   arrow.PrimitiveTypes.Int64,
	"uint8":   arrow.PrimitiveTypes.Uint8,
	"uint16":  arrow.PrimitiveTypes.Uint16,
	"uint32":  arrow.PrimitiveTypes.Uint32,
	"uint64":  arrow.PrimitiveTypes.Uint64,
	"float16": arrow.FixedWidthTypes.Float16,
	"float32": arrow.PrimitiveTypes.Float32,
	"float64": arrow.PrimitiveTypes.Float64,
}

// typeName returns the spec's name of a value or index type ("int8" …
// "float64"), or "" for another type.
func typeName(dt arrow.DataType) string {
	if dt == nil {
		return ""
	}
	name := dt.String()
	if want, ok := typeNames[name]; ok && arrow.TypeEqual(want, dt) {
		return name
	}
	return ""
}

// SparseTensorParams are the parameters of a sparse tensor type, for
// NewSparseTensorType. The zero values of the optional fields give the
// defaults of SPARSE.md, those of the Python package's constructors.
type SparseTensorParams struct {
	// Format is the storage format of every row: arrowsparse.FormatCOO,
	// FormatCSR, FormatCSC, FormatCSF or FormatGCS.
	Format arrowsparse.Format
	// ValueType is the type of the stored values, a tensor value type
	// (int8…int64, uint8…uint64, float16, float32, float64).
	ValueType arrow.DataType
	// Shape is the shape of every row, with VariableDim for a dimension
	// whose size varies between rows. Nil means that every dimension varies
	// and NDim gives their number. A type with a varying dimension stores
	// each row's shape in its storage's "shape" field.
	Shape []int64
	// NDim is the number of dimensions when Shape is nil; for CSR and CSC it
	// may be left 0 (it is 2).
	NDim int
	// DimNames names the dimensions: nil, or one valid UTF-8 string per
	// dimension.
	DimNames []string
	// IndexType is the type of the index arrays: COO's indices, indices_1 of
	// CSR, CSC and GCS, every indices_l of CSF. Nil means int64. Index types
	// are int8…int64 and uint8…uint32.
	IndexType arrow.DataType
	// IndptrType is the type of the pointer arrays (pointers_to_l). Nil
	// means IndexType.
	IndptrType arrow.DataType
	// LevelIndexTypes (N entries) and LevelIndptrTypes (N-1 entries) give a
	// CSF type one type per level, overriding IndexType and IndptrType.
	LevelIndexTypes, LevelIndptrTypes []arrow.DataType
	// Canonical claims that every row is canonical: COO entries sorted
	// lexicographically without duplicates, CSR, CSC and GCS indices
	// strictly increasing within every lane. Readers verify the claim unless
	// told to trust it. CSF rows are always canonical and take no claim.
	Canonical bool
	// AxisOrder is the level order of a CSF type: level l holds dimension
	// AxisOrder[l]. Nil means the identity.
	AxisOrder []int
	// Dimensions, Partitioning and CompressedAxis are the reduction of a GCS
	// type (SPARSE.md 3.5): Dimensions[:Partitioning] are linearised into
	// the rows of the stored matrix and Dimensions[Partitioning:] into its
	// columns, which is stored as CSR (gcs.Rows) or CSC (gcs.Cols). Nil
	// Dimensions means the identity with partitioning 1 (0 for a 1-d
	// tensor), and Partitioning must then be 0.
	Dimensions     []int
	Partitioning   int
	CompressedAxis gcs.Axis
	// LargeLists stores every list field as a LargeList (64-bit offsets).
	// Columns built by this package use Lists unless a field's elements
	// exceed 2^31-1.
	LargeLists bool
	// BinsparseVersion, when not empty, is written as the metadata's
	// {"binsparse": {"version": …}}.
	BinsparseVersion string
}

// sparseMeta is a checked, normalised set of parameters.
type sparseMeta struct {
	format       arrowsparse.Format
	ndim         int
	shape        []int64 // nil when every dimension varies; else ndim entries, VariableDim for varying ones
	names        []string
	canonical    bool
	arrays       []string         // array names, storage order
	types        []arrow.DataType // element type of each array (COO indices: the index type)
	axisOrder    []int            // CSF
	dims         []int            // GCS
	part         int              // GCS
	axis         gcs.Axis         // GCS
	binsparse    string
	hasBinsparse bool
}

// varying reports whether some dimension varies (the storage has a shape
// field).
func (m *sparseMeta) varying() bool {
	return m.shape == nil || slices.Contains(m.shape, VariableDim)
}

// arrayIndex returns the position of array name, or -1.
func (m *sparseMeta) arrayIndex(name string) int { return slices.Index(m.arrays, name) }

// check checks the parameters against each other, as a reader checks the
// metadata alone.
func (m *sparseMeta) check() error {
	name := sparseName(m.format)
	if name == "" {
		return core.Errorf(arrowsparse.ErrUnsupportedType, "arrowext: %s is not a sparse format of the extension types (COO, CSR, CSC, CSF, GCS)", m.format)
	}
	nd := m.ndim
	if (m.format == arrowsparse.FormatCSR || m.format == arrowsparse.FormatCSC) && nd != 2 {
		return core.Errorf(arrowsparse.ErrShape, "%s: a %s matrix has 2 dimensions, not %d", name, m.format, nd)
	}
	if nd < minDims(m.format) || nd > math.MaxInt32 {
		return core.Errorf(arrowsparse.ErrShape, "%s: %d dimensions; the format needs at least %d", name, nd, minDims(m.format))
	}
	if m.shape != nil {
		if len(m.shape) != nd {
			return core.Errorf(arrowsparse.ErrShape, "%s: shape %s has %d entries for %d dimensions", name, uniformText(m.shape), len(m.shape), nd)
		}
		for i, d := range m.shape {
			if d < VariableDim {
				return core.Errorf(arrowsparse.ErrShape, "%s: shape entry %d is %d, not a size", name, i, d)
			}
		}
	}
	if err := checkNames(name, m.names, nd); err != nil {
		return err
	}
	if len(m.types) != len(m.arrays) {
		return core.Errorf(arrowsparse.ErrStructure, "%s: %d array types for %d arrays", name, len(m.types), len(m.arrays))
	}
	for i, a := range m.arrays {
		if a == "values" {
			if err := core.CheckValueType(m.types[i]); err != nil {
				return core.Errorf(arrowsparse.ErrUnsupportedType, "%s: values: %w", name, err)
			}
		} else if err := core.CheckIndexType(m.types[i]); err != nil {
			return core.Errorf(arrowsparse.ErrUnsupportedType, "%s: %s: %w", name, a, err)
		}
	}
	switch m.format {
	case arrowsparse.FormatCSF:
		if m.canonical {
			return core.Errorf(arrowsparse.ErrStructure, "%s: CSF rows are always canonical; the canonical key is not used", name)
		}
		if err := core.CheckPermutation(m.axisOrder, nd, name+" axis_order"); err != nil {
			return err
		}
	case arrowsparse.FormatGCS:
		if err := core.CheckPermutation(m.dims, nd, name+" dimensions"); err != nil {
			return err
		}
		if m.part < 0 || m.part > nd {
			return core.Errorf(arrowsparse.ErrStructure, "%s: partitioning %d is outside [0, %d]", name, m.part, nd)
		}
		if m.axis != gcs.Rows && m.axis != gcs.Cols {
			return core.Errorf(arrowsparse.ErrStructure, "%s: compressed axis %d is neither rows nor columns", name, m.axis)
		}
	}
	if m.shape != nil && !m.varying() {
		return m.checkRowShape(m.shape, "shape")
	}
	return nil
}

// checkRowShape checks one row's shape against the type: non-negative,
// equal to the fixed entries, and with the counts the format needs
// fitting int64. what names the shape for messages.
func (m *sparseMeta) checkRowShape(shape []int64, what string) error {
	name := sparseName(m.format)
	for i, d := range shape {
		if d < 0 {
			return core.Errorf(arrowsparse.ErrShape, "%s: %s %v has the negative dimension %d", name, what, shape, d)
		}
		if m.shape != nil && m.shape[i] != VariableDim && m.shape[i] != d {
			return core.Errorf(arrowsparse.ErrShape, "%s: %s %v disagrees with the type's shape %s in dimension %d", name, what, shape, uniformText(m.shape), i)
		}
	}
	switch m.format {
	case arrowsparse.FormatCSR, arrowsparse.FormatCSC:
		if slices.Max(shape) == math.MaxInt64 {
			return core.Errorf(arrowsparse.ErrOverflow, "%s: %s %v needs more than 2^63-1 pointers", name, what, shape)
		}
	case arrowsparse.FormatGCS:
		rows, cols, ok := m.reduced(shape)
		if !ok || rows == math.MaxInt64 || cols == math.MaxInt64 {
			return core.Errorf(arrowsparse.ErrOverflow, "%s: %s %v reduces to a matrix whose sizes overflow int64", name, what, shape)
		}
	}
	return nil
}

// reduced returns the sizes of a GCS row's reduced matrix, and false if
// one overflows int64.
func (m *sparseMeta) reduced(shape []int64) (rows, cols int64, ok bool) {
	rows, cols = 1, 1
	for i, a := range m.dims {
		if shape[a] == 0 {
			if i < m.part {
				rows = 0
			} else {
				cols = 0
			}
		}
	}
	for i, a := range m.dims {
		if (i < m.part && rows == 0) || (i >= m.part && cols == 0) {
			continue
		}
		var fine bool
		if i < m.part {
			rows, fine = core.MulInt64(rows, shape[a])
		} else {
			cols, fine = core.MulInt64(cols, shape[a])
		}
		if !fine {
			return 0, 0, false
		}
	}
	return rows, cols, true
}

// serialize writes the metadata as the Python package writes it: compact
// JSON, keys in the order of SPARSE.md 2.3, optional keys left out when
// they have their default.
func (m *sparseMeta) serialize() string {
	var b bytes.Buffer
	b.WriteString(`{"format":`)
	pyJSONString(&b, m.format.String())
	if m.shape != nil && slices.ContainsFunc(m.shape, func(d int64) bool { return d != VariableDim }) {
		b.WriteString(`,"shape":`)
		b.WriteString(uniformText(m.shape))
	} else {
		b.WriteString(`,"ndim":`)
		b.WriteString(strconv.Itoa(m.ndim))
	}
	if m.names != nil {
		b.WriteString(`,"dim_names":[`)
		for i, n := range m.names {
			if i > 0 {
				b.WriteByte(',')
			}
			pyJSONString(&b, n)
		}
		b.WriteByte(']')
	}
	if m.canonical {
		b.WriteString(`,"canonical":true`)
	}
	b.WriteString(`,"data_types":{`)
	for i, a := range m.arrays {
		if i > 0 {
			b.WriteByte(',')
		}
		pyJSONString(&b, a)
		b.WriteByte(':')
		pyJSONString(&b, typeName(m.types[i]))
	}
	b.WriteByte('}')
	switch m.format {
	case arrowsparse.FormatCSF:
		b.WriteString(`,"axis_order":`)
		b.WriteString(intsText(m.axisOrder))
	case arrowsparse.FormatGCS:
		b.WriteString(`,"dimensions":`)
		b.WriteString(intsText(m.dims))
		b.WriteString(`,"partitioning":`)
		b.WriteString(strconv.Itoa(m.part))
		b.WriteString(`,"compressed_axis":`)
		if m.axis == gcs.Cols {
			b.WriteString(`"column"`)
		} else {
			b.WriteString(`"row"`)
		}
	}
	if m.hasBinsparse {
		b.WriteString(`,"binsparse":{"version":`)
		pyJSONString(&b, m.binsparse)
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return b.String()
}

// The keys of the metadata: common to every format, and per format.
var (
	sparseKeyOrder  = []string{"format", "shape", "ndim", "dim_names", "canonical", "data_types", "axis_order", "dimensions", "partitioning", "compressed_axis", "binsparse"}
	sparseCommonKey = map[string]bool{"format": true, "shape": true, "ndim": true, "dim_names": true, "data_types": true, "binsparse": true}
)

func formatKey(f arrowsparse.Format, key string) bool {
	switch key {
	case "canonical":
		return f != arrowsparse.FormatCSF
	case "axis_order":
		return f == arrowsparse.FormatCSF
	case "dimensions", "partitioning", "compressed_axis":
		return f == arrowsparse.FormatGCS
	}
	return sparseCommonKey[key]
}

// parseSparseMeta reads the metadata of the sparse type of format f, with
// every check of SPARSE.md 2.3 that needs no storage.
func parseSparseMeta(f arrowsparse.Format, data string) (*sparseMeta, error) {
	name := sparseName(f)
	doc, err := parseJSONDoc(name, data)
	if err != nil {
		return nil, err
	}
	obj, ok := doc.(*jsonObject)
	if !ok {
		return nil, core.Errorf(arrowsparse.ErrStructure, "%s: the metadata is not a JSON object", name)
	}
	for _, k := range obj.keys {
		if !formatKey(f, k) {
			why := ""
			if slices.Contains(sparseKeyOrder, k) {
				why = " (it belongs to another format)"
			}
			return nil, core.Errorf(arrowsparse.ErrStructure, "%s: unknown metadata key %q%s", name, k, why)
		}
	}
	bad := func(key string, v any, want string) error {
		return core.Errorf(arrowsparse.ErrStructure, "%s: metadata %s is %s, not %s", name, key, describeJSON(v), want)
	}
	v, ok := obj.get("format")
	if !ok {
		return nil, core.Errorf(arrowsparse.ErrStructure, "%s: the metadata has no \"format\"", name)
	}
	if s, _ := v.(string); s != f.String() {
		return nil, core.Errorf(arrowsparse.ErrStructure, "%s: metadata format is %s, want %q", name, describeJSON(v), f.String())
	}
	m := &sparseMeta{format: f}
	shapeKey := false
	if v, ok := obj.get("shape"); ok {
		list, isList := v.([]any)
		if !isList {
			return nil, bad("shape", v, "a list")
		}
		m.shape = make([]int64, len(list))
		for i, e := range list {
			if e == nil {
				m.shape[i] = VariableDim
				continue
			}
			x, ok := jsonInt(e)
			if !ok {
				return nil, bad(fmt.Sprintf("shape entry %d", i), e, "an integer in [0, 2^63-1] or null")
			}
			m.shape[i] = x
		}
		m.ndim = len(list)
		shapeKey = true
	}
	if v, ok := obj.get("ndim"); ok {
		x, ok := jsonInt(v)
		if !ok || x > math.MaxInt32 {
			return nil, bad("ndim", v, "an integer in [0, 2^31-1]")
		}
		if shapeKey && int64(len(m.shape)) != x {
			return nil, core.Errorf(arrowsparse.ErrShape, "%s: ndim %d disagrees with shape %s", name, x, uniformText(m.shape))
		}
		m.ndim = int(x)
	} else if !shapeKey {
		return nil, core.Errorf(arrowsparse.ErrStructure, "%s: the metadata has neither \"shape\" nor \"ndim\"", name)
	}
	if m.shape != nil && !slices.ContainsFunc(m.shape, func(d int64) bool { return d != VariableDim }) {
		m.shape = nil // every dimension varies
	}
	if v, ok := obj.get("dim_names"); ok {
		list, isList := v.([]any)
		if !isList {
			return nil, bad("dim_names", v, "a list of strings")
		}
		m.names = make([]string, len(list))
		for i, e := range list {
			s, ok := e.(string)
			if !ok {
				return nil, bad("dim_names", v, "a list of strings")
			}
			m.names[i] = s
		}
	}
	if v, ok := obj.get("canonical"); ok {
		b, isBool := v.(bool)
		if !isBool {
			return nil, bad("canonical", v, "true or false")
		}
		m.canonical = b
	}
	ints := func(key string) ([]int, bool, error) {
		v, ok := obj.get(key)
		if !ok {
			return nil, false, nil
		}
		list, isList := v.([]any)
		if !isList {
			return nil, true, bad(key, v, "a list of integers")
		}
		out := make([]int, len(list))
		for i, e := range list {
			x, ok := jsonInt(e)
			if !ok || x > math.MaxInt32 {
				return nil, true, bad(fmt.Sprintf("%s entry %d", key, i), e, "an integer in [0, 2^31-1]")
			}
			out[i] = int(x)
		}
		return out, true, nil
	}
	var has bool
	switch f {
	case arrowsparse.FormatCSF:
		if m.axisOrder, has, err = ints("axis_order"); err != nil {
			return nil, err
		}
		if !has {
			return nil, core.Errorf(arrowsparse.ErrStructure, "%s: the metadata has no \"axis_order\"", name)
		}
		if len(m.axisOrder) != m.ndim {
			return nil, core.Errorf(arrowsparse.ErrStructure, "%s: axis_order %s has %d entries for %d dimensions", name, intsText(m.axisOrder), len(m.axisOrder), m.ndim)
		}
	case arrowsparse.FormatGCS:
		if m.dims, has, err = ints("dimensions"); err != nil {
			return nil, err
		}
		if !has {
			return nil, core.Errorf(arrowsparse.ErrStructure, "%s: the metadata has no \"dimensions\"", name)
		}
		if len(m.dims) != m.ndim {
			return nil, core.Errorf(arrowsparse.ErrStructure, "%s: dimensions %s has %d entries for %d dimensions", name, intsText(m.dims), len(m.dims), m.ndim)
		}
		v, ok := obj.get("partitioning")
		if !ok {
			return nil, core.Errorf(arrowsparse.ErrStructure, "%s: the metadata has no \"partitioning\"", name)
		}
		p, isInt := jsonInt(v)
		if !isInt || p > math.MaxInt32 {
			return nil, bad("partitioning", v, "an integer")
		}
		m.part = int(p)
		v, ok = obj.get("compressed_axis")
		if !ok {
			return nil, core.Errorf(arrowsparse.ErrStructure, "%s: the metadata has no \"compressed_axis\"", name)
		}
		switch v {
		case "row":
			m.axis = gcs.Rows
		case "column":
			m.axis = gcs.Cols
		default:
			return nil, bad("compressed_axis", v, `"row" or "column"`)
		}
	}
	if v, ok := obj.get("binsparse"); ok {
		o, isObj := v.(*jsonObject)
		var ver any
		if isObj && len(o.keys) == 1 {
			ver, _ = o.get("version")
		}
		s, isStr := ver.(string)
		if !isStr {
			return nil, bad("binsparse", v, `{"version": "…"}`)
		}
		m.binsparse, m.hasBinsparse = s, true
	}
	// data_types: exactly the format's arrays.
	v, ok = obj.get("data_types")
	if !ok {
		return nil, core.Errorf(arrowsparse.ErrStructure, "%s: the metadata has no \"data_types\"", name)
	}
	dt, isObj := v.(*jsonObject)
	if !isObj {
		return nil, bad("data_types", v, "an object of type names")
	}
	if m.ndim < minDims(f) {
		return nil, core.Errorf(arrowsparse.ErrShape, "%s: %d dimensions; the format needs at least %d", name, m.ndim, minDims(f))
	}
	if (f == arrowsparse.FormatCSR || f == arrowsparse.FormatCSC) && m.ndim != 2 {
		return nil, core.Errorf(arrowsparse.ErrShape, "%s: a %s matrix has 2 dimensions, not %d", name, f, m.ndim)
	}
	m.arrays = sparseArrayNames(f, m.ndim) // ndim is bounded: see above
	m.types = make([]arrow.DataType, len(m.arrays))
	for i, k := range dt.keys {
		j := m.arrayIndex(k)
		if j < 0 {
			return nil, core.Errorf(arrowsparse.ErrStructure, "%s: data_types names the unknown array %q (the arrays are %s)", name, k, strings.Join(m.arrays, ", "))
		}
		s, isStr := dt.vals[i].(string)
		t := typeNames[s]
		if !isStr || t == nil {
			return nil, bad("data_types "+strconv.Quote(k), dt.vals[i], "a type name (int8…int64, uint8…uint64, float16, float32, float64)")
		}
		m.types[j] = t
	}
	for j, t := range m.types {
		if t == nil {
			return nil, core.Errorf(arrowsparse.ErrStructure, "%s: data_types has no entry for the array %q", name, m.arrays[j])
		}
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	return m, nil
}

// metaFromParams checks a caller's parameters and normalises them.
func metaFromParams(p SparseTensorParams) (*sparseMeta, error) {
	name := sparseName(p.Format)
	if name == "" {
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "arrowext: %s is not a sparse format of the extension types (COO, CSR, CSC, CSF, GCS)", p.Format)
	}
	m := &sparseMeta{format: p.Format, canonical: p.Canonical, names: slices.Clone(p.DimNames)}
	nd := p.NDim
	if p.Shape != nil {
		if nd != 0 && nd != len(p.Shape) {
			return nil, core.Errorf(arrowsparse.ErrShape, "%s: NDim %d disagrees with shape %s", name, nd, uniformText(p.Shape))
		}
		nd = len(p.Shape)
		if slices.ContainsFunc(p.Shape, func(d int64) bool { return d != VariableDim }) {
			m.shape = slices.Clone(p.Shape)
		}
	} else if nd == 0 && (p.Format == arrowsparse.FormatCSR || p.Format == arrowsparse.FormatCSC) {
		nd = 2
	}
	if nd < minDims(p.Format) || nd > math.MaxInt32 {
		return nil, core.Errorf(arrowsparse.ErrShape, "%s: %d dimensions; the format needs at least %d", name, nd, minDims(p.Format))
	}
	m.ndim = nd
	m.arrays = sparseArrayNames(p.Format, nd)
	m.types = make([]arrow.DataType, len(m.arrays))
	it := p.IndexType
	if it == nil {
		it = arrow.PrimitiveTypes.Int64
	}
	pt := p.IndptrType
	if pt == nil {
		pt = it
	}
	if p.Format != arrowsparse.FormatCSF && (p.LevelIndexTypes != nil || p.LevelIndptrTypes != nil) {
		return nil, core.Errorf(arrowsparse.ErrStructure, "%s: per-level index types are for CSF", name)
	}
	if p.LevelIndexTypes != nil && len(p.LevelIndexTypes) != nd {
		return nil, core.Errorf(arrowsparse.ErrStructure, "%s: %d level index types for %d levels", name, len(p.LevelIndexTypes), nd)
	}
	if p.LevelIndptrTypes != nil && len(p.LevelIndptrTypes) != nd-1 {
		return nil, core.Errorf(arrowsparse.ErrStructure, "%s: %d level indptr types for %d levels below the root", name, len(p.LevelIndptrTypes), nd-1)
	}
	for i, a := range m.arrays {
		switch {
		case a == "values":
			m.types[i] = p.ValueType
		case strings.HasPrefix(a, "pointers_to_"):
			m.types[i] = pt
			if p.LevelIndptrTypes != nil {
				l, _ := strconv.Atoi(a[len("pointers_to_"):])
				m.types[i] = p.LevelIndptrTypes[l-1]
			}
		default:
			m.types[i] = it
			if p.LevelIndexTypes != nil {
				l, _ := strconv.Atoi(a[len("indices_"):])
				m.types[i] = p.LevelIndexTypes[l]
			}
		}
		if m.types[i] == nil {
			return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "%s: no type for the array %s", name, a)
		}
	}
	switch p.Format {
	case arrowsparse.FormatCSF:
		m.axisOrder = slices.Clone(p.AxisOrder)
		if m.axisOrder == nil {
			m.axisOrder = identityOrder(nd)
		}
	case arrowsparse.FormatGCS:
		m.dims, m.part, m.axis = slices.Clone(p.Dimensions), p.Partitioning, p.CompressedAxis
		if m.dims == nil {
			if p.Partitioning != 0 {
				return nil, core.Errorf(arrowsparse.ErrStructure, "%s: a partitioning needs its dimensions", name)
			}
			m.dims = identityOrder(nd)
			m.part = min(1, nd-1)
		}
	default:
		if p.AxisOrder != nil {
			return nil, core.Errorf(arrowsparse.ErrStructure, "%s: an axis order is for CSF", name)
		}
		if p.Dimensions != nil || p.Partitioning != 0 || p.CompressedAxis != gcs.Rows {
			return nil, core.Errorf(arrowsparse.ErrStructure, "%s: dimensions, partitioning and compressed axis are for GCS", name)
		}
	}
	if p.BinsparseVersion != "" {
		m.binsparse, m.hasBinsparse = p.BinsparseVersion, true
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	return m, nil
}

// storageType returns the storage type of the parameters, with the field
// names and nullability the Python package gives it, and LargeLists for
// the arrays large says.
func (m *sparseMeta) storageType(large []bool) arrow.DataType {
	fields := make([]arrow.Field, 0, len(m.arrays)+1)
	if m.varying() {
		fields = append(fields, arrow.Field{Name: "shape", Type: arrow.FixedSizeListOf(int32(m.ndim), arrow.PrimitiveTypes.Int64), Nullable: true})
	}
	for i, a := range m.arrays {
		elem := m.types[i]
		if m.format == arrowsparse.FormatCOO && a == "indices" {
			elem = arrow.FixedSizeListOf(int32(m.ndim), elem)
		}
		var lt arrow.DataType = arrow.ListOf(elem)
		if large != nil && large[i] {
			lt = arrow.LargeListOf(elem)
		}
		fields = append(fields, arrow.Field{Name: a, Type: lt, Nullable: true})
	}
	return arrow.StructOf(fields...)
}

// SparseTensorType is one of the sparse tensor extension types of
// SPARSE.md: arrowsparse.coo, arrowsparse.csr, arrowsparse.csc,
// arrowsparse.csf and arrowsparse.gcs, one name per storage format. A
// column of it holds one sparse tensor per row, or null.
//
// The storage is a Struct of Lists named after the binsparse arrays: for
// COO, indices (a List of FixedSizeList<index>[ndim], the row-major
// coordinate matrix) and values; for CSR, CSC and GCS, pointers_to_1,
// indices_1 and values; for CSF, indices_0, then pointers_to_l and
// indices_l for each level l ≥ 1, and values. When some dimension varies
// between rows, a first field shape (FixedSizeList<int64>[ndim]) holds each
// row's shape. The metadata is a JSON object modelled on the binsparse
// descriptor: format, shape or ndim, dim_names, canonical, data_types, and
// axis_order (CSF) or dimensions, partitioning and compressed_axis (GCS).
//
// A SparseTensorType is immutable; its methods may be called from any
// number of goroutines.
type SparseTensorType struct {
	arrow.ExtensionBase

	meta       *sparseMeta
	fields     []int  // storage field of each array
	shapeField int    // storage field of "shape", or -1
	large      []bool // whether each array's field is a LargeList
	serialized string
}

var _ arrow.ExtensionType = (*SparseTensorType)(nil)

// NewSparseTensorType returns the sparse tensor type of the given
// parameters, with the storage this package and the Python package write
// (Lists, or LargeLists under LargeLists; fields nullable). Parameters that
// SPARSE.md does not allow (a format other than the five, a CSR or CSC of
// other than 2 dimensions, a value or index type outside the allowed ones,
// names that are not one valid UTF-8 string per dimension, an axis order or
// dimensions that are not a permutation, a partitioning outside [0, ndim],
// a canonical claim for CSF, a fixed shape whose counts overflow) are
// errors wrapping arrow.ErrInvalid or, for types, arrow.ErrType.
func NewSparseTensorType(p SparseTensorParams) (*SparseTensorType, error) {
	m, err := metaFromParams(p)
	if err != nil {
		return nil, err
	}
	large := make([]bool, len(m.arrays))
	for i := range large {
		large[i] = p.LargeLists
	}
	return newSparseType(m, m.storageType(large))
}

// newSparseType checks a storage type against checked parameters (SPARSE.md
// 2.2): a Struct with exactly the format's fields, each of the right type
// and agreeing with data_types.
func newSparseType(m *sparseMeta, storage arrow.DataType) (*SparseTensorType, error) {
	name := sparseName(m.format)
	st, ok := storage.(*arrow.StructType)
	if !ok {
		return nil, core.Errorf(arrowsparse.ErrStructure, "%s: the storage is %s, not a struct", name, storage)
	}
	t := &SparseTensorType{
		ExtensionBase: arrow.ExtensionBase{Storage: storage},
		meta:          m,
		fields:        make([]int, len(m.arrays)),
		shapeField:    -1,
		large:         make([]bool, len(m.arrays)),
	}
	for i := range t.fields {
		t.fields[i] = -1
	}
	varying := m.varying()
	var missing, extra []string
	for k, f := range st.Fields() {
		j := m.arrayIndex(f.Name)
		switch {
		case f.Name == "shape" && varying:
			if t.shapeField >= 0 {
				return nil, core.Errorf(arrowsparse.ErrStructure, "%s: the storage has two fields named %q", name, f.Name)
			}
			t.shapeField = k
		case j >= 0:
			if t.fields[j] >= 0 {
				return nil, core.Errorf(arrowsparse.ErrStructure, "%s: the storage has two fields named %q", name, f.Name)
			}
			t.fields[j] = k
		default:
			extra = append(extra, f.Name)
		}
	}
	if varying && t.shapeField < 0 {
		missing = append(missing, "shape")
	}
	for j, k := range t.fields {
		if k < 0 {
			missing = append(missing, m.arrays[j])
		}
	}
	if missing != nil || extra != nil {
		var why strings.Builder
		if missing != nil {
			fmt.Fprintf(&why, "; missing %s", strings.Join(missing, ", "))
		}
		if extra != nil {
			fmt.Fprintf(&why, "; extra %s", strings.Join(extra, ", "))
		}
		switch {
		case slices.Contains(missing, "shape"):
			why.WriteString(" (the type's shape varies, so the storage needs a shape field)")
		case slices.Contains(extra, "shape"):
			why.WriteString(" (the type's shape is fixed, so the storage has no shape field)")
		}
		return nil, core.Errorf(arrowsparse.ErrStructure, "%s: the storage's fields do not match the format's%s", name, why.String())
	}
	if t.shapeField >= 0 {
		ft := st.Field(t.shapeField).Type
		fsl, ok := ft.(*arrow.FixedSizeListType)
		if !ok || int(fsl.Len()) != m.ndim || fsl.Elem().ID() != arrow.INT64 {
			return nil, core.Errorf(arrowsparse.ErrStructure, "%s: storage field shape is %s, want fixed_size_list<int64>[%d]", name, ft, m.ndim)
		}
	}
	for j, a := range m.arrays {
		ft := st.Field(t.fields[j]).Type
		var elem arrow.DataType
		switch lt := ft.(type) {
		case *arrow.ListType:
			elem = lt.Elem()
		case *arrow.LargeListType:
			elem = lt.Elem()
			t.large[j] = true
		default:
			return nil, core.Errorf(arrowsparse.ErrStructure, "%s: storage field %s is %s, not a list or large_list", name, a, ft)
		}
		if m.format == arrowsparse.FormatCOO && a == "indices" {
			fsl, ok := elem.(*arrow.FixedSizeListType)
			if !ok || int(fsl.Len()) != m.ndim {
				return nil, core.Errorf(arrowsparse.ErrStructure, "%s: storage field indices is %s, want a list of fixed_size_list<I>[%d]", name, ft, m.ndim)
			}
			elem = fsl.Elem()
		}
		if typeName(elem) != typeName(m.types[j]) {
			return nil, core.Errorf(arrowsparse.ErrStructure, "%s: data_types says %s is %s, but the storage holds %s", name, a, typeName(m.types[j]), elem)
		}
	}
	t.serialized = m.serialize()
	return t, nil
}

// ArrayType returns the type of SparseTensorArray, for arrow-go.
func (*SparseTensorType) ArrayType() reflect.Type { return reflect.TypeOf(SparseTensorArray{}) }

// ExtensionName returns the type's name, such as "arrowsparse.coo".
func (t *SparseTensorType) ExtensionName() string { return sparseName(t.meta.format) }

// Format returns the storage format of the rows.
func (t *SparseTensorType) Format() arrowsparse.Format { return t.meta.format }

// ValueType returns the type of the stored values.
func (t *SparseTensorType) ValueType() arrow.DataType {
	return t.meta.types[len(t.meta.types)-1]
}

// NumDims returns the number of dimensions of every row.
func (t *SparseTensorType) NumDims() int { return t.meta.ndim }

// Shape returns a copy of the shape of every row, VariableDim for the
// dimensions that vary between rows.
func (t *SparseTensorType) Shape() []int64 {
	if t.meta.shape != nil {
		return slices.Clone(t.meta.shape)
	}
	s := make([]int64, t.meta.ndim)
	for i := range s {
		s[i] = VariableDim
	}
	return s
}

// FixedShape returns a copy of the shape of every row, or nil when some
// dimension varies between rows.
func (t *SparseTensorType) FixedShape() []int64 {
	if t.meta.varying() {
		return nil
	}
	return slices.Clone(t.meta.shape)
}

// DimNames returns a copy of the dimension names, or nil when the type has
// none.
func (t *SparseTensorType) DimNames() []string { return slices.Clone(t.meta.names) }

// CanonicalClaim reports whether the metadata claims every row canonical.
// Rows are checked against the claim when they are read (unless
// trusted). CSF rows are always canonical and make no claim.
func (t *SparseTensorType) CanonicalClaim() bool { return t.meta.canonical }

// ArrayNames returns the names of the storage's list fields in the order of
// SPARSE.md, such as indices, values (COO) or pointers_to_1, indices_1,
// values (CSR, CSC, GCS).
func (t *SparseTensorType) ArrayNames() []string { return slices.Clone(t.meta.arrays) }

// DataTypeOf returns the element type of the array of that name (for COO's
// indices, the index type inside its FixedSizeList), as the metadata's
// data_types gives it, or nil for a name the type does not have.
func (t *SparseTensorType) DataTypeOf(name string) arrow.DataType {
	if j := t.meta.arrayIndex(name); j >= 0 {
		return t.meta.types[j]
	}
	return nil
}

// IndexType returns the type of COO's indices, of indices_1 (CSR, CSC,
// GCS) or of indices_0 (CSF): the index_type of the interop schema.
func (t *SparseTensorType) IndexType() arrow.DataType {
	switch t.meta.format {
	case arrowsparse.FormatCOO:
		return t.DataTypeOf("indices")
	case arrowsparse.FormatCSF:
		return t.DataTypeOf("indices_0")
	}
	return t.DataTypeOf("indices_1")
}

// IndptrType returns the type of pointers_to_1, or nil for COO.
func (t *SparseTensorType) IndptrType() arrow.DataType { return t.DataTypeOf("pointers_to_1") }

// IsLargeList reports whether the storage field of array name is a
// LargeList (64-bit offsets).
func (t *SparseTensorType) IsLargeList(name string) bool {
	j := t.meta.arrayIndex(name)
	return j >= 0 && t.large[j]
}

// AxisOrder returns a copy of a CSF type's level order (level l holds
// dimension AxisOrder()[l]), or nil for other formats.
func (t *SparseTensorType) AxisOrder() []int { return slices.Clone(t.meta.axisOrder) }

// Dimensions returns a copy of a GCS type's axis permutation, or nil for
// other formats.
func (t *SparseTensorType) Dimensions() []int { return slices.Clone(t.meta.dims) }

// Partitioning returns a GCS type's partitioning (0 for other formats).
func (t *SparseTensorType) Partitioning() int { return t.meta.part }

// CompressedAxis returns gcs.Rows when a GCS type stores its reduced
// matrices as CSR and gcs.Cols for CSC; CSR and CSC types return their own
// axis, COO and CSF gcs.Rows.
func (t *SparseTensorType) CompressedAxis() gcs.Axis {
	if t.meta.format == arrowsparse.FormatCSC {
		return gcs.Cols
	}
	return t.meta.axis
}

// BinsparseVersion returns the version of the metadata's binsparse key, or
// "" when it has none.
func (t *SparseTensorType) BinsparseVersion() string { return t.meta.binsparse }

// Params returns the parameters of the type, from which
// NewSparseTensorType makes an equal type when no list field is a
// LargeList, or all are, and the metadata's binsparse version, if any, is
// not empty (an empty BinsparseVersion means none).
func (t *SparseTensorType) Params() SparseTensorParams {
	m := t.meta
	p := SparseTensorParams{
		Format:           m.format,
		ValueType:        t.ValueType(),
		Shape:            slices.Clone(m.shape),
		NDim:             m.ndim,
		DimNames:         slices.Clone(m.names),
		IndexType:        t.IndexType(),
		IndptrType:       t.IndptrType(),
		Canonical:        m.canonical,
		BinsparseVersion: m.binsparse,
		LargeLists:       len(t.large) > 0 && !slices.Contains(t.large, false),
	}
	switch m.format {
	case arrowsparse.FormatCOO:
		p.IndptrType = nil
	case arrowsparse.FormatCSF:
		p.AxisOrder = slices.Clone(m.axisOrder)
		for l := range m.ndim {
			p.LevelIndexTypes = append(p.LevelIndexTypes, t.DataTypeOf("indices_"+strconv.Itoa(l)))
			if l > 0 {
				p.LevelIndptrTypes = append(p.LevelIndptrTypes, t.DataTypeOf("pointers_to_"+strconv.Itoa(l)))
			}
		}
	case arrowsparse.FormatGCS:
		p.Dimensions, p.Partitioning, p.CompressedAxis = slices.Clone(m.dims), m.part, m.axis
	}
	return p
}

// String returns a description such as
// extension<arrowsparse.csr[value_type=float64, shape=[4,5], index_type=int32, indptr_type=int32, canonical]>.
func (t *SparseTensorType) String() string {
	m := t.meta
	var b strings.Builder
	fmt.Fprintf(&b, "extension<%s[value_type=%s", t.ExtensionName(), t.ValueType())
	if m.shape != nil {
		fmt.Fprintf(&b, ", shape=%s", uniformText(m.shape))
	} else {
		fmt.Fprintf(&b, ", ndim=%d", m.ndim)
	}
	fmt.Fprintf(&b, ", index_type=%s", t.IndexType())
	if pt := t.IndptrType(); pt != nil {
		fmt.Fprintf(&b, ", indptr_type=%s", pt)
	}
	if m.names != nil {
		fmt.Fprintf(&b, ", dim_names=[%s]", strings.Join(m.names, ","))
	}
	switch m.format {
	case arrowsparse.FormatCSF:
		fmt.Fprintf(&b, ", axis_order=%s", intsText(m.axisOrder))
	case arrowsparse.FormatGCS:
		fmt.Fprintf(&b, ", dimensions=%s, partitioning=%d, compressed_axis=%s", intsText(m.dims), m.part, map[gcs.Axis]string{gcs.Rows: "row", gcs.Cols: "column"}[m.axis])
	}
	if m.canonical {
		b.WriteString(", canonical")
	}
	b.WriteString("]>")
	return b.String()
}

// Fingerprint returns a string that identifies the type, its parameters
// included.
func (t *SparseTensorType) Fingerprint() string {
	return t.ExtensionBase.Fingerprint() + "{" + t.serialized + "}"
}

// Serialize returns the metadata as the Python package writes it: compact
// JSON, keys in the order of SPARSE.md 2.3 (format, shape or ndim,
// dim_names, canonical, data_types, axis_order, dimensions, partitioning,
// compressed_axis, binsparse), optional keys only when they differ from
// their default, strings escaped as Python's json.dumps(ensure_ascii=False)
// escapes them.
func (t *SparseTensorType) Serialize() string { return t.serialized }

// Deserialize returns the type that the metadata describes over the given
// storage type, for the receiver's format, with every check of SPARSE.md
// 2.2 and 2.3: the metadata is one JSON object (UTF-8, no byte order mark,
// no duplicate keys) with only the keys of the format, each of the right
// JSON type (integers as JSON integers), data_types naming exactly the
// format's arrays with allowed types, and the storage a Struct of exactly
// the format's fields whose types agree with data_types. Any failure is an
// error wrapping arrow.ErrInvalid.
func (t *SparseTensorType) Deserialize(storageType arrow.DataType, data string) (arrow.ExtensionType, error) {
	return parseSparseType(t.meta.format, storageType, data)
}

func parseSparseType(f arrowsparse.Format, storage arrow.DataType, data string) (*SparseTensorType, error) {
	m, err := parseSparseMeta(f, data)
	if err != nil {
		return nil, err
	}
	return newSparseType(m, storage)
}

// ExtensionEquals reports whether other is a sparse tensor type with the
// same metadata and the same list kinds (List or LargeList) in its
// storage. The names and nullability of the storage's list element fields
// are not part of the type (SPARSE.md 2.2), and the rest of the storage
// follows from the metadata.
func (t *SparseTensorType) ExtensionEquals(other arrow.ExtensionType) bool {
	o, ok := other.(*SparseTensorType)
	return ok && t.serialized == o.serialized && slices.Equal(t.large, o.large)
}
