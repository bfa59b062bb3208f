package arrowext

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/views"
)

// NewFixedShapeTensorArray returns a column of arrow.fixed_shape_tensor
// whose row i is v[i], for a view v of shape (N, d1, …, dk): the logical
// shape of the rows is (d1, …, dk), and their dim names are v's names of
// those axes.
//
// No element is copied when the layout allows it: when the rows follow
// each other in the buffer (axis 0 has element stride d1·…·dk, or N ≤ 1)
// and the axes of a row, ordered by decreasing stride, are row-major. The
// column then uses v's buffer, with the permutation that describes the
// order of the axes (so a transposed view becomes a permuted column), and
// writes through v show in it. Otherwise the rows are copied once, into a
// row-major buffer from mem, and the column has no permutation.
//
// A view of rank 0, a value type the column cannot hold, or rows of more
// than 2^31-1 elements are errors. The column retains what it uses and
// must be released by the caller; v may be released independently.
func NewFixedShapeTensorArray(mem memory.Allocator, v *views.View) (*FixedShapeTensorArray, error) {
	if v == nil {
		return nil, core.Errorf(arrowsparse.ErrStructure, "arrowext: nil view")
	}
	shape := v.Shape()
	if len(shape) == 0 {
		return nil, core.Errorf(arrowsparse.ErrShape, "arrowext: a 0-d view has no rows; a column needs a view of shape (rows, …)")
	}
	n, rowShape := shape[0], shape[1:]
	var rowNames []string
	if names := v.DimNames(); names != nil {
		rowNames = names[1:]
	}
	order, ok := rowOrder(v)
	if !ok {
		c, err := v.Copy(mem, views.CopyOptions{})
		if err != nil {
			return nil, err
		}
		defer c.Release()
		return NewFixedShapeTensorArray(mem, c)
	}
	k := len(rowShape)
	physShape := make([]int64, k)
	perm := make([]int, k)
	var physNames []string
	if core.CloneDimNames(rowNames) != nil {
		physNames = make([]string, k)
	}
	for j, a := range order {
		physShape[j] = rowShape[a]
		perm[a] = j
		if physNames != nil {
			physNames[j] = rowNames[a]
		}
	}
	if isIdentity(perm) {
		perm = nil
	}
	typ, err := NewFixedShapeTensorType(v.DataType(), physShape, physNames, perm)
	if err != nil {
		return nil, err
	}
	if n > 1<<31-1 {
		return nil, core.Errorf(arrowsparse.ErrShape, "arrowext: %d rows are more than an Arrow array holds here (2^31-1)", n)
	}
	count := n * typ.size
	buf, off := v.Buffer(), v.ElemOffset()
	if count == 0 {
		buf, off = emptyBuffer, 0
	}
	child := array.NewData(v.DataType(), int(count), []*memory.Buffer{nil, buf}, nil, 0, int(off))
	defer child.Release()
	return newFixedShapeArray(typ, int(n), nil, 0, child), nil
}

// rowOrder returns the physical order of the row axes of v (axes 1…k):
// order[j] is the row axis (counted from 0) that is physical axis j, and
// whether v's memory has that layout with its rows one after another.
func rowOrder(v *views.View) ([]int, bool) {
	shape, strides := v.Shape(), v.ElemStrides()
	rowShape, rowStrides := shape[1:], strides[1:]
	k := len(rowShape)
	size := int64(1)
	for _, d := range rowShape {
		size *= d // the view's size fits in int64
	}
	if size == 0 || shape[0] == 0 {
		return identityOrder(k), true
	}
	if shape[0] > 1 && strides[0] != size {
		return nil, false
	}
	// Unit axes may sit anywhere: the identity if the other axes are
	// row-major in logical order; else the unit axes first, then the others
	// by decreasing stride, which must be row-major.
	order := make([]int, 0, k)
	for a, d := range rowShape {
		if d == 1 {
			order = append(order, a)
		}
	}
	units := len(order)
	for a, d := range rowShape {
		if d != 1 {
			order = append(order, a)
		}
	}
	rest := order[units:]
	if isRowMajorOrder(rest, rowShape, rowStrides) {
		return identityOrder(k), true
	}
	slices.SortStableFunc(rest, func(a, b int) int { return compareDesc(rowStrides[a], rowStrides[b]) })
	if !isRowMajorOrder(rest, rowShape, rowStrides) {
		return nil, false
	}
	return order, true
}

