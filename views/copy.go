package views

import (
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/par"
	"github.com/arrowsparse/arrowsparse/internal/strided"
)

// CopyOptions tune Copy and CopyTo. The zero value uses every core.
type CopyOptions struct {
	// Workers bounds the number of goroutines; 0 means GOMAXPROCS. A copy
	// smaller than 4 MiB, or into a destination that is not C-contiguous,
	// uses one. The result does not depend on it.
	Workers int
}

// parallelMin is the smallest copy, in bytes, that is split among workers.
const parallelMin = 4 << 20

// Copy returns a new row-major contiguous, writable view holding the same
// elements, in a buffer from mem. The dim names are kept. The returned view
// must be released by the caller.
//
// The copy takes the fastest path the layout allows: one memmove for a
// contiguous view, one memmove per row when the last axis has element
// stride 1 (after merging axes that are contiguous with each other), a
// cache-blocked transpose when another axis has stride 1 (a transposed
// matrix, or a batch of them), and a strided gather otherwise. Remapped
// axes are read through a table of their addresses.
func (v *viewBase) Copy(mem memory.Allocator, o CopyOptions) (*View, error) {
	nbytes, ok := core.MulInt64(v.size, v.width)
	if !ok {
		return nil, core.Errorf(arrowsparse.ErrOverflow, "views: %d elements of %d bytes overflow int64", v.size, v.width)
	}
	if err := core.CheckAlloc(nbytes, "views: a copy of shape "+fmt.Sprint(v.shape)); err != nil {
		return nil, err
	}
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(nbytes))
	clear(buf.Buf()[nbytes:]) // padding; the elements are all overwritten
	defer buf.Release()
	out, err := Contiguous(v.dtype, buf, v.shape)
	if err != nil {
		return nil, err
	}
	out.names = core.CloneDimNames(v.names)
	gatherInto(buf.Bytes(), v, par.Workers(o.Workers))
	return out, nil
}

