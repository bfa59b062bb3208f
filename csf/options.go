package csf

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/arrowsparse/arrowsparse"
)

// ConvertOptions tune FromCOO, FromDense, FromArrowTensor, ToCOO and
// ToView. Duplicates, Workers, IndexType and IndptrType mean what they mean
// in coo.ConvertOptions and gcs.ConvertOptions. The zero value gives Arrow
// C++'s default axis order, sums duplicates, uses every core and picks the
// index types as each function documents.
type ConvertOptions struct {
	// Duplicates says how FromCOO combines entries with equal coordinates.
	Duplicates arrowsparse.Duplicates
	// Workers bounds the number of goroutines; 0 means GOMAXPROCS. The
	// result does not depend on it.
	Workers int
	// IndexType is the type of every indices buffer (of the coordinates,
	// for ToCOO). nil means: FromCOO, the COO tensor's index type if it
	// holds every coordinate and position, else the narrowest signed type
	// that does; FromDense, the narrowest that does.
	IndexType arrow.DataType
	// IndptrType is the type of every indptr buffer; nil means the type
	// the indices get. (Arrow IPC has one type for all indptr buffers and
	// one for all indices buffers.)
	IndptrType arrow.DataType
	// LevelIndexTypes and LevelIndptrTypes, if not nil, give a type per
	// level (NumDims and NumDims-1 entries), overriding IndexType and
	// IndptrType.
	LevelIndexTypes, LevelIndptrTypes []arrow.DataType
	// AxisOrder is the order of the levels: level l holds dimension
	// AxisOrder[l]. nil means DefaultAxisOrder(shape).
	AxisOrder []int
}

// KernelOptions tune the kernels (TTV, TTVDense, MTTKRP); gcs.KernelOptions
// has the same fields. The zero value uses every core.
type KernelOptions struct {
	// Workers bounds the number of goroutines; 0 means GOMAXPROCS. Results
	// do not depend on it, bit for bit.
	Workers int
}

// Option configures New.
type Option func(*config)

type config struct {
	names   []string
	trusted bool
}

// WithDimNames sets the dimension names: one per dimension, or none.
func WithDimNames(names ...string) Option {
	return func(c *config) { c.names = names }
}

// WithTrusted skips the O(nnz) checks of New: the indptr contents between
// their first and last entries, and the indices. Types, the shape, the
// axis order, buffer sizes and alignment, and the first and last entry of
// every indptr are still checked, so no access can go outside a buffer
// through the level lengths; but a decreasing indptr or an index outside
// its dimension makes At, ToDense and the kernels panic or return wrong
// results. Use it only for data this process wrote itself or otherwise
// trusts, and call Validate when in doubt.
func WithTrusted() Option {
	return func(c *config) { c.trusted = true }
}
