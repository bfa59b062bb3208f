package compute

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/views"
)

// storedValues returns the stored values of a sparse tensor, or the
// elements of a C-contiguous view, as bytes aliasing its memory, and
// false for anything else.
func storedValues(x arrowsparse.Tensor) ([]byte, bool) {
	switch t := x.(type) {
	case arrowsparse.Sparse:
		return t.ValueBytes(), true
	case *views.View:
		if !t.IsCContiguous() {
			return nil, false
		}
		w := int64(arrowsparse.ByteWidth(t.DataType()))
		b := bytesOf(t.Buffer())
		return b[t.ElemOffset()*w : (t.ElemOffset()+t.NNZ())*w], true
	}
	return nil, false
}

// withValues returns x with its stored values replaced by the NNZ values
// of type dt in buf, sharing x's structure. x must be a sparse tensor of
// this module or a C-contiguous view. The result must be released by the
// caller.
func withValues(x arrowsparse.Tensor, dt arrow.DataType, buf *memory.Buffer) (arrowsparse.Tensor, error) {
	switch t := x.(type) {
	case *coo.Tensor:
		return t.WithValues(dt, buf)
	case *gcs.Matrix:
		return t.WithValues(dt, buf)
	case *gcs.Tensor:
		return t.WithValues(dt, buf)
	case *csf.Tensor:
		return t.WithValues(dt, buf)
	case *views.View:
		v, err := views.Contiguous(dt, buf, t.Shape())
		if err != nil || t.DimNames() == nil {
			return v, err
		}
		defer v.Release()
		return v.WithDimNames(t.DimNames()...)
	}
	return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "compute: a %s tensor of type %T has no stored values to replace", x.Format(), x)
}

// mapValues returns x with each stored value v replaced by f applied to
// the values, of type dt: f reads the stored values as bytes and writes
// the new ones into out. x must be a sparse tensor or a C-contiguous view
// (see conform). The result must be released by the caller.
func mapValues(mem memory.Allocator, x arrowsparse.Tensor, dt arrow.DataType, f func(in, out []byte)) (arrowsparse.Tensor, error) {
	in, ok := storedValues(x)
	if !ok {
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "compute: a %s tensor of type %T has no stored values", x.Format(), x)
	}
	n := x.NNZ()
	buf := newBuffer(mem, dt, n)
	defer buf.Release()
	f(in, bytesOf(buf))
	return withValues(x, dt, buf)
}

// widenHalf returns a float16 tensor with its values converted to float32
// (exactly). The result must be released by the caller.
func widenHalf(mem memory.Allocator, x arrowsparse.Tensor) (arrowsparse.Tensor, error) {
	return mapValues(mem, x, arrow.PrimitiveTypes.Float32, func(in, out []byte) {
		halfToSingle(core.MustSliceBytes[float32](out), core.MustSliceBytes[float16.Num](in))
	})
}

// narrowHalf returns a float32 tensor with its values rounded to float16.
// The result must be released by the caller.
func narrowHalf(mem memory.Allocator, x arrowsparse.Tensor) (arrowsparse.Tensor, error) {
	return mapValues(mem, x, arrow.FixedWidthTypes.Float16, func(in, out []byte) {
		singleToHalf(core.MustSliceBytes[float16.Num](out), core.MustSliceBytes[float32](in))
	})
}
