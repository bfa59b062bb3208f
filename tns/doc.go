// Package tns reads and writes FROSTT files (.tns, and .tns.gz), the text
// format of the Formidable Repository of Open Sparse Tensors and Tools, as
// COO tensors in Arrow memory.
//
// # Format
//
// A FROSTT file has one line per stored entry: the entry's coordinates,
// counted from 1, then its value, separated by spaces or tabs. Lines that
// start with '#' are comments; blank lines are skipped. There is no header:
// the rank is the number of coordinates on the first entry line (every
// line must have as many), and each dimension is the largest coordinate
// found in it, unless WithShape gives the shape. A line with a value alone
// is an entry of a 0-d tensor. The readers also accept "\r\n" line ends, a
// missing final line end and values such as +1.5E-3, .5, inf and NaN.
//
// # Results
//
// A file reads as a *coo.Tensor with row-major coordinates in file order,
// duplicates kept; its canonical flag is set when the entries happen to be
// sorted without duplicates. The index type is the narrowest signed type
// that holds every coordinate of the (given or inferred) shape
// (arrowsparse.SmallestIndexType) unless WithIndexType; when the shape is
// inferred, the coordinates are stored at the width the largest one seen so
// far needs and widened in place when a larger one arrives. Values are
// float64 unless WithValueType: float types read any number, exactly as
// strconv.ParseFloat does (float16 correctly rounded), integer types read
// integers that fit. Write writes every stored entry in storage order, with
// 1-based coordinates and the shortest text that reads back to the same
// value bits (inf, -inf and nan for the special values). The shape is not
// written, so a tensor whose last slices are empty reads back smaller
// unless the reader is given its shape.
//
// # Reading in parallel
//
// The input is cut into chunks of whole lines (at most WithChunkSize
// bytes) that WithWorkers goroutines parse at the same time, then copied
// into the output in order. ReadFile maps an uncompressed file into memory
// and parses its chunks in place (ReadAt where mapping is not available),
// ReadBytes slices them out of memory, and
// Read (and ReadFile of a gzip file) reads on one goroutine while the
// others parse. gzip input is recognised by its first two bytes. Memory
// while reading is the output plus a constant number of chunks: when the
// input's size is known the output is allocated once for the most entries
// it can hold, otherwise it grows by doubling as entries arrive.
//
// # Ownership
//
// The buffers of a result come from WithAllocator's allocator
// (memory.DefaultAllocator by default); the tensor must be released by the
// caller. It never aliases the input.
//
// # Errors
//
// Bad input never panics. Errors wrap the arrowsparse categories (and so
// arrow.ErrInvalid, arrow.ErrIndex or arrow.ErrType): ErrSyntax for a line
// with the wrong number of fields, a token that is not a number, a line
// longer than WithMaxLineLength or corrupt gzip data; ErrOutOfRange for a
// coordinate that is 0, past the given shape or past what the index type
// holds; ErrShape for an input without entries and without WithShape (its
// rank is unknown) and for a bad shape; ErrUnsupportedType for value or
// index types that are not allowed. An error about a line names it
// ("tns: line 7: coordinate 2, \"0\", is outside …"), and errors.As finds
// the *LineError with its number.
//
// # Concurrency
//
// The readers and writers are safe to call from several goroutines at
// once. A progress callback is called from one goroutine at a time, in
// input order.
package tns
