package mtx

import (
	"io"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/textparse"
	"github.com/arrowsparse/arrowsparse/views"
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
	indexType    arrow.DataType
	valueType    arrow.DataType
	keepTriangle bool
}

func newReadConfig(opts []ReadOption) *readConfig {
	c := &readConfig{Config: textparse.Config{Name: "mtx"}}
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

// WithIndexType sets the type of the coordinates of a coordinate file (an
// Arrow sparse index type that holds every row and column index). The
// default is the narrowest signed type that does:
// arrowsparse.SmallestIndexType(max(rows, cols) − 1).
func WithIndexType(dt arrow.DataType) ReadOption {
	return readOption(func(c *readConfig) { c.indexType = dt })
}

// WithValueType sets the type of the values. The defaults are float64 for
// real and pattern files (pattern entries read as 1) and int64 for integer
// files. Real files read into float16, float32 or float64, rounded
// correctly from the decimal text; integer files into any integer type that
// holds every value (an error names the line of one that does not) or a
// float type; pattern files into any value type.
func WithValueType(dt arrow.DataType) ReadOption {
	return readOption(func(c *readConfig) { c.valueType = dt })
}

// WithKeepTriangle keeps a symmetric, skew-symmetric or hermitian matrix as
// stored: only the entries of the file, not their mirror images. By
// default the readers expand it to both triangles, as scipy.io.mmread does.
func WithKeepTriangle() ReadOption {
	return readOption(func(c *readConfig) { c.keepTriangle = true })
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

// WithProgress sets a function called as the body is parsed, once per
// chunk, in input order, from one goroutine at a time; it must return
// quickly. The default is none.
func WithProgress(f func(Progress)) ReadOption {
	return readOption(func(c *readConfig) { c.Progress = f })
}

// Matrix is a matrix read from a Matrix Market file: the header, and the
// entries as a COO tensor (coordinate files) or a dense view (array files).
type Matrix struct {
	// Header is the file's header.
	Header Header
	// COO holds the entries of a coordinate file, nil for an array file:
	// a 2-d tensor of shape [Rows, Cols] with row-major coordinates, in
	// file order, then (for a symmetric matrix read without
	// WithKeepTriangle) the mirror images of the off-diagonal entries in
	// the same order. Its canonical flag is true when that order happens to
	// be sorted without duplicates.
	COO *coo.Tensor
	// Dense holds the values of an array file, nil for a coordinate file:
	// a Rows × Cols view in column-major order (element strides [1, Rows]),
	// as the file stores it; Copy gives a row-major copy.
	Dense *views.View
}

// Tensor returns COO or Dense, whichever is set. It shares memory with the
// matrix.
func (m *Matrix) Tensor() arrowsparse.Tensor {
	if m.COO != nil {
		return m.COO
	}
	return m.Dense
}

// ToCOO returns the matrix as a COO tensor: COO itself (retained) for a
// coordinate file, or the non-zero elements of Dense for an array file,
// with the narrowest signed index type that holds the coordinates, in
// buffers from mem. The result must be released by the caller.
func (m *Matrix) ToCOO(mem memory.Allocator) (*coo.Tensor, error) {
	if m.COO != nil {
		m.COO.Retain()
		return m.COO, nil
	}
	return denseToCOO(mem, m.Dense, arrowsparse.SmallestIndexType(max(m.Header.Rows, m.Header.Cols)-1))
}

// Release releases the tensor the matrix holds.
func (m *Matrix) Release() {
	if m.COO != nil {
		m.COO.Release()
		m.COO = nil
	}
	if m.Dense != nil {
		m.Dense.Release()
		m.Dense = nil
	}
}

// Read reads a Matrix Market file from r, gzip-compressed or not (detected
// by its first bytes). The input is read once, in chunks that are parsed in
// parallel while the next ones are read. The result must be released by
// the caller.
func Read(r io.Reader, opts ...ReadOption) (*Matrix, error) {
	cfg := newReadConfig(opts)
	in, err := textparse.OpenReader(&cfg.Config, r, sizeOf(r))
	if err != nil {
		return nil, err
	}
	return read(in, cfg)
}

// ReadFile reads a Matrix Market file, gzip-compressed or not (detected by
// its first bytes, whatever its name). An uncompressed file is mapped into
// memory (read with ReadAt where mapping is not available) and its chunks
// parsed in parallel in place; a compressed one is decompressed on one
// goroutine and parsed on the others. A file that shrinks while it is read
// gives an error, not a crash. The result does not alias the file and must
// be released by the caller.
func ReadFile(path string, opts ...ReadOption) (*Matrix, error) {
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
	var m *Matrix
	err = in.Protect(func() (err error) {
		m, err = read(in, cfg)
		return err
	})
	return m, err
}

// ReadBytes reads a Matrix Market file held in memory, gzip-compressed or
// not, parsing its chunks in parallel. The result does not alias b and must
// be released by the caller.
func ReadBytes(b []byte, opts ...ReadOption) (*Matrix, error) {
	cfg := newReadConfig(opts)
	in, err := textparse.OpenBytes(&cfg.Config, b)
	if err != nil {
		return nil, err
	}
	return read(in, cfg)
}

// ReadHeader reads only the header of a Matrix Market file from r (gzip or
// not): the banner, the comments and the size line. It reads little more
// than the header itself.
func ReadHeader(r io.Reader) (Header, error) {
	cfg := newReadConfig(nil)
	in, err := textparse.OpenReader(&cfg.Config, r, -1)
	if err != nil {
		return Header{}, err
	}
	return parseHeader(in)
}

// ReadHeaderFile reads only the header of a Matrix Market file.
func ReadHeaderFile(path string) (Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return Header{}, err
	}
	defer f.Close()
	cfg := newReadConfig(nil)
	cfg.Path = path
	in, err := textparse.OpenReader(&cfg.Config, f, -1)
	if err != nil {
		return Header{}, err
	}
	return parseHeader(in)
}

// sizeOf returns the size of r for progress reports, or -1.
func sizeOf(r io.Reader) int64 {
	switch v := r.(type) {
	case interface{ Len() int }:
		return int64(v.Len())
	case interface{ Stat() (os.FileInfo, error) }:
		if st, err := v.Stat(); err == nil && st.Mode().IsRegular() {
			return st.Size()
		}
	}
	return -1
}

// types returns the index and value types to read a file with, and how to
// read its values.
func (c *readConfig) types(h Header) (it arrow.DataType, vals textparse.Values, err error) {
	if h.Field == Complex {
		return nil, vals, c.Errorf(arrowsparse.ErrUnsupportedType, "the file holds complex values, and Arrow tensors have no complex type (read it with a tool that splits real and imaginary parts)")
	}
	vt := c.valueType
	if vt == nil {
		vt = arrow.PrimitiveTypes.Float64
		if h.Field == Integer {
			vt = arrow.PrimitiveTypes.Int64
		}
	}
	if err := core.CheckValueType(vt); err != nil {
		return nil, vals, c.Errorf(arrowsparse.ErrUnsupportedType, "value type: %w", err)
	}
	var kind textparse.ValueKind
	switch h.Field {
	case Real:
		if !textparse.IsFloat(vt) {
			return nil, vals, c.Errorf(arrowsparse.ErrUnsupportedType, "a real matrix cannot be read into %s values: choose float16, float32 or float64", vt)
		}
		kind = textparse.KindFloat
	case Integer:
		kind = textparse.KindInt
		if textparse.IsFloat(vt) {
			kind = textparse.KindIntAsFloat
		}
	default:
		kind = textparse.KindNone
	}
	if h.Symmetry == SkewSymmetric && !c.keepTriangle {
		switch vt.ID() {
		case arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
			return nil, vals, c.Errorf(arrowsparse.ErrUnsupportedType, "a skew-symmetric matrix cannot be read into %s values: its mirrored entries are negative (use a signed type or WithKeepTriangle)", vt)
		}
	}
	vals = textparse.NewValues(kind, vt)
	it = c.indexType
	maxIndex := max(h.Rows, h.Cols) - 1
	if it == nil {
		it = arrowsparse.SmallestIndexType(maxIndex)
	} else if err := core.CheckIndexFits(it, maxIndex, "the largest index"); err != nil {
		return nil, vals, c.Errorf(arrowsparse.ErrUnsupportedType, "index type: %w", err)
	}
	return it, vals, nil
}

func read(in *textparse.Input, cfg *readConfig) (*Matrix, error) {
	h, err := parseHeader(in)
	if err != nil {
		return nil, err
	}
	it, vals, err := cfg.types(h)
	if err != nil {
		return nil, err
	}
	m := &Matrix{Header: h}
	if h.Layout == Array {
		m.Dense, err = readArray(in, cfg, h, vals)
	} else {
		m.COO, err = readCoordinate(in, cfg, h, it, vals)
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}
