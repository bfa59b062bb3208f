// Package ipc reads and writes the Arrow IPC Tensor and SparseTensor
// messages byte-compatibly with Arrow C++.
//
// Upstream Arrow deprecated both messages in 2026 (apache/arrow#51102); they
// remain the way to exchange tensors with existing Arrow C++ programs, so
// this package matches what Arrow C++ 25/26 writes and accepts exactly. For
// new interchange, prefer record batches with the extension types of
// package arrowext.
//
// # Messages
//
// A message is framed as Arrow C++ frames it: the continuation marker
// 0xFFFFFFFF, an int32 metadata length M, a flatbuffer Message with a Tensor
// or SparseTensor header, zero padding so that 8+M is a multiple of 8
// (sparse) or 64 (dense), then the body. All integers are little-endian.
//
//	body of a SparseTensor message (each buffer zero-padded to 8 bytes)
//	  COO       coordinates (nnz × ndim)                  | values
//	  CSR/CSC   indptr | indices                          | values
//	  CSF       indptr[0..ndim-2] | indices[0..ndim-1]    | values
//	body of a Tensor message: the data, unpadded
//
// The metadata gives each buffer's offset and length. As in Arrow C++, the
// writer records padded byte lengths, except for CSF index buffers, whose
// lengths are element counts (WithCSFLengths switches to bytes); COO
// coordinate strides are always written, with Arrow C++'s rule that a matrix
// without elements has strides [w, w]; a name string is written for every
// dimension. Dense tensors are written with their own row- or column-major
// strides when contiguous, and as a row-major copy otherwise; unlike Arrow
// C++ (which drops them there, its bug of writing a stand-in tensor's
// header), the copy keeps the dim names.
//
// # GCS tensors
//
// A gcs.Tensor is written as the CSR or CSC message of its 2-d storage
// matrix, which Arrow C++ reads as that matrix. The N-d mapping travels in
// the message's custom_metadata under the key "arrowsparse.gcs", whose value
// is a JSON object:
//
//	{"version": 1, "shape": [2, 3, 4], "dimensions": [0, 1, 2],
//	 "partitioning": [2], "dim_names": ["a", "b", "c"]}
//
// dim_names is null when the tensor has no names; names must be valid UTF-8
// to travel in JSON (the writer refuses others). This package's readers
// restore the gcs.Tensor; a malformed value is an error.
//
// # Reading
//
// ParseMessage, ParseBuffer, ReadFile and OpenFile (memory-mapped regular
// files) and NewBufferReader decode without copying: the tensor's buffers
// are slices of the input, and the number of allocations depends on the
// number of dimensions, not on nnz. ReadMessage and NewReader read from an
// io.Reader into buffers from an allocator, and so do ReadFile and OpenFile
// for files that cannot be mapped (pipes, /dev/stdin). ReadFile,
// ParseMessage and ParseBuffer read exactly one message; OpenFile,
// NewReader and NewBufferReader read sequences. Every reader accepts what Arrow C++ writes or accepts: padded
// and exact lengths, row- and column-major COO coordinates and absent COO
// strides, metadata versions V4 and V5, the legacy 4-byte prefix, CSF
// lengths as element counts or bytes (detected).
//
// The readers are strict: beyond Arrow C++'s checks they verify the
// flatbuffer, that every buffer lies inside the body and is aligned, that
// the values buffer is large enough, that coordinates and indices lie inside
// the shape, that indptr arrays start at 0, never decrease and end at the
// next level's length, that a CSF axis order is a permutation, and that a
// COO isCanonical flag is true when set. Limits on metadata and body size
// (WithMaxMetadataSize, WithMaxBodySize) are checked against the real input
// before anything is allocated. WithTrusted skips the checks that read every
// index; its documentation lists them.
//
// # Writing
//
// WriteTensor and AppendTensor write one message; WriteFile writes a file
// atomically (a temporary file in the same directory, synced and renamed
// into place) and WriteFileSeq a file of several messages.
//
// # Errors
//
// No input makes a reader panic. Every error for bad input wraps
// arrow.ErrInvalid, arrow.ErrIndex or arrow.ErrType through a category of
// the root package, with a message that names the offending field. Errors
// of the file functions name the file, and those of a sequence the index
// and offset of the message that failed (after the first). An input that
// holds something else than tensor messages is named for what it is, from
// its first bytes, with what reads it: an Arrow IPC file or stream or a
// Parquet file (tables, for package arrowext), gzip data, Matrix Market or
// FROSTT text (packages mtx and tns), other text.
//
// # Ownership
//
// A returned *Message owns its tensor: Release it, or take m.Tensor and
// release that. Tensors read without copying keep their input alive through
// reference counts (ParseBuffer, NewBufferReader, ReadFile) or, for a byte
// slice, through the garbage collector; the input must not be modified
// while they live.
package ipc
