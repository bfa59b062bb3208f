package views

import (
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// Reshape returns a view of the same elements, in the same row-major order,
// with the given shape, sharing memory with the receiver. One entry of shape
// may be -1, meaning whatever length makes the element count match.
//
// Reshape never copies: it succeeds exactly when NumPy's reshape would
// return a view, that is when every run of receiver axes that is merged or
// split is contiguous with itself (each axis's element stride is the next
// axis's stride times its length). Otherwise it returns an error wrapping
// arrow.ErrInvalid that says so; ReshapeCopy then does the job. A shape
// whose element count differs from the receiver's is also an error wrapping
// arrow.ErrInvalid. Dim names are kept only if the shape is unchanged. The
// returned view must be released by the caller.
func (v *View) Reshape(shape ...int64) (*View, error) {
	newShape, err := resolveShape(shape, v.size, v.shape)
	if err != nil {
		return nil, err
	}
	same := equalShapes(newShape, v.shape)
	out := alloc(len(newShape), same && v.names != nil, false)
	out.refCount.Store(1)
	out.dtype, out.width, out.buf = v.dtype, v.width, v.buf
	out.offset, out.readOnly = v.offset, v.readOnly
	copy(out.shape, newShape)
	if same {
		copy(out.strides, v.strides)
		copy(out.names, v.names)
	} else if v.size != 0 && !reshapeStrides(v.shape, v.strides, out.shape, out.strides) {
		return nil, core.Errorf(arrowsparse.ErrShape, "views: cannot reshape a view of shape %v and element strides %v to %v without copying; use ReshapeCopy", v.shape, v.strides, cloneShape(newShape))
	}
	return asView(out.finish()), nil
}

// ReshapeCopy returns Copy(mem) with the given shape, which may contain one
// -1 as for Reshape. The result is contiguous and writable, and must be
// released by the caller.
func (v *viewBase) ReshapeCopy(mem memory.Allocator, shape ...int64) (*View, error) {
	newShape, err := resolveShape(shape, v.size, v.shape)
	if err != nil {
		return nil, err
	}
	c, err := v.Copy(mem, CopyOptions{})
	if err != nil {
		return nil, err
	}
	defer c.Release()
	return c.Reshape(newShape...)
}

// resolveShape checks a requested shape against the element count and
// replaces a -1 entry with the length that makes the counts agree.
func resolveShape(shape []int64, size int64, old []int64) ([]int64, error) {
	unknown := -1
	known := int64(1)
	zero := false
	for k, n := range shape {
		switch {
		case n == -1 && unknown < 0:
			unknown = k
			continue
		case n < 0:
			return nil, core.Errorf(arrowsparse.ErrShape, "views: cannot reshape to %v: dimension %d is %d", cloneShape(shape), k, n)
		case n == 0:
			zero = true
		}
		if !zero {
			var ok bool
			if known, ok = core.MulInt64(known, n); !ok {
				return nil, core.Errorf(arrowsparse.ErrShape, "views: cannot reshape %v to %v: the element counts differ", old, cloneShape(shape))
			}
		}
	}
	if zero {
		known = 0
	}
	if unknown >= 0 {
		if known == 0 || size%known != 0 {
			return nil, core.Errorf(arrowsparse.ErrShape, "views: cannot reshape %v (%d elements) to %v", old, size, cloneShape(shape))
		}
		out := append([]int64(nil), shape...)
		out[unknown] = size / known
		return out, nil
	}
	if known != size {
		return nil, core.Errorf(arrowsparse.ErrShape, "views: cannot reshape %v (%d elements) to %v (%d elements)", old, size, cloneShape(shape), known)
	}
	return shape, nil
}

// reshapeStrides computes, for a non-empty view, the element strides of
// newShape that keep every element's row-major position, as NumPy's
// _attempt_nocopy_reshape does, and reports whether they exist. Axes of
// length 1 are ignored; their strides are normalised later.
func reshapeStrides(oldShape, oldStrides, newShape, newStrides []int64) bool {
	var odA, osA [inlineDims]int64
	od, os := odA[:0], osA[:0]
	if len(oldShape) > inlineDims {
		od, os = nil, nil
	}
	for k, n := range oldShape {
		if n != 1 {
			od = append(od, n)
			os = append(os, oldStrides[k])
		}
	}
	oldnd, newnd := len(od), len(newShape)
	for k := range newStrides {
		newStrides[k] = 1
	}
	oi, oj, ni, nj := 0, 1, 0, 1
	for ni < newnd && oi < oldnd {
		np, op := newShape[ni], od[oi]
		for np != op {
			if np < op {
				np *= newShape[nj]
				nj++
			} else {
				op *= od[oj]
				oj++
			}
		}
		for k := oi; k < oj-1; k++ {
			if os[k] != od[k+1]*os[k+1] {
				return false
			}
		}
		newStrides[nj-1] = os[oj-1]
		for k := nj - 1; k > ni; k-- {
			newStrides[k-1] = newStrides[k] * newShape[k]
		}
		ni, nj = nj, nj+1
		oi, oj = oj, oj+1
	}
	return true
}
