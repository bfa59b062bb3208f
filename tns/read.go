package tns

import (
	"bytes"
	"io"
	"os"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/textparse"
)

// Progress is what a progress callback receives: bytes of the input
// consumed (compressed bytes for gzip input), the input's total size (-1
// when unknown) and the entries parsed so far.
type Progress = textparse.Progress

// LineError is the cause of an error about one line of a file; errors.As
// finds it in an error the readers return. Its Line counts from 1.
type LineError = textparse.LineError

// Defaults of the read options.
const (
	// DefaultChunkSize is the size of the pieces of input parsed in
	// parallel.
	DefaultChunkSize = textparse.DefaultChunkSize
	// DefaultMaxLineLength is the longest line the readers accept.
	DefaultMaxLineLength = textparse.DefaultMaxLine
)

// ReadOption configures the readers.
type ReadOption interface{ applyRead(*readConfig) }

// WriteOption configures the writers.
type WriteOption interface{ applyWrite(*writeConfig) }

// Option configures readers and writers alike: WithAllocator and
// WithWorkers return one, usable in either list, as in package ipc.
type Option interface {
	ReadOption
	WriteOption
}

type readOption func(*readConfig)

func (f readOption) applyRead(c *readConfig) { f(c) }

type writeOption func(*writeConfig)

func (f writeOption) applyWrite(c *writeConfig) { f(c) }

type bothOption struct {
	read  func(*readConfig)
	write func(*writeConfig)
}

func (o bothOption) applyRead(c *readConfig)   { o.read(c) }
func (o bothOption) applyWrite(c *writeConfig) { o.write(c) }

type readConfig struct {
	textparse.Config
	indexType arrow.DataType
	valueType arrow.DataType
	shape     []int64
	hasShape  bool
}

func newReadConfig(opts []ReadOption) *readConfig {
	c := &readConfig{Config: textparse.Config{Name: "tns"}}
	for _, o := range opts {
		o.applyRead(c)
	}
	c.Fill()
	return c
}

// WithAllocator sets the allocator of every buffer a reader or writer
// makes: the output buffers of a reader, and a writer's temporary copies
// (sorted copies to check a declared symmetry, a column-major or row-major
// copy of a tensor that is not). The default is memory.DefaultAllocator.
func WithAllocator(mem memory.Allocator) Option {
	return bothOption{func(c *readConfig) { c.Mem = mem }, func(c *writeConfig) { c.mem = mem }}
}

// WithShape gives the shape of the tensor instead of inferring it: every
// line must then have len(shape) coordinates inside it. Without it, the
// rank is the number of coordinates on the first entry line and each
// dimension is the largest coordinate found in it; an input without
// entries is then an error, since its rank is unknown.
func WithShape(shape ...int64) ReadOption {
	return readOption(func(c *readConfig) { c.shape, c.hasShape = append([]int64(nil), shape...), true })
}

// WithIndexType sets the type of the coordinates (an Arrow sparse index
// type). The default is the narrowest signed type that holds every
// coordinate: arrowsparse.SmallestIndexType(max(shape) − 1), where the
// shape is given or inferred.
func WithIndexType(dt arrow.DataType) ReadOption {
	return readOption(func(c *readConfig) { c.indexType = dt })
}

// WithValueType sets the type of the values: float64 by default. A float
// type reads any number, rounded correctly from its decimal text; an
// integer type reads integers that fit it (an error names the line of one
// that does not).
func WithValueType(dt arrow.DataType) ReadOption {
	return readOption(func(c *readConfig) { c.valueType = dt })
}

// WithWorkers sets the number of goroutines that parse (readers) or
// format entries (writers). The default, used for values ≤ 0, is
// GOMAXPROCS.
func WithWorkers(n int) Option {
	return bothOption{func(c *readConfig) { c.Workers = n }, func(c *writeConfig) { c.workers = n }}
}

// WithChunkSize sets the size in bytes of the pieces of input that workers
// parse, at most: DefaultChunkSize (4 MiB) by default, used for values ≤ 0.
// Memory while reading is the output plus about (2·workers + 2) chunks.
func WithChunkSize(n int) ReadOption {
	return readOption(func(c *readConfig) { c.ChunkSize = n })
}