// isRowMajorOrder reports whether the axes in order, taken as physical axes
// from outer to inner, have row-major strides.
func isRowMajorOrder(order []int, shape, strides []int64) bool {
	want := int64(1)
	for j := len(order) - 1; j >= 0; j-- {
		a := order[j]
		if strides[a] != want {
			return false
		}
		want *= shape[a]
	}
	return true
}

func compareDesc(a, b int64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

func identityOrder(k int) []int {
	o := make([]int, k)
	for i := range o {
		o[i] = i
	}
	return o
}

// NewTensorArray returns a column holding the given dense tensors, one per
// row, a nil entry making a null row: an arrow.fixed_shape_tensor column
// when they share one value type and one shape, else an
// arrow.variable_shape_tensor column, for which they must share the value
// type and the number of dimensions. The dim names are the tensors' when
// every non-null one has the same names, and none otherwise. The rows
// have no permutation: each tensor's elements are copied in row-major
// order, into buffers from mem. At least one tensor must not be nil.
//
// It serves to turn Tensor IPC messages (package ipc) into a column; Row
// and ipc.WriteTensor turn the rows back into messages. The column must be
// released by the caller.
func NewTensorArray(mem memory.Allocator, tensors []arrowsparse.Dense) (arrow.Array, error) {
	vs := make([]*views.View, len(tensors))
	defer func() {
		for _, v := range vs {
			if v != nil {
				v.Release()
			}
		}
	}()
	var first *views.View
	fixed, sameNames := true, true
	for i, t := range tensors {
		if t == nil {
			continue
		}
		v, err := asView(t)
		if err != nil {
			return nil, core.Errorf(arrowsparse.ErrStructure, "tensor %d: %w", i, err)
		}
		vs[i] = v
		if first == nil {
			first = v
			continue
		}
		if !arrow.TypeEqual(v.DataType(), first.DataType()) {
			return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "tensor %d holds %s, tensor 0 %s: a column holds one value type", i, v.DataType(), first.DataType())
		}
		if v.NumDims() != first.NumDims() {
			return nil, core.Errorf(arrowsparse.ErrShape, "tensor %d has %d dimensions, the first %d: a column holds tensors of one rank", i, v.NumDims(), first.NumDims())
		}
		fixed = fixed && slices.Equal(v.Shape(), first.Shape())
		sameNames = sameNames && slices.Equal(v.DimNames(), first.DimNames())
	}
	if first == nil {
		return nil, core.Errorf(arrowsparse.ErrShape, "arrowext: no tensor to take the column's type from")
	}
	var names []string
	if sameNames {
		names = first.DimNames()
	}
	if fixed {
		typ, err := NewFixedShapeTensorType(first.DataType(), first.Shape(), names, nil)
		if err != nil {
			return nil, err
		}
		b, err := NewFixedShapeTensorBuilder(mem, typ)
		if err != nil {
			return nil, err
		}
		defer b.Release()
		if err := b.Reserve(len(vs)); err != nil {
			return nil, err
		}
		for i, v := range vs {
			if v == nil {
				err = b.AppendNull()
			} else {
				err = b.Append(v)
			}
			if err != nil {
				return nil, core.Errorf(arrowsparse.ErrStructure, "tensor %d: %w", i, err)
			}
		}
		return b.NewArray(), nil
	}
	typ, err := NewVariableShapeTensorType(first.DataType(), first.NumDims(), names, nil, nil)
	if err != nil {
		return nil, err
	}
	b, err := NewVariableShapeTensorBuilder(mem, typ)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	for i, v := range vs {
		if v == nil {
			err = b.AppendNull()
		} else {
			err = b.Append(v)
		}
		if err != nil {
			return nil, core.Errorf(arrowsparse.ErrStructure, "tensor %d: %w", i, err)
		}
	}
	return b.NewArray(), nil
}
