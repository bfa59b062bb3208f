package compute

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
)

// Format names the format of a result. The zero value, Auto, lets each
// function choose as its documentation says: the first operand's format for
// the element-wise operations, the operand's format for the unary ones, and
// a dense view or a COO tensor, by size, for the reductions.
type Format int8

// The result formats.
const (
	Auto  Format = iota // the function's choice (see Format)
	Dense               // a row-major *views.View
	COO                 // a canonical *coo.Tensor
	CSR                 // a canonical *gcs.Matrix compressing rows (2-d only)
	CSC                 // a canonical *gcs.Matrix compressing columns (2-d only)
	GCS                 // a canonical *gcs.Tensor over a CSR storage matrix
	CSF                 // a *csf.Tensor (2-d and more)
)

var formatNames = [...]string{"auto", "dense", "COO", "CSR", "CSC", "GCS", "CSF"}

// String returns the format's name, such as "CSR".
func (f Format) String() string {
	if f >= 0 && int(f) < len(formatNames) {
		return formatNames[f]
	}
	return "Format(" + strconv.Itoa(int(f)) + ")"
}

// Options tune the element-wise operations (Add, Subtract, Multiply,
// Minimum, Maximum) and the unary ones (Scale, Map, Abs, Negate,
// EliminateZeros). The zero value keeps the first operand's format, drops
// explicit zeros, uses every core and picks the index types as each
// function documents.
type Options struct {
	// Format is the format of the result. Auto (the default) keeps the
	// format of the first operand, with its order: a CSC stays CSC, a GCS
	// tensor keeps its mapping and a CSF tensor its axis order, and the
	// second operand is converted to it when its order differs. Another
	// format converts the first operand too, with that format's default
	// order (compressed axis 0 for GCS, csf.DefaultAxisOrder for CSF).
	Format Format
	// KeepZeros keeps the entries whose value is zero: explicit zeros of
	// the operands and results that come out as zero (x - x, a product that
	// underflows). By default they are dropped, as scipy does.
	KeepZeros bool
	// Workers bounds the number of goroutines; 0 means GOMAXPROCS. Results
	// do not depend on it, bit for bit.
	Workers int
	// IndexType is the type of the result's indices (coordinates for COO,
	// every level for CSF); nil means the wider of the operands' types, or
	// the narrowest signed type that holds the indices when the result is
	// in a format neither operand has.
	IndexType arrow.DataType
	// IndptrType is the type of the result's index pointers (CSR, CSC,
	// GCS, CSF); nil means the wider of the operands' types, widened if
	// the number of entries needs it.
	IndptrType arrow.DataType
}

// ReduceOptions tune the reductions (Sum, Prod, Min, Max, Count, Mean).
// The zero value returns a dense view or a COO tensor by the rule of
// Auto, drops the reduced axes, drops zero results of a sparse result and
// uses every core.
type ReduceOptions struct {
	// Format is the format of the result: Dense for a *views.View; COO,
	// CSR, CSC, GCS or CSF for a sparse tensor holding the non-zero
	// results; Auto (the default) for a dense view when the result has at
	// most as many elements as the operand has stored values (a scalar
	// always), and a COO tensor otherwise, which is what pydata/sparse
	// returns.
	Format Format
	// KeepDims keeps each reduced axis as an axis of length 1, as NumPy's
	// keepdims=True.
	KeepDims bool
	// KeepZeros keeps the zero results of a sparse result as explicit
	// zeros: every element that some stored value reached is stored.
	KeepZeros bool
	// Workers bounds the number of goroutines; 0 means GOMAXPROCS.
	// Integer results and minima and maxima do not depend on it; sums and
	// means of floating-point values are added in storage order within
	// ranges of the output and do not depend on it either.
	Workers int
	// IndexType is the type of a sparse result's indices; nil means the
	// narrowest signed type that holds every index of the result's shape.
	IndexType arrow.DataType
}

// CastOptions tune AsType. The zero value rejects every cast that would
// change a value, as Arrow's safe casts do.
type CastOptions struct {
	// AllowIntOverflow lets integer values that the target type cannot
	// hold wrap around (Go's conversion, Arrow's allow_int_overflow)
	// instead of failing.
	AllowIntOverflow bool
	// AllowFloatTruncate lets floating-point values lose their fraction or
	// fall outside an integer target (truncated toward zero, then
	// converted as Go converts; NaN gives 0), and integers become floats
	// that do not hold them exactly (rounded to nearest), as Arrow's
	// allow_float_truncate does, instead of failing.
	AllowFloatTruncate bool
	// IndexType and IndptrType, if not nil, are the index types of the
	// result (as in Options); nil keeps the operand's.
	IndexType, IndptrType arrow.DataType
	// Workers bounds the number of goroutines; 0 means GOMAXPROCS.
	Workers int
}
