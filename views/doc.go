// Package views provides zero-copy dense strided views over Arrow memory.
//
// # Layout
//
// A View is a data type, a retained *memory.Buffer, an element offset, a
// shape and signed strides. Offsets and strides count elements of the data
// type, not bytes; the Byte* methods convert at the Arrow boundary, where
// strides are bytes (Tensor.fbs, arrow-go's tensor package).
//
// Strides of axes of length 1 are normalised to the value a row-major layout
// would give them, so that contiguity flags report the real memory layout.
//
// # Ownership
//
// A view retains its buffer; Release releases it when the view's count
// reaches zero. Views derived from a view retain the same buffer.
//
// # Errors
//
// Constructors check that every reachable element lies inside the buffer and
// that no address arithmetic overflows, and return an error wrapping
// arrow.ErrInvalid, arrow.ErrIndex or arrow.ErrType otherwise. After that
// check, element access (At, Set, Offset) checks only the index range, and an
// index outside the shape panics with an arrowsparse.PanicError, as a slice
// index does.
package views
