package compute

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/par"
)

// Scale returns s·x: every stored value multiplied by s, in x's value type
// (integers wrap, float16 is computed in float32 and rounded once). T must
// be the Go type of x's values (float16.Num for float16); otherwise the
// error wraps arrowsparse.ErrUnsupportedType. The result is canonical, in
// x's format unless o.Format names another; products that are zero (all
// of them when s is 0) are dropped unless o.KeepZeros. The result must be
// released by the caller.
func Scale[T arrowsparse.Value](mem memory.Allocator, x arrowsparse.Tensor, s T, o Options) (arrowsparse.Tensor, error) {
	if !arrowsparse.TypeMatches[T](x.DataType()) {
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "compute: Scale of %s values by a %s", x.DataType(), arrowsparse.DataTypeOf[T]())
	}
	var f func(in, out []byte, lo, hi int)
	switch v := any(s).(type) {
	case float16.Num:
		k := arrowsparse.HalfToFloat32(v)
		f = func(in, out []byte, lo, hi int) {
			src, dst := core.MustSliceBytes[float16.Num](in), core.MustSliceBytes[float16.Num](out)
			for i := lo; i < hi; i++ {
				dst[i] = arrowsparse.Float32ToHalf(arrowsparse.HalfToFloat32(src[i]) * k)
			}
		}
	case int8:
		f = scaleBy(v)
	case int16:
		f = scaleBy(v)
	case int32:
		f = scaleBy(v)
	case int64:
		f = scaleBy(v)
	case uint8:
		f = scaleBy(v)
	case uint16:
		f = scaleBy(v)
	case uint32:
		f = scaleBy(v)
	case uint64:
		f = scaleBy(v)
	case float32:
		f = scaleBy(v)
	case float64:
		f = scaleBy(v)
	}
	return unary(mem, x, x.DataType(), o, f)
}

func scaleBy[T arrowsparse.Number](s T) func(in, out []byte, lo, hi int) {
	return func(in, out []byte, lo, hi int) {
		src, dst := core.MustSliceBytes[T](in), core.MustSliceBytes[T](out)
		src, dst = src[lo:hi], dst[lo:hi]
		for i, v := range src {
			dst[i] = v * s
		}
	}
}

// Map returns x with f applied to every stored value: f(v) is stored where
// v was, with the value type of U. The implicit zeros are not visited, so
// f(0) need not be 0 (use ToDense for that); every element of a dense
// operand is stored, and visited. T must be the Go type of x's
// values; otherwise the error wraps arrowsparse.ErrUnsupportedType. f must
// be safe to call from several goroutines at once: it runs on up to
// o.Workers of them. The result is canonical (duplicates are combined
// before f sees them), in x's format unless o.Format names another;
// results that are zero are dropped unless o.KeepZeros. The result must be
// released by the caller.
func Map[T, U arrowsparse.Value](mem memory.Allocator, x arrowsparse.Tensor, f func(T) U, o Options) (arrowsparse.Tensor, error) {
	if !arrowsparse.TypeMatches[T](x.DataType()) {
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "compute: Map over %s values of a function of %s", x.DataType(), arrowsparse.DataTypeOf[T]())
	}
	return unary(mem, x, arrowsparse.DataTypeOf[U](), o, func(in, out []byte, lo, hi int) {
		src, dst := core.MustSliceBytes[T](in), core.MustSliceBytes[U](out)
		src, dst = src[lo:hi], dst[lo:hi]
		for i, v := range src {
			dst[i] = f(v)
		}
	})
}

// Abs returns x with the absolute value of every stored value. Unsigned
// values are unchanged; the most negative value of a signed integer type
// stays itself, as Go's -x gives; floating-point values lose their sign
// bit (NaN included). The result is canonical, as Map's. The result must
// be released by the caller.
func Abs(mem memory.Allocator, x arrowsparse.Tensor, o Options) (arrowsparse.Tensor, error) {
	return signOp(mem, x, o, true)
}

// Negate returns -x: every stored value negated, as Go's -v does
// (unsigned values and the most negative signed value wrap around;
// floating-point values flip their sign bit). The result is canonical, as
// Map's. The result must be released by the caller.
func Negate(mem memory.Allocator, x arrowsparse.Tensor, o Options) (arrowsparse.Tensor, error) {
	return signOp(mem, x, o, false)
}

