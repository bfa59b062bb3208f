package describe

import (
	"github.com/arrowsparse/arrowsparse"
)

// chunkLen is the number of dense elements read at a time.
const chunkLen = 1 << 12

// valueBits appends the values of t (as arrowsparse.AppendValues orders
// them) to dst as bits of its value type: integers through uint64 (exact,
// then cut to the type's width), floats through float64 (exact for float16
// and float32, and rounded back exactly; a NaN keeps its sign, not its
// payload, which no description shows).
// scratch, if not nil, holds a slice that floats are read into and that is
// reused from call to call.
func valueBits(dst []uint64, scratch *[]float64, t arrowsparse.Tensor) ([]uint64, error) {
	dt := t.DataType()
	if isFloat(dt) {
		var fs []float64
		if scratch != nil {
			fs = (*scratch)[:0]
		}
		fs, err := arrowsparse.AppendValues(fs, t)
		if scratch != nil {
			*scratch = fs
		}
		if err != nil {
			return dst, err
		}
		for _, f := range fs {
			dst = append(dst, FloatBits(dt, f))
		}
		return dst, nil
	}
	start := len(dst)
	dst, err := arrowsparse.AppendValues(dst, t)
	if err != nil {
		return dst[:start], err
	}
	mask := widthMask(arrowsparse.ByteWidth(dt))
	for i := start; i < len(dst); i++ {
		dst[i] &= mask
	}
	return dst, nil
}

// box is a dense tensor's sub-box: the elements of the parent at shape,
// strides and offset of the box's own.
type box struct {
	arrowsparse.Dense
	shape, strides []int64
	off            int64
}

func (b *box) Shape() []int64       { return b.shape }
func (b *box) NumDims() int         { return len(b.shape) }
func (b *box) ElemStrides() []int64 { return b.strides }
func (b *box) ElemOffset() int64    { return b.off }

// eachDense calls f with the elements of d in row-major order, as bits, in
// chunks of at most chunk elements (f must not keep the slice). The caller
// has checked that the layout lies in the buffer and that the element count
// fits int64. It stops at the first error of f or of reading.
func eachDense(d arrowsparse.Dense, chunk int64, f func(bits []uint64) error) error {
	shape, strides, off := d.Shape(), d.ElemStrides(), d.ElemOffset()
	nd := len(shape)
	for _, n := range shape {
		if n == 0 {
			return nil
		}
	}
	// The box is the last dimensions whose elements fit a chunk, j.. nd-1,
	// and a range of dimension j-1; the dimensions before are walked.
	j, inner := nd, int64(1)
	for j > 0 && shape[j-1] <= chunk/inner {
		j--
		inner *= shape[j]
	}
	var buf []uint64
	var scratch []float64
	emit := func(b arrowsparse.Dense) error {
		var err error
		if buf, err = valueBits(buf[:0], &scratch, b); err != nil {
			return err
		}
		return f(buf)
	}
	if j == 0 {
		return emit(d)
	}
	step := max(chunk/inner, 1)
	bshape := append([]int64{0}, shape[j:]...)
	bstrides := append([]int64{strides[j-1]}, strides[j:]...)
	b := &box{Dense: d, shape: bshape, strides: bstrides}
	idx := make([]int64, j-1)
	for {
		base := off
		for k, i := range idx {
			base += i * strides[k]
		}
		for lo := int64(0); lo < shape[j-1]; lo += step {
			b.shape[0] = min(step, shape[j-1]-lo)
			b.off = base + lo*strides[j-1]
			if err := emit(b); err != nil {
				return err
			}
		}
		k := len(idx) - 1
		for ; k >= 0; k-- {
			if idx[k]++; idx[k] < shape[k] {
				break
			}
			idx[k] = 0
		}
		if k < 0 {
			return nil
		}
	}
}
