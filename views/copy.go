package views

import (
	"github.com/apache/arrow-go/v18/arrow/memory"

	as "github.com/arrowsparse/arrowsparse"
)

// Copy returns a new row-major contiguous, writable view holding the same
// elements, in a buffer from mem. The dim names are kept. The returned view
// must be released by the caller.
func (v *View) Copy(mem memory.Allocator) (*View, error) {
	out, err := Alloc(mem, v.dtype, v.shape)
	if err != nil {
		return nil, err
	}
	out.names = v.names
	copyInto(out.buf.Bytes(), v)
	return out, nil
}

// ToDense returns Copy(mem) as an as.Dense.
func (v *View) ToDense(mem memory.Allocator) (as.Dense, error) {
	c, err := v.Copy(mem)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// copyInto writes the view's elements in row-major order to dst, which holds
// exactly v.size elements.
func copyInto(dst []byte, v *View) {
	switch v.width {
	case 1:
		gather(as.MustSlice[uint8](v.buf, int64(v.buf.Len())), as.MustSliceBytes[uint8](dst), v)
	case 2:
		gather(as.MustSlice[uint16](v.buf, int64(v.buf.Len())/2), as.MustSliceBytes[uint16](dst), v)
	case 4:
		gather(as.MustSlice[uint32](v.buf, int64(v.buf.Len())/4), as.MustSliceBytes[uint32](dst), v)
	default:
		gather(as.MustSlice[uint64](v.buf, int64(v.buf.Len())/8), as.MustSliceBytes[uint64](dst), v)
	}
}

// gather copies the view's elements from src (the whole buffer) to dst in
// row-major order, walking the index space with an odometer.
func gather[T uint8 | uint16 | uint32 | uint64](src, dst []T, v *View) {
	if v.size == 0 {
		return
	}
	nd := len(v.shape)
	if nd == 0 {
		dst[0] = src[v.offset]
		return
	}
	idx := make([]int64, nd)
	last := nd - 1
	n, s := v.shape[last], v.strides[last]
	pos := v.offset
	for o := int64(0); o < v.size; o += n {
		p := pos
		row := dst[o : o+n]
		for j := range row {
			row[j] = src[p]
			p += s
		}
		// advance the odometer over the outer axes
		for k := last - 1; k >= 0; k-- {
			idx[k]++
			pos += v.strides[k]
			if idx[k] < v.shape[k] {
				break
			}
			pos -= idx[k] * v.strides[k]
			idx[k] = 0
		}
	}
}
