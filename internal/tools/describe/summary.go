package describe

import (
	"bytes"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/ipc"
)

// Field is one line of a summary: a key, its value as JSON and as text.
type Field struct {
	Key  string // JSON key, snake_case
	JSON string // the value as a JSON value
	Text string // the value for people
}

// Summary is an ordered list of fields describing a message without
// listing its content. Building it takes time proportional to the rank,
// not to nnz (except for the COO canonical flag, which the reader has
// computed already).
type Summary []Field

func (s *Summary) add(key, js, text string) { *s = append(*s, Field{key, js, text}) }

func (s *Summary) str(key, v string) { s.add(key, QuoteString(v), v) }

func (s *Summary) num(key string, v int64) {
	s.add(key, strconv.FormatInt(v, 10), strconv.FormatInt(v, 10))
}

func (s *Summary) flag(key string, v bool) {
	s.add(key, strconv.FormatBool(v), strconv.FormatBool(v))
}

func (s *Summary) ints(key string, v []int64) { s.add(key, intList(v), intList(v)) }

func (s *Summary) intsInt(key string, v []int) { s.add(key, intList(v), intList(v)) }

// Summarize returns the summary of a decoded message.
func Summarize(m *ipc.Message) Summary {
	t := m.Tensor
	var s Summary
	sparse := t.Format() != arrowsparse.FormatDense
	kind := "dense"
	if sparse {
		kind = "sparse"
	}
	s.str("kind", kind)
	s.str("format", formatName(t))
	s.str("value_type", TypeName(t.DataType()))
	shape := t.Shape()
	s.ints("shape", shape)
	s.add("dim_names", namesJSON(t.DimNames()), namesText(t.DimNames()))
	nnz := t.NNZ()
	s.num("nnz", nnz)

	// Elements and density, exactly even when the product overflows int64.
	elems := big.NewInt(1)
	for _, d := range shape {
		elems.Mul(elems, big.NewInt(d))
	}
	if elems.IsInt64() && elems.Int64() <= int64(exact) {
		s.num("elements", elems.Int64())
	} else {
		s.add("elements", QuoteString(elems.String()), elems.String())
	}
	if elems.Sign() == 0 {
		s.add("density", "null", "n/a (no elements)")
	} else {
		d, _ := new(big.Rat).SetFrac(big.NewInt(nnz), elems).Float64()
		s.add("density", FormatFloat(d), fmt.Sprintf("%s (%.4g%%)", FormatFloat(d), 100*d))
	}

	vw := int64(arrowsparse.ByteWidth(t.DataType()))
	switch x := t.(type) {
	case *coo.Tensor:
		s.str("index_type", TypeName(x.IndexType()))
		s.str("layout", x.Layout().String())
		strides := m.IndicesStrides
		if strides == nil {
			w := int64(arrowsparse.ByteWidth(x.IndexType()))
			strides = []int64{int64(x.NumDims()) * w, w}
		}
		s.ints("indices_strides", strides)
		s.flag("canonical_claim", m.CanonicalClaim)
		s.flag("canonical", x.IsCanonical())
		s.num("index_bytes", nnz*int64(x.NumDims())*int64(arrowsparse.ByteWidth(x.IndexType())))
	default:
		if d, ok := t.(arrowsparse.Dense); ok && !sparse {
			strides := m.Strides
			if strides == nil {
				strides = arrowStrides(shape, vw)
			}
			s.ints("strides", strides)
			s.str("layout", denseLayout(d, shape))
		} else {
			summarizeCompressed(&s, t, m)
		}
	}
	s.num("value_bytes", nnz*vw)
	s.num("message_bytes", m.Size)
	s.num("metadata_bytes", m.MetadataSize)
	s.num("body_bytes", m.BodySize)
	s.add("metadata_version", strconv.Itoa(m.Version), "V"+strconv.Itoa(m.Version))
	s.flag("legacy_framing", m.Legacy)
	if len(m.CustomMetadata) > 0 {
		keys := make([]string, len(m.CustomMetadata))
		for i, kv := range m.CustomMetadata {
			keys[i] = kv.Key
		}
		quoted := make([]string, len(keys))
		for i, k := range keys {
			quoted[i] = QuoteString(k)
		}
		s.add("custom_metadata_keys", "["+strings.Join(quoted, ", ")+"]", strings.Join(keys, ", "))
	}
	return s
}

func formatName(t arrowsparse.Tensor) string {
	if t.Format() == arrowsparse.FormatDense {
		return "TENSOR"
	}
	return t.Format().String()
}

