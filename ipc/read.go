package ipc

import (
	"io"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/debug"
	"github.com/arrowsparse/arrowsparse/internal/sniff"
	"github.com/arrowsparse/arrowsparse/ipc/internal/wire"
	"github.com/arrowsparse/arrowsparse/views"
)

// Message is one Tensor or SparseTensor message, decoded.
type Message struct {
	refCount atomic.Int64

	// Tensor is the tensor the message carries: a *views.View (dense
	// Tensor message), *coo.Tensor, *gcs.Matrix (CSR or CSC), *gcs.Tensor
	// (a CSR/CSC message with the GCS mapping in its custom metadata) or
	// *csf.Tensor. Its buffers are slices of the message body. Release
	// releases it.
	Tensor arrowsparse.Tensor

	// Version is the metadata version: 4 or 5 (Arrow C++ writes 5).
	Version int
	// Legacy reports the pre-0.15 framing: a 4-byte length prefix without
	// the continuation marker.
	Legacy bool
	// Size is the number of bytes the message took: prefix, metadata,
	// padding and body.
	Size int64
	// MetadataSize and BodySize are the lengths of the flatbuffer metadata
	// (with its padding) and of the body.
	MetadataSize, BodySize int64
	// CustomMetadata holds the message's custom_metadata entries, in order.
	CustomMetadata []KeyValue

	// IndicesStrides are the byte strides of a COO coordinate matrix as
	// written, or nil when the message left them out (row-major).
	IndicesStrides []int64
	// CanonicalClaim is a COO message's isCanonical flag as written (the
	// tensor's own flag is computed, see coo.Tensor.IsCanonical).
	CanonicalClaim bool
	// Strides are a dense tensor's byte strides as written, or nil when
	// the message left them out (row-major).
	Strides []int64
	// CSFLengths tells how a CSF message gave its index buffer lengths.
	CSFLengths LengthUnit
}

// KeyValue is one custom_metadata entry.
type KeyValue struct {
	Key, Value string
}

// Retain increases the reference count by 1.
// Retain may be called simultaneously from multiple goroutines.
func (m *Message) Retain() { m.refCount.Add(1) }

// Release decreases the reference count by 1.
// When the reference count goes to zero, the tensor is released.
// Release may be called simultaneously from multiple goroutines.
func (m *Message) Release() {
	n := m.refCount.Add(-1)
	debug.Assert(n >= 0, "ipc: too many releases of a Message")
	if n == 0 && m.Tensor != nil {
		m.Tensor.Release()
		m.Tensor = nil
	}
}

// LengthUnit is the unit of the CSF index buffer lengths in a message.
type LengthUnit int8

const (
	// ElementCounts is what Arrow C++ (up to at least 26.0) writes and
	// reads: the length of each CSF indptr and indices buffer is its number
	// of elements. The writer's default.
	ElementCounts LengthUnit = iota
	// ByteLengths is the Buffer length the format documents, which open
	// apache/arrow PR #50817 would adopt.
	ByteLengths
)

// String returns "elements" or "bytes".
func (u LengthUnit) String() string {
	if u == ByteLengths {
		return "bytes"
	}
	return "elements"
}

// ReadMessage reads exactly one message from r. The body is read into a
// buffer from the allocator of WithAllocator. An end-of-stream marker or an
// empty input is an error, as in Arrow C++'s ReadSparseTensor. The returned
// message must be released by the caller.
func ReadMessage(r io.Reader, opts ...ReadOption) (*Message, error) {
	cfg := newReadConfig(opts)
	wr := wire.NewReader(r, cfg.wire()...)
	f, err := wr.Next()
	if err == io.EOF {
		return nil, core.Errorf(arrowsparse.ErrStructure, "ipc: no message: the input is empty or starts with an end-of-stream marker")
	}
	if err != nil {
		return nil, explainFraming(err, wr.Head())
	}
	defer f.Release()
	size := int64(len(f.Metadata)) + int64(f.Body.Len()) + prefixLen(f.Legacy)
	return decode(f.Message, f.Body, f.Legacy, size, int64(len(f.Metadata)), cfg)
}

// ReadTensor is ReadMessage returning only the tensor, which must be
// released by the caller.
func ReadTensor(r io.Reader, opts ...ReadOption) (arrowsparse.Tensor, error) {
	m, err := ReadMessage(r, opts...)
	if err != nil {
		return nil, err
	}
	return m.Tensor, nil
}

