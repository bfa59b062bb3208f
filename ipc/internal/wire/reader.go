package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// readChunk is the first allocation for a metadata or body of unknown
// availability; the buffer then doubles as bytes arrive, so a length that
// the input does not back costs at most about twice the bytes really read.
const readChunk = 64 << 10

// StreamFrame is one message read from an io.Reader by a Reader or
// ReadMessage.
type StreamFrame struct {
	// Message is the decoded metadata.
	Message *Message
	// Metadata holds the M metadata bytes (flatbuffer and padding), in a
	// new 8-byte aligned slice owned by the frame.
	Metadata []byte
	// Body holds the Message.BodyLength body bytes, allocated from the
	// reader's allocator. It is never nil; an empty body has length 0.
	// The caller owns it and must release it, through Release or directly.
	Body *memory.Buffer
	// Legacy reports a pre-0.15 frame with a 4-byte length prefix.
	Legacy bool
}

// Release releases the body. It is safe to call more than once.
func (f *StreamFrame) Release() {
	if f != nil && f.Body != nil {
		f.Body.Release()
		f.Body = nil
	}
}

// Reader reads a sequence of concatenated messages from an io.Reader,
// optionally closed by an end-of-stream marker. It reads exactly the bytes
// of each message and nothing beyond, so the underlying reader is positioned
// just after the last message (or marker) returned.
//
// Lengths are checked against the limits (WithMaxMetadataSize,
// WithMaxBodySize) before anything is allocated, and against the remaining
// input when the reader can tell it: a reader with a Len() int method
// (bytes.Reader, bytes.Buffer, strings.Reader), or an io.Seeker with a
// Size() int64 method (io.SectionReader) or a Stat method describing a
// regular file (os.File). Otherwise buffers start small and grow as bytes
// arrive, so a short input claiming a huge length fails after a small
// allocation.
//
// A Reader is not safe for concurrent use.
type Reader struct {
	r      io.Reader
	cfg    readConfig
	offset int64  // bytes consumed
	err    error  // sticky
	head   []byte // the first bytes of the current message, see Head
}

// HeadLen is the number of bytes of a message's start that a Reader keeps
// for Head.
const HeadLen = 512

// NewReader returns a Reader over r.
func NewReader(r io.Reader, opts ...ReadOption) *Reader {
	return &Reader{r: r, cfg: newReadConfig(opts)}
}

// Next reads the next message. It returns io.EOF at the clean end of the
// input or at an end-of-stream marker (after which nothing more is read).
// After any error, Next keeps returning that error. The returned frame's
// Body must be released by the caller.
func (r *Reader) Next() (*StreamFrame, error) {
	if r.err != nil {
		return nil, r.err
	}
	f, err := r.next()
	if err != nil {
		r.err = err
		return nil, err
	}
	return f, nil
}

// ReadMessage reads exactly one message from r. Unlike Reader.Next, an empty
// input or an end-of-stream marker is an error, as for Arrow C++'s
// ReadSparseTensor. The returned frame's Body must be released by the
// caller.
func ReadMessage(r io.Reader, opts ...ReadOption) (*StreamFrame, error) {
	f, err := NewReader(r, opts...).Next()
	if err == io.EOF {
		return nil, core.Errorf(arrowsparse.ErrStructure, "ipc: no message: the input is empty or starts with an end-of-stream marker")
	}
	return f, err
}

// Head returns the first bytes of the message that the last call of Next
// read or failed to read: after a failure in the framing (prefix, metadata
// length, metadata), up to HeadLen bytes, read on from the input if needed,
// so that the caller can tell what the input holds instead of a message.
// It aliases the reader's memory until the next call of Next.
func (r *Reader) Head() []byte { return r.head }

// framing finishes an error in the framing of a message: it fills the head
// up to HeadLen bytes from the input (the reader is failing anyway) and
// returns err.
func (r *Reader) framing(err error) error {
	if k := HeadLen - len(r.head); k > 0 {
		more := make([]byte, k)
		n, _ := io.ReadFull(r.r, more)
		r.offset += int64(n)
		r.head = append(r.head, more[:n]...)
	}
	return err
}

