package wire

import (
	"encoding/binary"
	"io"
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// Framing constants.
const (
	// ContinuationMarker is the first word of a modern frame (int32 -1).
	ContinuationMarker uint32 = 0xFFFFFFFF
	// SparseTensorAlignment is the multiple Arrow C++ pads 8+M to for
	// SparseTensor messages, and the multiple each sparse body buffer is
	// padded to.
	SparseTensorAlignment = 8
	// TensorAlignment is the multiple Arrow C++ pads 8+M to for dense
	// Tensor messages (kTensorAlignment).
	TensorAlignment = 64

	// DefaultMaxMetadataSize is the default limit on M, the metadata length
	// of one message: 64 MiB.
	DefaultMaxMetadataSize = 64 << 20
	// DefaultMaxBodySize is the default limit on a message's bodyLength:
	// 64 GiB.
	DefaultMaxBodySize = 64 << 30
)

// endOfStream is the 8-byte end-of-stream marker.
var endOfStream = [8]byte{0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0}

// MetadataAlignment returns the alignment Arrow C++ pads 8+M to for a
// message with the given header: TensorAlignment (64) for Tensor,
// SparseTensorAlignment (8) for everything else.
func MetadataAlignment(kind HeaderKind) int {
	if kind == HeaderTensor {
		return TensorAlignment
	}
	return SparseTensorAlignment
}

// PaddedLen returns n rounded up to a multiple of align (a power of two),
// or -1 if that overflows int64.
func PaddedLen(n int64, align int) int64 {
	a := int64(align)
	if n > math.MaxInt64-(a-1) {
		return -1
	}
	return (n + a - 1) &^ (a - 1)
}

// AppendFrame appends the prefix of a message to dst: the continuation
// marker, the int32 length M, the flatbuffer meta and zero padding so that
// 8+M is a multiple of align (8 or 64; any power of two ≥ 8). The body is not
// appended. It returns an error wrapping arrowsparse.ErrBufferSize if M would
// not fit in an int32, and panics if align is not a power of two ≥ 8.
func AppendFrame(dst, meta []byte, align int) ([]byte, error) {
	if align < 8 || align&(align-1) != 0 {
		panic(arrowsparse.PanicError{Msg: "ipc: AppendFrame alignment must be a power of two >= 8"})
	}
	total := PaddedLen(int64(len(meta))+8, align)
	if total < 0 || total-8 > math.MaxInt32 {
		return dst, core.Errorf(arrowsparse.ErrBufferSize, "ipc: metadata of %d bytes is too large for an IPC frame", len(meta))
	}
	m := int(total - 8)
	dst = binary.LittleEndian.AppendUint32(dst, ContinuationMarker)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(m))
	dst = append(dst, meta...)
	for i := len(meta); i < m; i++ {
		dst = append(dst, 0)
	}
	return dst, nil
}

// AppendMessage encodes m with EncodeMetadata and appends the complete
// message to dst: prefix, metadata, padding (MetadataAlignment(m.Header))
// and body. len(body) must equal m.BodyLength. For a message Arrow C++ could
// have written, with the body C++ would write, the result is byte-identical
// to arrow::ipc::WriteSparseTensor / WriteTensor output.
func AppendMessage(dst []byte, m *Message, body []byte) ([]byte, error) {
	meta, err := EncodeMetadata(m)
	if err != nil {
		return dst, err
	}
	if int64(len(body)) != m.BodyLength {
		return dst, core.Errorf(arrowsparse.ErrBufferSize, "ipc: body of %d bytes for bodyLength %d", len(body), m.BodyLength)
	}
	dst, err = AppendFrame(dst, meta, MetadataAlignment(m.Header))
	if err != nil {
		return dst, err
	}
	return append(dst, body...), nil
}

