package coo

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowsparse/arrowsparse"
)

// ConvertOptions tune the functions that build a COO tensor from another
// tensor or reorganise one: Canonicalize, FromDense, FromArrowTensor,
// ToView and WithIndexType, and the ToCOO methods of the other formats
// have options of the same names and meanings. The zero value sums
// duplicates, uses every core and picks the index type as each function
// documents.
type ConvertOptions struct {
	// Duplicates says how entries with equal coordinates are combined. The
	// default, arrowsparse.SumDuplicates, is what scipy, pydata/sparse and
	// PyTorch do.
	Duplicates arrowsparse.Duplicates
	// Workers bounds the number of goroutines; 0 means GOMAXPROCS. Results
	// never depend on it.
	Workers int
	// IndexType is the type of the result's coordinates; nil lets the
	// function choose (see its documentation).
	IndexType arrow.DataType
}

// Option configures New.
type Option func(*config)

type config struct {
	names   []string
	claim   int8 // 0 no claim, 1 claims canonical, -1 claims not canonical
	trusted bool
}

// WithDimNames sets the dimension names: one per dimension, or none.
func WithDimNames(names ...string) Option {
	return func(c *config) { c.names = names }
}

// WithCanonicalClaim records what the producer of the data claims about its
// order, such as the isCanonical flag of an IPC message. New checks a true
// claim and returns an error wrapping arrowsparse.ErrNotCanonical if it is false; a
// false claim is not an error (the flag is computed either way). Under
// WithTrusted, the claim is adopted without a check.
func WithCanonicalClaim(canonical bool) Option {
	return func(c *config) {
		c.claim = -1
		if canonical {
			c.claim = 1
		}
	}
}

// WithTrusted skips the O(nnz) checks of New: coordinates are not checked
// against the shape, and the canonical flag is the claim made with
// WithCanonicalClaim (false without one) instead of being computed. Types,
// the shape and buffer sizes are still checked, so no access can go outside
// a buffer; but coordinates outside the shape or a false canonical claim
// make later operations give wrong results or panic. Use it only for data
// this process wrote itself or otherwise trusts, and call Validate when in
// doubt.
func WithTrusted() Option {
	return func(c *config) { c.trusted = true }
}
