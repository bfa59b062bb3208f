package compute

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/par"
)

// newBuffer returns a buffer from mem for n elements of dt, whose content
// the caller overwrites. The caller releases it.
func newBuffer(mem memory.Allocator, dt arrow.DataType, n int64) *memory.Buffer {
	return core.NewBuffer(mem, n*int64(arrowsparse.ByteWidth(dt)))
}

// checkedBuffer is newBuffer for a size that comes from the data: it
// returns an error wrapping arrowsparse.ErrOverflow instead of a buffer
// that cannot be allocated.
func checkedBuffer(mem memory.Allocator, dt arrow.DataType, n int64, what string) (*memory.Buffer, error) {
	b, ok := core.MulInt64(n, int64(arrowsparse.ByteWidth(dt)))
	if !ok {
		return nil, core.Errorf(arrowsparse.ErrOverflow, "compute: %s of %d elements overflows int64 bytes", what, n)
	}
	if err := core.CheckAlloc(b, "compute: "+what); err != nil {
		return nil, err
	}
	return core.NewBuffer(mem, b), nil
}

// bytesOf returns the bytes of a buffer, or nil for a nil buffer.
func bytesOf(b *memory.Buffer) []byte {
	if b == nil {
		return nil
	}
	return b.Bytes()
}

// readInts returns n integers of index type dt from b, widened to int64.
// An int64 buffer is returned in place (aliasing b).
func readInts(b []byte, dt arrow.DataType, n int64) []int64 {
	if n == 0 {
		return nil
	}
	if dt.ID() == arrow.INT64 {
		return core.MustSliceBytes[int64](b)[:n]
	}
	d := make([]int64, n)
	widenInto(d, b[:n*int64(arrowsparse.ByteWidth(dt))], dt)
	return d
}

// scratchInts returns n int64s from mem, which the caller overwrites, and
// the function that releases them.
func scratchInts(mem memory.Allocator, n int64) ([]int64, func()) {
	if n == 0 {
		return nil, func() {}
	}
	b := core.NewBuffer(mem, 8*n)
	return core.MustSliceBytes[int64](b.Bytes())[:n], b.Release
}

// readIntsOn is readInts into memory from mem, widening on w goroutines
// when n is large. It returns the function that releases that memory.
func readIntsOn(mem memory.Allocator, b []byte, dt arrow.DataType, n int64, w int) ([]int64, func()) {
	if n == 0 {
		return nil, func() {}
	}
	if dt.ID() == arrow.INT64 {
		return core.MustSliceBytes[int64](b)[:n], func() {}
	}
	d, release := scratchInts(mem, n)
	bw := int64(arrowsparse.ByteWidth(dt))
	w = workersFor(w, n)
	par.Do(w, func(c int) {
		lo, hi := n*int64(c)/int64(w), n*int64(c+1)/int64(w)
		widenInto(d[lo:hi], b[lo*bw:hi*bw], dt)
	})
	return d, release
}

// widenInto writes the len(d) integers of index type dt in b, other than
// int64, to d.
func widenInto(d []int64, b []byte, dt arrow.DataType) {
	switch dt.ID() {
	case arrow.INT8:
		widenInts(d, core.MustSliceBytes[int8](b))
	case arrow.INT16:
		widenInts(d, core.MustSliceBytes[int16](b))
	case arrow.INT32:
		widenInts(d, core.MustSliceBytes[int32](b))
	case arrow.UINT8:
		widenInts(d, core.MustSliceBytes[uint8](b))
	case arrow.UINT16:
		widenInts(d, core.MustSliceBytes[uint16](b))
	case arrow.UINT32:
		widenInts(d, core.MustSliceBytes[uint32](b))
	}
}

func widenInts[I arrowsparse.Index](d []int64, s []I) {
	s = s[:len(d)]
	for i, x := range s {
		d[i] = int64(x)
	}
}

// writeInts writes src into b as integers of index type dt, from element
// at. The values must fit.
func writeInts(b []byte, dt arrow.DataType, at int64, src []int64) {
	if len(src) == 0 {
		return
	}
	switch dt.ID() {
	case arrow.INT8:
		narrowInts(core.MustSliceBytes[int8](b)[at:], src)
	case arrow.INT16:
		narrowInts(core.MustSliceBytes[int16](b)[at:], src)
	case arrow.INT32:
		narrowInts(core.MustSliceBytes[int32](b)[at:], src)
	case arrow.UINT8:
		narrowInts(core.MustSliceBytes[uint8](b)[at:], src)
	case arrow.UINT16:
		narrowInts(core.MustSliceBytes[uint16](b)[at:], src)
	case arrow.UINT32:
		narrowInts(core.MustSliceBytes[uint32](b)[at:], src)
	default:
		copy(core.MustSliceBytes[int64](b)[at:], src)
	}
}

func narrowInts[I arrowsparse.Index](d []I, s []int64) {
	d = d[:len(s)]
	for i, x := range s {
		d[i] = I(x)
	}
}

// wider returns the index type of a and b that holds the larger values.
func wider(a, b arrow.DataType) arrow.DataType {
	if a == nil {
		return b
	}
	if b != nil && arrowsparse.IndexMax(b) > arrowsparse.IndexMax(a) {
		return b
	}
	return a
}

// fit returns dt if it holds every value in 0..max, and otherwise the
// narrowest signed index type that does.
func fit(dt arrow.DataType, max int64) arrow.DataType {
	if dt != nil && arrowsparse.IsIndexType(dt) && max <= arrowsparse.IndexMax(dt) {
		return dt
	}
	return arrowsparse.SmallestIndexType(max)
}

// chooseIndex resolves a requested index type: the request if there is
// one (checked to hold max), else def widened to hold max.
func chooseIndex(req, def arrow.DataType, max int64, what string) (arrow.DataType, error) {
	if req == nil {
		return fit(def, max), nil
	}
	if err := core.CheckIndexFits(req, max, what); err != nil {
		return nil, err
	}
	return req, nil
}