// WithMaxLineLength sets the longest line accepted, in bytes: a longer one
// is an error naming its line. The default, used for values ≤ 0, is
// DefaultMaxLineLength (1 MiB).
func WithMaxLineLength(n int) ReadOption {
	return readOption(func(c *readConfig) { c.MaxLine = n })
}

// WithProgress sets a function called as the input is parsed, once per
// chunk, in input order, from one goroutine at a time; it must return
// quickly. The default is none.
func WithProgress(f func(Progress)) ReadOption {
	return readOption(func(c *readConfig) { c.Progress = f })
}

// Read reads a FROSTT file from r, gzip-compressed or not (detected by its
// first bytes). The input is read once, in chunks that are parsed in
// parallel while the next ones are read. The result must be released by
// the caller.
func Read(r io.Reader, opts ...ReadOption) (*coo.Tensor, error) {
	cfg := newReadConfig(opts)
	size := int64(-1)
	if l, ok := r.(interface{ Len() int }); ok {
		size = int64(l.Len())
	}
	in, err := textparse.OpenReader(&cfg.Config, r, size)
	if err != nil {
		return nil, err
	}
	return read(in, cfg)
}

// ReadFile reads a FROSTT file, gzip-compressed or not (detected by its
// first bytes, whatever its name). An uncompressed file is mapped into
// memory (read with ReadAt where mapping is not available) and its chunks
// parsed in parallel in place; a compressed one is decompressed on one
// goroutine and parsed on the others. A file that shrinks while it is read
// gives an error, not a crash. The result does not alias the file and must
// be released by the caller.
func ReadFile(path string, opts ...ReadOption) (*coo.Tensor, error) {
	cfg := newReadConfig(opts)
	cfg.Path = path
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	in, err := textparse.OpenFile(&cfg.Config, f)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	var t *coo.Tensor
	err = in.Protect(func() (err error) {
		t, err = read(in, cfg)
		return err
	})
	return t, err
}

// ReadBytes reads a FROSTT file held in memory, gzip-compressed or not,
// parsing its chunks in parallel. The result does not alias b and must be
// released by the caller.
func ReadBytes(b []byte, opts ...ReadOption) (*coo.Tensor, error) {
	cfg := newReadConfig(opts)
	in, err := textparse.OpenBytes(&cfg.Config, b)
	if err != nil {
		return nil, err
	}
	return read(in, cfg)
}

// scratch is a worker's parse of one chunk.
type scratch struct {
	coords []uint64 // rank per entry, 0-based
	vals   []uint64 // value lanes
	maxc   []uint64 // per dimension, the largest 0-based coordinate
	off    int64
	sorted bool
}

// reader reads the lines of a FROSTT file.
type reader struct {
	cfg   *readConfig
	rank  int
	vals  textparse.Values
	shape []int64 // given, or nil
	// limit is the largest 0-based coordinate allowed in each dimension
	// (from the shape or the index type).
	limit  []uint64
	fixed  bool // the index width is fixed (given type or shape)
	coords *textparse.Column
	values *textparse.Column
	maxc   []uint64
	// sorted: every entry placed so far is strictly after the one before.
	sorted bool
	last   []uint64
}

