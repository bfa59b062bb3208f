package arrowext

import (
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// The metadata of both tensor types is a JSON object. Arrow C++ parses it
// with rapidjson and checks the kind of every value it uses; this reader
// accepts exactly what it accepts:
//
//   - the document is one JSON object, with nothing but white space after it;
//   - keys it does not know are ignored, and of a repeated key the first
//     occurrence counts (rapidjson's FindMember);
//   - a key it knows must hold an array (null is not an array), and its
//     entries must be JSON integers (no fraction, no exponent, within int64),
//     JSON strings, or, in uniform_shape, integers or null.
//
// Parsing allocates in proportion to the metadata's length.

// metaField is one array-valued key of the metadata.
type metaField struct {
	ints    []int64 // integer entries; VariableDim (-1) stands for null
	nulls   []bool  // which integer entries were null (intOrNullEntries only)
	strs    []string
	present bool
}

// metaKind says what the entries of a key must be.
type metaKind int8

const (
	intEntries       metaKind = iota // JSON integers
	stringEntries                    // JSON strings
	intOrNullEntries                 // JSON integers or null (null → VariableDim)
)

// parseMetadata reads a metadata object whose known keys are given with the
// kind of their entries. It returns one metaField per key, in the order of
// keys. what names the extension type for messages.
func parseMetadata(what, data string, keys []string, kinds []metaKind) ([]metaField, error) {
	out := make([]metaField, len(keys))
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, metaErrorf(arrowsparse.ErrStructure, "%s metadata must be a JSON object, got %s", what, quote(data))
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, syntaxError(what, data, err)
		}
		key, _ := tok.(string)
		k := -1
		for i, name := range keys {
			if name == key {
				k = i
			}
		}
		if k < 0 || out[k].present {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, syntaxError(what, data, err)
			}
			continue
		}
		f, err := parseArray(what, key, kinds[k], dec)
		if err != nil {
			return nil, err
		}
		f.present = true
		out[k] = f
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, syntaxError(what, data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, metaErrorf(arrowsparse.ErrStructure, "%s metadata has data after its JSON object: %s", what, quote(data))
	}
	return out, nil
}

// parseArray reads the value of key, which must be an array of entries of
// the given kind.
func parseArray(what, key string, kind metaKind, dec *json.Decoder) (metaField, error) {
	var f metaField
	tok, err := dec.Token()
	if err != nil {
		return f, syntaxError(what, key, err)
	}
	if tok != json.Delim('[') {
		return f, metaErrorf(arrowsparse.ErrStructure, "%s metadata: %q must be an array, got %s", what, key, jsonKind(tok))
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return f, syntaxError(what, key, err)
		}
		switch kind {
		case stringEntries:
			s, ok := tok.(string)
			if !ok {
				return f, metaErrorf(arrowsparse.ErrStructure, "%s metadata: %q must hold strings, got %s", what, key, jsonKind(tok))
			}
			f.strs = append(f.strs, s)
		default:
			if tok == nil && kind == intOrNullEntries {
				f.ints = append(f.ints, VariableDim)
				f.nulls = append(f.nulls, true)
				continue
			}
			n, ok := tok.(json.Number)
			x, err := strconv.ParseInt(string(n), 10, 64)
			if !ok || err != nil {
				want := "integers"
				if kind == intOrNullEntries {
					want = "integers or null"
				}
				return f, metaErrorf(arrowsparse.ErrStructure, "%s metadata: %q must hold %s, got %s", what, key, want, jsonKind(tok))
			}
			f.ints = append(f.ints, x)
			if kind == intOrNullEntries {
				f.nulls = append(f.nulls, false)
			}
		}
	}
	if _, err := dec.Token(); err != nil { // the closing bracket
		return f, syntaxError(what, key, err)
	}
	return f, nil
}

// jsonKind describes a JSON token for a message.
func jsonKind(tok json.Token) string {
	switch t := tok.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "the string " + quote(t)
	case json.Number:
		return "the number " + string(t)
	case json.Delim:
		if t == '{' {
			return "an object"
		}
		return "an array"
	}
	return "something else"
}

// syntaxError reports malformed JSON.
func syntaxError(what, data string, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) || err == io.EOF || err == io.ErrUnexpectedEOF {
		return metaErrorf(arrowsparse.ErrStructure, "%s metadata is not valid JSON (%v): %s", what, err, quote(data))
	}
	return metaErrorf(arrowsparse.ErrStructure, "%s metadata: %v", what, err)
}

// metaErrorf is core.Errorf; errors about metadata never wrap the decoder's
// errors, whose types are not part of this package's contract.
func metaErrorf(kind error, format string, args ...any) error {
	return core.Errorf(kind, format, args...)
}

// quote returns s quoted for a message, shortened to at most 200 bytes.
func quote(s string) string {
	if len(s) > 200 {
		cut := 200
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return strconv.Quote(s[:cut]) + "…"
	}
	return strconv.Quote(s)
}

// jsonWriter writes compact JSON as Arrow C++'s JsonWriter (rapidjson's
// Writer) does: no white space, strings in UTF-8 with `"` and `\` escaped,
// control characters as \b \f \n \r \t or \u00XX with upper-case hex
// digits, and nothing else escaped.
type jsonWriter struct {
	b     strings.Builder
	first bool
}

func (w *jsonWriter) begin() {
	w.b.WriteByte('{')
	w.first = true
}

func (w *jsonWriter) end() string {
	w.b.WriteByte('}')
	return w.b.String()
}

func (w *jsonWriter) key(k string) {
	if !w.first {
		w.b.WriteByte(',')
	}
	w.first = false
	w.str(k)
	w.b.WriteByte(':')
}

// ints writes an array of integers, writing x < 0 as null when nulls is set.
func (w *jsonWriter) ints(key string, xs []int64, nulls bool) {
	w.key(key)
	w.b.WriteByte('[')
	for i, x := range xs {
		if i > 0 {
			w.b.WriteByte(',')
		}
		if nulls && x < 0 {
			w.b.WriteString("null")
		} else {
			w.b.WriteString(strconv.FormatInt(x, 10))
		}
	}
	w.b.WriteByte(']')
}

func (w *jsonWriter) perm(key string, p []int) {
	w.key(key)
	w.b.WriteByte('[')
	for i, x := range p {
		if i > 0 {
			w.b.WriteByte(',')
		}
		w.b.WriteString(strconv.Itoa(x))
	}
	w.b.WriteByte(']')
}

func (w *jsonWriter) strs(key string, xs []string) {
	w.key(key)
	w.b.WriteByte('[')
	for i, s := range xs {
		if i > 0 {
			w.b.WriteByte(',')
		}
		w.str(s)
	}
	w.b.WriteByte(']')
}

func (w *jsonWriter) str(s string) {
	const hex = "0123456789ABCDEF"
	w.b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			w.b.WriteString(`\"`)
		case '\\':
			w.b.WriteString(`\\`)
		case '\b':
			w.b.WriteString(`\b`)
		case '\f':
			w.b.WriteString(`\f`)
		case '\n':
			w.b.WriteString(`\n`)
		case '\r':
			w.b.WriteString(`\r`)
		case '\t':
			w.b.WriteString(`\t`)
		default:
			if c < 0x20 {
				w.b.WriteString(`\u00`)
				w.b.WriteByte(hex[c>>4])
				w.b.WriteByte(hex[c&15])
			} else {
				w.b.WriteByte(c)
			}
		}
	}
	w.b.WriteByte('"')
}
