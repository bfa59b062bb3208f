package describe

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
)

// TypeName returns the interop schema's name of a value or index type:
// "int8" … "uint64", "float16", "float32", "float64".
func TypeName(dt arrow.DataType) string {
	switch dt.ID() {
	case arrow.FLOAT16:
		return "float16"
	case arrow.FLOAT32:
		return "float32"
	case arrow.FLOAT64:
		return "float64"
	}
	return dt.String()
}

// TypeByName is the inverse of TypeName; it returns nil for an unknown name.
func TypeByName(name string) arrow.DataType {
	switch name {
	case "int8":
		return arrow.PrimitiveTypes.Int8
	case "int16":
		return arrow.PrimitiveTypes.Int16
	case "int32":
		return arrow.PrimitiveTypes.Int32
	case "int64":
		return arrow.PrimitiveTypes.Int64
	case "uint8":
		return arrow.PrimitiveTypes.Uint8
	case "uint16":
		return arrow.PrimitiveTypes.Uint16
	case "uint32":
		return arrow.PrimitiveTypes.Uint32
	case "uint64":
		return arrow.PrimitiveTypes.Uint64
	case "float16":
		return arrow.FixedWidthTypes.Float16
	case "float32":
		return arrow.PrimitiveTypes.Float32
	case "float64":
		return arrow.PrimitiveTypes.Float64
	}
	return nil
}

// QuoteString writes s as a JSON string the way the C++ peer does: valid
// UTF-8 as is, the usual short escapes, other control characters and every
// byte of invalid UTF-8 as \u00XX.
func QuoteString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\b':
			b.WriteString(`\b`)
		case c == '\f':
			b.WriteString(`\f`)
		case c >= 0x20 && c < 0x80:
			b.WriteByte(c)
		case c >= 0x80:
			if r, n := utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError || n > 1 {
				b.WriteString(s[i : i+n])
				i += n
				continue
			}
			b.WriteString(`\u00`)
			b.WriteString(hex2(c))
		default:
			b.WriteString(`\u00`)
			b.WriteString(hex2(c))
		}
		i++
	}
	b.WriteByte('"')
	return b.String()
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}

func intList[T int | int64](xs []T) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, x := range xs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(int64(x), 10))
	}
	b.WriteByte(']')
	return b.String()
}

// namesJSON writes dim names, or null when there are none or all are empty.
func namesJSON(names []string) string {
	named := false
	for _, n := range names {
		named = named || n != ""
	}
	if !named {
		return "null"
	}
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = QuoteString(n)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// object writes a JSON object one key per line, keys in the order given.
type object struct {
	b     *bufio.Writer
	first bool
}

func newObject(w io.Writer) *object {
	b, ok := w.(*bufio.Writer)
	if !ok {
		b = bufio.NewWriterSize(w, 1<<16)
	}
	o := &object{b: b, first: true}
	o.b.WriteString("{\n")
	return o
}

func (o *object) key(k string) *bufio.Writer {
	if !o.first {
		o.b.WriteString(",\n")
	}
	o.first = false
	o.b.WriteString("  ")
	o.b.WriteString(QuoteString(k))
	o.b.WriteString(": ")
	return o.b
}

func (o *object) raw(k, v string) { o.key(k).WriteString(v) }

// end closes the object and flushes it, returning the first write error.
func (o *object) end() error {
	o.b.WriteString("\n}\n")
	return o.b.Flush()
}

// JSON returns the content as a document of the interop schema, as
// WriteJSON writes it. For a content of Describe whose tensor has been
// released, use WriteJSON, which reports errors.
func (c *Content) JSON() []byte {
	var b bytes.Buffer
	_ = c.WriteJSON(&b)
	return b.Bytes()
}

// WriteJSON writes the content as a document of the interop schema, laid
// out as the C++ peer's read-json lays it out (one key per line, one entry
// per line, sixteen dense values per line). A dense tensor's values are
// written as they are read, a chunk at a time. It returns the first error
// of w.
func (c *Content) WriteJSON(w io.Writer) error {
	o := newObject(w)
	if c.Sparse() {
		o.raw("kind", `"sparse"`)
	} else {
		o.raw("kind", `"dense"`)
	}
	o.raw("format", QuoteString(c.Format))
	o.raw("value_type", QuoteString(TypeName(c.ValueType)))
	if c.Sparse() {
		o.raw("index_type", QuoteString(TypeName(c.IndexType)))
		if c.Format != "COO" {
			o.raw("indptr_type", QuoteString(TypeName(c.IndptrType)))
		}
	}
	o.raw("shape", intList(c.Shape))
	o.raw("dim_names", namesJSON(c.DimNames))
	if c.Sparse() {
		o.raw("nnz", strconv.FormatInt(c.NNZ, 10))
		switch c.Format {
		case "COO":
			o.raw("is_canonical", strconv.FormatBool(c.IsCanonical))
			o.raw("indices_strides", intList(c.IndicesStrides))
		case "CSF":
			o.raw("axis_order", intList(c.AxisOrder))
		case "GCS":
			o.raw("dimensions", intList(c.Dimensions))
			o.raw("partitioning", intList(c.Partitioning))
		}
		b := o.key("entries")
		e := c.Entries
		if e == nil || e.Len() == 0 {
			b.WriteString("[]")
		} else {
			b.WriteString("[\n")
			var num []byte
			for i := range e.Len() {
				b.WriteString("    [")
				for _, x := range e.At(i) {
					num = strconv.AppendInt(num[:0], x, 10)
					b.Write(num)
					b.WriteString(", ")
				}
				b.WriteString(FormatValue(c.ValueType, e.Values[i]))
				if i+1 < e.Len() {
					b.WriteString("],\n")
				} else {
					b.WriteString("]\n")
				}
			}
			b.WriteString("  ]")
		}
	} else {
		o.raw("strides", intList(c.Strides))
		b := o.key("dense_values")
		if c.elements() == 0 {
			b.WriteString("[]")
		} else {
			b.WriteString("[\n    ")
			i := 0
			err := c.eachValue(func(x uint64) {
				if i > 0 {
					if i%16 == 0 {
						b.WriteString(",\n    ")
					} else {
						b.WriteString(", ")
					}
				}
				b.WriteString(FormatValue(c.ValueType, x))
				i++
			})
			if err != nil {
				return err
			}
			b.WriteString("\n  ]")
		}
	}
	if c.Note != "" {
		o.raw("_note", QuoteString(c.Note))
	}
	return o.end()
}

// ErrorJSON returns the document {"error": "..."} for an error.
func ErrorJSON(err error) []byte {
	return []byte("{\"error\": " + QuoteString(err.Error()) + "}\n")
}