func read(in *textparse.Input, cfg *readConfig) (*coo.Tensor, error) {
	vt := cfg.valueType
	if vt == nil {
		vt = arrow.PrimitiveTypes.Float64
	}
	if err := core.CheckValueType(vt); err != nil {
		return nil, cfg.Errorf(arrowsparse.ErrUnsupportedType, "value type: %w", err)
	}
	kind := textparse.KindInt
	if textparse.IsFloat(vt) {
		kind = textparse.KindFloat
	}
	r := &reader{cfg: cfg, vals: textparse.NewValues(kind, vt), sorted: true}
	if cfg.hasShape {
		if err := core.CheckShape(cfg.shape); err != nil {
			return nil, cfg.Errorf(arrowsparse.ErrShape, "shape: %w", err)
		}
		r.shape = cfg.shape
		r.rank = len(cfg.shape)
	} else {
		rank, ok, err := firstRank(in)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, cfg.Errorf(arrowsparse.ErrShape, "the input has no entries, so its rank and shape are unknown: give them with WithShape")
		}
		r.rank = rank
	}
	it := cfg.indexType
	if it != nil {
		if err := core.CheckIndexType(it); err != nil {
			return nil, cfg.Errorf(arrowsparse.ErrUnsupportedType, "index type: %w", err)
		}
	}
	r.limit = make([]uint64, r.rank)
	for k := range r.limit {
		r.limit[k] = uint64(1<<63 - 2) // a coordinate ≤ MaxInt64, minus 1
		if r.shape != nil {
			r.limit[k] = uint64(r.shape[k] - 1)
		}
		if it != nil {
			r.limit[k] = min(r.limit[k], uint64(arrowsparse.IndexMax(it)))
		}
	}
	if r.shape != nil && it == nil {
		m := int64(-1)
		for _, d := range r.shape {
			m = max(m, d-1)
		}
		it = arrowsparse.SmallestIndexType(m)
	}
	width := 1
	if it != nil {
		width = arrowsparse.ByteWidth(it)
		r.fixed = true
	}
	room := int64(1 << 16)
	if size := in.Size(); size >= 0 {
		room = (size + 1) / int64(2*(r.rank+1)) // "1 1 … 1\n"
	}
	r.coords = textparse.NewColumn(cfg.Mem, width, room*int64(r.rank))
	r.values = textparse.NewColumn(cfg.Mem, r.vals.Width, room)
	defer r.coords.Release()
	defer r.values.Release()
	r.maxc = make([]uint64, r.rank)
	n, _, err := textparse.Run(in, textparse.Body[scratch]{
		New:   func() *scratch { return &scratch{maxc: make([]uint64, r.rank)} },
		Parse: r.parse,
		Place: r.place,
		Copy:  r.copy,
	})
	if err != nil {
		return nil, err
	}
	shape := r.shape
	if shape == nil {
		shape = make([]int64, r.rank)
		if n > 0 {
			for k, m := range r.maxc {
				shape[k] = int64(m) + 1
			}
		}
	}
	if it == nil {
		m := int64(-1)
		for _, d := range shape {
			m = max(m, d-1)
		}
		it = arrowsparse.SmallestIndexType(m)
		if w := arrowsparse.ByteWidth(it); w > r.coords.Width {
			r.coords.Widen(w, n*int64(r.rank))
		}
	}
	return newCOO(vt, it, shape, r.coords.Finish(n*int64(r.rank)), r.values.Finish(n), n, r.sorted)
}

// firstRank finds the first entry line and returns its number of
// coordinates, leaving the line to be read again.
func firstRank(in *textparse.Input) (int, bool, error) {
	for {
		line, eof, err := in.Line()
		if err != nil {
			return 0, false, err
		}
		if eof {
			return 0, false, nil
		}
		t := bytes.TrimLeft(line, " \t\r")
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		in.Unread()
		return len(bytes.Fields(line)) - 1, true, nil
	}
}

