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
	buf      *memory.Buffer
	pos      int // in-memory source: offset of the next message in buf
	cfg      *readConfig
	err      error
}

// NewReader returns a Reader of the messages in r. Bodies are read into
// buffers from the allocator of WithAllocator.
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
// io.EOF, Next returns that error again. The returned message must be
// released by the caller.
func (r *Reader) Next() (*Message, error) {
	if r.err != nil {
		return nil, r.err
	}
	m, err := r.next()
	if err != nil {
		r.err = err
		r.dropInput()
		return nil, err
	}
	return m, nil
}

func (r *Reader) next() (*Message, error) {
	if r.stream != nil {
		f, err := r.stream.Next()
		if err != nil {
			return nil, err
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
	if err != nil {
		return nil, err
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
// an in-memory or memory-mapped input; messages already returned stay
// valid, and a mapping lives until the last of them is released.
// Release may be called simultaneously from multiple goroutines.
func (r *Reader) Release() {
	n := r.refCount.Add(-1)
	debug.Assert(n >= 0, "ipc: too many releases of a Reader")
	if n == 0 {
		r.dropInput()
	}
}

// dropInput releases the in-memory input.
func (r *Reader) dropInput() {
	if r.buf != nil {
		r.buf.Release()
		r.buf = nil
	}
}
