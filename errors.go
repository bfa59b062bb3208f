package arrowsparse

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// Sentinel errors. Every error this module returns for bad input wraps one of
// them, and each of them wraps arrow.ErrInvalid, arrow.ErrIndex or
// arrow.ErrType, so callers can test with errors.Is at either level:
//
//	errors.Is(err, arrowsparse.ErrOutOfRange) // this module's category
//	errors.Is(err, arrow.ErrIndex)            // Arrow's category
var (
	// ErrShape reports a negative dimension, a rank mismatch, or a shape
	// whose element count overflows int64 where a count is needed.
	ErrShape = &sentinel{"bad shape", arrow.ErrInvalid}
	// ErrOverflow reports integer arithmetic (sizes, offsets, strides) that
	// would overflow int64.
	ErrOverflow = &sentinel{"integer overflow", arrow.ErrInvalid}
	// ErrBufferSize reports a buffer that is too small, or buffer sizes that
	// disagree with each other or with the shape.
	ErrBufferSize = &sentinel{"bad buffer size", arrow.ErrInvalid}
	// ErrAlignment reports a buffer whose address is not a multiple of its
	// element width.
	ErrAlignment = &sentinel{"misaligned buffer", arrow.ErrInvalid}
	// ErrStructure reports a broken sparse index structure: an index pointer
	// array that does not start at 0, decreases or ends at the wrong value, an
	// axis order that is not a permutation, and similar.
	ErrStructure = &sentinel{"bad sparse structure", arrow.ErrInvalid}
	// ErrNotCanonical reports data that claims to be canonical (sorted, no
	// duplicates) but is not, or an operation that needs canonical input.
	ErrNotCanonical = &sentinel{"not canonical", arrow.ErrInvalid}
	// ErrReadOnly reports a write through a read-only view.
	ErrReadOnly = &sentinel{"read-only", arrow.ErrInvalid}
	// ErrOutOfRange reports a coordinate or index outside its dimension.
	ErrOutOfRange = &sentinel{"index out of range", arrow.ErrIndex}
	// ErrSyntax reports text that does not follow its format's grammar: a
	// malformed header line, a token that is not a number, a line with the
	// wrong number of fields, a line longer than the reader's limit, or
	// corrupt compressed data.
	ErrSyntax = &sentinel{"bad syntax", arrow.ErrInvalid}
	// ErrUnsupportedType reports a data type that is not allowed where it was
	// given: a value type outside the Arrow tensor types, an index type
	// outside the Arrow sparse index types (uint64 included), or a Go type
	// that does not match the tensor's data type.
	ErrUnsupportedType = &sentinel{"unsupported data type", arrow.ErrType}
)

// sentinel is an error category that wraps one of Arrow's error categories.
type sentinel struct {
	msg   string
	arrow error
}

func (s *sentinel) Error() string { return s.msg + ": " + s.arrow.Error() }
func (s *sentinel) Unwrap() error { return s.arrow }

// Error is an error about bad input. Its message reads on its own; its
// category is one of this package's sentinels, reachable with errors.Is.
type Error struct {
	Kind error  // one of the sentinels above
	Msg  string // the whole message
	Err  error  // the underlying cause, if any; nil otherwise
}

// Error returns the message without the category, which errors.Is exposes.
func (e *Error) Error() string { return e.Msg }

// Unwrap returns the category and, if there is one, the wrapped cause.
func (e *Error) Unwrap() []error {
	if e.Err != nil {
		return []error{e.Kind, e.Err}
	}
	return []error{e.Kind}
}

// errorf formats an error of the given category.
func errorf(kind error, format string, args ...any) error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// PanicError is the value this module panics with on programmer errors on
// in-memory values, such as an index outside the shape passed to At. Like a
// slice index out of range, such a call is a bug in the caller, not bad data.
type PanicError struct{ Msg string }

// Error returns the message.
func (e PanicError) Error() string { return e.Msg }