// WriteMessage writes the complete message m to w: prefix, metadata,
// padding and then the body pieces in order, which together must hold
// exactly m.BodyLength bytes (the caller lays out and pads the body). It
// returns the number of bytes written.
func WriteMessage(w io.Writer, m *Message, body ...[]byte) (int64, error) {
	meta, err := EncodeMetadata(m)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, b := range body {
		n += int64(len(b))
	}
	if n != m.BodyLength {
		return 0, core.Errorf(arrowsparse.ErrBufferSize, "ipc: body pieces of %d bytes in all for bodyLength %d", n, m.BodyLength)
	}
	head, err := AppendFrame(nil, meta, MetadataAlignment(m.Header))
	if err != nil {
		return 0, err
	}
	written, err := w.Write(head)
	total := int64(written)
	if err != nil {
		return total, err
	}
	for _, b := range body {
		written, err = w.Write(b)
		total += int64(written)
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// AppendEndOfStream appends the end-of-stream marker FF FF FF FF 00 00 00 00.
// Arrow C++ never writes one after tensor messages; readers of a sequence
// accept it.
func AppendEndOfStream(dst []byte) []byte { return append(dst, endOfStream[:]...) }

// ReadOption configures Parse, ParseNext, ReadMessage and NewReader.
type ReadOption func(*readConfig)

type readConfig struct {
	maxMeta int64
	maxBody int64
	mem     memory.Allocator
}

func newReadConfig(opts []ReadOption) readConfig {
	c := readConfig{maxMeta: DefaultMaxMetadataSize, maxBody: DefaultMaxBodySize, mem: memory.DefaultAllocator}
	for _, o := range opts {
		o(&c)
	}
	if c.maxMeta <= 0 || c.maxMeta > maxFlatbufferSize {
		c.maxMeta = maxFlatbufferSize
	}
	if c.maxBody <= 0 {
		c.maxBody = math.MaxInt64
	}
	if c.mem == nil {
		c.mem = memory.DefaultAllocator
	}
	return c
}

// WithMaxMetadataSize limits the metadata length M of each message. The
// default is DefaultMaxMetadataSize (64 MiB). Values less than or equal to
// zero disable the limit, leaving the flatbuffers maximum of 2^31-1 bytes.
func WithMaxMetadataSize(n int64) ReadOption { return func(c *readConfig) { c.maxMeta = n } }

// WithMaxBodySize limits the bodyLength of each message. The default is
// DefaultMaxBodySize (64 GiB). Values less than or equal to zero disable the
// limit. Independently of the limit, a length is always checked against the
// input actually available before memory is allocated for it.
func WithMaxBodySize(n int64) ReadOption { return func(c *readConfig) { c.maxBody = n } }

// WithAllocator sets the allocator of the bodies that a Reader and
// ReadMessage return. The default is memory.DefaultAllocator; nil selects
// the default. Parse and ParseNext allocate nothing for bodies.
func WithAllocator(mem memory.Allocator) ReadOption { return func(c *readConfig) { c.mem = mem } }

// Frame is one message parsed from a byte slice by Parse or ParseNext.
type Frame struct {
	// Message is the decoded metadata.
	Message *Message
	// Metadata holds the M metadata bytes: the flatbuffer and its padding.
	// It aliases the input, unless the input's metadata was not 8-byte
	// aligned in memory, in which case it is an aligned copy.
	Metadata []byte
	// Body holds the Message.BodyLength body bytes. It aliases the input.
	Body []byte
	// Legacy reports a pre-0.15 frame with a 4-byte length prefix and no
	// continuation marker.
	Legacy bool
	// Size is the number of input bytes the message took: prefix, metadata
	// and body.
	Size int
}

// Parse parses the single message at the start of data, without copying
// (see Frame). Bytes after the message are ignored; Frame.Size tells where
// it ends. Unlike ParseNext, empty input and an end-of-stream marker are
// errors, as for Arrow C++'s ReadSparseTensor.
func Parse(data []byte, opts ...ReadOption) (*Frame, error) {
	cfg := newReadConfig(opts)
	f, err := parse(data, &cfg)
	if err == io.EOF {
		return nil, core.Errorf(arrowsparse.ErrStructure, "ipc: no message: the input is empty or starts with an end-of-stream marker")
	}
	return f, err
}

// ParseNext parses the message at the start of data and returns it with the
// bytes that follow it, for reading a sequence of concatenated messages. It
// returns io.EOF, and rest nil, when data is empty or starts with an
// end-of-stream marker (FF FF FF FF 00 00 00 00, or a zero first word);
// whatever follows the marker is ignored.
func ParseNext(data []byte, opts ...ReadOption) (f *Frame, rest []byte, err error) {
	cfg := newReadConfig(opts)
	f, err = parse(data, &cfg)
	if err != nil {
		return nil, nil, err
	}
	return f, data[f.Size:], nil
}

// prefix interprets the first one or two words of a frame. It returns the
// metadata length and the prefix size, io.EOF at an end-of-stream marker,
// or an error.
func readPrefix(first uint32, second func() (uint32, error)) (mlen int64, size int, legacy bool, err error) {
	switch f := int32(first); {
	case f == -1:
		s, err := second()
		if err != nil {
			return 0, 0, false, err
		}
		mlen, size = int64(int32(s)), 8
	case f == 0:
		return 0, 4, false, io.EOF
	case f > 0:
		mlen, size, legacy = int64(f), 4, true
	default:
		return 0, 0, false, core.Errorf(arrowsparse.ErrStructure, "ipc: invalid message prefix: negative continuation token %d (want FF FF FF FF, or a positive legacy length)", f)
	}
	if mlen == 0 {
		return 0, size, legacy, io.EOF
	}
	if mlen < 0 {
		return 0, 0, false, core.Errorf(arrowsparse.ErrBufferSize, "ipc: negative metadata length %d", mlen)
	}
	return mlen, size, legacy, nil
}

func parse(data []byte, cfg *readConfig) (*Frame, error) {
	if len(data) == 0 {
		return nil, io.EOF
	}
	if len(data) < 4 {
		return nil, core.Errorf(arrowsparse.ErrBufferSize, "ipc: corrupted message: %d bytes left, too few for a message prefix", len(data))
	}
	mlen, pfx, legacy, err := readPrefix(binary.LittleEndian.Uint32(data), func() (uint32, error) {
		if len(data) < 8 {
			return 0, core.Errorf(arrowsparse.ErrBufferSize, "ipc: corrupted message: continuation marker without a metadata length (%d bytes left)", len(data))
		}
		return binary.LittleEndian.Uint32(data[4:]), nil
	})
	if err != nil {
		return nil, err
	}
	if err := cfg.checkMeta(mlen, int64(len(data)-pfx)); err != nil {
		return nil, err
	}
	meta := data[pfx : pfx+int(mlen)]
	if uintptr(unsafe.Pointer(unsafe.SliceData(meta)))%8 != 0 {
		aligned := alignedBytes(len(meta))
		copy(aligned, meta)
		meta = aligned
	}
	msg, err := DecodeMetadata(meta)
	if err != nil {
		return nil, err
	}
	start := pfx + int(mlen)
	if err := cfg.checkBody(msg.BodyLength, int64(len(data)-start)); err != nil {
		return nil, err
	}
	end := start + int(msg.BodyLength)
	return &Frame{
		Message:  msg,
		Metadata: meta,
		Body:     data[start:end:end],
		Legacy:   legacy,
		Size:     end,
	}, nil
}

// checkMeta checks a metadata length against the limit and the available
// input (avail < 0 means unknown).
func (c *readConfig) checkMeta(mlen, avail int64) error {
	if mlen > c.maxMeta {
		return core.Errorf(arrowsparse.ErrBufferSize, "ipc: metadata length %d exceeds the limit of %d bytes (see WithMaxMetadataSize)", mlen, c.maxMeta)
	}
	if avail >= 0 && mlen > avail {
		return core.Errorf(arrowsparse.ErrBufferSize, "ipc: truncated message: metadata length %d but only %d bytes left", mlen, avail)
	}
	return nil
}

// checkBody checks a body length against the limit and the available input
// (avail < 0 means unknown). A negative length has already been rejected by
// DecodeMetadata.
func (c *readConfig) checkBody(n, avail int64) error {
	if n > c.maxBody {
		return core.Errorf(arrowsparse.ErrBufferSize, "ipc: bodyLength %d exceeds the limit of %d bytes (see WithMaxBodySize)", n, c.maxBody)
	}
	if avail >= 0 && n > avail {
		return core.Errorf(arrowsparse.ErrBufferSize, "ipc: truncated message: bodyLength %d but only %d bytes left", n, avail)
	}
	return nil
}

// alignedBytes returns n zero bytes whose address is a multiple of 8.
func alignedBytes(n int) []byte {
	if n == 0 {
		return []byte{}
	}
	words := make([]uint64, (n+7)/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), n)
}

// SparseBodyLayout lays out body buffers of the given byte sizes the way
// Arrow C++ assembles a SparseTensor body: one after another from offset 0,
// each followed by zero padding to a multiple of 8. It returns each buffer's
// {offset, padded length}, as C++ writes them in the metadata, and the body
// length. Pass the sizes in body order: index buffers first, data last. (For
// CSF, C++ then replaces the lengths of the index buffers by element
// counts.) A negative size or a total that overflows int64 is an error
// wrapping arrowsparse.ErrBufferSize.
func SparseBodyLayout(sizes ...int64) ([]Buffer, int64, error) {
	bufs := make([]Buffer, len(sizes))
	var off int64
	for i, n := range sizes {
		p := PaddedLen(n, SparseTensorAlignment)
		if n < 0 || p < 0 || off > math.MaxInt64-p {
			return nil, 0, core.Errorf(arrowsparse.ErrBufferSize, "ipc: body buffer %d of %d bytes cannot be laid out after %d bytes", i, n, off)
		}
		bufs[i] = Buffer{Offset: off, Length: p}
		off += p
	}
	return bufs, off, nil
}

var zeros [SparseTensorAlignment]byte

// Padding returns the zero bytes that follow a buffer of n bytes in a
// SparseTensor body (0 to 7 bytes). The slice is shared and must not be
// modified.
func Padding(n int64) []byte {
	return zeros[:paddingBytes(int(n&7), SparseTensorAlignment)]
}
