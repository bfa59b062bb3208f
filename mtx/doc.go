// Package mtx reads and writes Matrix Market files (.mtx, and .mtx.gz), the
// text format of the NIST Matrix Market and the SuiteSparse Matrix
// Collection, as COO tensors and dense views in Arrow memory.
//
// # Format
//
// A file starts with a banner, "%%MatrixMarket matrix LAYOUT FIELD
// SYMMETRY" (the words in any case), then comment lines starting with '%',
// then a size line, then the body. The layout is coordinate (a size line
// "ROWS COLS ENTRIES", then one "ROW COL [VALUE]" line per entry, indices
// from 1) or array (a size line "ROWS COLS", then one value per line,
// column by column). The field is real, integer, pattern (coordinate only:
// no value) or complex. The symmetry is general, symmetric, skew-symmetric
// or hermitian; a symmetric file stores one triangle (its diagonal too,
// except skew-symmetric), an array file the lower triangle column by
// column.
//
// The readers accept what real files hold: blank lines and comment lines
// anywhere, spaces and tabs, "\r\n" line ends, a missing final line end,
// values such as +1.5E-3, .5, inf, NaN and -Infinity, dimensions up to
// 2^63−1, a coordinate count larger than rows·cols (a repeated position;
// its values add up when summed), and the off-diagonal entries of either
// triangle in a symmetric file. They
// refuse complex files (Arrow tensors have no complex type), pattern
// arrays and skew-symmetric pattern files, and a non-zero diagonal entry in
// a skew-symmetric file. Hermitian files hold real values here, so they are
// read as symmetric.
//
// # Results
//
// A coordinate file reads as a *coo.Tensor of shape [Rows, Cols] with
// row-major coordinates, in file order; a symmetric file's off-diagonal
// entries then get their mirror images (negated for skew-symmetric)
// appended in the same order, as scipy.io.mmread does, unless
// WithKeepTriangle. The index type is the narrowest signed type that holds
// every index (arrowsparse.SmallestIndexType) unless WithIndexType; values
// are float64 for real and pattern files (pattern entries are 1) and int64
// for integer files unless WithValueType. The canonical flag is set when
// the entries happen to be sorted without duplicates.
//
// An array file reads as a *views.View of shape [Rows, Cols] in
// column-major order (element strides [1, Rows]), the file's order, with a
// symmetric matrix filled in on both sides. Matrix.ToCOO gives the non-zero
// elements as COO from either kind.
//
// Values are exactly what strconv.ParseFloat returns for the text (float64,
// and float32 for bit size 32), and the correctly rounded float16 for
// float16: a fast path handles decimals of up to 19 significant digits
// (Clinger's exact products, then the Eisel–Lemire algorithm) and falls
// back to strconv whenever it cannot be sure. Write formats floats with the
// shortest text that reads back to the same bits (strconv 'g', −1, at
// bit size 32 for float32 and float16), as inf, -inf and nan for the
// special values, and integers in decimal.
//
// # Reading in parallel
//
// The body is cut into chunks of whole lines (at most WithChunkSize bytes,
// 4 MiB by default) that WithWorkers goroutines (GOMAXPROCS by default)
// parse at the same time; each chunk's entries are then copied into the
// output in order. ReadFile maps an uncompressed file into memory and the
// workers parse its chunks in place (with ReadAt into their own buffers
// where mapping is not available; a file that shrinks meanwhile gives an
// error), ReadBytes slices them out of memory, and Read (and ReadFile for
// a gzip file) reads the input on one goroutine while the workers parse. Input compressed with gzip is recognised by its
// first two bytes, whatever the file is called.
//
// Memory while reading is the output plus a constant number of chunks
// (about two per worker, and a line of up to WithMaxLineLength). When the
// input's size is known (ReadFile, ReadBytes), the output buffers are
// allocated once, at the size the header announces or what the input can
// hold if that is less; a symmetric matrix's room for its mirror images is
// allocated with them. When it is not (a stream, a gzip file) they grow by
// doubling up to the announced size as entries arrive, so a file larger
// than memory is never held whole and a lying header cannot make the
// reader allocate more than about twice what the input really holds.
//
// # Ownership
//
// Every buffer of a result comes from the allocator given with
// WithAllocator (memory.DefaultAllocator by default) and belongs to the
// result: a Matrix must be released by the caller, which releases its
// tensor. The result never aliases the input. The writers' temporary
// copies (a sorted copy to check a symmetry, a column-major copy of a
// dense tensor in another order) come from WithWriteAllocator's allocator
// and are released before they return.
//
// # Aliasing
//
// Matrix.Tensor returns the COO or Dense field itself, which shares memory
// with the Matrix. ToCOO of a coordinate file returns that same tensor,
// retained.
//
// # Errors
//
// Bad input never panics. Every error wraps one of the arrowsparse
// categories and, through it, arrow.ErrInvalid, arrow.ErrIndex or
// arrow.ErrType: ErrSyntax for text that breaks the grammar (a bad banner
// or size line, a token that is not a number, the wrong number of fields,
// a line longer than WithMaxLineLength, corrupt gzip data), ErrOutOfRange
// for an index that is 0 or past its dimension, ErrStructure for an entry
// count that disagrees with the size line and for a broken symmetry,
// ErrShape for a size that cannot be, and ErrUnsupportedType for complex
// files and for value or index types that cannot hold the data. An error
// about a line names it ("mtx: line 12: row index \"0\" is outside 1..5
// (indices count from 1)"); errors.As finds the *LineError with its
// number. ReadFile's messages name the file. Errors from the underlying
// reader or file are returned wrapped, with their own types.
//
// # Concurrency
//
// The readers and writers are safe to call from several goroutines at
// once; each call runs its own workers. A progress callback is called from
// one goroutine at a time, in input order.
package mtx