// ToDense returns Copy(mem, CopyOptions{}) as an arrowsparse.Dense. The result must be released by
// the caller.
func (v *viewBase) ToDense(mem memory.Allocator) (arrowsparse.Dense, error) {
	c, err := v.Copy(mem, CopyOptions{})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// CopyTo copies the receiver's elements into dst, which must have the same
// data type and shape and be writable. It copies as Copy does. If the two
// share memory, the result is as if the receiver had been copied first,
// into a temporary buffer from mem. A read-only dst is an error
// wrapping arrow.ErrInvalid (arrowsparse.ErrReadOnly), a different data type one
// wrapping arrow.ErrType, and a different shape one wrapping
// arrow.ErrInvalid. CopyTo into a C-contiguous dst takes the fast paths of
// Copy and allocates nothing unless the views overlap; into another dst it
// copies element by element.
func (v *viewBase) CopyTo(mem memory.Allocator, dst *View, o CopyOptions) error {
	if dst.readOnly {
		return core.Errorf(arrowsparse.ErrReadOnly, "views: CopyTo a read-only view")
	}
	if dst.dtype.ID() != v.dtype.ID() {
		return core.Errorf(arrowsparse.ErrUnsupportedType, "views: CopyTo a %s view from a %s view", dst.dtype, v.dtype)
	}
	if !equalShapes(dst.shape, v.shape) {
		return core.Errorf(arrowsparse.ErrShape, "views: CopyTo a view of shape %v from one of shape %v", dst.shape, v.shape)
	}
	if v.size == 0 {
		return nil
	}
	src := v
	if overlaps(v, &dst.viewBase) {
		tmp, err := v.Copy(mem, o)
		if err != nil {
			return err
		}
		defer tmp.Release()
		src = &tmp.viewBase
	}
	if dst.IsCContiguous() {
		b := dst.buf.Bytes()
		gatherInto(b[dst.offset*dst.width:(dst.offset+dst.size)*dst.width], src, par.Workers(o.Workers))
		return nil
	}
	switch v.width {
	case 1:
		scatter(elems[uint8](&dst.viewBase), elems[uint8](src), &dst.viewBase, src)
	case 2:
		scatter(elems[uint16](&dst.viewBase), elems[uint16](src), &dst.viewBase, src)
	case 4:
		scatter(elems[uint32](&dst.viewBase), elems[uint32](src), &dst.viewBase, src)
	default:
		scatter(elems[uint64](&dst.viewBase), elems[uint64](src), &dst.viewBase, src)
	}
	return nil
}

func equalShapes(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// overlaps reports whether the byte ranges the two views can reach
// intersect, unless the views are the same elements in the same order
// (copying a view onto itself is a no-op either way).
func overlaps(a, b *viewBase) bool {
	ab, bb := a.buf.Bytes(), b.buf.Bytes()
	if len(ab) == 0 || len(bb) == 0 {
		return false
	}
	alo, ahi := a.byteRange()
	blo, bhi := b.byteRange()
	pa := uintptr(unsafe.Pointer(unsafe.SliceData(ab)))
	pb := uintptr(unsafe.Pointer(unsafe.SliceData(bb)))
	if pa+uintptr(ahi) <= pb+uintptr(blo) || pb+uintptr(bhi) <= pa+uintptr(alo) {
		return false
	}
	return !(pa == pb && a.maps == nil && b.maps == nil && a.offset == b.offset && equalShapes(a.strides, b.strides))
}

// byteRange returns the bytes [lo, hi) of the buffer that hold the
// elements the view can reach (its physical box).
func (v *viewBase) byteRange() (lo, hi int64) {
	first, last := v.offset, v.offset
	for k, n := range v.shape {
		ext := (n - 1) * v.strides[k]
		if v.maps != nil && !v.maps[k].plain() {
			ext = (v.maps[k].plen - 1) * v.strides[k]
		}
		if ext < 0 {
			first += ext
		} else {
			last += ext
		}
	}
	return first * v.width, (last + 1) * v.width
}

// elems returns the whole buffer of v as a []E, E being the unsigned
// integer type of v's width.
func elems[E uint8 | uint16 | uint32 | uint64](v *viewBase) []E {
	b := v.buf.Bytes()
	var z E
	n := len(b) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*E)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// gatherInto writes the view's elements in row-major order to dst, which
// holds exactly v.size elements, with up to workers goroutines.
func gatherInto(dst []byte, v *viewBase, workers int) {
	if v.size == 0 {
		return
	}
	if workers > 1 && v.size*v.width >= parallelMin && len(v.shape) > 0 && v.shape[0] > 1 {
		n0 := v.shape[0]
		k := min(int64(workers), n0)
		inner := v.size / n0 * v.width // bytes per index of axis 0
		par.Do(int(k), func(w int) {
			lo, hi := n0*int64(w)/k, n0*int64(w+1)/k
			sub, _ := v.slice([]Range{{lo, hi, 1}})
			defer sub.Release()
			gatherInto(dst[lo*inner:hi*inner], sub, 1)
		})
		return
	}
	switch v.width {
	case 1:
		gather(core.MustSliceBytes[uint8](dst), elems[uint8](v), v)
	case 2:
		gather(core.MustSliceBytes[uint16](dst), elems[uint16](v), v)
	case 4:
		gather(core.MustSliceBytes[uint32](dst), elems[uint32](v), v)
	default:
		gather(core.MustSliceBytes[uint64](dst), elems[uint64](v), v)
	}
}

// coalesce writes to sh and st (whose capacity must be at least
// len(shape)) the layout of a strided view with axes of length 1 dropped and
// each axis merged into the one before it when that one's stride is its
// stride times its length, so that the row-major order of the elements is
// unchanged. It returns the merged shape and strides.
func coalesce(shape, strides, sh, st []int64) ([]int64, []int64) {
	sh, st = sh[:0], st[:0]
	for k, n := range shape {
		if n == 1 {
			continue
		}
		s := strides[k]
		if m := len(sh); m > 0 && st[m-1] == s*n {
			sh[m-1] *= n
			st[m-1] = s
			continue
		}
		sh = append(sh, n)
		st = append(st, s)
	}
	return sh, st
}

// gather copies the view's elements from src (the whole buffer) to dst in
// row-major order.
func gather[E uint8 | uint16 | uint32 | uint64](dst, src []E, v *viewBase) {
	if v.maps != nil {
		gatherMapped(dst, src, v)
		return
	}
	var shA, stA [inlineDims]int64
	sh, st := shA[:], stA[:]
	if len(v.shape) > inlineDims {
		sh, st = make([]int64, len(v.shape)), make([]int64, len(v.shape))
	}
	shape, strides := coalesce(v.shape, v.strides, sh, st)
	nd := len(shape)
	off := v.offset
	switch {
	case nd == 0:
		dst[0] = src[off]
		return
	case strides[nd-1] == 1 && nd == 1:
		copy(dst, src[off:off+shape[0]])
		return
	case strides[nd-1] == 1:
		n := shape[nd-1]
		o := int64(0)
		strided.Each(shape[:nd-1], strides[:nd-1], off, func(p int64) {
			copy(dst[o:o+n], src[p:p+n])
			o += n
		})
		return
	}
	if nd >= 2 {
		for j := nd - 2; j >= 0; j-- {
			if strides[j] == 1 {
				gatherTransposed(dst, src, shape, strides, off, j)
				return
			}
		}
	}
	n, s := shape[nd-1], strides[nd-1]
	o := int64(0)
	strided.Each(shape[:nd-1], strides[:nd-1], off, func(p int64) {
		row := dst[o : o+n]
		for j := range row {
			row[j] = src[p]
			p += s
		}
		o += n
	})
}

// gatherMapped is gather for a view with remapped axes: the last axis is
// read through a table of its element offsets, and each row's base address
// is updated axis by axis.
func gatherMapped[E uint8 | uint16 | uint32 | uint64](dst, src []E, v *viewBase) {
	nd := len(v.shape)
	last := nd - 1
	n := v.shape[last]
	o := int64(0)
	if v.maps[last].plain() {
		s := v.strides[last]
		v.forRows(func(_ []int64, base int64) bool {
			row := dst[o : o+n]
			if s == 1 {
				copy(row, src[base:base+n])
			} else {
				p := base
				for j := range row {
					row[j] = src[p]
					p += s
				}
			}
			o += n
			return true
		})
		return
	}
	tbl := v.lastAxisTable()
	v.forRows(func(_ []int64, base int64) bool {
		row := dst[o : o+n]
		for j := range row {
			row[j] = src[base+tbl[j]]
		}
		o += n
		return true
	})
}

// lastAxisTable returns the element offsets p(j)·stride of the last axis.
func (v *viewBase) lastAxisTable() []int64 {
	last := len(v.shape) - 1
	s := v.strides[last]
	tbl := make([]int64, v.shape[last])
	for j := range tbl {
		tbl[j] = v.physAt(last, int64(j)) * s
	}
	return tbl
}

// forRows calls f with the index on the outer axes (all but the last) and
// the base address of each row of a non-empty view of rank ≥ 1, in
// row-major order: offset + Σ_{k<last} p_k(i_k)·stride[k], the address of
// the row's physical index 0 on the last axis. The index slice is reused
// between calls. It stops when f returns false.
func (v *viewBase) forRows(f func(outer []int64, base int64) bool) {
	nd := len(v.shape)
	outer := nd - 1
	var idxA, conA [inlineDims]int64
	var idx, con []int64
	if outer > inlineDims {
		idx, con = make([]int64, outer), make([]int64, outer)
	} else {
		idx, con = idxA[:outer], conA[:outer]
	}
	base := v.offset
	for k := range outer {
		con[k] = v.physAt(k, 0) * v.strides[k]
		base += con[k]
	}
	for {
		if !f(idx, base) {
			return
		}
		k := outer - 1
		for ; k >= 0; k-- {
			idx[k]++
			wrapped := idx[k] == v.shape[k]
			if wrapped {
				idx[k] = 0
			}
			c := v.physAt(k, idx[k]) * v.strides[k]
			base += c - con[k]
			con[k] = c
			if !wrapped {
				break
			}
		}
		if k < 0 {
			return
		}
	}
}

// scatter copies src's elements into the strided view dst of the same
// shape, element by element in row-major order.
func scatter[E uint8 | uint16 | uint32 | uint64](d, s []E, dst, src *viewBase) {
	nd := len(src.shape)
	if nd == 0 {
		d[dst.offset] = s[src.Offset()]
		return
	}
	last := nd - 1
	n, ds := src.shape[last], dst.strides[last]
	var tbl []int64
	if src.maps != nil && !src.maps[last].plain() {
		tbl = src.lastAxisTable()
	}
	ss := src.strides[last]
	// walk dst's rows alongside src's
	drow := dst.offset
	var didx [inlineDims]int64
	var didxS []int64
	if last > inlineDims {
		didxS = make([]int64, last)
	} else {
		didxS = didx[:last]
	}
	src.forRows(func(_ []int64, base int64) bool {
		p := drow
		if tbl != nil {
			for j := range n {
				d[p] = s[base+tbl[j]]
				p += ds
			}
		} else {
			q := base
			for range n {
				d[p] = s[q]
				p += ds
				q += ss
			}
		}
		for k := last - 1; k >= 0; k-- {
			didxS[k]++
			drow += dst.strides[k]
			if didxS[k] < dst.shape[k] {
				break
			}
			drow -= didxS[k] * dst.strides[k]
			didxS[k] = 0
		}
		return true
	})
}