func (r *reader) parse(data []byte, s *scratch) (lines, entries int64, lerr *textparse.LineError) {
	s.coords = s.coords[:0]
	s.vals = s.vals[:0]
	clear(s.maxc)
	s.sorted = true
	rank := r.rank
	maxLine := r.cfg.MaxLine
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
		case '\n', '\r', '#':
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
		base := len(s.coords)
		for k := range rank {
			c, m, over := textparse.ScanUint(data[i:])
			i += m
			if m == 0 || i < n && data[i] != ' ' && data[i] != '\t' {
				if m == 0 && (i >= n || data[i] == '\n' || data[i] == '\r') || m > 0 && (data[i] == '\n' || data[i] == '\r') {
					return fail(arrowsparse.ErrSyntax, "the line has %d fields, want %d (%d coordinates and a value)", k+boolInt(m > 0), rank+1, rank)
				}
				return fail(arrowsparse.ErrSyntax, "coordinate %d, %s, is not a positive integer", k+1, token(data, i-m))
			}
			if i >= n {
				return fail(arrowsparse.ErrSyntax, "the line has %d fields, want %d (%d coordinates and a value)", k+1, rank+1, rank)
			}
			if over || c == 0 || c-1 > r.limit[k] {
				return fail(arrowsparse.ErrOutOfRange, "coordinate %d, %s, is outside %s", k+1, token(data, i-m), r.rangeOf(k))
			}
			c--
			s.coords = append(s.coords, c)
			s.maxc[k] = max(s.maxc[k], c)
			for i < n && (data[i] == ' ' || data[i] == '\t') {
				i++
			}
		}
		if i >= n || data[i] == '\n' || data[i] == '\r' {
			return fail(arrowsparse.ErrSyntax, "the line has %d fields, want %d (%d coordinates and a value)", rank, rank+1, rank)
		}
		lane, next, msg := r.vals.Parse(data, i)
		if msg != "" {
			return fail(arrowsparse.ErrSyntax, "%s", msg)
		}
		i = next
		for i < n && (data[i] == ' ' || data[i] == '\t') {
			i++
		}
		if i < n {
			if data[i] == '\r' && i+1 < n && data[i+1] == '\n' {
				i++
			}
			if data[i] != '\n' {
				return fail(arrowsparse.ErrSyntax, "the line has more than %d fields (%d coordinates and a value)", rank+1, rank)
			}
			i++
		}
		lines++
		if i-start > maxLine+1 {
			return lines - 1, int64(len(s.vals)), textparse.NewLineError(arrowsparse.ErrSyntax, lines-1, "line is longer than %d bytes", maxLine)
		}
		if s.sorted && base > 0 && !less(s.coords[base-rank:base], s.coords[base:]) {
			s.sorted = false
		}
		s.vals = append(s.vals, lane)
	}
	return lines, int64(len(s.vals)), nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// less reports whether coordinate a is before b in row-major order.
func less(a, b []uint64) bool {
	for k := range a {
		if a[k] != b[k] {
			return a[k] < b[k]
		}
	}
	return false
}

// rangeOf describes the allowed coordinates of dimension k.
func (r *reader) rangeOf(k int) string {
	if r.shape != nil && uint64(r.shape[k]-1) == r.limit[k] {
		return "1.." + strconv.FormatInt(r.shape[k], 10) + " of dimension " + strconv.Itoa(k+1) + " (coordinates count from 1)"
	}
	if r.cfg.indexType != nil {
		return "1.." + strconv.FormatUint(r.limit[k]+1, 10) + ", what index type " + r.cfg.indexType.String() + " holds (coordinates count from 1)"
	}
	return "1.." + strconv.FormatUint(r.limit[k]+1, 10) + " (coordinates count from 1)"
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
	t := data[i:j]
	if len(t) > 60 {
		return strconv.Quote(string(t[:60]) + "…")
	}
	return strconv.Quote(string(t))
}

func (r *reader) place(data []byte, s *scratch, before int64, grow func(func())) error {
	n := int64(len(s.vals))
	rank := int64(r.rank)
	s.off = before
	var top uint64
	for k, m := range s.maxc {
		r.maxc[k] = max(r.maxc[k], m)
		top = max(top, m)
	}
	width := r.coords.Width
	if !r.fixed {
		width = max(width, arrowsparse.ByteWidth(arrowsparse.SmallestIndexType(int64(top))))
	}
	need := before + n
	if need > r.values.Cap() || width > r.coords.Width {
		room := max(r.values.Cap(), need)
		if need > r.values.Cap() {
			room = max(2*r.values.Cap(), need)
		}
		grow(func() {
			if width > r.coords.Width {
				r.coords.Widen(width, before*rank)
			}
			r.coords.Reserve(room * rank)
			r.values.Reserve(room)
		})
	}
	if rank > 0 && n > 0 {
		if r.last != nil && !less(r.last, s.coords[:rank]) {
			r.sorted = false
		}
		r.last = append(r.last[:0], s.coords[(n-1)*rank:]...)
	} else if before+n > 1 {
		r.sorted = false // several entries at the one position of a scalar
	}
	r.sorted = r.sorted && s.sorted
	return nil
}

func (r *reader) copy(s *scratch) {
	n := int64(len(s.vals))
	rank := int64(r.rank)
	textparse.Narrow(r.coords.Bytes(s.off*rank, n*rank), r.coords.Width, s.coords)
	textparse.Narrow(r.values.Bytes(s.off, n), r.vals.Width, s.vals)
}