func (r *Reader) next() (*StreamFrame, error) {
	r.head = r.head[:0]
	var word [4]byte
	n, err := io.ReadFull(r.r, word[:])
	r.offset += int64(n)
	r.head = append(r.head, word[:n]...)
	switch {
	case err == io.EOF:
		return nil, io.EOF
	case err == io.ErrUnexpectedEOF:
		return nil, core.Errorf(arrowsparse.ErrBufferSize, "ipc: corrupted message at offset %d: %d bytes left, too few for a message prefix", r.offset-int64(n), n)
	case err != nil:
		return nil, fmt.Errorf("ipc: reading message prefix: %w", err)
	}
	mlen, _, legacy, err := readPrefix(binary.LittleEndian.Uint32(word[:]), func() (uint32, error) {
		n, err := io.ReadFull(r.r, word[:])
		r.offset += int64(n)
		r.head = append(r.head, word[:n]...)
		if err != nil {
			return 0, r.shortRead(err, "metadata length", 4, n)
		}
		return binary.LittleEndian.Uint32(word[:]), nil
	})
	if err == io.EOF {
		return nil, err
	}
	if err != nil {
		return nil, r.framing(err)
	}
	if err := r.cfg.checkMeta(mlen, r.remaining()); err != nil {
		return nil, r.framing(err)
	}
	meta, err := r.readMeta(int(mlen))
	if err != nil {
		return nil, r.framing(err)
	}
	r.head = append(r.head, meta[:min(len(meta), HeadLen)]...)
	msg, err := DecodeMetadata(meta)
	if err != nil {
		return nil, r.framing(err)
	}
	if err := r.cfg.checkBody(msg.BodyLength, r.remaining()); err != nil {
		return nil, err
	}
	body, err := r.readBody(msg.BodyLength)
	if err != nil {
		return nil, err
	}
	return &StreamFrame{Message: msg, Metadata: meta, Body: body, Legacy: legacy}, nil
}

// shortRead turns an error of io.ReadFull into the reader's error.
func (r *Reader) shortRead(err error, what string, want int64, got int) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return core.Errorf(arrowsparse.ErrBufferSize, "ipc: truncated message: expected %d bytes of %s, got %d: %w", want, what, got, io.ErrUnexpectedEOF)
	}
	return fmt.Errorf("ipc: reading %s: %w", what, err)
}

// remaining returns the number of bytes left in the input, or -1 if the
// reader cannot tell without consuming them.
func (r *Reader) remaining() int64 {
	switch x := r.r.(type) {
	case interface{ Len() int }:
		return int64(x.Len())
	case io.Seeker:
		var size int64 = -1
		switch s := r.r.(type) {
		case interface{ Size() int64 }:
			size = s.Size()
		case interface{ Stat() (fs.FileInfo, error) }:
			fi, err := s.Stat()
			if err != nil || !fi.Mode().IsRegular() {
				return -1
			}
			size = fi.Size()
		default:
			return -1
		}
		cur, err := x.Seek(0, io.SeekCurrent)
		if err != nil || cur > size {
			return -1
		}
		return size - cur
	}
	return -1
}

// readMeta reads n metadata bytes into an 8-byte aligned slice, growing it
// as bytes arrive.
func (r *Reader) readMeta(n int) ([]byte, error) {
	buf := alignedBytes(min(n, readChunk))
	got := 0
	for {
		k, err := io.ReadFull(r.r, buf[got:])
		got += k
		r.offset += int64(k)
		if err != nil {
			r.head = append(r.head, buf[:min(got, max(0, HeadLen-len(r.head)))]...)
			return nil, r.shortRead(err, "metadata", int64(n), got)
		}
		if got == n {
			return buf, nil
		}
		next := alignedBytes(min(n, 2*len(buf)))
		copy(next, buf)
		buf = next
	}
}

// readBody reads n body bytes into a buffer from the allocator, growing it
// as bytes arrive.
func (r *Reader) readBody(n int64) (*memory.Buffer, error) {
	body := memory.NewResizableBuffer(r.cfg.mem)
	if n == 0 {
		return body, nil
	}
	size := min(n, readChunk)
	if avail := r.remaining(); avail >= n {
		size = n // the input backs the whole length: allocate once
	}
	var got int64
	for {
		body.Resize(int(size))
		k, err := io.ReadFull(r.r, body.Bytes()[got:size])
		got += int64(k)
		r.offset += int64(k)
		if err != nil {
			body.Release()
			return nil, r.shortRead(err, "body", n, int(got))
		}
		if got == n {
			return body, nil
		}
		size = min(n, 2*size)
	}
}
