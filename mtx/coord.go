package mtx

import (
	"bytes"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/textparse"
)

// streamStartEntries is the room the coordinate reader makes first when
// the input size is unknown; it then doubles, up to the header's count.
const streamStartEntries = 1 << 16

// coordScratch is a worker's parse of one chunk of a coordinate file.
type coordScratch struct {
	coords []uint64 // row, column (0-based) per entry
	vals   []uint64 // value lanes
	off    int64    // where Place put the chunk
	sorted bool     // entries strictly increasing within the chunk
}

// coordReader reads the body of a coordinate file.
type coordReader struct {
	cfg    *readConfig
	h      Header
	vals   textparse.Values
	skew   bool
	iw     int
	coords *textparse.Column // 2 per entry
	values *textparse.Column
	// sorted: every entry placed so far is strictly after the one before.
	sorted  bool
	hasLast bool
	lastR   uint64
	lastC   uint64
}

func readCoordinate(in *textparse.Input, cfg *readConfig, h Header, it arrow.DataType, vals textparse.Values) (*coo.Tensor, error) {
	expand := h.Symmetry != General && !cfg.keepTriangle
	r := &coordReader{cfg: cfg, h: h, vals: vals, skew: h.Symmetry == SkewSymmetric,
		iw: arrowsparse.ByteWidth(it), sorted: true}
	// Room: the header's count, unless the input is too small to hold it
	// (each entry takes at least "1 1\n" or "1 1 1\n"), or its size is
	// unknown (then grow as entries arrive). A symmetric matrix gets room
	// for the mirror images too when the size is known.
	room := h.Entries
	if size := in.Size(); size >= 0 {
		minLen := int64(6)
		if vals.Kind == textparse.KindNone {
			minLen = 4
		}
		room = min(room, (size+1)/minLen)
		if expand {
			room *= 2
		}
	} else {
		room = min(room, streamStartEntries)
	}
	r.coords = textparse.NewColumn(cfg.Mem, r.iw, 2*room)
	r.values = textparse.NewColumn(cfg.Mem, vals.Width, room)
	defer r.coords.Release()
	defer r.values.Release()

	n, lines, err := textparse.Run(in, textparse.Body[coordScratch]{
		New:   func() *coordScratch { return &coordScratch{} },
		Parse: r.parse,
		Place: r.place,
		Copy:  r.copy,
	})
	if err != nil {
		return nil, err
	}
	if n != h.Entries {
		return nil, cfg.Errorf(arrowsparse.ErrStructure, "line %d: the input ends after %d entries, but the size line announces %d", lines, n, h.Entries)
	}
	total := n
	canonical := r.sorted
	if expand {
		var added int64
		total, added = mirror(r.coords, r.values, n, r.vals, r.skew, cfg.Workers)
		canonical = canonical && added == 0
	}
	shape := []int64{h.Rows, h.Cols}
	return newCOO(vals.Type, it, shape, r.coords.Finish(2*total), r.values.Finish(total), total, canonical)
}