func signOp(mem memory.Allocator, x arrowsparse.Tensor, o Options, abs bool) (arrowsparse.Tensor, error) {
	var f func(in, out []byte, lo, hi int)
	switch x.DataType().ID() {
	case arrow.INT8:
		f = signed[int8](abs)
	case arrow.INT16:
		f = signed[int16](abs)
	case arrow.INT32:
		f = signed[int32](abs)
	case arrow.INT64:
		f = signed[int64](abs)
	case arrow.UINT8:
		f = unsigned[uint8](abs)
	case arrow.UINT16:
		f = unsigned[uint16](abs)
	case arrow.UINT32:
		f = unsigned[uint32](abs)
	case arrow.UINT64:
		f = unsigned[uint64](abs)
	case arrow.FLOAT16:
		f = signBit[uint16](abs, 1<<15)
	case arrow.FLOAT32:
		f = signBit[uint32](abs, 1<<31)
	case arrow.FLOAT64:
		f = signBit[uint64](abs, 1<<63)
	default:
		return nil, core.CheckValueType(x.DataType())
	}
	return unary(mem, x, x.DataType(), o, f)
}

func signed[T int8 | int16 | int32 | int64](abs bool) func(in, out []byte, lo, hi int) {
	return func(in, out []byte, lo, hi int) {
		src, dst := core.MustSliceBytes[T](in)[lo:hi], core.MustSliceBytes[T](out)[lo:hi]
		for i, v := range src {
			if !abs || v < 0 {
				v = -v
			}
			dst[i] = v
		}
	}
}

func unsigned[T uint8 | uint16 | uint32 | uint64](abs bool) func(in, out []byte, lo, hi int) {
	return func(in, out []byte, lo, hi int) {
		src, dst := core.MustSliceBytes[T](in)[lo:hi], core.MustSliceBytes[T](out)[lo:hi]
		if abs {
			copy(dst, src)
			return
		}
		for i, v := range src {
			dst[i] = -v
		}
	}
}

// signBit clears (abs) or flips the sign bit of floating-point values seen
// as unsigned integers.
func signBit[E uint16 | uint32 | uint64](abs bool, bit E) func(in, out []byte, lo, hi int) {
	return func(in, out []byte, lo, hi int) {
		src, dst := core.MustSliceBytes[E](in)[lo:hi], core.MustSliceBytes[E](out)[lo:hi]
		for i, v := range src {
			if abs {
				dst[i] = v &^ bit
			} else {
				dst[i] = v ^ bit
			}
		}
	}
}

// unary applies f, which maps the stored values [lo, hi) of in to out, to
// the canonical form of x in the target format, with values of type dt in
// the result, then drops zeros unless o.KeepZeros.
func unary(mem memory.Allocator, x arrowsparse.Tensor, dt arrow.DataType, o Options, f func(in, out []byte, lo, hi int)) (arrowsparse.Tensor, error) {
	if err := core.CheckValueType(x.DataType()); err != nil {
		return nil, err
	}
	if err := checkRequest(o.IndexType, o.IndptrType); err != nil {
		return nil, err
	}
	cx, err := canonical(mem, x, o.Format, o.Workers)
	if err != nil {
		return nil, err
	}
	defer cx.Release()
	n := cx.NNZ()
	w := workersFor(o.Workers, n)
	r, err := mapValues(mem, cx, dt, func(in, out []byte) {
		par.Do(w, func(c int) {
			f(in, out, int(n*int64(c)/int64(w)), int(n*int64(c+1)/int64(w)))
		})
	})
	if err != nil {
		return nil, err
	}
	if r, err = retype(mem, r, o.IndexType, o.IndptrType); err != nil || o.KeepZeros {
		return r, err
	}
	defer r.Release()
	return EliminateZeros(mem, r, o)
}

// canonical returns x in format f (Auto: x's own) with canonical entries.
// The result must be released by the caller.
func canonical(mem memory.Allocator, x arrowsparse.Tensor, f Format, workers int) (arrowsparse.Tensor, error) {
	tg, err := targetOf(x, f, x.Shape())
	if err != nil {
		return nil, err
	}
	cx, err := conform(mem, x, tg, workers)
	if err != nil {
		return nil, err
	}
	switch t := cx.(type) {
	case *gcs.Matrix:
		defer t.Release()
		return canonicalMatrix(mem, t, workers)
	case *gcs.Tensor:
		if !t.IsCanonical() {
			defer t.Release()
			m, err := canonicalMatrix(mem, t.Storage(), workers)
			if err != nil {
				return nil, err
			}
			defer m.Release()
			return wrapGCS(t, m)
		}
	}
	return cx, nil
}