// ParseMessage decodes exactly one message from b without copying: the
// tensor's buffers are slices of b, so b must not be modified while the
// tensor is alive. (If b's body is not 8-byte aligned in memory, the body is
// copied to an aligned buffer from the allocator.) Bytes after the message
// are an error; use NewBytesReader for sequences. The returned message must
// be released by the caller.
func ParseMessage(b []byte, opts ...ReadOption) (*Message, error) {
	return ParseBuffer(memory.NewBufferBytes(b), opts...)
}

// ParseBuffer is ParseMessage over an Arrow buffer, which the tensor's
// buffers retain (as slices) for as long as they are alive.
func ParseBuffer(buf *memory.Buffer, opts ...ReadOption) (*Message, error) {
	return parseOne(buf, newReadConfig(opts), "", "ParseMessage and ParseBuffer read one message: use NewBytesReader or NewBufferReader for a sequence")
}

// parseOne decodes the one message of buf, from the file name ("" for
// other inputs). Bytes after the message are an error that counts the
// messages and ends with hint.
func parseOne(buf *memory.Buffer, cfg *readConfig, name, hint string) (*Message, error) {
	data := buf.Bytes()
	f, rest, err := wire.ParseNext(data, cfg.wire()...)
	if err == io.EOF {
		what := "input"
		if name != "" {
			what = "file"
		}
		return nil, inputError(core.Errorf(arrowsparse.ErrBufferSize, "ipc: no message: the %s is empty or starts with an end-of-stream marker", what), name, 0, 0)
	}
	if err != nil {
		return nil, inputError(explainFraming(err, data), name, 0, 0)
	}
	m, err := decodeFrame(f, buf, 0, cfg)
	if err != nil {
		return nil, inputError(err, name, 0, 0)
	}
	if len(rest) != 0 {
		m.Release()
		return nil, trailing(rest, int64(len(data)-len(rest)), cfg, name, hint)
	}
	return m, nil
}

// trailing returns the error for the bytes that follow the first message
// (at offset off) of an input that should hold one: how many more messages
// they frame, or that they are not a message.
func trailing(rest []byte, off int64, cfg *readConfig, name, hint string) error {
	subject := name
	if subject == "" {
		subject = "the input"
	}
	n, clean := 0, true
	for data := rest; ; n++ {
		_, next, err := wire.ParseNext(data, cfg.wire()...)
		if err == io.EOF {
			break
		}
		if err != nil {
			if n == 0 {
				if k := sniff.Detect(rest[:min(len(rest), sniff.PrefixLen)]); k.Foreign() {
					return inputError(&foreignInput{kind: k, err: err}, name, 1, off)
				}
				return inputError(core.Errorf(arrowsparse.ErrBufferSize, "ipc: the %d bytes after the message are not a message: %s", len(rest), strings.TrimPrefix(err.Error(), "ipc: ")), name, 0, 0)
			}
			clean = false
			break
		}
		data = next
	}
	if clean {
		return core.Errorf(arrowsparse.ErrBufferSize, "ipc: %s holds %d messages; %s", subject, n+1, hint)
	}
	return core.Errorf(arrowsparse.ErrBufferSize, "ipc: %s holds more than one message (%d, then bytes that are not a message); %s", subject, n+1, hint)
}

func prefixLen(legacy bool) int64 {
	if legacy {
		return 4
	}
	return 8
}

// decodeFrame decodes a frame parsed from buf.Bytes()[start:].
func decodeFrame(f *wire.Frame, buf *memory.Buffer, start int, cfg *readConfig) (*Message, error) {
	body, err := bodyOf(buf, start, f, cfg)
	if err != nil {
		return nil, err
	}
	defer body.Release()
	return decode(f.Message, body, f.Legacy, int64(f.Size), int64(len(f.Metadata)), cfg)
}

// bodyOf returns the frame's body as a slice of buf, or as an aligned copy
// when the body is not 8-byte aligned in memory. The caller releases it.
func bodyOf(buf *memory.Buffer, start int, f *wire.Frame, cfg *readConfig) (*memory.Buffer, error) {
	off := start + f.Size - len(f.Body)
	sub := memory.SliceBuffer(buf, off, len(f.Body))
	if core.Aligned(sub, 8) {
		return sub, nil
	}
	sub.Release()
	c := memory.NewResizableBuffer(cfg.mem)
	c.Resize(len(f.Body))
	copy(c.Bytes(), f.Body)
	return c, nil
}