// parse reads the entry lines of a chunk.
func (r *coordReader) parse(data []byte, s *coordScratch) (lines, entries int64, lerr *textparse.LineError) {
	s.coords = s.coords[:0]
	s.vals = s.vals[:0]
	s.sorted = true
	rows, cols := uint64(r.h.Rows), uint64(r.h.Cols)
	pattern := r.vals.Kind == textparse.KindNone
	maxLine := r.cfg.MaxLine
	var prevR, prevC uint64
	first := true
	n := len(data)
	i := 0
	fail := func(kind error, format string, args ...any) (int64, int64, *textparse.LineError) {
		return lines, int64(len(s.vals)), textparse.NewLineError(kind, lines, format, args...)
	}
	for i < n {
		start := i
		for i < n && (data[i] == ' ' || data[i] == '\t') {
			i++
		}
		if i == n {
			lines++
			break
		}
		switch data[i] {
		case '\n', '\r', '%':
			// A blank or comment line.
			j := bytes.IndexByte(data[i:], '\n')
			if j < 0 {
				j = n - i
			}
			if data[i] == '\r' && j != 1 {
				return fail(arrowsparse.ErrSyntax, "stray carriage return")
			}
			if j > maxLine {
				return fail(arrowsparse.ErrSyntax, "line is longer than %d bytes", maxLine)
			}
			i += j + 1
			lines++
			continue
		}
		// Row and column indices.
		row, k, over := textparse.ScanUint(data[i:])
		i += k
		if k > 0 && (i >= n || data[i] == '\n' || data[i] == '\r') {
			return fail(arrowsparse.ErrSyntax, "the line has 1 field, want %s", r.fieldsWanted())
		}
		if k == 0 || data[i] != ' ' && data[i] != '\t' {
			return fail(arrowsparse.ErrSyntax, "row index %s is not a positive integer", token(data, i-k))
		}
		if over || row == 0 || row > rows {
			return fail(arrowsparse.ErrOutOfRange, "row index %s is outside 1..%d (indices count from 1)", token(data, i-k), rows)
		}
		for i < n && (data[i] == ' ' || data[i] == '\t') {
			i++
		}
		col, k, over := textparse.ScanUint(data[i:])
		i += k
		if k == 0 {
			if i >= n || data[i] == '\n' || data[i] == '\r' {
				return fail(arrowsparse.ErrSyntax, "the line has 1 field, want %s", r.fieldsWanted())
			}
			return fail(arrowsparse.ErrSyntax, "column index %s is not a positive integer", token(data, i))
		}
		if i < n && data[i] != ' ' && data[i] != '\t' && data[i] != '\n' && data[i] != '\r' {
			return fail(arrowsparse.ErrSyntax, "column index %s is not a positive integer", token(data, i-k))
		}
		if over || col == 0 || col > cols {
			return fail(arrowsparse.ErrOutOfRange, "column index %s is outside 1..%d (indices count from 1)", token(data, i-k), cols)
		}
		for i < n && (data[i] == ' ' || data[i] == '\t') {
			i++
		}
		// The value.
		lane := r.vals.One
		if !pattern {
			if i >= n || data[i] == '\n' || data[i] == '\r' {
				return fail(arrowsparse.ErrSyntax, "the line has 2 fields, want %s", r.fieldsWanted())
			}
			var msg string
			lane, i, msg = r.vals.Parse(data, i)
			if msg != "" {
				return fail(arrowsparse.ErrSyntax, "%s", msg)
			}
			for i < n && (data[i] == ' ' || data[i] == '\t') {
				i++
			}
		}
		// The line ending.
		if i < n {
			if data[i] == '\r' && i+1 < n && data[i+1] == '\n' {
				i++
			}
			if data[i] != '\n' {
				return fail(arrowsparse.ErrSyntax, "the line has more than %s", r.fieldsWanted())
			}
			i++
		}
		lines++
		if i-start > maxLine+1 {
			return lines - 1, int64(len(s.vals)), textparse.NewLineError(arrowsparse.ErrSyntax, lines-1, "line is longer than %d bytes", maxLine)
		}
		if r.skew && row == col && !r.vals.IsZero(lane) {
			return lines - 1, int64(len(s.vals)), textparse.NewLineError(arrowsparse.ErrStructure, lines-1, "a skew-symmetric matrix has a zero diagonal, but entry (%d, %d) is not zero", row, col)
		}
		row--
		col--
		if !first && (row < prevR || row == prevR && col <= prevC) {
			s.sorted = false
		}
		first = false
		prevR, prevC = row, col
		s.coords = append(s.coords, row, col)
		s.vals = append(s.vals, lane)
	}
	return lines, int64(len(s.vals)), nil
}

// fieldsWanted describes the fields of an entry line.
func (r *coordReader) fieldsWanted() string {
	if r.vals.Kind == textparse.KindNone {
		return "2 (row, column) in a pattern file"
	}
	return "3 (row, column, value)"
}

// token returns the token starting at data[i] for a message.
func token(data []byte, i int) string {
	j := i
	for j < len(data) && data[j] != ' ' && data[j] != '\t' && data[j] != '\n' && data[j] != '\r' {
		j++
	}
	if j == i {
		return "(nothing)"
	}
	return strconv.Quote(cut(data[i:j]))
}

// place reserves the chunk's room after the entries before it.
func (r *coordReader) place(data []byte, s *coordScratch, before int64, grow func(func())) error {
	n := int64(len(s.vals))
	if before+n > r.h.Entries {
		return textparse.NewLineError(arrowsparse.ErrStructure, entryLine(data, r.h.Entries-before), "more entries than the %d the size line announces", r.h.Entries)
	}
	s.off = before
	if need := before + n; need > r.values.Cap() {
		room := min(max(2*r.values.Cap(), need), r.h.Entries)
		grow(func() {
			r.coords.Reserve(2 * room)
			r.values.Reserve(room)
		})
	}
	if r.hasLast && (s.coords[0] < r.lastR || s.coords[0] == r.lastR && s.coords[1] <= r.lastC) {
		r.sorted = false
	}
	r.sorted = r.sorted && s.sorted
	r.hasLast = true
	r.lastR, r.lastC = s.coords[2*n-2], s.coords[2*n-1]
	return nil
}

// copy moves a chunk to its room.
func (r *coordReader) copy(s *coordScratch) {
	n := int64(len(s.vals))
	textparse.Narrow(r.coords.Bytes(2*s.off, 2*n), r.iw, s.coords)
	textparse.Narrow(r.values.Bytes(s.off, n), r.vals.Width, s.vals)
}

// entryLine returns the 0-based index within data of the line holding the
// j-th entry (0-based), skipping blank and comment lines.
func entryLine(data []byte, j int64) int64 {
	var line int64
	for len(data) > 0 {
		k := bytes.IndexByte(data, '\n')
		l := data
		if k >= 0 {
			l, data = data[:k], data[k+1:]
		} else {
			data = nil
		}
		t := bytes.TrimLeft(l, " \t\r")
		if len(t) > 0 && t[0] != '%' {
			if j == 0 {
				return line
			}
			j--
		}
		line++
	}
	return line
}
