package mtx

import (
	"bytes"
	"strings"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/textparse"
)

// Layout is how a Matrix Market file stores its matrix: the format word of
// the banner.
type Layout int8

const (
	// Coordinate stores the entries as (row, column, value) lines.
	Coordinate Layout = iota
	// Array stores every value of a dense matrix in column-major order.
	Array
)

// String returns "coordinate" or "array".
func (l Layout) String() string {
	if l == Array {
		return "array"
	}
	return "coordinate"
}

// Field is the type of the stored values: the field word of the banner.
type Field int8

const (
	// Real values are floating-point numbers.
	Real Field = iota
	// Integer values are integers.
	Integer
	// Pattern entries have no value (coordinate files only); they read as
	// ones.
	Pattern
	// Complex values are pairs of numbers. ReadHeader reports them; the
	// readers refuse them, since Arrow tensors have no complex type.
	Complex
)

var fieldNames = [...]string{"real", "integer", "pattern", "complex"}

// String returns the banner word: "real", "integer", "pattern" or
// "complex".
func (f Field) String() string {
	if f >= 0 && int(f) < len(fieldNames) {
		return fieldNames[f]
	}
	return "unknown"
}

// Symmetry is the symmetry word of the banner.
type Symmetry int8

const (
	// General matrices store every entry.
	General Symmetry = iota
	// Symmetric matrices (a_ij = a_ji) store one triangle, diagonal
	// included.
	Symmetric
	// SkewSymmetric matrices (a_ij = −a_ji, zero diagonal) store one
	// triangle without the diagonal.
	SkewSymmetric
	// Hermitian matrices (a_ij = conj(a_ji)) store one triangle. With real
	// values, the only kind this package reads, Hermitian is Symmetric.
	Hermitian
)

var symmetryNames = [...]string{"general", "symmetric", "skew-symmetric", "hermitian"}

// String returns the banner word: "general", "symmetric", "skew-symmetric"
// or "hermitian".
func (s Symmetry) String() string {
	if s >= 0 && int(s) < len(symmetryNames) {
		return symmetryNames[s]
	}
	return "unknown"
}

// Header is what a Matrix Market file says before its entries: the banner,
// the comments and the size line.
type Header struct {
	Layout   Layout
	Field    Field
	Symmetry Symmetry
	// Rows and Cols are the matrix dimensions.
	Rows, Cols int64
	// Entries is the number of entries the file stores: the count on the
	// size line of a coordinate file, or the number of values an array file
	// holds (Rows·Cols for a general matrix, one triangle for the others).
	// It does not count the entries a symmetric matrix gets by mirroring.
	Entries int64
	// Comments are the comment lines between the banner and the size line,
	// without their leading '%'.
	Comments []string
}

// String returns the banner line of the header, such as
// "%%MatrixMarket matrix coordinate real general".
func (h Header) String() string {
	return "%%MatrixMarket matrix " + h.Layout.String() + " " + h.Field.String() + " " + h.Symmetry.String()
}

// parseHeader reads the banner, the comments and the size line.
func parseHeader(in *textparse.Input) (Header, error) {
	cfg := in.Config()
	var h Header
	line, eof, err := in.Line()
	if err != nil {
		return h, err
	}
	if eof {
		return h, cfg.Errorf(arrowsparse.ErrSyntax, "empty input: a Matrix Market file starts with a %%%%MatrixMarket line")
	}
	if err := h.parseBanner(line); err != nil {
		return h, cfg.LineErr(err)
	}
	// Comments and blank lines, then the size line.
	for {
		line, eof, err = in.Line()
		if err != nil {
			return h, err
		}
		if eof {
			return h, cfg.Errorf(arrowsparse.ErrSyntax, "the input ends after line %d without a size line", in.LineNo())
		}
		t := bytes.TrimLeft(line, " \t")
		if len(t) == 0 {
			continue
		}
		if t[0] == '%' {
			h.Comments = append(h.Comments, string(t[1:]))
			continue
		}
		break
	}
	if err := h.parseSize(line, in.LineNo()); err != nil {
		return h, cfg.LineErr(err)
	}
	return h, nil
}

