// Package arrowext implements Apache Arrow's canonical tensor extension
// types, arrow.fixed_shape_tensor and arrow.variable_shape_tensor, and the
// sparse tensor extension types of SPARSE.md (arrowsparse.coo, .csr, .csc,
// .csf and .gcs), so that tensors travel between Arrow systems as columns
// of record batches: in Arrow IPC files and streams, in Parquet files, over
// Flight. Upstream Arrow deprecated the IPC Tensor and SparseTensor
// messages (package ipc) in 2026; these columns are how pyarrow, Arrow C++
// and other Arrow implementations exchange tensors now.
//
// # Types
//
// FixedShapeTensorType is a column whose rows are dense tensors of one
// shape: its storage is FixedSizeList<value>[product(shape)], one tensor per
// row in row-major order of the physical shape, and its metadata is the
// JSON object {"shape": [...], "permutation": [...], "dim_names": [...]}.
// VariableShapeTensorType is a column whose rows are dense tensors of one
// number of dimensions: its storage is
// Struct{data: List<value>, shape: FixedSizeList<int32>[ndim]}, and its
// metadata holds the optional keys permutation, dim_names and
// uniform_shape. The arrays, FixedShapeTensorArray and
// VariableShapeTensorArray, share their storage's buffers.
//
// Deserialize is as strict as Arrow C++ (checked case by case against Arrow
// C++ 25.0.1): an integer shape is required (floats, strings and null are
// refused), a permutation must be a permutation of 0..ndim-1 and dim_names
// must have ndim entries, the product of the shape must fit in int64 and
// equal the list size, and storage of another type is refused. Serialize
// writes what Arrow C++ writes, byte for byte: compact JSON, keys in its
// order (shape, permutation, dim_names; permutation, dim_names,
// uniform_shape), and {} rather than the empty string that the
// specification allows for the variable-shape type but Arrow C++ refuses.
//
// arrow-go cannot represent a FixedSizeList of size 0 (its FixedSizeListOf
// panics), so fixed-shape types with a zero-size dimension, and
// variable-shape types of 0 dimensions, cannot exist in Go: the
// constructors return an error, and the readers report one for files that
// hold them. Rows of a variable-shape column may have zero-size dimensions.
//
// # Sparse tensor types
//
// SparseTensorType is one of five extension types, one per storage format,
// whose rows are sparse tensors (SPARSE.md, in this directory, is the
// specification; the Python package python/arrowsparse implements the same
// types). The storage is a Struct of Lists named after the binsparse
// arrays (COO: indices, a List of FixedSizeList<index>[ndim], and values;
// CSR, CSC and GCS: pointers_to_1, indices_1, values; CSF: indices_0, then
// pointers_to_l and indices_l per level, and values), with a first field
// shape (FixedSizeList<int64>[ndim]) when the shape varies between rows.
// The metadata is a JSON object modelled on the binsparse descriptor
// (format, shape or ndim, dim_names, canonical, data_types, and axis_order
// or dimensions, partitioning and compressed_axis). NewSparseTensorType
// makes a type from SparseTensorParams; Deserialize reads metadata more
// strictly than the canonical types' (no duplicate keys, no unknown keys,
// integers as JSON integers, data_types agreeing with the storage).
//
// SparseTensorArray.Row returns row i as a *coo.Tensor, *gcs.Matrix (CSR,
// CSC), *gcs.Tensor (GCS) or *csf.Tensor over the column's buffers, without
// copying, after the checks the IPC reader makes on a SparseTensor message
// (SPARSE.md 2.5), the type's canonical claim included; WithTrusted skips
// those that read every index. SparseRow does the same for any sparse
// column. SparseTensorBuilder appends tensors of any of the formats, and
// dense tensors, converting them to the column's format, axis order or
// reduction and index types; NewSparseTensorArray builds a column from a
// slice of tensors and infers the type's parameters, claiming canonical
// rows exactly when every row is (checked). List fields are Lists unless
// their elements exceed 2^31-1. A column of sparse vectors (COO with one
// dimension) is a CSR matrix: VectorsFromCSR and SparseTensorArray.ToCSR
// convert both ways without copying the indices or values.
//
// # Permutations
//
// The specification says: logical dimension i is physical dimension
// permutation[i], so the logical tensor is numpy.transpose(physical,
// permutation), its shape is shape[permutation[i]] and its dim names are
// dim_names[permutation[i]]. This package follows that text. Row and View
// turn the permutation into strides; the builders and
// NewFixedShapeTensorArray write the physical layout from the logical
// tensor.
//
// pyarrow 25.0.1 disagrees for permutations that are not their own
// inverse, such as 3-cycles (the Arrow C++ tests use only involutions):
//
//   - For shape [2,3,5] and permutation [1,2,0],
//     FixedShapeTensorArray.to_numpy_ndarray() returns the logical shape
//     (N,3,5,2), but with the byte strides (120,12,4,24) for float32, where
//     numpy.transpose(physical, [1,2,0]) has (120,20,4,60): the values land
//     in the wrong places.
//   - FixedShapeTensorArray.from_numpy_ndarray(x) stores
//     argsort(-strides), the inverse of the specification's permutation.
//     For x = base(2,2,3,5).transpose(0,2,3,1), of shape (2,3,5,2), it
//     stores shape [2,3,5] and permutation [2,0,1] (the specification's is
//     [1,2,0]), and to_numpy_ndarray() gives back shape (2,5,2,3). For
//     x = base(2,5,2,3).transpose(0,3,1,2) it stores [1,2,0] (for [2,0,1]),
//     and to_numpy_ndarray() fails with "strides must not involve buffer
//     over run". It stores the dim_names it is given, in x's logical order,
//     as the physical names.
//
// So a column that pyarrow's from_numpy_ndarray made from a 3-cycle holds,
// by the specification (and in this package), other tensors than the x it
// was made from; columns written by this package hold the right tensors,
// which pyarrow reads correctly through the storage and the type's
// parameters, but wrongly through to_numpy_ndarray(). For involutions
// (identity, reversals, swaps) everything agrees. The interop suite
// (interop/pyarrow_tables.py pins) checks that pyarrow still behaves so,
// and reads non-involutive columns through the storage and the metadata.
//
// # Rows and columns as views, without copies
//
// Row returns row i as a read-only views.View of the logical tensor, over
// the column's own values buffer: the permutation becomes strides, the
// view has the logical dim names, and a null row is reported as null (a
// nil view), not as zeros. It takes O(ndim) time and one allocation for
// ranks up to 8. FixedShapeTensorArray.View, which is views.FromArray,
// returns the whole column as one view of shape (N, logical shape...),
// likewise. The other way, NewFixedShapeTensorArray makes a column from a
// view of shape (N, d1, …, dk) without a copy when the layout allows (the
// rows adjacent, each row's axes row-major in some order, which becomes the
// permutation) and with one copy otherwise; FixedShapeTensorBuilder and
// VariableShapeTensorBuilder build columns row by row from views or
// arrow-go dense tensors; NewTensorArray makes a column from the dense
// tensors of Tensor IPC messages, and Row with ipc.WriteTensor turns rows
// back into messages.
//
// # Registration
//
// Register registers the types with arrow-go's global registry, so that
// arrow-go's own IPC readers and pqarrow produce this package's arrays; it
// returns an error and never panics, and is idempotent. This package does
// not register anything by itself, in an init function or otherwise. If
// another implementation holds a name already (a later arrow-go may
// register these canonical types), Register leaves it in place and returns
// an error wrapping ErrNameTaken; arrow-go then produces that
// implementation's arrays, which Row, Rewrap and the writers of this
// package still accept: they read the type again from its name and its
// Serialize().
//
// # Containers
//
// WriteIPCFile, WriteIPCStream and WriteParquet write an arrow.Table;
// ReadIPCFile, ReadIPCFileBytes, ReadIPCStream and ReadParquet read one.
// They know nothing of tensors: they serve any extension type this package
// implements (Implements), and the readers give this package's columns
// whether or not the types are registered. With the types unregistered,
// arrow-go's readers give the storage type and keep ARROW:extension:name
// and ARROW:extension:metadata in the field metadata; Rewrap,
// RewrapRecordBatch and RewrapTable turn such columns (and columns of
// another implementation) into this package's.
//
// arrow-go's pqarrow cannot write extension types whose storage is nested,
// nor FixedSizeLists with null rows, and restores extension types on read
// only in some cases. WriteParquet writes each extension column as its
// storage (FixedSizeLists as the Lists Parquet stores anyway, without the
// values under null rows) and stores the Arrow schema with the two
// extension keys in each such field's metadata, which is what Arrow C++
// writes and reads back; ReadParquet re-wraps the columns from that stored
// schema. pyarrow restores the types from these files, and this package
// from pyarrow's. One exception: Arrow C++ 25.0.1 cannot read back any
// FixedSizeList column with null rows from Parquet (its own files
// included: "Expected all lists to be of size=N but index k had size=0"),
// so a fixed-shape column with null rows, or a variable-shape column with
// null rows (its shape field is a FixedSizeList), does not reach pyarrow
// 25.0.1 through Parquet; it does through IPC. ReadParquet reads them.
//
// ReadParquet decodes files of flat fixed-width columns (int32, uint32,
// int64, uint64, float32, float64 in PLAIN pages, such as the table of one
// big tensor) itself, straight into one buffer per column chunk, in
// parallel, and returns a chunk per row group; any other file, or one whose
// pages disagree with its metadata, goes to pqarrow, which returns a chunk
// per column. WriteParquet writes data pages of about 128 KiB.
//
// Loading this package registers, for arrow-go's Parquet Zstd codec, a
// decoder that never writes past the buffer of a page's announced size:
// arrow-go's own allocates whatever a frame header announces first (an
// 18-byte frame made it allocate 1 GiB). Valid files read as before.
//
// # Ownership
//
// Arrays, tables and views follow arrow-go's reference counting: every
// function that returns one says that the caller must release it. Views
// returned by Row and View retain the column's values buffer, so the column
// may be released first. Columns made by NewFixedShapeTensorArray without a
// copy retain the view's buffer. Builders and writers allocate from the
// allocator they are given (WithAllocator for the containers).
//
// # Aliasing
//
// Row and View share memory with the column and are read-only, as Arrow
// arrays are immutable. A column made from a writable view without a copy
// shares its buffer: writes through the view show in the column, and must
// not race with readers of it.
//
// # Errors
//
// Metadata, storage and files come from outside: nothing in them makes
// this package panic, overflow or allocate beyond a bound tied to their
// size. Malformed metadata, storage of the wrong type, rows whose data
// disagree with their shape or the type, and unreadable files give errors
// wrapping arrow.ErrInvalid (through the categories of package
// arrowsparse), with messages that name the column, row or key at fault;
// a value type that cannot be viewed gives one wrapping arrow.ErrType, a
// row outside the column one wrapping arrow.ErrIndex. arrow-go's IPC
// readers allocate what a file's metadata claims (a fatal out-of-memory
// error on a lying vector length, which the fuzzer found), so ReadIPCFile,
// ReadIPCFileBytes and ReadIPCStream first check every flatbuffer of the
// input, its bodies, its compressed buffers' claimed sizes and its field
// nodes' lengths and null counts; ReadParquet first checks the row counts
// against the file's size and bounds the size a page may claim. Every
// column a reader returns, of any type and at any depth, has validity
// bitmaps, fixed-width values and offsets (present, ascending, within
// their values) that cover its slots, dictionary indices within their
// dictionary, struct fields and sparse union members as long as the
// column, union type ids among the type's codes and dense union offsets
// within their member, run ends positive, ascending and reaching the
// column's end, and string, binary and list views within their buffers or
// child, since arrow-go builds columns over data that lies about them and
// its accessors then panic. These checks read every slot (every run, for
// run-end encoding) once. The readers turn panics of arrow-go's decoders
// on malformed files into errors, and a failed read gives back to the
// allocator everything arrow-go left allocated. pqarrow reads serially: in
// parallel, it decodes a struct's children in goroutines whose panics end
// the process.
//
// The IPC writers write sliced dense unions and list views, at any depth,
// which arrow-go's encoder alone cannot (it panics on both): such columns
// are rebased to offset 0 first, zero-copy but for list offsets and
// validity bitmaps at a bit offset. (Not under run-end-encoded columns or
// in dictionaries, which arrow-go's writer cuts itself.) Should the
// encoder still panic, the writers return an error wrapping
// arrow.ErrType.
//
// # Concurrency
//
// Types and arrays are immutable: any number of goroutines may read them,
// take rows and views, and write them to containers at once. Builders are
// not safe for concurrent use. Register and Unregister may be called from
// any goroutine.
package arrowext
