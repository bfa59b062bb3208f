package arrowext

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowsparse/arrowsparse"
)

// ErrNameTaken reports an extension name that arrow-go's registry already
// holds for another implementation.
var ErrNameTaken = errors.New("extension name registered by another implementation")

// registrable returns one instance of each type of this package, for the
// registry (which calls Deserialize on it).
func registrable() []arrow.ExtensionType {
	fixed, _ := NewFixedShapeTensorType(arrow.PrimitiveTypes.Float32, []int64{1}, nil, nil)
	variable, _ := NewVariableShapeTensorType(arrow.PrimitiveTypes.Float32, 1, nil, nil, nil)
	out := []arrow.ExtensionType{fixed, variable}
	for _, f := range sparseFormats {
		out = append(out, sparsePrototype(f))
	}
	return out
}

// sparsePrototype returns a type of format f for the registry, which
// calls Deserialize on it.
func sparsePrototype(f arrowsparse.Format) *SparseTensorType {
	t, err := NewSparseTensorType(SparseTensorParams{Format: f, ValueType: arrow.PrimitiveTypes.Float64, Shape: []int64{1, 1}[:minDims(f)]})
	if err != nil {
		panic(err) // the parameters are valid
	}
	return t
}

// ours reports whether a registered type is this package's.
func ours(t arrow.ExtensionType) bool {
	switch t.(type) {
	case *FixedShapeTensorType, *VariableShapeTensorType, *SparseTensorType:
		return true
	}
	return false
}

// Register registers this package's extension types (arrow.fixed_shape_tensor,
// arrow.variable_shape_tensor and the five sparse types arrowsparse.coo,
// .csr, .csc, .csf and .gcs) with arrow-go's global registry, so that
// arrow-go's IPC readers, Flight and pqarrow produce FixedShapeTensorArray,
// VariableShapeTensorArray and SparseTensorArray columns by themselves. This package does not
// register anything on its own: its readers (ReadIPCFile, ReadIPCStream,
// ReadParquet) and Rewrap give the same columns without registration.
//
// Register never panics and may be called any number of times, from any
// goroutine: a name this package has registered already is left as it is.
// If another implementation holds a name (a later arrow-go may register
// these canonical types itself), Register leaves that registration in place,
// registers the other names, and returns an error wrapping ErrNameTaken
// that says which. arrow-go's readers then give that implementation's
// arrays for the name; this package's functions (Row, Rewrap and the
// writers) still accept them, reading the type again from its name and
// metadata.
func Register() error {
	var errs []error
	for _, t := range registrable() {
		if err := arrow.RegisterExtensionType(t); err != nil {
			if have := arrow.GetExtensionType(t.ExtensionName()); have == nil || !ours(have) {
				errs = append(errs, fmt.Errorf("arrowext: %s is registered already as %T; arrowext left it in place: %w", t.ExtensionName(), have, ErrNameTaken))
			}
		}
	}
	return errors.Join(errs...)
}

// Unregister removes this package's types from arrow-go's registry. Names
// held by another implementation, and names not registered, are left
// alone. It never fails.
func Unregister() {
	for _, t := range registrable() {
		if have := arrow.GetExtensionType(t.ExtensionName()); have != nil && ours(have) {
			_ = arrow.UnregisterExtensionType(t.ExtensionName())
		}
	}
}