// parseBanner parses "%%MatrixMarket matrix LAYOUT FIELD SYMMETRY", with
// the words in any case.
func (h *Header) parseBanner(line []byte) *textparse.LineError {
	bad := func(format string, args ...any) *textparse.LineError {
		return textparse.NewLineError(arrowsparse.ErrSyntax, 1, format, args...)
	}
	f := strings.Fields(string(line))
	if len(f) == 0 || !strings.EqualFold(f[0], "%%MatrixMarket") {
		return bad("not a Matrix Market file: the first line must start with %%%%MatrixMarket")
	}
	if len(f) != 5 {
		return bad("the banner needs 4 words after %%%%MatrixMarket (object, format, field, symmetry), found %d", len(f)-1)
	}
	if !strings.EqualFold(f[1], "matrix") {
		return bad("object %q is not supported: only matrix", f[1])
	}
	switch strings.ToLower(f[2]) {
	case "coordinate":
		h.Layout = Coordinate
	case "array":
		h.Layout = Array
	default:
		return bad("unknown format %q: want coordinate or array", f[2])
	}
	switch strings.ToLower(f[3]) {
	case "real", "double":
		h.Field = Real
	case "integer":
		h.Field = Integer
	case "pattern":
		h.Field = Pattern
	case "complex":
		h.Field = Complex
	default:
		return bad("unknown field %q: want real, integer, pattern or complex", f[3])
	}
	switch strings.ToLower(f[4]) {
	case "general":
		h.Symmetry = General
	case "symmetric":
		h.Symmetry = Symmetric
	case "skew-symmetric":
		h.Symmetry = SkewSymmetric
	case "hermitian":
		h.Symmetry = Hermitian
	default:
		return bad("unknown symmetry %q: want general, symmetric, skew-symmetric or hermitian", f[4])
	}
	if h.Field == Pattern && h.Layout == Array {
		return bad("an array file cannot have the pattern field")
	}
	if h.Field == Pattern && h.Symmetry == SkewSymmetric {
		return bad("a pattern matrix cannot be skew-symmetric: its entries have no values to negate")
	}
	return nil
}

// parseSize parses "ROWS COLS ENTRIES" (coordinate) or "ROWS COLS" (array).
func (h *Header) parseSize(line []byte, lineNo int64) *textparse.LineError {
	bad := func(kind error, format string, args ...any) *textparse.LineError {
		return textparse.NewLineError(kind, lineNo, format, args...)
	}
	want := 3
	what := "rows, columns and entries"
	if h.Layout == Array {
		want, what = 2, "rows and columns"
	}
	f := bytes.Fields(line)
	if len(f) != want {
		return bad(arrowsparse.ErrSyntax, "the size line of a %s file needs %d numbers (%s), found %q", h.Layout, want, what, cut(line))
	}
	var v [3]int64
	for k, tok := range f {
		x, n, over := textparse.ScanUint(tok)
		if n != len(tok) || n == 0 {
			return bad(arrowsparse.ErrSyntax, "size %q is not a non-negative integer", cut(tok))
		}
		if over {
			return bad(arrowsparse.ErrShape, "size %s does not fit int64", cut(tok))
		}
		v[k] = int64(x)
	}
	h.Rows, h.Cols = v[0], v[1]
	if h.Symmetry != General && h.Rows != h.Cols {
		return bad(arrowsparse.ErrShape, "a %s matrix must be square, but the size line gives %d × %d", h.Symmetry, h.Rows, h.Cols)
	}
	if h.Layout == Array {
		n, ok := arrayValues(h.Rows, h.Cols, h.Symmetry)
		if !ok {
			return bad(arrowsparse.ErrShape, "a %d × %d array has too many values to count in int64", h.Rows, h.Cols)
		}
		h.Entries = n
		return nil
	}
	// The count may exceed rows·cols: coordinate files may repeat a
	// position (its values add up), as scipy.io.mmwrite writes them.
	h.Entries = v[2]
	return nil
}

// arrayValues returns the number of values an array file stores.
func arrayValues(rows, cols int64, s Symmetry) (int64, bool) {
	switch s {
	case General:
		return core.MulInt64(rows, cols)
	case SkewSymmetric:
		if rows == 0 {
			return 0, true
		}
		return triangle(rows - 1)
	}
	return triangle(rows)
}

// triangle returns n(n+1)/2.
func triangle(n int64) (int64, bool) {
	a, b := n, n+1
	if a%2 == 0 {
		a /= 2
	} else {
		b /= 2
	}
	return core.MulInt64(a, b)
}

// cut shortens a token or line for a message.
func cut(b []byte) string {
	if len(b) > 60 {
		return string(b[:60]) + "…"
	}
	return string(b)
}
