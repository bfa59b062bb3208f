// Package describe turns decoded Tensor and SparseTensor messages into the
// descriptions that cmd/sptensor prints and the interop tooling compares.
//
// # The interop JSON schema
//
// Content is a message's content in the schema of
// testdata/interop/README.md, the schema of the sidecar files that came with
// the Arrow C++ corpus and of the C++ peer's read-json: kind, format, value
// and index types, shape, dim names, nnz, the COO isCanonical flag, the
// layout keys (COO indices_strides, dense strides) and the content itself,
// as sparse entries (one per distinct coordinate, sorted, duplicates summed
// in storage order in the value type, explicit zeros kept) or dense values
// in row-major order. GCS tensors add "format": "GCS", "dimensions" and
// "partitioning" and list their N-d entries.
//
// Content.JSON lays the document out exactly as the peer does, and writes
// values as it does: integers beyond ±2^53 as decimal strings, floats as
// the fewest significant digits whose correctly rounded decimal reads back
// to the value (float16 and float32 widened exactly to float64), "NaN",
// "Infinity", "-Infinity" as strings and negative zero as -0.0. So for a
// valid message, `sptensor dump --json` and `arrowpeer read-json` print the
// same bytes.
//
// Values travel as bit patterns (uint64, zero-extended), so one
// representation serves every value type; Add sums two of them in the value
// type, as the peer does (integers wrap around, floats round once). They
// are read through the library's run-time accessors, for every format
// alike: arrowsparse.Sparse's AppendCoords and arrowsparse.AppendValues.
//
// # Dense tensors
//
// FromMessage lists a dense tensor's elements in Content.DenseValues.
// Describe leaves them in the tensor: WriteJSON and WriteText read them a
// few thousand at a time as they write, so a message whose zero strides
// describe millions of elements is described in constant memory. Both
// refuse more than MaxDenseValues elements, as the peer does.
//
// # Summaries
//
// Summarize describes a message without walking its entries: formats,
// types, shape, nnz, density, layout and sizes, for `sptensor inspect`;
// Brief and ListJSON list the messages of a file for `sptensor inspect
// --all`.
package describe
