package arrowext

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// ReadOption configures the readers: ReadIPCFile, ReadIPCFileBytes,
// ReadIPCStream and ReadParquet.
type ReadOption interface{ applyRead(*readConfig) }

// WriteOption configures the writers: WriteIPCFile, WriteIPCStream and
// WriteParquet.
type WriteOption interface{ applyWrite(*writeConfig) }

// Option configures readers and writers alike.
type Option interface {
	ReadOption
	WriteOption
}

type readConfig struct {
	mem memory.Allocator
}

type writeConfig struct {
	mem         memory.Allocator
	compression Compression
	rowGroupLen int64
	batchLen    int64
}

func newReadConfig(opts []ReadOption) *readConfig {
	c := &readConfig{mem: memory.DefaultAllocator}
	for _, o := range opts {
		o.applyRead(c)
	}
	return c
}

func newWriteConfig(opts []WriteOption) *writeConfig {
	c := &writeConfig{mem: memory.DefaultAllocator, rowGroupLen: DefaultRowGroupLength}
	for _, o := range opts {
		o.applyWrite(c)
	}
	return c
}

type allocatorOption struct{ mem memory.Allocator }

func (o allocatorOption) applyRead(c *readConfig)   { c.mem = o.mem }
func (o allocatorOption) applyWrite(c *writeConfig) { c.mem = o.mem }

type writeOption func(*writeConfig)

func (f writeOption) applyWrite(c *writeConfig) { f(c) }

// WithAllocator sets the allocator of every buffer a reader or writer
// makes: the columns read from an io.Reader, and a writer's temporary
// buffers (compression, Parquet encoding). The default is
// memory.DefaultAllocator.
func WithAllocator(mem memory.Allocator) Option { return allocatorOption{mem} }

// Compression names a compression codec for the writers.
type Compression int8

const (
	// Uncompressed writes buffers and pages as they are (the default).
	Uncompressed Compression = iota
	// LZ4 compresses IPC body buffers with LZ4 frames and Parquet pages
	// with raw LZ4 (LZ4_RAW).
	LZ4
	// Zstd compresses IPC body buffers and Parquet pages with Zstandard.
	Zstd
	// Snappy compresses Parquet pages with Snappy; IPC has no Snappy, so it
	// is an error for the IPC writers.
	Snappy
)

// WithCompression sets the compression of the written data. The default is
// Uncompressed.
func WithCompression(c Compression) WriteOption {
	return writeOption(func(w *writeConfig) { w.compression = c })
}

// DefaultRowGroupLength is the default number of rows in a Parquet row
// group, pyarrow's default.
const DefaultRowGroupLength = 1 << 20

// WithRowGroupLength sets the number of rows of each Parquet row group;
// values ≤ 0 keep the default, DefaultRowGroupLength.
func WithRowGroupLength(n int64) WriteOption {
	return writeOption(func(w *writeConfig) {
		if n > 0 {
			w.rowGroupLen = n
		}
	})
}

// WithBatchLength sets the largest number of rows of each record batch the
// IPC writers write; values ≤ 0 (the default) write each chunk of the
// table's columns as it is.
func WithBatchLength(n int64) WriteOption {
	return writeOption(func(w *writeConfig) { w.batchLen = n })
}

// ipcOptions returns arrow-go's IPC writer options.
func (c *writeConfig) ipcOptions(schema *arrow.Schema) ([]ipc.Option, error) {
	opts := []ipc.Option{ipc.WithSchema(schema), ipc.WithAllocator(c.mem)}
	switch c.compression {
	case Uncompressed:
	case LZ4:
		opts = append(opts, ipc.WithLZ4())
	case Zstd:
		opts = append(opts, ipc.WithZstd())
	default:
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "arrowext: Arrow IPC has no compression %d (it has LZ4 and Zstd)", c.compression)
	}
	return opts, nil
}

// recordBatches calls f with the table's record batches: its chunks as
// they are, or cut to the batch length, with sliced dense unions and list
// views rebased (see unsliced). A panic in f (arrow-go's encoders, on a layout
// they mishandle) is returned as an error.
func (c *writeConfig) recordBatches(tbl arrow.Table, f func(arrow.RecordBatch) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = core.Errorf(arrowsparse.ErrUnsupportedType, "arrow-go's encoder failed on this table (%v)", r)
		}
	}()
	tr := array.NewTableReader(tbl, c.batchLen)
	defer tr.Release()
	for tr.Next() {
		if err := writeBatch(unsliced(c.mem, tr.RecordBatch()), f); err != nil {
			return err
		}
	}
	return tr.Err()
}

