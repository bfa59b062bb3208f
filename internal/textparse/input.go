package textparse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// Defaults of the reader options.
const (
	DefaultChunkSize = 4 << 20
	DefaultMaxLine   = 1 << 20
	minChunkSize     = 64 << 10
)

// Progress is what a progress callback receives.
type Progress struct {
	// Bytes is the number of bytes of the input consumed so far: of the
	// file or reader as given, so compressed bytes for gzip input.
	Bytes int64
	// Total is the size of the input in the same unit, or -1 when unknown
	// (a reader of unknown size).
	Total int64
	// Entries is the number of entries (values, for a dense array) parsed
	// so far.
	Entries int64
}

// Config holds the reader options that mtx and tns share.
type Config struct {
	Mem       memory.Allocator
	Workers   int
	ChunkSize int
	MaxLine   int
	Progress  func(Progress)
	// Name prefixes every message ("mtx", "tns").
	Name string
	// Path names the file in messages, or is empty.
	Path string
}

// Fill sets the defaults of unset fields.
func (c *Config) Fill() {
	if c.Mem == nil {
		c.Mem = memory.DefaultAllocator
	}
	if c.Workers <= 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	if c.ChunkSize <= 0 {
		c.ChunkSize = DefaultChunkSize
	}
	if c.MaxLine <= 0 {
		c.MaxLine = DefaultMaxLine
	}
}

// prefix returns "mtx: " or "mtx: path: ".
func (c *Config) prefix() string {
	if c.Path != "" {
		return c.Name + ": " + c.Path + ": "
	}
	return c.Name + ": "
}

// Errorf returns an error of the given category whose message starts with
// the format name (and file path).
func (c *Config) Errorf(kind error, format string, args ...any) error {
	return core.Errorf(kind, "%s"+format, append([]any{c.prefix()}, args...)...)
}

// LineError is the cause of an error about one line of the input: its
// number, counted from 1, and what is wrong with it.
type LineError struct {
	Line int64
	Msg  string
	kind error
}

// Error returns "line N: message".
func (e *LineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// NewLineError returns a line error of the category kind. Chunk parsers
// give the line as a 0-based index within their chunk; the engine turns it
// into the line number.
func NewLineError(kind error, line int64, format string, args ...any) *LineError {
	return &LineError{Line: line, Msg: fmt.Sprintf(format, args...), kind: kind}
}

// LineErr returns the error for a line error, with the prefix and the
// category.
func (c *Config) LineErr(e *LineError) error {
	return core.Errorf(e.kind, "%s%w", c.prefix(), e)
}

const (
	kindMem = iota
	kindReaderAt
	kindStream
)

// Input is a text input being read: first its header, line by line
// (Line), then its body, in parallel (Run).
type Input struct {
	cfg  *Config
	kind int
	lr   lineReader

	data  []byte      // kindMem: the whole input
	ra    io.ReaderAt // kindReaderAt
	size  int64       // kindReaderAt: input size
	total int64       // for Progress: input size as given, or -1
	count *countingReader
	unmap func() error // a mapped file's data: unmapped by Close
}

// OpenBytes opens an in-memory input, decompressing it as it goes if it is
// gzip data.
func OpenBytes(cfg *Config, b []byte) (*Input, error) {
	if isGzip(b) {
		return openStream(cfg, bytes.NewReader(b), int64(len(b)), true)
	}
	in := &Input{cfg: cfg, kind: kindMem, data: b, total: int64(len(b))}
	in.lr = lineReader{buf: b, end: len(b), eof: true, maxLine: cfg.MaxLine}
	return in, nil
}

// OpenReader opens a stream, decompressing it if it starts with the gzip
// magic bytes. size is its size for progress reports, or -1.
func OpenReader(cfg *Config, r io.Reader, size int64) (*Input, error) {
	return openStream(cfg, r, size, false)
}

func openStream(cfg *Config, r io.Reader, size int64, knownGzip bool) (*Input, error) {
	cr := &countingReader{r: r}
	in := &Input{cfg: cfg, kind: kindStream, total: size, count: cr}
	var src io.Reader = cr
	if !knownGzip {
		// Peek at the first two bytes through the line reader's buffer.
		var head [2]byte
		n, err := io.ReadFull(cr, head[:])
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return nil, in.ioErr(err)
		}
		src = io.MultiReader(bytes.NewReader(head[:n]), cr)
		knownGzip = isGzip(head[:n])
	}
	if knownGzip {
		zr, err := gzip.NewReader(src)
		if err != nil {
			return nil, in.ioErr(err)
		}
		src = zr
	}
	in.lr = lineReader{r: src, maxLine: cfg.MaxLine}
	return in, nil
}

