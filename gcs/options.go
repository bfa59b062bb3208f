package gcs

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// ConvertOptions tune the conversions of this package: FromCOO,
// FromDense, MatrixFromCOO, MatrixFromDense, ToCSR, ToCSC, ToCOO, ToView,
// Tensor.Remap, DM.ToGCS and friends. Duplicates, Workers and IndexType
// mean what they mean in coo.ConvertOptions and csf.ConvertOptions. The
// zero value sums duplicates, uses every core, picks the index types as
// each function documents and, for an N-d tensor, compresses axis 0.
type ConvertOptions struct {
	// Duplicates says how entries with equal coordinates are combined.
	// The default, arrowsparse.SumDuplicates, is what scipy, pydata/sparse
	// and PyTorch do. Conversions that only reorder a matrix (ToCSR,
	// ToCSC) keep duplicates and ignore it.
	Duplicates arrowsparse.Duplicates
	// Workers bounds the number of goroutines; 0 means GOMAXPROCS. Results
	// never depend on it.
	Workers int
	// IndexType is the type of the indices of the result (of the
	// coordinates, for ToCOO); nil lets the function choose (see its
	// documentation).
	IndexType arrow.DataType
	// IndptrType is the type of the index pointers of the result; nil
	// lets the function choose.
	IndptrType arrow.DataType
	// Mapping is the GCS mapping of the N-d tensor that FromCOO, FromDense
	// and DM.ToGCS build. The zero Mapping means FromCompressedAxes(shape,
	// []int{0}): rows run along axis 0 and columns along the others, in
	// order, as pydata/sparse's GCXS with compressed_axes=(0,) (for a
	// matrix, CSR).
	Mapping Mapping
}

// KernelOptions tune the kernels (MulVec, MulDense, MulMatrix);
// csf.KernelOptions has the same fields. The zero value uses every core.
type KernelOptions struct {
	// Workers bounds the number of goroutines; 0 means GOMAXPROCS. Results
	// do not depend on it, bit for bit.
	Workers int
}

// mapping returns o.Mapping, or the default mapping of a tensor of the
// given shape, checking that it fits the shape.
func (o ConvertOptions) mapping(shape []int64) (Mapping, error) {
	if o.Mapping.IsZero() {
		if len(shape) == 0 {
			return IdentityMapping(shape)
		}
		return FromCompressedAxes(shape, []int{0})
	}
	if !slices.Equal(o.Mapping.shape, shape) {
		return Mapping{}, core.Errorf(arrowsparse.ErrShape, "gcs: a mapping of shape %v for a tensor of shape %v", o.Mapping.shape, shape)
	}
	return o.Mapping, nil
}

// indexTypes resolves the output index types of a conversion: the given
// defaults unless o sets them, then checks that they can hold the minor
// indices and the (upper bound of the) number of entries.
func (o ConvertOptions) indexTypes(defPtr, defIdx arrow.DataType, minor, n int64) (pt, it arrow.DataType, err error) {
	pt, it = o.IndptrType, o.IndexType
	if it == nil {
		it = widen(defIdx, minor-1)
	}
	if pt == nil {
		pt = widen(defPtr, n)
		if arrowsparse.ByteWidth(pt) < arrowsparse.ByteWidth(it) && o.IndexType == nil {
			pt = widen(it, n)
		}
	}
	if err := core.CheckIndexType(pt); err != nil {
		return nil, nil, err
	}
	if err := core.CheckIndexType(it); err != nil {
		return nil, nil, err
	}
	if n > 0 && minor-1 > arrowsparse.IndexMax(it) {
		return nil, nil, core.Errorf(arrowsparse.ErrUnsupportedType, "gcs: index type %s cannot hold indices up to %d", it, minor-1)
	}
	if err := core.CheckIndexFits(pt, n, "nnz"); err != nil {
		return nil, nil, err
	}
	return pt, it, nil
}

// widen returns dt if it holds every value in 0..max, and otherwise the
// narrowest signed index type that does.
func widen(dt arrow.DataType, max int64) arrow.DataType {
	if dt != nil && arrowsparse.IsIndexType(dt) && max <= arrowsparse.IndexMax(dt) {
		return dt
	}
	return arrowsparse.SmallestIndexType(max)
}

// Option configures New, NewCSR, NewCSC and FromSlices.
type Option func(*config)

type config struct {
	names   []string
	claim   int8 // 0 no claim, 1 claims canonical, -1 claims not canonical
	trusted bool
}

// WithDimNames sets the two dimension names (row, column), or none.
func WithDimNames(names ...string) Option {
	return func(c *config) { c.names = names }
}

// WithCanonicalClaim records what the producer of the data claims about the
// order of the indices. A true claim is checked: if some lane is not
// strictly increasing, New fails with an error wrapping arrowsparse.ErrNotCanonical.
// A false claim is not an error; the flag is computed either way. Under
// WithTrusted the claim is adopted without a check.
func WithCanonicalClaim(canonical bool) Option {
	return func(c *config) {
		c.claim = -1
		if canonical {
			c.claim = 1
		}
	}
}

// WithTrusted skips the O(nnz) checks of New: indices are not checked against
// the shape, and the canonical flag is the claim made with
// WithCanonicalClaim (false without one). Types, buffer sizes, alignment
// and the whole indptr array (start, monotonicity, end) are still checked,
// so no access can go outside a buffer; but an index outside the shape
// makes ToDense, At and the kernels panic. Use it only for data this
// process wrote itself or otherwise trusts, and call Validate when in
// doubt.
func WithTrusted() Option {
	return func(c *config) { c.trusted = true }
}
