package views

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"

	as "github.com/arrowsparse/arrowsparse"
)

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
func (v *core) Copy(mem memory.Allocator) (*View, error) {
	nbytes, ok := as.MulInt64(v.size, v.width)
	if !ok || nbytes > maxBufferBytes {
		return nil, as.Errorf(as.ErrOverflow, "views: %d elements of %d bytes do not fit in one buffer", v.size, v.width)
	}
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(nbytes))
	clear(buf.Buf()[nbytes:]) // padding; the elements are all overwritten
	defer buf.Release()
	out, err := Contiguous(v.dtype, buf, v.shape)
	if err != nil {
		return nil, err
	}
	out.names = as.CloneDimNames(v.names)
	gatherInto(buf.Bytes(), v)
	return out, nil
}

// ToDense returns Copy(mem) as an as.Dense. The result must be released by
// the caller.
func (v *core) ToDense(mem memory.Allocator) (as.Dense, error) {
	c, err := v.Copy(mem)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// CopyTo copies the receiver's elements into dst, which must have the same
// data type and shape and be writable. If the two share memory, the result
// is as if the receiver had been copied first. A read-only dst is an error
// wrapping arrow.ErrInvalid (as.ErrReadOnly), a different data type one
// wrapping arrow.ErrType, and a different shape one wrapping
// arrow.ErrInvalid. CopyTo into a contiguous dst takes the fast paths of
// Copy and allocates nothing unless the views overlap.
func (v *core) CopyTo(dst *View) error {
	if dst.readOnly {
		return as.Errorf(as.ErrReadOnly, "views: CopyTo a read-only view")
	}
	if dst.dtype.ID() != v.dtype.ID() {
		return as.Errorf(as.ErrUnsupportedType, "views: CopyTo a %s view from a %s view", dst.dtype, v.dtype)
	}
	if !equalShapes(dst.shape, v.shape) {
		return as.Errorf(as.ErrShape, "views: CopyTo a view of shape %v from one of shape %v", dst.shape, v.shape)
	}
	if v.size == 0 {
		return nil
	}
	src := v
	if overlaps(v, &dst.core) {
		tmp, err := v.Copy(memory.DefaultAllocator)
		if err != nil {
			return err
		}
		defer tmp.Release()
		src = &tmp.core
	}
	if dst.IsCContiguous() {
		b := dst.buf.Bytes()
		gatherInto(b[dst.offset*dst.width:(dst.offset+dst.size)*dst.width], src)
		return nil
	}
	switch v.width {
	case 1:
		scatter(elems[uint8](&dst.core), elems[uint8](src), &dst.core, src)
	case 2:
		scatter(elems[uint16](&dst.core), elems[uint16](src), &dst.core, src)
	case 4:
		scatter(elems[uint32](&dst.core), elems[uint32](src), &dst.core, src)
	default:
		scatter(elems[uint64](&dst.core), elems[uint64](src), &dst.core, src)
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
func overlaps(a, b *core) bool {
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
func (v *core) byteRange() (lo, hi int64) {
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
func elems[E uint8 | uint16 | uint32 | uint64](v *core) []E {
	b := v.buf.Bytes()
	var z E
	n := len(b) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*E)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// gatherInto writes the view's elements in row-major order to dst, which
// holds exactly v.size elements.
func gatherInto(dst []byte, v *core) {
	if v.size == 0 {
		return
	}
	switch v.width {
	case 1:
		gather(as.MustSliceBytes[uint8](dst), elems[uint8](v), v)
	case 2:
		gather(as.MustSliceBytes[uint16](dst), elems[uint16](v), v)
	case 4:
		gather(as.MustSliceBytes[uint32](dst), elems[uint32](v), v)
	default:
		gather(as.MustSliceBytes[uint64](dst), elems[uint64](v), v)
	}
}

// layout is a strided layout with axes merged where possible: a compact
// description for the copy kernels, of rank ≤ the view's.
type layout struct {
	nd       int
	shape    [inlineDims]int64
	strides  [inlineDims]int64
	big      bool // rank > inlineDims: use shapeS and stridesS
	shapeS   []int64
	stridesS []int64
}

func (l *layout) dims() ([]int64, []int64) {
	if l.big {
		return l.shapeS, l.stridesS
	}
	return l.shape[:l.nd], l.strides[:l.nd]
}

// coalesce returns the layout of a strided view with axes of length 1
// dropped and each axis merged into the one before it when that one's
// stride is its stride times its length, so that the row-major order of
// elements is unchanged.
func coalesce(shape, strides []int64) layout {
	var l layout
	var sh, st []int64
	if len(shape) > inlineDims {
		l.big = true
		l.shapeS = make([]int64, 0, len(shape))
		l.stridesS = make([]int64, 0, len(shape))
		sh, st = l.shapeS, l.stridesS
	} else {
		sh, st = l.shape[:0], l.strides[:0]
	}
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
	l.nd = len(sh)
	if l.big {
		l.shapeS, l.stridesS = sh, st
	}
	return l
}

// gather copies the view's elements from src (the whole buffer) to dst in
// row-major order.
func gather[E uint8 | uint16 | uint32 | uint64](dst, src []E, v *core) {
	if v.maps != nil {
		gatherMapped(dst, src, v)
		return
	}
	l := coalesce(v.shape, v.strides)
	shape, strides := l.dims()
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
		forOuter(shape[:nd-1], strides[:nd-1], off, func(p int64) {
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
	forOuter(shape[:nd-1], strides[:nd-1], off, func(p int64) {
		row := dst[o : o+n]
		for j := range row {
			row[j] = src[p]
			p += s
		}
		o += n
	})
}

// forOuter calls f with the address of each index of the given axes, in
// row-major order, starting from off. With no axes it calls f(off) once.
func forOuter(shape, strides []int64, off int64, f func(p int64)) {
	nd := len(shape)
	if nd == 0 {
		f(off)
		return
	}
	var idxA [inlineDims]int64
	var idx []int64
	if nd > inlineDims {
		idx = make([]int64, nd)
	} else {
		idx = idxA[:nd]
	}
	p := off
	for {
		f(p)
		k := nd - 1
		for ; k >= 0; k-- {
			idx[k]++
			p += strides[k]
			if idx[k] < shape[k] {
				break
			}
			p -= idx[k] * strides[k]
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// gatherTransposed copies a strided layout whose axis j (not the last) has
// stride 1: for every index of the other outer axes, the (j, last) plane is
// a transposed matrix, copied with a cache-blocked transpose.
func gatherTransposed[E uint8 | uint16 | uint32 | uint64](dst, src []E, shape, strides []int64, off int64, j int) {
	nd := len(shape)
	// row-major strides of dst, in elements
	var dsA [inlineDims]int64
	var ds []int64
	if nd > inlineDims {
		ds = make([]int64, nd)
	} else {
		ds = dsA[:nd]
	}
	acc := int64(1)
	for k := nd - 1; k >= 0; k-- {
		ds[k] = acc
		acc *= shape[k]
	}
	rows, cols := shape[j], shape[nd-1]
	dLd, sLd := ds[j], strides[nd-1]
	// The other axes: all but j and the last.
	var osA, oshA, odA [inlineDims]int64
	osh, ost, od := oshA[:0], osA[:0], odA[:0]
	if nd > inlineDims {
		osh, ost, od = nil, nil, nil
	}
	for k := 0; k < nd-1; k++ {
		if k != j {
			osh = append(osh, shape[k])
			ost = append(ost, strides[k])
			od = append(od, ds[k])
		}
	}
	forOuter2(osh, ost, od, off, 0, func(ps, pd int64) {
		transposeBlocked(dst, src, pd, dLd, ps, sLd, rows, cols)
	})
}

// forOuter2 is forOuter over two layouts of the same shape at once.
func forOuter2(shape, s1, s2 []int64, off1, off2 int64, f func(p1, p2 int64)) {
	nd := len(shape)
	if nd == 0 {
		f(off1, off2)
		return
	}
	var idxA [inlineDims]int64
	var idx []int64
	if nd > inlineDims {
		idx = make([]int64, nd)
	} else {
		idx = idxA[:nd]
	}
	p1, p2 := off1, off2
	for {
		f(p1, p2)
		k := nd - 1
		for ; k >= 0; k-- {
			idx[k]++
			p1 += s1[k]
			p2 += s2[k]
			if idx[k] < shape[k] {
				break
			}
			p1 -= idx[k] * s1[k]
			p2 -= idx[k] * s2[k]
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// transposeBlocked sets dst[pd + r·dLd + c] = src[ps + r + c·sLd] for
// r < rows, c < cols, in square tiles of about 8 KiB each so that the
// strided side of every tile stays in the L1 cache.
func transposeBlocked[E uint8 | uint16 | uint32 | uint64](dst, src []E, pd, dLd, ps, sLd, rows, cols int64) {
	var z E
	bs := int64(32) // 32×32×8 bytes = 8 KiB
	switch unsafe.Sizeof(z) {
	case 1:
		bs = 128
	case 2, 4:
		bs = 64
	}
	for r0 := int64(0); r0 < rows; r0 += bs {
		r1 := min(r0+bs, rows)
		for c0 := int64(0); c0 < cols; c0 += bs {
			c1 := min(c0+bs, cols)
			for r := r0; r < r1; r++ {
				drow := dst[pd+r*dLd+c0 : pd+r*dLd+c1]
				s := ps + r + c0*sLd
				for c := range drow {
					drow[c] = src[s]
					s += sLd
				}
			}
		}
	}
}

// gatherMapped is gather for a view with remapped axes: the last axis is
// read through a table of its element offsets, and each row's base address
// is updated axis by axis.
func gatherMapped[E uint8 | uint16 | uint32 | uint64](dst, src []E, v *core) {
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
func (v *core) lastAxisTable() []int64 {
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
func (v *core) forRows(f func(outer []int64, base int64) bool) {
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
func scatter[E uint8 | uint16 | uint32 | uint64](d, s []E, dst, src *core) {
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