// OpenFile opens a file: a plain file is mapped into memory (or, where that
// is not possible, read with ReadAt) and parsed in parallel, a gzip file is
// read as a stream. The caller must run the reading under Protect and call
// Close once the results no longer refer to the input.
func OpenFile(cfg *Config, f *os.File) (*Input, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return openStream(cfg, f, -1, false)
	}
	size := st.Size()
	var head [2]byte
	n, err := f.ReadAt(head[:], 0)
	if err != nil && err != io.EOF {
		return nil, err
	}
	if isGzip(head[:n]) {
		return openStream(cfg, io.NewSectionReader(f, 0, size), size, true)
	}
	if data, unmap, err := mapFile(f, size); err == nil {
		// Parsed in place: no copy from the page cache. A fault on the
		// mapping (the file shrank meanwhile) becomes an error in Protect
		// and in the workers.
		in := &Input{cfg: cfg, kind: kindMem, data: data, total: size, unmap: unmap}
		in.lr = lineReader{buf: data, end: len(data), eof: true, maxLine: cfg.MaxLine}
		return in, nil
	}
	in := &Input{cfg: cfg, kind: kindReaderAt, ra: f, size: size, total: size}
	in.lr = lineReader{r: io.NewSectionReader(f, 0, size), maxLine: cfg.MaxLine}
	return in, nil
}

// Close releases what the input holds (a file mapping). Nothing read from
// the input may be used afterwards, so results must be copies.
func (in *Input) Close() error {
	if in.unmap == nil {
		return nil
	}
	err := in.unmap()
	in.unmap, in.data, in.lr.buf = nil, nil, nil
	return err
}

// Protect runs f, turning a fault on a mapped file (it shrank while being
// read: SIGBUS) into an error instead of a crash. Run protects its workers
// the same way.
func (in *Input) Protect(f func() error) (err error) {
	if in.unmap == nil {
		return f()
	}
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	defer func() {
		if r := recover(); r != nil {
			if !isFault(r) {
				panic(r)
			}
			err = in.faultErr()
		}
	}()
	return f()
}

// isFault reports whether a recovered value is a memory fault.
func isFault(r any) bool {
	_, ok := r.(interface{ Addr() uintptr })
	return ok
}

func (in *Input) faultErr() error {
	return fmt.Errorf("%sreading input: the file changed while it was being read", in.cfg.prefix())
}

// mapFile maps a file; tests replace it to exercise the ReadAt path.
var mapFile = mapFileOS

// isGzip reports whether b starts with the gzip magic bytes.
func isGzip(b []byte) bool { return len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b }

// ioErr turns a read error into the error to return: corrupt or truncated
// compressed data is bad input (ErrSyntax); other errors come from the
// reader and are wrapped as they are.
func (in *Input) ioErr(err error) error {
	switch {
	case errors.Is(err, gzip.ErrHeader), errors.Is(err, gzip.ErrChecksum), errors.Is(err, io.ErrUnexpectedEOF):
		return in.cfg.Errorf(arrowsparse.ErrSyntax, "corrupt or truncated gzip data: %w", err)
	}
	var ce flate.CorruptInputError
	if errors.As(err, &ce) {
		return in.cfg.Errorf(arrowsparse.ErrSyntax, "corrupt gzip data: %w", err)
	}
	return fmt.Errorf("%sreading input: %w", in.cfg.prefix(), err)
}

