package arrowext

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// The metadata of the sparse types is read more strictly than that of the
// canonical tensor types (SPARSE.md 2.3): the whole document is parsed
// into values first, and a duplicate key anywhere, a byte order mark,
// invalid UTF-8, a constant such as NaN, trailing data or nesting deeper
// than jsonMaxDepth is an error. Parsing allocates in proportion to the
// metadata's length.

// jsonMaxDepth bounds the nesting of arrays and objects in sparse metadata
// (the valid documents nest three deep).
const jsonMaxDepth = 64

// jsonObject is a parsed JSON object, its members in document order.
type jsonObject struct {
	keys []string
	vals []any
}

// get returns the value of key and whether the object has it.
func (o *jsonObject) get(key string) (any, bool) {
	for i, k := range o.keys {
		if k == key {
			return o.vals[i], true
		}
	}
	return nil, false
}

// parseJSONDoc parses data into nil, bool, string, json.Number, []any and
// *jsonObject values. what prefixes messages.
func parseJSONDoc(what, data string) (any, error) {
	if strings.HasPrefix(data, "\ufeff") {
		return nil, core.Errorf(arrowsparse.ErrStructure, "%s: the metadata starts with a byte order mark", what)
	}
	if !utf8.ValidString(data) {
		return nil, core.Errorf(arrowsparse.ErrStructure, "%s: the metadata is not valid UTF-8", what)
	}
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	v, err := parseJSONValue(what, dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, core.Errorf(arrowsparse.ErrStructure, "%s: the metadata has data after its JSON value: %s", what, quote(data))
	}
	return v, nil
}

func parseJSONValue(what string, dec *json.Decoder, depth int) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonSyntaxError(what, err)
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	if depth >= jsonMaxDepth {
		return nil, core.Errorf(arrowsparse.ErrStructure, "%s: the metadata nests more than %d deep", what, jsonMaxDepth)
	}
	switch d {
	case '[':
		var out []any
		for dec.More() {
			v, err := parseJSONValue(what, dec, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		if _, err := dec.Token(); err != nil {
			return nil, jsonSyntaxError(what, err)
		}
		if out == nil {
			out = []any{}
		}
		return out, nil
	case '{':
		o := &jsonObject{}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return nil, jsonSyntaxError(what, err)
			}
			key, _ := tok.(string)
			if _, dup := o.get(key); dup {
				return nil, core.Errorf(arrowsparse.ErrStructure, "%s: the metadata has the key %q twice", what, key)
			}
			v, err := parseJSONValue(what, dec, depth+1)
			if err != nil {
				return nil, err
			}
			o.keys = append(o.keys, key)
			o.vals = append(o.vals, v)
		}
		if _, err := dec.Token(); err != nil {
			return nil, jsonSyntaxError(what, err)
		}
		return o, nil
	}
	return nil, core.Errorf(arrowsparse.ErrStructure, "%s: the metadata is not valid JSON (unexpected %q)", what, string(d))
}

func jsonSyntaxError(what string, err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	var se *json.SyntaxError
	if errors.As(err, &se) || err == io.ErrUnexpectedEOF {
		return core.Errorf(arrowsparse.ErrStructure, "%s: the metadata is not valid JSON (%v)", what, err)
	}
	return core.Errorf(arrowsparse.ErrStructure, "%s: metadata: %v", what, err)
}

// describeJSON describes a parsed value for a message, briefly.
func describeJSON(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(x)
	case string:
		return quote(x)
	case json.Number:
		return string(x)
	case []any:
		return "a list of " + strconv.Itoa(len(x))
	case *jsonObject:
		return "an object"
	}
	return "a value"
}

// jsonInt reads a JSON integer in [0, 2^63-1]: no fraction, no exponent,
// not a boolean.
func jsonInt(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	x, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil || x < 0 {
		return 0, false
	}
	return x, true
}

// pyJSONString writes s as Python's json.dumps(ensure_ascii=False) writes
// it, which the Python package writes: `"` and `\` escaped, \b \f \n \r \t,
// other control characters as \u00xx with lower-case hex digits, and
// nothing else escaped (not <, >, &, nor U+2028).
func pyJSONString(b *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&15])
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
}
