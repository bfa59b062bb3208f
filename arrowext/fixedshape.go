package arrowext

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/views"
)

// FixedShapeTensorName is the extension name of Arrow's canonical
// fixed-shape tensor type.
const FixedShapeTensorName = "arrow.fixed_shape_tensor"

// FixedShapeTensorType is Arrow's canonical arrow.fixed_shape_tensor
// extension type: a column whose rows are dense tensors of one shape and
// value type.
//
// The storage is FixedSizeList<value>[product(shape)], one tensor per row,
// its elements in row-major order of the physical shape. The metadata is
// the JSON object {"shape": [...], "permutation": [...], "dim_names":
// [...]}; shape and dim_names describe the physical layout, and logical
// dimension i is physical dimension permutation[i] (numpy.transpose's
// axes). So logical shape[i] = shape[permutation[i]].
//
// A FixedShapeTensorType is immutable; its methods may be called from any
// number of goroutines. It implements views.FixedShapeLayout.
type FixedShapeTensorType struct {
	arrow.ExtensionBase

	shape []int64  // physical shape
	perm  []int    // as given; nil when absent
	names []string // physical dim names as given; nil when absent

	logShape   []int64  // logical shape
	logStrides []int64  // element strides of the logical axes within a row
	logNames   []string // logical dim names; nil when none
	size       int64    // product of shape: the list size
}

var (
	_ arrow.ExtensionType    = (*FixedShapeTensorType)(nil)
	_ views.FixedShapeLayout = (*FixedShapeTensorType)(nil)
)

// NewFixedShapeTensorType returns the fixed-shape tensor type of the given
// value type, physical shape, physical dim names (nil for none) and
// permutation (nil for none, which means the identity), as
// pyarrow.fixed_shape_tensor takes them. Its storage type is
// FixedSizeList<value>[product(shape)].
//
// Arrow C++ accepts any value type; the rows of a column can be viewed only
// for the tensor value types (int8…int64, uint8…uint64, float16, float32,
// float64). A negative dimension, a product that exceeds the largest list
// size (2^31-1), names that are not one valid UTF-8 string per dimension, and
// a permutation that is not a permutation of 0..ndim-1 are errors wrapping
// arrow.ErrInvalid. So is a shape with a dimension of size 0, which Arrow
// allows but arrow-go cannot represent: its FixedSizeListOf panics on a
// list size of 0, and so do its IPC reader and pqarrow on such a field.
func NewFixedShapeTensorType(valueType arrow.DataType, shape []int64, dimNames []string, permutation []int) (*FixedShapeTensorType, error) {
	if valueType == nil {
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "%s: nil value type", FixedShapeTensorName)
	}
	if err := checkNames(FixedShapeTensorName, dimNames, len(shape)); err != nil {
		return nil, err
	}
	size, err := listSize(FixedShapeTensorName, shape)
	if err != nil {
		return nil, err
	}
	if size == 0 {
		return nil, core.Errorf(arrowsparse.ErrShape, "%s shape %v holds no element; arrow-go cannot represent a FixedSizeList of size 0", FixedShapeTensorName, shape)
	}
	storage := arrow.FixedSizeListOf(int32(size), valueType)
	return newFixedShape(storage, slices.Clone(shape), slices.Clone(dimNames), slices.Clone(permutation))
}

// newFixedShape checks the parameters against each other and the storage
// and derives the logical layout. It keeps the slices it is given.
func newFixedShape(storage arrow.DataType, shape []int64, names []string, perm []int) (*FixedShapeTensorType, error) {
	fsl, ok := storage.(*arrow.FixedSizeListType)
	if !ok {
		return nil, core.Errorf(arrowsparse.ErrStructure, "%s storage must be a FixedSizeList, got %s", FixedShapeTensorName, storage)
	}
	ndim := len(shape)
	if perm != nil {
		if err := core.CheckPermutation(perm, ndim, FixedShapeTensorName+" permutation"); err != nil {
			return nil, err
		}
	}
	if names != nil && len(names) != ndim {
		return nil, core.Errorf(arrowsparse.ErrShape, "%s has %d dim names for %d dimensions", FixedShapeTensorName, len(names), ndim)
	}
	size, err := listSize(FixedShapeTensorName, shape)
	if err != nil {
		return nil, err
	}
	if size != int64(fsl.Len()) {
		return nil, core.Errorf(arrowsparse.ErrShape, "%s shape %v holds %d elements, but the storage's lists hold %d", FixedShapeTensorName, shape, size, fsl.Len())
	}
	t := &FixedShapeTensorType{
		ExtensionBase: arrow.ExtensionBase{Storage: storage},
		shape:         shape,
		perm:          perm,
		names:         names,
		size:          size,
	}
	phys := rowMajor(shape)
	t.logShape = make([]int64, ndim)
	t.logStrides = make([]int64, ndim)
	for i := range ndim {
		p := i
		if perm != nil {
			p = perm[i]
		}
		t.logShape[i], t.logStrides[i] = shape[p], phys[p]
	}
	if core.CloneDimNames(names) != nil {
		t.logNames = make([]string, ndim)
		for i := range ndim {
			p := i
			if perm != nil {
				p = perm[i]
			}
			t.logNames[i] = names[p]
		}
	}
	return t, nil
}

