// Package textparse holds what the text formats (packages mtx and tns)
// share: exact number parsing, inputs (memory, files, streams, gzip), the
// engine that parses chunks of lines in parallel, growable output columns,
// and the parallel ordered writer.
//
// # Numbers
//
// ParseFloat64 returns exactly what strconv.ParseFloat(s, 64) returns,
// with out-of-range values accepted as ±Inf. Its fast path reads decimals
// of up to 19 significant digits: Clinger's exact product or quotient when
// the significand and the power of ten are exact in float64, else the
// Eisel–Lemire algorithm on a table of truncated 128-bit powers of ten
// (computed once, with math/big, on first use). Whenever the algorithm
// cannot be sure of the rounding, and for every other syntax (inf, nan,
// hex, underscores, longer significands), it hands the token to strconv.
// Float32Of and Float16Of round that float64 again to the narrower type,
// which is exact except when the float64 lands on a midpoint of the
// narrower type; then the token's exact decimal value (math/big.Rat)
// decides.
//
// # Inputs
//
// OpenBytes, OpenFile and OpenReader open an input; its header is read
// line by line with Line (and Unread), then Run parses the body. An input
// whose first two bytes are the gzip magic is decompressed as it is read.
// OpenFile maps a plain file into memory (on unix; elsewhere the workers
// read their chunks with ReadAt); Protect, and Run for its workers, turn a
// fault on the mapping (the file shrank while being read) into an error,
// and Close unmaps it once the results, which are copies, are built.
//
// # The engine
//
// Run cuts the body into chunks of whole lines and runs a format's Body on
// the configured number of workers: Parse on any worker, Place in input
// order one at a time (entry offsets, output growth, order checks), Copy in
// parallel. A body of known size (memory or a file read with ReadAt) is
// cut by the workers themselves: chunk k holds the lines that start in
// [k·C, (k+1)·C). A stream is read by one producer goroutine into a fixed
// pool of buffers (workers + 2 of them). Errors carry the line number,
// computed in order from the chunks' line counts, so the first bad line of
// the input is the one reported, whatever the chunking.
//
// # Outputs
//
// Chunk parsers store each value in a uint64 lane that holds the output
// type's bits in its low bytes, and each coordinate as a uint64; Narrow
// copies them to the output width. A Column is an output buffer from the
// caller's allocator that grows (and, for coordinates whose type is chosen
// at the end, widens in place).
package textparse
