// Package densescan counts the non-zero elements of dense views for the
// conversions from dense to sparse formats, so that they size their output
// (and refuse an impossible one) before they scan.
package densescan

import (
	"fmt"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/strided"
	"github.com/arrowsparse/arrowsparse/internal/vals"
	"github.com/arrowsparse/arrowsparse/views"
)

// Nonzeros returns the number of non-zero elements of v: negative zero
// counts as zero, NaN as non-zero.
func Nonzeros(v *views.View) int64 {
	if v.Len() == 0 {
		return 0
	}
	vop := vals.For(v.DataType())
	data := v.Buffer().Bytes()
	var n int64
	strided.Rows(v.Shape(), v.ElemStrides(), v.ElemOffset(), func(_ []int64, start, len, stride int64) bool {
		n += vop.CountNonzero(data, start, len, stride)
		return true
	})
	return n
}

// Precheck counts the non-zeros of v by scanning each distinct element
// once (a broadcast axis is scanned at one index and its length
// multiplies the count), and returns an error wrapping
// arrowsparse.ErrOverflow if that many entries of perEntry bytes cannot be
// allocated (core.CheckAlloc). A conversion calls it first: a tiny buffer
// broadcast to a huge shape then gives an empty result or an error at once,
// instead of a scan of every repeated element. what names the conversion.
func Precheck(v *views.View, perEntry int64, what string) (int64, error) {
	u, mult := v.Unbroadcast()
	defer u.Release()
	n, ok := core.MulInt64(Nonzeros(u), mult)
	if !ok {
		return 0, core.Errorf(arrowsparse.ErrOverflow, "%s: the non-zeros of shape %v overflow int64", what, v.Shape())
	}
	bytes, ok := core.MulInt64(n, perEntry)
	if !ok {
		return 0, core.Errorf(arrowsparse.ErrOverflow, "%s: %d non-zero entries overflow int64 bytes", what, n)
	}
	if err := core.CheckAlloc(bytes, fmt.Sprintf("%s: %d non-zero entries", what, n)); err != nil {
		return 0, err
	}
	return n, nil
}
