package ipc

import (
	"io"
	"iter"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/internal/debug"
	"github.com/arrowsparse/arrowsparse/ipc/internal/wire"
)

// Reader reads a sequence of concatenated tensor messages, as several calls
// of Arrow C++'s WriteTensor or WriteSparseTensor leave them, optionally
// ended by an end-of-stream marker. It is not safe for concurrent use.
type Reader struct {
	refCount atomic.Int64
	stream   *wire.Reader // io.Reader source
	closer   io.Closer    // a file OpenFile opened, closed with the input
	buf      *memory.Buffer
	pos      int // in-memory source: offset of the next message in buf
	cfg      *readConfig
	err      error

	name   string // the file's path, for errors; "" for other inputs
	index  int    // number of messages returned
	offset int64  // offset of the next message
}

// NewReader returns a Reader of the messages in r. Bodies are read into
// buffers from the allocator of WithAllocator. The reader reads exactly the
// bytes of each message, nothing beyond.
func NewReader(r io.Reader, opts ...ReadOption) *Reader {
	cfg := newReadConfig(opts)
	rd := &Reader{stream: wire.NewReader(r, cfg.wire()...), cfg: cfg}
	rd.refCount.Store(1)
	return rd
}

// NewBufferReader returns a Reader of the messages in buf, without copying:
// every tensor's buffers are slices of buf, which they retain.
func NewBufferReader(buf *memory.Buffer, opts ...ReadOption) *Reader {
	buf.Retain()
	rd := &Reader{buf: buf, cfg: newReadConfig(opts)}
	rd.refCount.Store(1)
	return rd
}

// NewBytesReader is NewBufferReader over a byte slice, which must not be
// modified while the tensors are alive.
func NewBytesReader(b []byte, opts ...ReadOption) *Reader {
	return NewBufferReader(memory.NewBufferBytes(b), opts...)
}

// Next returns the next message, or io.EOF after the last one (at the end
// of the input or at an end-of-stream marker). After an error other than
// io.EOF, Next returns that error again. An error names the message by its
// index and offset when it is not the first, and the file when the reader
// came from OpenFile. The returned message must be released by the caller.
func (r *Reader) Next() (*Message, error) {
	if r.err != nil {
		return nil, r.err
	}
	m, err := r.next()
	if err != nil {
		if err != io.EOF {
			err = inputError(err, r.name, r.index, r.offset)
		}
		r.err = err
		r.dropInput()
		return nil, err
	}
	r.index++
	r.offset += m.Size
	return m, nil
}

// Offset returns the offset in the input of the next message: the sum of
// the sizes of the messages returned so far.
func (r *Reader) Offset() int64 { return r.offset }

func (r *Reader) next() (*Message, error) {
	if r.stream != nil {
		f, err := r.stream.Next()
		if err != nil {
			if err == io.EOF {
				return nil, err
			}
			return nil, explainFraming(err, r.stream.Head())
		}
		defer f.Release()
		size := int64(len(f.Metadata)) + int64(f.Body.Len()) + prefixLen(f.Legacy)
		return decode(f.Message, f.Body, f.Legacy, size, int64(len(f.Metadata)), r.cfg)
	}
	if r.buf == nil {
		return nil, io.EOF
	}
	data := r.buf.Bytes()[r.pos:]
	f, rest, err := wire.ParseNext(data, r.cfg.wire()...)
	if err == io.EOF {
		return nil, err
	}
	if err != nil {
		return nil, explainFraming(err, data)
	}
	m, err := decodeFrame(f, r.buf, r.pos, r.cfg)
	if err != nil {
		return nil, err
	}
	r.pos += len(data) - len(rest)
	return m, nil
}

// All returns an iterator over the remaining messages. It stops at the end
// of the input; an error is yielded once, with a nil message, and ends the
// iteration. Each yielded message must be released by the caller.
func (r *Reader) All() iter.Seq2[*Message, error] {
	return func(yield func(*Message, error) bool) {
		for {
			m, err := r.Next()
			if err == io.EOF {
				return
			}
			if !yield(m, err) || err != nil {
				return
			}
		}
	}
}

// Retain increases the reference count by 1.
// Retain may be called simultaneously from multiple goroutines.
func (r *Reader) Retain() { r.refCount.Add(1) }

// Release decreases the reference count by 1.
// When the reference count goes to zero, the reader drops its reference to
// an in-memory or memory-mapped input and closes a file OpenFile opened;
// messages already returned stay valid, and a mapping lives until the last
// of them is released.
// Release may be called simultaneously from multiple goroutines.
func (r *Reader) Release() {
	n := r.refCount.Add(-1)
	debug.Assert(n >= 0, "ipc: too many releases of a Reader")
	if n == 0 {
		r.dropInput()
	}
}

// dropInput releases the in-memory input and closes an opened file.
func (r *Reader) dropInput() {
	if r.buf != nil {
		r.buf.Release()
		r.buf = nil
	}
	if r.closer != nil {
		r.closer.Close()
		r.closer = nil
	}
}