func namesText(names []string) string {
	if names == nil {
		return "(none)"
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// denseLayout names the memory order of a dense tensor's elements.
func denseLayout(d arrowsparse.Dense, shape []int64) string {
	for _, n := range shape {
		if n == 0 {
			return "empty"
		}
	}
	es := d.ElemStrides()
	c, f := int64(1), int64(1)
	cOK, fOK := true, true
	for k := len(shape) - 1; k >= 0; k-- {
		if shape[k] > 1 && es[k] != c {
			cOK = false
		}
		c *= shape[k]
	}
	for k := range shape {
		if shape[k] > 1 && es[k] != f {
			fOK = false
		}
		f *= shape[k]
	}
	switch {
	case cOK:
		return "row-major"
	case fOK:
		return "column-major"
	}
	return "strided"
}

// JSON returns the summary as one JSON object, keys in order.
func (s Summary) JSON() []byte {
	var b bytes.Buffer
	o := newObject(&b)
	for _, f := range s {
		o.raw(f.Key, f.JSON)
	}
	_ = o.end() // a bytes.Buffer does not fail
	return b.Bytes()
}

// Text returns the summary for people, one "key: value" line per field.
func (s Summary) Text() string {
	width := 0
	for _, f := range s {
		width = max(width, len(f.Key))
	}
	var b strings.Builder
	for _, f := range s {
		k := strings.ReplaceAll(f.Key, "_", " ")
		fmt.Fprintf(&b, "%-*s  %s\n", width+1, k+":", f.Text)
	}
	return b.String()
}

// summarizeCompressed adds the keys of CSR, CSC, GCS and CSF tensors.
func summarizeCompressed(s *Summary, t arrowsparse.Tensor, m *ipc.Message) {
	switch x := t.(type) {
	case *csf.Tensor:
		s.str("index_type", TypeName(x.IndexType(0)))
		s.str("indptr_type", TypeName(x.IndptrType(0)))
		s.intsInt("axis_order", x.AxisOrder())
		levels := make([]int64, x.NumDims())
		for l := range levels {
			levels[l] = x.LevelLen(l)
		}
		s.ints("level_lengths", levels)
		s.str("csf_lengths", m.CSFLengths.String())
		s.flag("canonical", x.IsCanonical())
		s.num("index_bytes", x.IndexBytes())
	case *gcs.Matrix:
		summarizeMatrix(s, x)
	case *gcs.Tensor:
		st := x.Storage()
		s.intsInt("dimensions", x.Dims())
		s.intsInt("partitioning", []int{x.Partitioning()})
		s.str("storage", st.Format().String())
		s.ints("storage_shape", st.Shape())
		summarizeMatrix(s, st)
	}
}

func summarizeMatrix(s *Summary, m *gcs.Matrix) {
	s.str("index_type", TypeName(m.IndexType()))
	s.str("indptr_type", TypeName(m.IndptrType()))
	s.flag("sorted", m.IsSorted())
	s.flag("canonical", m.IsCanonical())
	s.num("index_bytes", (m.Lanes()+1)*int64(arrowsparse.ByteWidth(m.IndptrType()))+m.NNZ()*int64(arrowsparse.ByteWidth(m.IndexType())))
}

// Brief returns what `sptensor inspect --all` lists of message index of a
// sequence, at the given offset: index, offset, message_bytes, kind,
// format, value_type, shape and nnz.
func Brief(m *ipc.Message, index int, offset int64) Summary {
	var s Summary
	t := m.Tensor
	s.num("index", int64(index))
	s.num("offset", offset)
	s.num("message_bytes", m.Size)
	if t.Format() == arrowsparse.FormatDense {
		s.str("kind", "dense")
	} else {
		s.str("kind", "sparse")
	}
	s.str("format", formatName(t))
	s.str("value_type", TypeName(t.DataType()))
	s.ints("shape", t.Shape())
	s.num("nnz", t.NNZ())
	return s
}

// Inline returns the summary as a JSON object on one line.
func (s Summary) Inline() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, f := range s {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(QuoteString(f.Key))
		b.WriteString(": ")
		b.WriteString(f.JSON)
	}
	b.WriteByte('}')
	return b.String()
}

// ListJSON returns the document of `sptensor inspect --all --json`: the
// briefs of the messages, one per line, under "messages", and the error
// that stopped the listing, if any, under "error".
func ListJSON(briefs []Summary, err error) []byte {
	var b bytes.Buffer
	b.WriteString("{\n  \"messages\": [")
	for i, s := range briefs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    ")
		b.WriteString(s.Inline())
	}
	if len(briefs) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteByte(']')
	if err != nil {
		b.WriteString(",\n  \"error\": ")
		b.WriteString(QuoteString(err.Error()))
	}
	b.WriteString("\n}\n")
	return b.Bytes()
}