// listSize returns the product of a physical shape, checking that no
// dimension is negative and that it fits a FixedSizeList. what names the
// type for messages.
func listSize(what string, shape []int64) (int64, error) {
	for i, d := range shape {
		if d < 0 {
			return 0, core.Errorf(arrowsparse.ErrShape, "%s shape %v: dimension %d is negative", what, shape, i)
		}
	}
	for _, d := range shape {
		if d == 0 {
			return 0, nil
		}
	}
	n := int64(1)
	for _, d := range shape {
		var ok bool
		if n, ok = core.MulInt64(n, d); !ok {
			return 0, core.Errorf(arrowsparse.ErrOverflow, "%s shape %v: the product of the dimensions overflows int64", what, shape)
		}
	}
	if n > math.MaxInt32 {
		return 0, core.Errorf(arrowsparse.ErrShape, "%s shape %v holds %d elements, more than the largest list (2^31-1)", what, shape, n)
	}
	return n, nil
}

// rowMajor returns the row-major element strides of a shape whose product
// fits in int64.
func rowMajor(shape []int64) []int64 {
	s := make([]int64, len(shape))
	acc := int64(1)
	for k := len(shape) - 1; k >= 0; k-- {
		s[k] = acc
		acc *= max(shape[k], 1)
	}
	return s
}

// checkNames returns an error unless names is nil or holds ndim valid
// UTF-8 strings (JSON carries only those).
func checkNames(what string, names []string, ndim int) error {
	if names == nil {
		return nil
	}
	if len(names) != ndim {
		return core.Errorf(arrowsparse.ErrShape, "%s has %d dim names for %d dimensions", what, len(names), ndim)
	}
	for i, n := range names {
		if !utf8.ValidString(n) {
			return core.Errorf(arrowsparse.ErrStructure, "%s dim name %d (%q) is not valid UTF-8, which JSON metadata cannot carry", what, i, n)
		}
	}
	return nil
}

// ArrayType returns the type of FixedShapeTensorArray, for arrow-go.
func (*FixedShapeTensorType) ArrayType() reflect.Type {
	return reflect.TypeOf(FixedShapeTensorArray{})
}

// ExtensionName returns "arrow.fixed_shape_tensor".
func (*FixedShapeTensorType) ExtensionName() string { return FixedShapeTensorName }

// ValueType returns the type of the tensors' elements.
func (t *FixedShapeTensorType) ValueType() arrow.DataType {
	return t.Storage.(*arrow.FixedSizeListType).Elem()
}

// NumDims returns the number of dimensions of each tensor.
func (t *FixedShapeTensorType) NumDims() int { return len(t.shape) }

// Shape returns a copy of the physical shape, as the metadata gives it.
func (t *FixedShapeTensorType) Shape() []int64 { return slices.Clone(t.shape) }

// DimNames returns a copy of the physical dim names, as the metadata gives
// them, or nil when it has none.
func (t *FixedShapeTensorType) DimNames() []string { return slices.Clone(t.names) }

// Permutation returns a copy of the permutation as the metadata gives it,
// or nil when it has none (the identity).
func (t *FixedShapeTensorType) Permutation() []int { return slices.Clone(t.perm) }

// LogicalShape returns the shape of each row's tensor in logical order:
// element i is Shape()[Permutation()[i]].
func (t *FixedShapeTensorType) LogicalShape() []int64 { return slices.Clone(t.logShape) }

// LogicalElemStrides returns the stride of each logical axis within a row's
// list, counted in elements (not bytes): the row-major strides of the
// physical shape, permuted.
func (t *FixedShapeTensorType) LogicalElemStrides() []int64 { return slices.Clone(t.logStrides) }

// LogicalDimNames returns the names of the logical axes (the physical names,
// permuted), or nil when the type has no names or only empty ones.
func (t *FixedShapeTensorType) LogicalDimNames() []string { return slices.Clone(t.logNames) }

// ListSize returns the number of elements of each tensor: the product of
// the shape and the storage's list size.
func (t *FixedShapeTensorType) ListSize() int64 { return t.size }

