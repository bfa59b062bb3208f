package arrowext

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// VariableShapeTensorName is the extension name of Arrow's canonical
// variable-shape tensor type.
const VariableShapeTensorName = "arrow.variable_shape_tensor"

// VariableDim marks a dimension of a uniform shape that varies from row to
// row (null in the JSON metadata).
const VariableDim = -1

// VariableShapeTensorType is Arrow's canonical arrow.variable_shape_tensor
// extension type: a column whose rows are dense tensors of one value type
// and number of dimensions, each with its own shape.
//
// The storage is Struct{data: List<value>, shape: FixedSizeList<int32>[ndim]}:
// row i's elements, in row-major order of its physical shape, and that
// shape. The metadata is a JSON object with the optional keys permutation,
// dim_names and uniform_shape; all but permutation describe the physical
// layout, and logical dimension i is physical dimension permutation[i], as
// for FixedShapeTensorType. uniform_shape gives the dimensions that every
// row shares (an integer) and those that vary (null, VariableDim here).
//
// A VariableShapeTensorType is immutable; its methods may be called from
// any number of goroutines.
type VariableShapeTensorType struct {
	arrow.ExtensionBase

	ndim    int
	perm    []int    // as given; nil when absent
	names   []string // physical dim names as given; nil when absent
	uniform []int64  // physical uniform shape, VariableDim for varying dims; nil when absent

	logNames []string // logical dim names; nil when none
}

var _ arrow.ExtensionType = (*VariableShapeTensorType)(nil)

// NewVariableShapeTensorType returns the variable-shape tensor type of the
// given value type and number of dimensions, with optional physical dim
// names, permutation and uniform shape (nil for none; VariableDim for a
// dimension that varies). Its storage is
// Struct{data: List<value>, shape: FixedSizeList<int32>[ndim]}, with the
// field names and nullability Arrow C++ gives it.
//
// The value type must be fixed-width, as Arrow C++ requires; rows can be
// viewed only for the tensor value types. An ndim ≤ 0 (Arrow allows 0,
// but arrow-go cannot represent a FixedSizeList of size 0), a negative uniform
// dimension other than VariableDim, names that are not one valid UTF-8
// string per dimension, a permutation that is not a permutation of
// 0..ndim-1, and a uniform shape of another length are errors wrapping
// arrow.ErrInvalid (arrow.ErrType for the value type).
func NewVariableShapeTensorType(valueType arrow.DataType, ndim int, dimNames []string, permutation []int, uniformShape []int64) (*VariableShapeTensorType, error) {
	if valueType == nil {
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "%s: nil value type", VariableShapeTensorName)
	}
	if ndim <= 0 || ndim > math.MaxInt32 {
		return nil, core.Errorf(arrowsparse.ErrShape, "%s: %d dimensions (arrow-go cannot represent the FixedSizeList<int32>[0] shapes of 0-d tensors)", VariableShapeTensorName, ndim)
	}
	if err := checkNames(VariableShapeTensorName, dimNames, ndim); err != nil {
		return nil, err
	}
	storage := arrow.StructOf(
		arrow.Field{Name: "data", Type: arrow.ListOf(valueType), Nullable: true},
		arrow.Field{Name: "shape", Type: arrow.FixedSizeListOf(int32(ndim), arrow.PrimitiveTypes.Int32), Nullable: true},
	)
	return newVariableShape(storage, slices.Clone(dimNames), slices.Clone(permutation), slices.Clone(uniformShape))
}

