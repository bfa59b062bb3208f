package compute

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/par"
)

// AsType returns x with its values converted to the value type dt and,
// if o names them, its indices to other index types, with the rules of
// Arrow's casts (arrow/compute's CastOptions):
//
//   - integer to integer: a value outside dt's range is an error wrapping
//     arrowsparse.ErrOutOfRange, unless o.AllowIntOverflow, which wraps it
//     around as Go's conversion does;
//   - floating point to integer: a value with a fraction, outside dt's
//     range, infinite or NaN is an error unless o.AllowFloatTruncate,
//     which truncates toward zero, saturates at dt's bounds and turns NaN
//     into 0;
//   - integer to floating point: a value dt cannot hold exactly (2^53+1 as
//     float64, 2^24+1 as float32, 2049 as float16) is an error unless
//     o.AllowFloatTruncate, which rounds to nearest;
//   - floating point to floating point: rounded to nearest (ties to even),
//     overflowing to ±Inf, with no check, as Arrow does.
//
// The stored entries are kept as they are: duplicates are converted one by
// one and values that become zero stay as explicit zeros (as scipy's
// astype does; EliminateZeros removes them). The result has x's format and
// shares its index buffers unless o.IndexType or o.IndptrType changes them
// (an index type too narrow for the indices is an error wrapping
// arrowsparse.ErrUnsupportedType). A dense operand gives a new row-major
// view. The result must be released by the caller.
func AsType(mem memory.Allocator, x arrowsparse.Tensor, dt arrow.DataType, o CastOptions) (arrowsparse.Tensor, error) {
	if err := core.CheckValueType(x.DataType()); err != nil {
		return nil, err
	}
	if err := core.CheckValueType(dt); err != nil {
		return nil, err
	}
	if err := checkRequest(o.IndexType, o.IndptrType); err != nil {
		return nil, err
	}
	var cx arrowsparse.Tensor
	if _, ok := storedValues(x); ok {
		x.Retain()
		cx = x
	} else {
		v, err := denseOf(mem, x)
		if err != nil {
			return nil, err
		}
		cx = v
	}
	defer cx.Release()
	in, _ := storedValues(cx)
	n := cx.NNZ()
	buf := newBuffer(mem, dt, n)
	defer buf.Release()
	out := bytesOf(buf)
	st, tt := x.DataType(), dt
	w := workersFor(o.Workers, n)
	errs := make([]error, w)
	par.Do(w, func(c int) {
		lo, hi := n*int64(c)/int64(w), n*int64(c+1)/int64(w)
		errs[c] = castRange(st, tt, in, out, lo, hi, o)
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	r, err := withValues(cx, dt, buf)
	if err != nil {
		return nil, err
	}
	return retype(mem, r, o.IndexType, o.IndptrType)
}

// castRange converts values [lo, hi) of in (type st) into out (type tt),
// a chunk at a time through int64, uint64 or float64.
func castRange(st, tt arrow.DataType, in, out []byte, lo, hi int64, o CastOptions) error {
	const chunk = 1024
	var is [chunk]int64
	var us [chunk]uint64
	var fs [chunk]float64
	sw, tw := int64(arrowsparse.ByteWidth(st)), int64(arrowsparse.ByteWidth(tt))
	for a := lo; a < hi; a += chunk {
		b := min(a+chunk, hi)
		src, dst := in[a*sw:b*sw], out[a*tw:b*tw]
		m := int(b - a)
		var err error
		switch kindOf(st) {
		case kindSigned:
			readSigned(st, src, is[:m])
			err = fromSigned(tt, is[:m], dst, o)
		case kindUnsigned:
			readUnsigned(st, src, us[:m])
			err = fromUnsigned(tt, us[:m], dst, o)
		default:
			readFloat(st, src, fs[:m])
			err = fromFloat(tt, fs[:m], dst, o)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

type numKind int8

const (
	kindSigned numKind = iota
	kindUnsigned
	kindFloat
)

func kindOf(dt arrow.DataType) numKind {
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		return kindSigned
	case arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return kindUnsigned
	}
	return kindFloat
}

func readSigned(dt arrow.DataType, b []byte, d []int64) {
	switch dt.ID() {
	case arrow.INT8:
		convertAll(core.MustSliceBytes[int8](b), d)
	case arrow.INT16:
		convertAll(core.MustSliceBytes[int16](b), d)
	case arrow.INT32:
		convertAll(core.MustSliceBytes[int32](b), d)
	default:
		copy(d, core.MustSliceBytes[int64](b))
	}
}

func readUnsigned(dt arrow.DataType, b []byte, d []uint64) {
	switch dt.ID() {
	case arrow.UINT8:
		convertAll(core.MustSliceBytes[uint8](b), d)
	case arrow.UINT16:
		convertAll(core.MustSliceBytes[uint16](b), d)
	case arrow.UINT32:
		convertAll(core.MustSliceBytes[uint32](b), d)
	default:
		copy(d, core.MustSliceBytes[uint64](b))
	}
}

func readFloat(dt arrow.DataType, b []byte, d []float64) {
	switch dt.ID() {
	case arrow.FLOAT16:
		for i, h := range core.MustSliceBytes[float16.Num](b) {
			d[i] = float64(arrowsparse.HalfToFloat32(h))
		}
	case arrow.FLOAT32:
		convertAll(core.MustSliceBytes[float32](b), d)
	default:
		copy(d, core.MustSliceBytes[float64](b))
	}
}

// convertAll converts s into d with Go's conversion.
func convertAll[S, D arrowsparse.Number](s []S, d []D) {
	d = d[:len(s)]
	for i, x := range s {
		d[i] = D(x)
	}
}

// rangeOf returns the smallest and largest values of an integer type.
func rangeOf(dt arrow.DataType) (lo int64, hi uint64) {
	switch dt.ID() {
	case arrow.INT8:
		return math.MinInt8, math.MaxInt8
	case arrow.INT16:
		return math.MinInt16, math.MaxInt16
	case arrow.INT32:
		return math.MinInt32, math.MaxInt32
	case arrow.INT64:
		return math.MinInt64, math.MaxInt64
	case arrow.UINT8:
		return 0, math.MaxUint8
	case arrow.UINT16:
		return 0, math.MaxUint16
	case arrow.UINT32:
		return 0, math.MaxUint32
	}
	return 0, math.MaxUint64
}

func castError(v any, tt arrow.DataType, how string) error {
	return core.Errorf(arrowsparse.ErrOutOfRange, "compute: AsType: %v %s %s", v, how, tt)
}

// fromSigned writes signed values to dst, of type tt.
func fromSigned(tt arrow.DataType, s []int64, dst []byte, o CastOptions) error {
	if kindOf(tt) == kindFloat {
		for _, v := range s {
			if !o.AllowFloatTruncate && !exactIn(tt, float64(v), v, 0, true) {
				return castError(v, tt, "is not exactly representable in")
			}
		}
		f := make([]float64, len(s))
		convertAll(s, f)
		writeFloats(tt, f, dst)
		return nil
	}
	if !o.AllowIntOverflow {
		lo, hi := rangeOf(tt)
		for _, v := range s {
			if v < lo || (v > 0 && uint64(v) > hi) {
				return castError(v, tt, "is out of the range of")
			}
		}
	}
	writeWrapped(tt, s, dst)
	return nil
}

// fromUnsigned writes unsigned values to dst, of type tt.
func fromUnsigned(tt arrow.DataType, s []uint64, dst []byte, o CastOptions) error {
	if kindOf(tt) == kindFloat {
		for _, v := range s {
			if !o.AllowFloatTruncate && !exactIn(tt, float64(v), 0, v, false) {
				return castError(v, tt, "is not exactly representable in")
			}
		}
		f := make([]float64, len(s))
		convertAll(s, f)
		writeFloats(tt, f, dst)
		return nil
	}
	if !o.AllowIntOverflow {
		_, hi := rangeOf(tt)
		for _, v := range s {
			if v > hi {
				return castError(v, tt, "is out of the range of")
			}
		}
	}
	is := make([]int64, len(s))
	convertAll(s, is)
	writeWrapped(tt, is, dst)
	return nil
}

// exactIn reports whether the integer (i if signed, else u), whose nearest
// float64 is f, is held exactly by the floating-point type tt.
func exactIn(tt arrow.DataType, f float64, i int64, u uint64, signed bool) bool {
	switch tt.ID() {
	case arrow.FLOAT16:
		g := float64(arrowsparse.HalfToFloat32(arrowsparse.Float32ToHalf(float32(f))))
		f = g
	case arrow.FLOAT32:
		f = float64(float32(f))
	}
	if math.IsInf(f, 0) || f >= 1<<64 || f < -1<<63 {
		return false
	}
	if signed {
		return f >= -1<<63 && f < 1<<63 && int64(f) == i
	}
	return f >= 0 && uint64(f) == u
}

// fromFloat writes floating-point values to dst, of type tt.
func fromFloat(tt arrow.DataType, s []float64, dst []byte, o CastOptions) error {
	switch kindOf(tt) {
	case kindFloat:
		writeFloats(tt, s, dst)
		return nil
	case kindSigned:
		lo, hi := rangeOf(tt)
		d := make([]int64, len(s))
		for i, v := range s {
			t := math.Trunc(v)
			ok := t == v && v >= float64(lo) && v <= float64(hi) && !(tt.ID() == arrow.INT64 && v >= 1<<63)
			if !ok && !o.AllowFloatTruncate {
				return castError(v, tt, "cannot be converted without truncation to")
			}
			switch {
			case v != v:
				d[i] = 0
			case t <= float64(lo):
				d[i] = lo
			case t >= float64(hi):
				d[i] = int64(hi)
			default:
				d[i] = int64(t)
			}
		}
		writeWrapped(tt, d, dst)
		return nil
	}
	_, hi := rangeOf(tt)
	d := make([]int64, len(s))
	for i, v := range s {
		t := math.Trunc(v)
		ok := t == v && v >= 0 && v <= float64(hi) && !(tt.ID() == arrow.UINT64 && v >= 1<<64)
		if !ok && !o.AllowFloatTruncate {
			return castError(v, tt, "cannot be converted without truncation to")
		}
		var u uint64
		switch {
		case v != v || t <= 0:
			u = 0
		case t >= float64(hi):
			u = hi
		default:
			u = uint64(t)
		}
		d[i] = int64(u)
	}
	writeWrapped(tt, d, dst)
	return nil
}

// writeWrapped writes integers to dst, of integer type tt, keeping the
// low bits (Go's conversion).
func writeWrapped(tt arrow.DataType, s []int64, dst []byte) {
	switch tt.ID() {
	case arrow.INT8:
		convertAll(s, core.MustSliceBytes[int8](dst))
	case arrow.INT16:
		convertAll(s, core.MustSliceBytes[int16](dst))
	case arrow.INT32:
		convertAll(s, core.MustSliceBytes[int32](dst))
	case arrow.UINT8:
		convertAll(s, core.MustSliceBytes[uint8](dst))
	case arrow.UINT16:
		convertAll(s, core.MustSliceBytes[uint16](dst))
	case arrow.UINT32:
		convertAll(s, core.MustSliceBytes[uint32](dst))
	case arrow.UINT64:
		convertAll(s, core.MustSliceBytes[uint64](dst))
	default:
		copy(core.MustSliceBytes[int64](dst), s)
	}
}

// writeFloats writes float64 values to dst, of floating-point type tt,
// rounded to nearest.
func writeFloats(tt arrow.DataType, s []float64, dst []byte) {
	switch tt.ID() {
	case arrow.FLOAT16:
		d := core.MustSliceBytes[float16.Num](dst)
		for i, v := range s {
			d[i] = halfOf64(v)
		}
	case arrow.FLOAT32:
		convertAll(s, core.MustSliceBytes[float32](dst))
	default:
		copy(core.MustSliceBytes[float64](dst), s)
	}
}

// halfOf64 rounds a float64 to the nearest float16, ties to even, with a
// single rounding: through float32 only when that is exact enough.
func halfOf64(v float64) float16.Num {
	f := float32(v)
	if float64(f) == v || v != v {
		return arrowsparse.Float32ToHalf(f)
	}
	// float32 rounded v; round it toward zero instead, keeping a sticky
	// bit, so that the second rounding (to float16's 11 bits) is correct.
	b := math.Float32bits(f)
	if math.Abs(float64(f)) > math.Abs(v) {
		b--
	}
	b |= 1
	return arrowsparse.Float32ToHalf(math.Float32frombits(b))
}

// retype returns x with the requested index types (nil: unchanged). It
// takes over the caller's reference to x: x itself is returned when
// nothing changes, and released otherwise. Dense views have no indices
// and are returned as they are.
func retype(mem memory.Allocator, x arrowsparse.Tensor, it, pt arrow.DataType) (arrowsparse.Tensor, error) {
	if it == nil && pt == nil {
		return x, nil
	}
	defer x.Release()
	var r arrowsparse.Tensor
	var err error
	switch t := x.(type) {
	case *coo.Tensor:
		if it == nil {
			t.Retain()
			return t, nil
		}
		r, err = t.WithIndexType(mem, it)
	case *gcs.Matrix:
		r, err = t.WithIndexTypes(mem, pt, it)
	case *gcs.Tensor:
		r, err = t.WithStorage(mem, t.Storage().Axis(), gcs.ConvertOptions{IndexType: it, IndptrType: pt})
	case *csf.Tensor:
		r, err = t.WithIndexTypes(mem, pt, it)
	default:
		x.Retain()
		return x, nil
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}
