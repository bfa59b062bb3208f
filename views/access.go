package views

import (
	"iter"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/float16"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// Viewer is the constraint of the generic element accessors: a *View or a
// *Remapped.
type Viewer interface{ *View | *Remapped }

func coreOf[V Viewer](v V) *viewBase {
	switch x := any(v).(type) {
	case *View:
		return &x.viewBase
	case *Remapped:
		return &x.viewBase
	}
	panic(arrowsparse.PanicError{Msg: "views: unreachable"})
}

// Values returns the whole backing buffer as a []T, aliasing it: element
// idx of the view is Values[T](v)[v.Offset(idx...)]. It shares memory with
// the view: the view must outlive it, or its buffer must be retained.
// Writes through it bypass the read-only flag. It returns an error wrapping
// arrowsparse.ErrUnsupportedType if T is not the view's data type, as the
// Values accessors of the sparse formats do.
func Values[T arrowsparse.Value](v *View) ([]T, error) {
	if typeID[T]() != v.dtype.ID() {
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "views: Values[%s] of a %s view", arrowsparse.DataTypeOf[T](), v.dtype)
	}
	return typed[T](&v.viewBase), nil
}

// typed returns the whole buffer as a []T; the type must have been checked.
func typed[T arrowsparse.Value](v *viewBase) []T {
	b := v.buf.Bytes()
	n := len(b) / int(v.width)
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

func mustType[T arrowsparse.Value](v *viewBase) {
	if typeID[T]() != v.dtype.ID() {
		panic(arrowsparse.PanicError{Msg: "views: Go type " + arrowsparse.DataTypeOf[T]().String() + " does not match the view's type " + v.dtype.String()})
	}
}

// typeID returns the Arrow type ID of the Go type T.
func typeID[T arrowsparse.Value]() arrow.Type {
	var z T
	switch any(z).(type) {
	case int8:
		return arrow.INT8
	case int16:
		return arrow.INT16
	case int32:
		return arrow.INT32
	case int64:
		return arrow.INT64
	case uint8:
		return arrow.UINT8
	case uint16:
		return arrow.UINT16
	case uint32:
		return arrow.UINT32
	case uint64:
		return arrow.UINT64
	case float16.Num:
		return arrow.FLOAT16
	case float32:
		return arrow.FLOAT32
	default:
		return arrow.FLOAT64
	}
}

// At returns the element at idx. Its cost is O(ndim), plus a modular
// reduction per rotated or tiled axis and a table lookup per selected one.
// It panics if T is not the view's data type or idx is outside the shape,
// as a slice index does: the bounds of the view were checked when it was
// made, so no other check is needed.
func At[T arrowsparse.Value, V Viewer](v V, idx ...int64) T {
	c := coreOf(v)
	mustType[T](c)
	return typed[T](c)[c.Offset(idx...)]
}

// Set stores x at idx. It returns an error wrapping arrowsparse.ErrReadOnly (and
// arrow.ErrInvalid) on a read-only view, and panics if T is not the view's
// data type or idx is outside the shape.
func Set[T arrowsparse.Value, V Viewer](v V, x T, idx ...int64) error {
	c := coreOf(v)
	if c.readOnly {
		return core.Errorf(arrowsparse.ErrReadOnly, "views: write through a read-only view")
	}
	mustType[T](c)
	typed[T](c)[c.Offset(idx...)] = x
	return nil
}

// All returns an iterator over the view's elements in row-major order,
// yielding each element's index and value. The index slice is reused:
// it is valid until the next iteration, and the loop body must copy it to
// keep it. Each row of the last axis costs O(ndim) to set up and O(1) per
// element after that. It panics if T is not the view's data type.
func All[T arrowsparse.Value, V Viewer](v V) iter.Seq2[[]int64, T] {
	c := coreOf(v)
	mustType[T](c)
	return func(yield func([]int64, T) bool) {
		if c.size == 0 {
			return
		}
		data := typed[T](c)
		nd := len(c.shape)
		key := make([]int64, nd)
		if nd == 0 {
			yield(key, data[c.offset])
			return
		}
		last := nd - 1
		n, s := c.shape[last], c.strides[last]
		var tbl []int64
		if c.maps != nil && !c.maps[last].plain() {
			tbl = c.lastAxisTable()
		}
		c.forRows(func(outer []int64, base int64) bool {
			copy(key, outer)
			for j := range n {
				key[last] = j
				p := base + j*s
				if tbl != nil {
					p = base + tbl[j]
				}
				if !yield(key, data[p]) {
					return false
				}
			}
			return true
		})
	}
}

// Elements returns an iterator over the view's elements in row-major
// order. It panics if T is not the view's data type, as All does.
func Elements[T arrowsparse.Value, V Viewer](v V) iter.Seq[T] {
	c := coreOf(v)
	mustType[T](c)
	return func(yield func(T) bool) {
		if c.size == 0 {
			return
		}
		data := typed[T](c)
		nd := len(c.shape)
		if nd == 0 {
			yield(data[c.offset])
			return
		}
		last := nd - 1
		n, s := c.shape[last], c.strides[last]
		var tbl []int64
		if c.maps != nil && !c.maps[last].plain() {
			tbl = c.lastAxisTable()
		}
		c.forRows(func(_ []int64, base int64) bool {
			if tbl != nil {
				for _, t := range tbl {
					if !yield(data[base+t]) {
						return false
					}
				}
				return true
			}
			p := base
			for range n {
				if !yield(data[p]) {
					return false
				}
				p += s
			}
			return true
		})
	}
}