// newVariableShape checks the parameters against each other and the
// storage. It keeps the slices it is given.
func newVariableShape(storage arrow.DataType, names []string, perm []int, uniform []int64) (*VariableShapeTensorType, error) {
	st, ok := storage.(*arrow.StructType)
	if !ok || st.NumFields() != 2 {
		return nil, core.Errorf(arrowsparse.ErrStructure, "%s storage must be a Struct of two fields (data: List, shape: FixedSizeList<int32>), got %s", VariableShapeTensorName, storage)
	}
	data, ok := st.Field(0).Type.(*arrow.ListType)
	if !ok {
		return nil, core.Errorf(arrowsparse.ErrStructure, "%s storage's first field must be a List, got %s", VariableShapeTensorName, st.Field(0).Type)
	}
	if _, ok := data.Elem().(arrow.FixedWidthDataType); !ok {
		return nil, core.Errorf(arrowsparse.ErrStructure, "%s values must be of a fixed-width type, got %s", VariableShapeTensorName, data.Elem())
	}
	shape, ok := st.Field(1).Type.(*arrow.FixedSizeListType)
	if !ok || shape.Elem().ID() != arrow.INT32 {
		return nil, core.Errorf(arrowsparse.ErrStructure, "%s storage's second field must be a FixedSizeList<int32>, got %s", VariableShapeTensorName, st.Field(1).Type)
	}
	ndim := int(shape.Len())
	if ndim < 0 {
		return nil, core.Errorf(arrowsparse.ErrShape, "%s: %d dimensions", VariableShapeTensorName, ndim)
	}
	if perm != nil {
		if err := core.CheckPermutation(perm, ndim, VariableShapeTensorName+" permutation"); err != nil {
			return nil, err
		}
	}
	if names != nil && len(names) != ndim {
		return nil, core.Errorf(arrowsparse.ErrShape, "%s has %d dim names for %d dimensions", VariableShapeTensorName, len(names), ndim)
	}
	if uniform != nil {
		if len(uniform) != ndim {
			return nil, core.Errorf(arrowsparse.ErrShape, "%s uniform_shape %s has %d entries for %d dimensions", VariableShapeTensorName, uniformText(uniform), len(uniform), ndim)
		}
		for i, d := range uniform {
			if d < VariableDim {
				return nil, core.Errorf(arrowsparse.ErrShape, "%s uniform_shape %s: entry %d is negative", VariableShapeTensorName, uniformText(uniform), i)
			}
		}
	}
	t := &VariableShapeTensorType{
		ExtensionBase: arrow.ExtensionBase{Storage: storage},
		ndim:          ndim,
		perm:          perm,
		names:         names,
		uniform:       uniform,
	}
	if core.CloneDimNames(names) != nil {
		t.logNames = make([]string, ndim)
		for i := range ndim {
			t.logNames[i] = names[t.physAxis(i)]
		}
	}
	return t, nil
}

// physAxis returns the physical axis of logical axis i.
func (t *VariableShapeTensorType) physAxis(i int) int {
	if t.perm != nil {
		return t.perm[i]
	}
	return i
}

// uniformText writes a uniform shape with null for varying dimensions.
func uniformText(u []int64) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, d := range u {
		if i > 0 {
			b.WriteByte(',')
		}
		if d == VariableDim {
			b.WriteString("null")
		} else {
			fmt.Fprint(&b, d)
		}
	}
	b.WriteByte(']')
	return b.String()
}

// ArrayType returns the type of VariableShapeTensorArray, for arrow-go.
func (*VariableShapeTensorType) ArrayType() reflect.Type {
	return reflect.TypeOf(VariableShapeTensorArray{})
}

// ExtensionName returns "arrow.variable_shape_tensor".
func (*VariableShapeTensorType) ExtensionName() string { return VariableShapeTensorName }

// ValueType returns the type of the tensors' elements.
func (t *VariableShapeTensorType) ValueType() arrow.DataType {
	return t.Storage.(*arrow.StructType).Field(0).Type.(*arrow.ListType).Elem()
}

// NumDims returns the number of dimensions of each tensor.
func (t *VariableShapeTensorType) NumDims() int { return t.ndim }

// DimNames returns a copy of the physical dim names, or nil when the
// metadata has none.
func (t *VariableShapeTensorType) DimNames() []string { return slices.Clone(t.names) }

// Permutation returns a copy of the permutation as the metadata gives it,
// or nil when it has none (the identity).
func (t *VariableShapeTensorType) Permutation() []int { return slices.Clone(t.perm) }

// UniformShape returns a copy of the physical uniform shape, VariableDim
// marking the dimensions that vary, or nil when the metadata has none
// (every dimension may vary).
func (t *VariableShapeTensorType) UniformShape() []int64 { return slices.Clone(t.uniform) }

// LogicalDimNames returns the names of the logical axes (the physical names,
// permuted), or nil when the type has no names or only empty ones.
func (t *VariableShapeTensorType) LogicalDimNames() []string { return slices.Clone(t.logNames) }