// decode builds the tensor of a decoded message over its body.
func decode(m *wire.Message, body *memory.Buffer, legacy bool, size, metaSize int64, cfg *readConfig) (*Message, error) {
	if err := m.Validate(); err != nil {
		return nil, notTensor(m.Header, err)
	}
	out := &Message{
		Version:      int(m.Version) + 1,
		Legacy:       legacy,
		Size:         size,
		MetadataSize: metaSize,
		BodySize:     int64(body.Len()),
	}
	for _, kv := range m.CustomMetadata {
		out.CustomMetadata = append(out.CustomMetadata, KeyValue{kv.Key, kv.Value})
	}
	var err error
	switch {
	case m.Tensor != nil:
		out.Tensor, err = decodeDense(m.Tensor, body, out)
	case m.SparseTensor != nil:
		out.Tensor, err = decodeSparse(m.SparseTensor, body, out, cfg)
	default:
		err = notTensor(m.Header, core.Errorf(arrowsparse.ErrStructure, "ipc: a %s message is not a tensor message", m.Header))
	}
	if err != nil {
		return nil, err
	}
	out.refCount.Store(1)
	return out, nil
}

// slice returns the body range of b as a buffer retaining body. Validate
// has checked that the range lies inside the body.
func slice(body *memory.Buffer, b wire.Buffer) *memory.Buffer {
	return memory.SliceBuffer(body, int(b.Offset), int(b.Length))
}

func dimsOf(ds []wire.Dim) ([]int64, []string) {
	shape := make([]int64, len(ds))
	names := make([]string, len(ds))
	for k, d := range ds {
		shape[k], names[k] = d.Size, d.Name
	}
	return shape, core.CloneDimNames(names)
}

func decodeDense(t *wire.Tensor, body *memory.Buffer, out *Message) (arrowsparse.Tensor, error) {
	shape, names := dimsOf(t.Shape)
	w := int64(arrowsparse.ByteWidth(t.Type))
	if t.HasStrides && len(t.Strides) > 0 {
		out.Strides = append([]int64(nil), t.Strides...)
	}
	var strides []int64
	size, err := arrowsparse.NumElements(shape)
	if err != nil {
		return nil, err
	}
	switch {
	case size == 0:
		// Arrow C++ writes a stride of one element everywhere for an empty
		// tensor; any strides address nothing.
		strides = make([]int64, len(shape))
	case out.Strides != nil:
		strides = make([]int64, len(shape))
		for k, s := range out.Strides {
			if s%w != 0 {
				return nil, core.Errorf(arrowsparse.ErrAlignment, "ipc: stride %d of dimension %d is not a multiple of the %s width %d", s, k, t.Type, w)
			}
			strides[k] = s / w
		}
	default:
		if strides, err = arrowsparse.RowMajorStrides(shape); err != nil {
			return nil, err
		}
	}
	v, err := views.New(t.Type, body, 0, shape, strides)
	if err != nil {
		return nil, err
	}
	if names == nil {
		return v, nil
	}
	defer v.Release()
	return v.WithDimNames(names...)
}

func decodeSparse(st *wire.SparseTensor, body *memory.Buffer, out *Message, cfg *readConfig) (arrowsparse.Tensor, error) {
	switch idx := st.Index.(type) {
	case *wire.COOIndex:
		return decodeCOO(st, idx, body, out, cfg)
	case *wire.CSXIndex:
		return decodeCSX(st, idx, body, out, cfg)
	case *wire.CSFIndex:
		return decodeCSF(st, idx, body, out, cfg)
	}
	return nil, core.Errorf(arrowsparse.ErrStructure, "ipc: unknown sparse index")
}

func decodeCOO(st *wire.SparseTensor, idx *wire.COOIndex, body *memory.Buffer, out *Message, cfg *readConfig) (arrowsparse.Tensor, error) {
	shape, names := dimsOf(st.Shape)
	n, nd := st.NonZeroLength, int64(len(shape))
	w := int64(arrowsparse.ByteWidth(idx.IndicesType))
	layout := coo.RowMajor
	if idx.HasIndicesStrides && len(idx.IndicesStrides) > 0 {
		out.IndicesStrides = append([]int64(nil), idx.IndicesStrides...)
		rm, cm := wire.COOStrides(n, nd, w)
		if idx.IndicesStrides[0] == cm[0] && idx.IndicesStrides[1] == cm[1] && cm != rm {
			layout = coo.ColMajor
		}
	}
	out.CanonicalClaim = idx.IsCanonical
	coords := slice(body, idx.IndicesBuffer)
	defer coords.Release()
	values := slice(body, st.Data)
	defer values.Release()
	opts := []coo.Option{coo.WithDimNames(names...), coo.WithCanonicalClaim(idx.IsCanonical)}
	if cfg.trusted {
		opts = append(opts, coo.WithTrusted())
	}
	t, err := coo.New(st.Type, idx.IndicesType, shape, coords, layout, values, n, opts...)
	if err != nil {
		return nil, err
	}
	return t, nil
}