// Line returns the next line without its line ending ("\n" or "\r\n"), or
// eof = true at the end of the input. The slice is valid until the next
// call. A line longer than the limit is an error.
func (in *Input) Line() (line []byte, eof bool, err error) {
	line, eof, err = in.lr.next()
	if err != nil {
		if le, ok := err.(*LineError); ok {
			le.Line += in.lr.line
			return nil, false, in.cfg.LineErr(le)
		}
		return nil, false, in.ioErr(err)
	}
	return line, eof, nil
}

// Unread pushes back the line returned last; the next Line returns it
// again (once).
func (in *Input) Unread() { in.lr.unread() }

// LineNo returns the number of the line returned last (0 before the first).
func (in *Input) LineNo() int64 { return in.lr.line }

// Size returns a bound on the number of bytes left to read, or -1 when it is
// unknown (a stream).
func (in *Input) Size() int64 {
	switch in.kind {
	case kindMem:
		return int64(len(in.data) - in.lr.pos)
	case kindReaderAt:
		return in.size - in.lr.consumed()
	}
	return -1
}

// Config returns the configuration the input was opened with.
func (in *Input) Config() *Config { return in.cfg }

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// lineReader splits the header into lines, over an in-memory buffer or a
// reader.
type lineReader struct {
	r        io.Reader // nil: buf is the whole input
	buf      []byte
	pos, end int
	off      int64 // input offset of buf[0]
	eof      bool
	line     int64 // lines returned so far
	last     int   // start of the line returned last, for unread
	lastLine bool
	maxLine  int
}

// consumed returns the input offset of the next unread byte.
func (lr *lineReader) consumed() int64 { return lr.off + int64(lr.pos) }

func (lr *lineReader) unread() {
	if lr.lastLine {
		lr.pos = lr.last
		lr.line--
		lr.lastLine = false
	}
}

func (lr *lineReader) next() ([]byte, bool, error) {
	lr.lastLine = false
	for {
		if i := bytes.IndexByte(lr.buf[lr.pos:lr.end], '\n'); i >= 0 {
			if i > lr.maxLine {
				return nil, false, NewLineError(arrowsparse.ErrSyntax, 1, "line is longer than %d bytes", lr.maxLine)
			}
			line := lr.buf[lr.pos : lr.pos+i]
			lr.last, lr.lastLine = lr.pos, true
			lr.pos += i + 1
			lr.line++
			return bytes.TrimSuffix(line, []byte{'\r'}), false, nil
		}
		if lr.end-lr.pos > lr.maxLine {
			return nil, false, NewLineError(arrowsparse.ErrSyntax, 1, "line is longer than %d bytes", lr.maxLine)
		}
		if lr.eof {
			if lr.pos == lr.end {
				return nil, true, nil
			}
			line := lr.buf[lr.pos:lr.end]
			lr.last, lr.lastLine = lr.pos, true
			lr.pos = lr.end
			lr.line++
			return bytes.TrimSuffix(line, []byte{'\r'}), false, nil
		}
		if err := lr.fill(); err != nil {
			return nil, false, err
		}
	}
}

// fill reads more input, keeping the unread bytes and the line returned
// last (for unread).
func (lr *lineReader) fill() error {
	keep := lr.pos
	if lr.lastLine {
		keep = lr.last
	}
	if keep > 0 {
		n := copy(lr.buf, lr.buf[keep:lr.end])
		lr.off += int64(keep)
		lr.pos -= keep
		lr.last -= keep
		lr.end = n
	}
	if lr.end == len(lr.buf) {
		nb := make([]byte, max(2*len(lr.buf), 64<<10))
		copy(nb, lr.buf[:lr.end])
		lr.buf = nb
	}
	n, err := lr.r.Read(lr.buf[lr.end:])
	lr.end += n
	if err == io.EOF {
		lr.eof = true
		return nil
	}
	return err
}

// rest returns the buffered bytes not yet consumed.
func (lr *lineReader) rest() []byte { return lr.buf[lr.pos:lr.end] }
