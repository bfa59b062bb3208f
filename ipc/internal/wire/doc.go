// Package wire is the format-independent layer of the ipc package: it reads
// and writes the framing and the flatbuffer metadata of Arrow IPC Tensor and
// SparseTensor messages, and knows nothing of tensor objects. Package ipc
// converts between its Message model and tensors.
//
// The reference is the project's wire-format description
// (shared/spec/arrow-sparse-ipc.md), which documents what Arrow C++ 25
// really writes and accepts; section numbers below (§) refer to it.
//
// # Frame
//
// Every message is one encapsulated IPC message; all integers are
// little-endian:
//
//	offset  size   content
//	0       4      FF FF FF FF continuation marker
//	4       4      int32 M: flatbuffer size F plus padding (prefix not counted)
//	8       F      flatbuffer, root table Message (no identifier, no size prefix)
//	8+F     M-F    zero padding: 8+M is a multiple of 8 (SparseTensor) or 64 (Tensor)
//	8+M     B      body, B = Message.bodyLength
//
// On read, the legacy pre-0.15 prefix (a positive int32 M with no marker,
// metadata at offset 4) is accepted too, and M need not be padded. An
// end-of-stream marker is FF FF FF FF 00 00 00 00 or a zero first word.
// Versions V4 and V5 are read; Arrow C++ and this package write V5.
//
// # Body
//
// Arrow C++ lays out a SparseTensor body as the index buffers, then the
// values, each zero-padded to a multiple of 8, offsets counted from the
// start of the body, the metadata lengths being the padded sizes:
//
//	index  buffers, in order                                   count
//	COO    indicesBuffer (N × ndim coordinates), data           2
//	CSX    indptrBuffer, indicesBuffer, data                    3
//	CSF    indptrBuffers[0..ndim-2], indicesBuffers[0..ndim-1],  2·ndim
//	       data
//
// Exception: the Length of each CSF indptr and indices buffer is an element
// count, not bytes (§3.4); DetectCSFLengthUnit and CSFCounts interpret it.
// A dense Tensor body is the raw data, unpadded, bodyLength = size × width.
// This package does not copy tensor data into bodies: SparseBodyLayout
// computes the offsets and padded lengths, Padding gives the zero bytes, and
// the caller passes the body whole to AppendMessage or in pieces (buffers and
// their padding) to WriteMessage.
//
// # Metadata
//
// DecodeMetadata verifies a flatbuffer as the C++ Verifier does (it never
// trusts an offset before checking it, and never panics), then decodes it
// into a Message and makes the checks of Arrow C++'s GetTensorMetadata and
// GetSparseTensorMetadata. EncodeMetadata writes a Message back with its own
// flatbuffer writer, which lays objects out exactly as Arrow C++'s
// FlatBufferBuilder does, so that a message Arrow C++ wrote re-encodes to
// the same bytes (verified on the 212 C++-written messages of
// testdata/interop). (*Message).Validate adds the structural checks that
// need the body length or relate fields to each other; the ipc layer calls
// it before it touches a body.
//
// # Reading
//
// Parse and ParseNext read from a []byte without copying; ReadMessage and
// Reader read from an io.Reader. Every length is checked against a limit
// (WithMaxMetadataSize, default 64 MiB; WithMaxBodySize, default 64 GiB) and
// against the input actually available before anything is allocated; when
// an io.Reader cannot tell how much is left, buffers grow as bytes arrive,
// so a short input claiming a huge length costs a small allocation.
//
// # Ownership and aliasing
//
//   - Frame.Body aliases the input of Parse/ParseNext; Frame.Metadata does
//     too, unless the metadata was not 8-byte aligned in memory, in which
//     case it is an aligned copy. The input must outlive the frame and must
//     not be modified while the frame is in use.
//   - StreamFrame.Metadata is a new slice; StreamFrame.Body is allocated from
//     the reader's allocator (WithAllocator) and must be released by the
//     caller.
//   - A decoded Message shares no memory with its input. Encoding never
//     modifies a Message.
//
// # Errors
//
// Bad input never panics. Every error for bad input is built with
// core.Errorf and so wraps one of the module's categories
// (ErrStructure for broken flatbuffers, framing, versions and index
// structure; ErrBufferSize for lengths; ErrShape; ErrAlignment; ErrOverflow;
// ErrUnsupportedType for value and index types), which wrap arrow.ErrInvalid
// or arrow.ErrType. Short reads also wrap io.ErrUnexpectedEOF; errors of the
// underlying io.Reader are passed through, wrapped with %w. End of input in a
// sequence is io.EOF itself. Misuse in code (an alignment that is not a power
// of two) panics with arrowsparse.PanicError.
//
// # Concurrency
//
// Functions are safe for concurrent use; a Reader is not.
package wire