// String returns a description such as
// extension<arrow.variable_shape_tensor[value_type=float32, ndim=2, uniform_shape=[null,3]]>.
func (t *VariableShapeTensorType) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "extension<%s[value_type=%s, ndim=%d", VariableShapeTensorName, t.ValueType(), t.ndim)
	if t.perm != nil {
		fmt.Fprintf(&b, ", permutation=%s", intsText(t.perm))
	}
	if t.names != nil {
		fmt.Fprintf(&b, ", dim_names=[%s]", strings.Join(t.names, ","))
	}
	if t.uniform != nil {
		fmt.Fprintf(&b, ", uniform_shape=%s", uniformText(t.uniform))
	}
	b.WriteString("]>")
	return b.String()
}

// Fingerprint returns a string that identifies the type, its parameters
// included.
func (t *VariableShapeTensorType) Fingerprint() string {
	return t.ExtensionBase.Fingerprint() + "{" + t.Serialize() + "}"
}

// Serialize returns the metadata as Arrow C++ writes it: compact JSON with
// the keys permutation, dim_names and uniform_shape, in that order, each
// when the type has it; "{}" when it has none (Arrow C++ rejects the empty
// string that the specification allows).
func (t *VariableShapeTensorType) Serialize() string {
	var w jsonWriter
	w.begin()
	if t.perm != nil {
		w.perm("permutation", t.perm)
	}
	if t.names != nil {
		w.strs("dim_names", t.names)
	}
	if t.uniform != nil {
		w.ints("uniform_shape", t.uniform, true)
	}
	return w.end()
}

// Deserialize returns the type that the metadata data describes over the
// given storage type. It is as strict as Arrow C++: the storage must be a
// Struct of two fields, a List of fixed-width values and a
// FixedSizeList<int32> whose size is ndim (field names are not checked);
// the metadata must be a JSON object (the empty string is refused, as Arrow
// C++ refuses it) whose optional "permutation" is a permutation of
// 0..ndim-1, "dim_names" holds ndim strings and "uniform_shape" holds ndim
// integers ≥ 0 or nulls; other keys are ignored. Any failure is an error
// wrapping arrow.ErrInvalid.
func (*VariableShapeTensorType) Deserialize(storageType arrow.DataType, data string) (arrow.ExtensionType, error) {
	return parseVariableShape(storageType, data)
}

func parseVariableShape(storage arrow.DataType, data string) (*VariableShapeTensorType, error) {
	if _, err := newVariableShape(storage, nil, nil, nil); err != nil {
		return nil, err
	}
	f, err := parseMetadata(VariableShapeTensorName, data,
		[]string{"permutation", "dim_names", "uniform_shape"},
		[]metaKind{intEntries, stringEntries, intOrNullEntries})
	if err != nil {
		return nil, err
	}
	var perm []int
	if f[0].present {
		perm = make([]int, len(f[0].ints))
		for i, p := range f[0].ints {
			if p < 0 || p > math.MaxInt32 {
				return nil, core.Errorf(arrowsparse.ErrStructure, "%s permutation %v is not a permutation", VariableShapeTensorName, f[0].ints)
			}
			perm[i] = int(p)
		}
	}
	var names []string
	if f[1].present {
		names = f[1].strs
		if names == nil {
			names = []string{}
		}
	}
	var uniform []int64
	if f[2].present {
		uniform = f[2].ints
		if uniform == nil {
			uniform = []int64{}
		}
		for i, d := range uniform {
			if d < 0 && !f[2].nulls[i] {
				return nil, core.Errorf(arrowsparse.ErrShape, "%s uniform_shape: entry %d is negative", VariableShapeTensorName, i)
			}
		}
	}
	return newVariableShape(storage, names, perm, uniform)
}

// ExtensionEquals reports whether other is a variable-shape tensor type
// with equal storage, dim names and uniform shape, and equal permutations,
// an absent permutation being equal to the identity.
func (t *VariableShapeTensorType) ExtensionEquals(other arrow.ExtensionType) bool {
	o, ok := other.(*VariableShapeTensorType)
	if !ok {
		return false
	}
	return arrow.TypeEqual(t.Storage, o.Storage) &&
		slices.Equal(t.names, o.names) &&
		slices.Equal(t.uniform, o.uniform) &&
		samePermutation(t.perm, o.perm)
}