// writeBatch calls f with rec and releases rec, even if f panics.
func writeBatch(rec arrow.RecordBatch, f func(arrow.RecordBatch) error) error {
	defer rec.Release()
	return f(rec)
}

// WriteIPCFile writes a table as an Arrow IPC file (the "Feather v2"
// format, starting with ARROW1). Extension columns travel as their storage,
// with ARROW:extension:name and ARROW:extension:metadata in the field
// metadata, as every Arrow implementation writes them; pyarrow reads this
// package's types as its own. The body buffers are written as they are,
// without a copy on this side.
func WriteIPCFile(w io.Writer, tbl arrow.Table, opts ...WriteOption) error {
	c := newWriteConfig(opts)
	return c.tracked(func() error {
		iopts, err := c.ipcOptions(tbl.Schema())
		if err != nil {
			return err
		}
		fw, err := ipc.NewFileWriter(w, iopts...)
		if err != nil {
			return writeError("writing an IPC file", err)
		}
		if err := c.recordBatches(tbl, fw.Write); err != nil {
			fw.Close()
			return writeError("writing an IPC file", err)
		}
		return writeError("writing an IPC file", fw.Close())
	})
}

// tracked runs the write f with c.mem replaced by a trackingAllocator and,
// if f fails, frees what it left allocated (arrow-go's encoder drops its
// buffers when it panics).
func (c *writeConfig) tracked(f func() error) error {
	ta := newTrackingAllocator(c.mem)
	c.mem = ta
	err := f()
	if err != nil {
		ta.releaseAll()
	}
	return err
}

// WriteIPCStream writes a table as an Arrow IPC stream, with an
// end-of-stream marker; see WriteIPCFile.
func WriteIPCStream(w io.Writer, tbl arrow.Table, opts ...WriteOption) error {
	c := newWriteConfig(opts)
	return c.tracked(func() error {
		iopts, err := c.ipcOptions(tbl.Schema())
		if err != nil {
			return err
		}
		sw := ipc.NewWriter(w, iopts...)
		if err := c.recordBatches(tbl, sw.Write); err != nil {
			sw.Close()
			return writeError("writing an IPC stream", err)
		}
		return writeError("writing an IPC stream", sw.Close())
	})
}

// ReadIPCFile reads every record batch of an Arrow IPC file into a table,
// its columns re-wrapped as this package's extension types (see
// RewrapTable) whether or not the types are registered. The buffers come
// from the allocator of WithAllocator. The table must be released by the
// caller.
//
// The file is untrusted: before arrow-go's reader decodes it, the footer
// and every message's metadata are checked (every table, vector and string
// inside its flatbuffer, every body inside the file, compressed buffers
// claiming at most 4096 times their size), because arrow-go allocates what
// they claim. Malformed input is an error wrapping arrow.ErrInvalid.
func ReadIPCFile(r ipc.ReadAtSeeker, opts ...ReadOption) (arrow.Table, error) {
	c := newReadConfig(opts)
	return safely(c, "reading an IPC file", func() (arrow.Table, error) {
		size, err := r.Seek(0, io.SeekEnd)
		if err != nil {
			return nil, readError("reading an IPC file", err)
		}
		if err := verifyIPCFile(r, size); err != nil {
			return nil, err
		}
		if _, err := r.Seek(0, io.SeekStart); err != nil {
			return nil, readError("reading an IPC file", err)
		}
		fr, err := ipc.NewFileReader(r, ipc.WithAllocator(c.mem))
		if err != nil {
			return nil, readError("reading an IPC file", err)
		}
		return readFile(fr)
	})
}

// ReadIPCFileBytes is ReadIPCFile for a file held in memory (read whole, or
// memory-mapped): the columns' buffers are slices of data, with no copy,
// unless the file is compressed. data must not be modified while the table
// lives; the garbage collector keeps it alive.
func ReadIPCFileBytes(data []byte, opts ...ReadOption) (arrow.Table, error) {
	c := newReadConfig(opts)
	return safely(c, "reading an IPC file", func() (arrow.Table, error) {
		if err := verifyIPCFile(bytes.NewReader(data), int64(len(data))); err != nil {
			return nil, err
		}
		fr, err := ipc.NewMappedFileReader(data, ipc.WithAllocator(c.mem))
		if err != nil {
			return nil, readError("reading an IPC file", err)
		}
		return readFile(fr)
	})
}

