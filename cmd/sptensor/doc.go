// Command sptensor is the command-line face of the library: it inspects,
// dumps, validates and converts files of Arrow IPC Tensor and SparseTensor
// messages, as Arrow C++'s WriteTensor and WriteSparseTensor write them,
// converts Matrix Market and FROSTT files, and packs messages into tables
// of tensor columns and back. Scripts and tests in other languages depend
// on the contracts below.
//
//	sptensor inspect [--json] [--all | --message N] FILE
//	sptensor dump [--json] [--message N] FILE
//	sptensor validate [--all | --message N] FILE
//	sptensor convert [--to coo|csr|csc|csf|gcs|tensor] [--index-type T]
//	                 [--indptr-type T] [--axis-order 2,0,1]
//	                 [--dimensions 2,1,0 --partitioning 1] [--message N]
//	                 [--progress | --quiet] IN OUT
//	sptensor pack [--container ipc-file|ipc-stream|parquet] [--column NAME]
//	              OUT IN...
//	sptensor unpack [--column NAME] IN OUTDIR
//	sptensor help
//
// inspect and dump also read table files: an Arrow IPC file, an Arrow IPC
// stream or a Parquet file, told apart from a message by content (the
// ARROW1 and PAR1 magic, or a Schema message first), never by file name.
// Their tensor columns are those of the canonical extension types
// arrow.fixed_shape_tensor and arrow.variable_shape_tensor (package
// arrowext), registered or not in the writer's world.
//
// Flags follow the command and may come before, between or after the
// file arguments, as --name value, --name=value or -name value; "--" ends
// the flags. A file argument "-" is standard input (or, for OUT, standard
// output); pipes and devices are read as streams, regular files are
// memory-mapped. Every file is read with all of package ipc's checks, so a
// command that succeeds has seen a valid message. A file that holds
// something else (an Arrow IPC file or stream, Parquet, gzip, Matrix Market
// or FROSTT text) is named as such in the error, with what reads it.
//
// # Files of several messages
//
// A file may hold several messages one after another (successive calls of
// WriteSparseTensor; package ipc's WriteFileSeq). The commands read one
// message: the only one of the file, or, with --message N, message N
// (counted from 0; the messages before it are read, and must be valid, to
// find it; those after it are not read). Without --message a file of
// several messages is an error that says how many it holds. inspect --all
// lists the messages and validate --all checks every one.
//
// # inspect
//
// inspect prints a summary of the message without listing its content,
// one "key: value" line per field, or with --json one JSON object, keys in
// snake_case in this order:
//
//   - every message: kind ("sparse" or "dense"), format ("COO", "CSR",
//     "CSC", "CSF", "GCS" or "TENSOR"), value_type, shape, dim_names (null
//     when there are none), nnz, elements (a decimal string beyond 2^53),
//     density (nnz / elements; null without elements);
//   - COO: index_type, layout ("row-major" or "column-major" coordinates),
//     indices_strides (as written, or as Arrow C++ assumes them),
//     canonical_claim (the message's isCanonical flag as written: dump's
//     is_canonical), canonical (computed: the entries are sorted without
//     duplicates), index_bytes;
//   - CSR and CSC: index_type, indptr_type, sorted (indices sorted within
//     each row or column), canonical (sorted without duplicates),
//     index_bytes;
//   - GCS: dimensions, partitioning, storage ("CSR" or "CSC"),
//     storage_shape, then the keys of CSR and CSC for the storage;
//   - CSF: index_type, indptr_type, axis_order, level_lengths, csf_lengths
//     ("elements" or "bytes": the unit of the index buffer lengths),
//     canonical, index_bytes;
//   - dense: strides (bytes, as written or as Arrow C++ computes them),
//     layout ("row-major", "column-major", "strided" or "empty");
//   - every message: value_bytes, message_bytes, metadata_bytes,
//     body_bytes, metadata_version (4 or 5), legacy_framing, and
//     custom_metadata_keys when there are any.
//
// (Earlier versions called canonical_claim is_canonical.)
//
// inspect --all lists the messages of the file, one line each: index,
// offset, bytes, kind, format, value type, shape and nnz. With --json it
// prints {"messages": [...]}, one object per message with the keys index,
// offset, message_bytes, kind, format, value_type, shape and nnz. An
// invalid message ends the list: the error is printed (with --json, under
// the key "error" of the document) and the status is 1.
//
// # dump
//
// dump --json prints the content of the message in the JSON schema of the
// interop corpus (testdata/interop/README.md), exactly as the sidecar files
// describe Arrow C++'s messages, so that check_corpus.py can compare it with
// a sidecar, with --strict and --exact:
//
//   - kind, format, value_type, index_type and indptr_type, shape, dim_names
//     (null when the message has none or only empty ones), nnz;
//   - the layout keys as written: COO is_canonical and indices_strides, dense
//     strides (computed as Arrow C++ does when the message leaves them out),
//     CSF axis_order;
//   - entries: one [i0, …, value] per distinct coordinate, sorted
//     lexicographically, duplicates summed in storage order in the value
//     type (integers wrap around), explicitly stored zeros kept; a 0-d
//     tensor's entry is [value]; or, for a dense tensor, dense_values: every
//     element in row-major order;
//   - values: integers beyond ±2^53 as decimal strings; floats as the fewest
//     significant digits that read back to the same value (float16 and
//     float32 widened exactly), NaN, Infinity and -Infinity as strings,
//     negative zero as -0.0.
//
// A GCS tensor (a CSR/CSC message carrying the "arrowsparse.gcs" custom
// metadata) is dumped as its N-d content, with "format": "GCS", its shape and
// dim names, and the keys "dimensions" and "partitioning" (a one-element
// list); index_type and indptr_type are those of the storage matrix. The
// document is laid out as the C++ peer's read-json lays it out, so for any
// valid message other than GCS the two print the same bytes.
//
// Dense values are written as they are read, a few thousand at a time: a
// message of a few hundred bytes whose zero strides describe millions of
// elements dumps in constant memory. Like the C++ peer, dump refuses a
// dense tensor of more than 2^26 elements ("tensor too large to print");
// inspect describes any.
//
// When the file cannot be read or the message is invalid, dump --json prints
// {"error": "..."} on standard output and exits with status 1. Without
// --json, dump prints a header line and one line per entry (or element):
// its coordinates and value.
//
// For a table file, dump --json prints one JSON object,
//
//	{"columns": [{"name": "t", "type": "arrow.fixed_shape_tensor", "rows": [ROW, null, …]}, …]}
//
// with one entry per tensor column (other columns are left out; inspect
// lists them) and one ROW per row, null for a null row. A ROW is a
// document of the interop schema: "kind": "dense", "format": "TENSOR",
// value_type, shape and dim_names of the logical tensor (the type's
// permutation applied), and dense_values in logical row-major order,
// written as above. Without --json, dump prints each tensor column's rows
// in NumPy's layout.
//
// # validate
//
// validate exits with status 0, printing nothing, when the file holds one
// valid message (with --message N: when message N and those before it are
// valid; with --all: when the file holds at least one message and every
// message is valid). Otherwise it prints one line, "invalid: " and the
// reason, and exits with status 1.
//
// # convert
//
// convert reads IN, converts its tensor and writes one message to OUT,
// atomically (through a temporary file in OUT's directory, synced and
// renamed into place, so OUT may be IN; see ipc.WriteFile). With no flags
// the tensor is written back as it was read: for a message Arrow C++
// wrote, the bytes are identical.
//
//   - --to chooses the format of the result: coo, csr, csc (2-d only), csf
//     (2-d and up), gcs (any rank) or tensor (dense, row-major; at most 4 GiB).
//     Without --to the format is kept and the other flags apply to it.
//   - --index-type sets the index type of the result (COO coordinates, and
//     both the indices and the indptr arrays of CSR, CSC, CSF and GCS);
//     --indptr-type sets the indptr type on its own. The types are int8,
//     int16, int32, int64, uint8, uint16 and uint32. Without them the
//     source's types are kept where they can hold every index and count
//     Arrow C++ checks, and widened to the narrowest signed type that can
//     otherwise; a dense source gets int64, as in Arrow C++. A type too
//     narrow for the result is an error (status 1).
//   - --axis-order gives a CSF result's axis order (a permutation of the
//     dimensions); by default a CSF source keeps its order and other sources
//     get Arrow C++'s (dimensions by increasing size).
//   - --dimensions and --partitioning give a GCS result's mapping: the axis
//     permutation and the number of its leading axes that form the rows of
//     the storage matrix. By default a GCS source keeps its mapping and its
//     storage axis; others get the identity with every dimension but the last
//     as a row dimension, stored as CSR.
//
// Conversions keep the value type, shape, dim names and content: sparse
// results are canonical (sorted, duplicates summed as dump sums them), and
// converting from a dense tensor stores its non-zero elements (negative zero
// counts as zero). A COO source converted to COO keeps its entry order,
// layout and isCanonical flag. A dense source whose zero strides repeat
// elements may describe at most 2^20 more elements than its body holds,
// also when it is only written back (as a row-major copy): Arrow C++ and
// this module write contiguous tensors, which repeat none.
//
// # Text formats
//
// convert also reads Matrix Market (.mtx) and FROSTT (.tns) files,
// gzipped or not, recognised by their content (a gzip file by the name of
// IN or by its first decompressed bytes), with packages mtx and tns: a
// coordinate file gives a COO tensor, a Matrix Market array file a dense
// one. It writes them when OUT ends in .mtx, .tns, .mtx.gz or .tns.gz
// (compressed formats go through COO; a FROSTT file does not keep the
// shape). While it reads one, a progress bar on standard error shows the
// bytes and entries read, the rate and the time left when standard error
// is a terminal; --progress draws it anyway and --quiet never. inspect
// prints a Matrix Market file's header (layout, field, symmetry, shape,
// entries) without reading its body, and says that a FROSTT file has none;
// with --json as one JSON object. Errors in the body name their line.
//
// # pack
//
// pack reads each IN, a Tensor or SparseTensor message, and writes OUT: a
// table of one
// column (named "tensor", or --column) with one row per IN, in the order
// given, as an Arrow IPC file (the default), an Arrow IPC stream or a
// Parquet file (--container). Tensors of one shape and value type make an
// arrow.fixed_shape_tensor column, others an arrow.variable_shape_tensor
// column, which needs one value type and one number of dimensions. The
// rows are row-major, without a permutation; the dim names are the
// tensors' when they all have the same names, and none otherwise. Sparse
// tensors, all of one format, make a column of that format's sparse type
// (arrowsparse.coo, .csr, .csc, .csf or .gcs, SPARSE.md): the dimensions on
// which the tensors agree are fixed, the others vary; the index types are
// the narrowest that hold the tensors'; the column claims canonical rows
// when every tensor is canonical. OUT is written through a temporary file
// renamed into place; "-" writes to standard output.
//
// # unpack
//
// unpack reads IN, a table file, and writes each non-null row of its tensor
// column (the only one, or --column) to OUTDIR/ROW.arrow as a Tensor
// message, ROW counting rows from 0 (a null row leaves its number unused).
// OUTDIR is created if need be. The message holds the logical tensor, with
// the column's logical dim names: unpacking what pack wrote gives back the
// tensors, in row-major or column-major layout. A row of a sparse column is
// written as a SparseTensor message of the column's format, its arrays as
// the row holds them (CSF and GCS rows keep their axis order or mapping).
//
// dump prints the rows of a table's tensor columns: dense rows with their
// values, sparse rows with their entries (as dump prints a message); with
// --json each sparse row is the interop document of a sparse message.
//
// inspect prints, for a table file, the container, the number of rows and
// each column's name, type (the extension name and metadata for extension
// columns) and null count; with --json, the object
// {"container", "num_rows", "columns": [{"name", "type", …}]}, where tensor
// columns add "metadata", "value_type", the logical "shape" (fixed shape) or
// "ndim" (variable shape) and "dim_names"; sparse tensor columns add
// "metadata", "format", "value_type", "index_type", "ndim", "shape" (null
// for dimensions that vary), "dim_names" and "canonical" (the type's claim).
//
// # Exit status
//
// 0: success. 1: the input is unreadable or invalid, a conversion is
// impossible for its content (such as csr of a 3-d tensor, or an index type
// too narrow for its indices), or writing failed; a message goes to
// standard error (standard output for dump --json and validate). 2: a
// usage error, with the usage text on standard error: an unknown command
// or flag, missing or extra arguments, a malformed flag value, or a flag
// value that does not fit the input: an --axis-order or --dimensions that
// is not a permutation of its dimensions, a --partitioning beyond its rank,
// a flag for another format than the one kept without --to (such as
// --axis-order on a COO input), a --message beyond its last message.
//
// sptensor is not meant to panic on any input; should the library panic,
// the command reports an internal error, a bug to report, and exits with
// status 1 (SPTENSOR_DEBUG=1 prints the stack). Its tests fail on any
// panic instead.
package main