// String returns a description such as
// extension<arrow.fixed_shape_tensor[value_type=float32, shape=[2,3], permutation=[1,0]]>.
func (t *FixedShapeTensorType) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "extension<%s[value_type=%s, shape=%s", FixedShapeTensorName, t.ValueType(), intsText(t.shape))
	if t.perm != nil {
		fmt.Fprintf(&b, ", permutation=%s", intsText(t.perm))
	}
	if t.names != nil {
		fmt.Fprintf(&b, ", dim_names=[%s]", strings.Join(t.names, ","))
	}
	b.WriteString("]>")
	return b.String()
}

// intsText writes integers as [1,2,3].
func intsText[T int | int64](xs []T) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, x := range xs {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprint(&b, x)
	}
	b.WriteByte(']')
	return b.String()
}

// Fingerprint returns a string that identifies the type, its parameters
// included.
func (t *FixedShapeTensorType) Fingerprint() string {
	return t.ExtensionBase.Fingerprint() + "{" + t.Serialize() + "}"
}

// Serialize returns the metadata as Arrow C++ writes it: compact JSON with
// the keys shape, permutation (when the type has one) and dim_names (when
// the type has them), in that order.
func (t *FixedShapeTensorType) Serialize() string {
	var w jsonWriter
	w.begin()
	w.ints("shape", t.shape, false)
	if t.perm != nil {
		w.perm("permutation", t.perm)
	}
	if t.names != nil {
		w.strs("dim_names", t.names)
	}
	return w.end()
}

// Deserialize returns the type that the metadata data describes over the
// given storage type. It is as strict as Arrow C++: the storage must be a
// FixedSizeList; the metadata a JSON object whose "shape" is an array of
// integers ≥ 0 (not floats, strings or null) whose product equals the list
// size, with optional "permutation" (a permutation of 0..ndim-1) and
// "dim_names" (ndim strings); other keys are ignored. Any failure is an
// error wrapping arrow.ErrInvalid.
func (*FixedShapeTensorType) Deserialize(storageType arrow.DataType, data string) (arrow.ExtensionType, error) {
	return parseFixedShape(storageType, data)
}

func parseFixedShape(storage arrow.DataType, data string) (*FixedShapeTensorType, error) {
	if _, ok := storage.(*arrow.FixedSizeListType); !ok {
		return nil, core.Errorf(arrowsparse.ErrStructure, "%s storage must be a FixedSizeList, got %s", FixedShapeTensorName, storage)
	}
	f, err := parseMetadata(FixedShapeTensorName, data,
		[]string{"shape", "permutation", "dim_names"},
		[]metaKind{intEntries, intEntries, stringEntries})
	if err != nil {
		return nil, err
	}
	if !f[0].present {
		return nil, core.Errorf(arrowsparse.ErrStructure, "%s metadata has no \"shape\": %s", FixedShapeTensorName, quote(data))
	}
	shape := f[0].ints
	if shape == nil {
		shape = []int64{}
	}
	var perm []int
	if f[1].present {
		perm = make([]int, len(f[1].ints))
		for i, p := range f[1].ints {
			if p < 0 || p >= int64(len(shape)) {
				return nil, core.Errorf(arrowsparse.ErrStructure, "%s permutation %v is not a permutation of 0..%d", FixedShapeTensorName, f[1].ints, len(shape)-1)
			}
			perm[i] = int(p)
		}
	}
	var names []string
	if f[2].present {
		names = f[2].strs
		if names == nil {
			names = []string{}
		}
	}
	return newFixedShape(storage, shape, names, perm)
}

// ExtensionEquals reports whether other is a fixed-shape tensor type with
// equal storage, shape and dim names, and equal permutations, an absent
// permutation being equal to the identity (as in Arrow C++).
func (t *FixedShapeTensorType) ExtensionEquals(other arrow.ExtensionType) bool {
	o, ok := other.(*FixedShapeTensorType)
	if !ok {
		return false
	}
	return arrow.TypeEqual(t.Storage, o.Storage) &&
		slices.Equal(t.shape, o.shape) &&
		slices.Equal(t.names, o.names) &&
		samePermutation(t.perm, o.perm)
}

// samePermutation compares permutations, nil being the identity.
func samePermutation(a, b []int) bool {
	if isIdentity(a) && isIdentity(b) {
		return true
	}
	return slices.Equal(a, b)
}

func isIdentity(p []int) bool {
	for i, x := range p {
		if x != i {
			return false
		}
	}
	return true
}

// inverse returns the inverse of a permutation of 0..n-1 (nil: the
// identity) as a slice of length n.
func inverse(p []int, n int) []int {
	inv := make([]int, n)
	for i := range inv {
		inv[i] = i
	}
	for i, x := range p {
		inv[x] = i
	}
	return inv
}