func readFile(fr *ipc.FileReader) (arrow.Table, error) {
	defer fr.Close()
	recs := make([]arrow.RecordBatch, 0, fr.NumRecords())
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	for i := range fr.NumRecords() {
		rec, err := fr.RecordBatchAt(i)
		if err != nil {
			return nil, readError("reading an IPC file", err)
		}
		recs = append(recs, rec)
	}
	return rewrappedTable(fr.Schema(), recs)
}

// ReadIPCStream reads every record batch of an Arrow IPC stream into a
// table, as ReadIPCFile does, with the same checks: it reads the whole
// stream into memory first, to check it before arrow-go decodes it.
func ReadIPCStream(r io.Reader, opts ...ReadOption) (arrow.Table, error) {
	c := newReadConfig(opts)
	return safely(c, "reading an IPC stream", func() (arrow.Table, error) { return readStream(r, c) })
}

func readStream(r io.Reader, c *readConfig) (arrow.Table, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, readError("reading an IPC stream", err)
	}
	if err := verifyIPCStream(data); err != nil {
		return nil, err
	}
	sr, err := ipc.NewReader(bytes.NewReader(data), ipc.WithAllocator(c.mem))
	if err != nil {
		return nil, readError("reading an IPC stream", err)
	}
	defer sr.Release()
	var recs []arrow.RecordBatch
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	for sr.Next() {
		rec := sr.RecordBatch()
		rec.Retain()
		recs = append(recs, rec)
	}
	if err := sr.Err(); err != nil {
		return nil, readError("reading an IPC stream", err)
	}
	return rewrappedTable(sr.Schema(), recs)
}

// rewrappedTable makes a table of record batches and re-wraps its columns.
func rewrappedTable(schema *arrow.Schema, recs []arrow.RecordBatch) (arrow.Table, error) {
	tbl := array.NewTableFromRecords(schema, recs)
	defer tbl.Release()
	return checkedTable(RewrapTable(tbl))
}

// checkedTable checks the layout of the tensor columns of a table just
// read (see checkLayout), releasing it if they are broken.
func checkedTable(tbl arrow.Table, err error) (arrow.Table, error) {
	if err != nil {
		return nil, err
	}
	if err := checkTableLayout(tbl); err != nil {
		tbl.Release()
		return nil, err
	}
	return tbl, nil
}

// readError wraps an error from arrow-go's readers so that it wraps
// arrow.ErrInvalid, keeping its own categories: a file that cannot be read
// is bad input.
func readError(what string, err error) error {
	if err == nil {
		return nil
	}
	var e *arrowsparse.Error
	if errors.As(err, &e) {
		return err
	}
	return core.Errorf(arrowsparse.ErrStructure, "%s: %w", what, err)
}

// writeError adds context to an error from arrow-go's writers or from w.
func writeError(what string, err error) error {
	if err == nil {
		return nil
	}
	var e *arrowsparse.Error
	if errors.As(err, &e) {
		return err
	}
	return fmt.Errorf("arrowext: %s: %w", what, err)
}

// safely runs f, turning a panic in arrow-go's decoders (which do not
// check every buffer of a malformed file) into an error wrapping
// arrow.ErrInvalid. f must allocate through c.mem, which safely replaces
// with a trackingAllocator: when f fails, what it left allocated is freed.
func safely(c *readConfig, what string, f func() (arrow.Table, error)) (tbl arrow.Table, err error) {
	ra := newTrackingAllocator(c.mem)
	c.mem = ra
	defer func() {
		r := recover()
		if r != nil || err != nil {
			ra.releaseAll()
		}
		if r != nil {
			tbl, err = nil, core.Errorf(arrowsparse.ErrStructure, "%s: malformed input (%v)%s", what, r, zeroSizeHint(fmt.Sprint(r)))
		} else if err != nil {
			if hint := zeroSizeHint(err.Error()); hint != "" {
				err = core.Errorf(arrowsparse.ErrStructure, "%w%s", err, hint)
			}
		}
	}()
	return f()
}

// zeroSizeHint explains arrow-go's "arrow: invalid size" panic, which its
// readers raise (or turn into an error) on a FixedSizeList of size 0.
func zeroSizeHint(msg string) string {
	if strings.Contains(msg, "arrow: invalid size") {
		return "; arrow-go cannot represent a FixedSizeList of size 0, the storage of a fixed_shape_tensor with a zero-size dimension"
	}
	return ""
}
