package views

import (
	"sync/atomic"
	"unsafe"

	"github.com/arrowsparse/arrowsparse/internal/strided"
)

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
	strided.Walk2(osh, ost, od, off, 0, func(ps, pd int64) {
		transposeBlocked(dst, src, pd, dLd, ps, sLd, rows, cols)
	})
}

// transposeBlocked sets dst[pd + r·dLd + c] = src[ps + r + c·sLd] for
// r < rows, c < cols.
//
// It works in tiles of transposeTile×transposeTile elements, each copied by
// 8×8 kernels that read eight source lines and write eight destination
// lines of eight elements: with float64 every cache line is used whole the
// moment it is touched, so strides that are powers of two (which map a
// tile's lines to one cache set) cost nothing. A plane too large for the
// caches is walked in super-tiles of superRows×superCols elements, whose
// source lines are first read in memory order (one load per cache line) so
// that the hardware prefetchers stream them in before the kernels need them.
// There, on amd64, 8-byte elements go through transpose8NT, whose
// non-temporal stores write whole destination lines without reading them
// first.
func transposeBlocked[E uint8 | uint16 | uint32 | uint64](dst, src []E, pd, dLd, ps, sLd, rows, cols int64) {
	var z E
	w := int64(unsafe.Sizeof(z))
	if rows*cols*w <= transposeInCache {
		transposeTiles(dst, src, pd, dLd, ps, sLd, 0, rows, 0, cols)
		return
	}
	line := 64 / w
	nt := haveNT && w == 8
	var acc E
	for c0 := int64(0); c0 < cols; c0 += superCols {
		c1 := min(c0+superCols, cols)
		for r0 := int64(0); r0 < rows; r0 += superRows {
			r1 := min(r0+superRows, rows)
			for c := c0; c < c1; c++ {
				run := src[ps+r0+c*sLd : ps+r1+c*sLd]
				for k := 0; k < len(run); k += int(line) {
					acc ^= run[k]
				}
			}
			if nt {
				transposeTilesNT(any(dst).([]uint64), any(src).([]uint64), pd, dLd, ps, sLd, r0, r1, c0, c1)
			} else {
				transposeTiles(dst, src, pd, dLd, ps, sLd, r0, r1, c0, c1)
			}
		}
	}
	if nt {
		sfence()
	}
	touchSink.Store(uint64(acc)) // keeps the touching loads alive
}

// transposeTilesNT is transposeTiles for 8-byte elements with the
// non-temporal kernel for whole 8×8 blocks; the caller runs sfence.
func transposeTilesNT(dst, src []uint64, pd, dLd, ps, sLd, r0, r1, c0, c1 int64) {
	rEnd := r0 + (r1-r0)/8*8
	cEnd := c0 + (c1-c0)/8*8
	for tr := r0; tr < rEnd; tr += transposeTile {
		tr1 := min(tr+transposeTile, rEnd)
		for tc := c0; tc < cEnd; tc += transposeTile {
			tc1 := min(tc+transposeTile, cEnd)
			for r := tr; r < tr1; r += 8 {
				for c := tc; c < tc1; c += 8 {
					d, s := pd+r*dLd+c, ps+r+c*sLd
					_, _ = dst[d+7*dLd+7], src[s+7*sLd+7] // the kernel's last addresses
					transpose8NT(&dst[d], dLd, &src[s], sLd)
				}
			}
		}
	}
	if cEnd < c1 {
		transposeTiles(dst, src, pd, dLd, ps, sLd, r0, rEnd, cEnd, c1)
	}
	if rEnd < r1 {
		transposeTiles(dst, src, pd, dLd, ps, sLd, rEnd, r1, c0, c1)
	}
}

// touchSink receives the values read by the touch passes of
// transposeBlocked, so that the compiler keeps the loads.
var touchSink atomic.Uint64

const (
	transposeTile    = 32      // tile side, in elements
	superRows        = 512     // super-tile rows (contiguous in the source)
	superCols        = 128     // super-tile columns (source rows)
	transposeInCache = 1 << 20 // bytes: planes up to this size skip the touch pass
)

// transposeTiles is transposeBlocked over rows r0..r1 and columns c0..c1,
// without the touch pass.
func transposeTiles[E uint8 | uint16 | uint32 | uint64](dst, src []E, pd, dLd, ps, sLd, r0, r1, c0, c1 int64) {
	for tr := r0; tr < r1; tr += transposeTile {
		tr1 := min(tr+transposeTile, r1)
		for tc := c0; tc < c1; tc += transposeTile {
			tc1 := min(tc+transposeTile, c1)
			r := tr
			for ; r+8 <= tr1; r += 8 {
				c := tc
				for ; c+8 <= tc1; c += 8 {
					transpose8(dst, src, pd+r*dLd+c, dLd, ps+r+c*sLd, sLd)
				}
				for ; c < tc1; c++ {
					for i := r; i < r+8; i++ {
						dst[pd+i*dLd+c] = src[ps+i+c*sLd]
					}
				}
			}
			for ; r < tr1; r++ {
				drow := dst[pd+r*dLd+tc : pd+r*dLd+tc1]
				s := ps + r + tc*sLd
				for c := range drow {
					drow[c] = src[s]
					s += sLd
				}
			}
		}
	}
}

// transpose8 sets dst[d + i·dLd + j] = src[s + j·sLd + i] for i, j < 8.
func transpose8[E uint8 | uint16 | uint32 | uint64](dst, src []E, d, dLd, s, sLd int64) {
	s0 := (*[8]E)(src[s : s+8])
	s1 := (*[8]E)(src[s+sLd : s+sLd+8])
	s2 := (*[8]E)(src[s+2*sLd : s+2*sLd+8])
	s3 := (*[8]E)(src[s+3*sLd : s+3*sLd+8])
	s4 := (*[8]E)(src[s+4*sLd : s+4*sLd+8])
	s5 := (*[8]E)(src[s+5*sLd : s+5*sLd+8])
	s6 := (*[8]E)(src[s+6*sLd : s+6*sLd+8])
	s7 := (*[8]E)(src[s+7*sLd : s+7*sLd+8])
	for i := range 8 {
		r := (*[8]E)(dst[d+int64(i)*dLd : d+int64(i)*dLd+8])
		r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7] = s0[i], s1[i], s2[i], s3[i], s4[i], s5[i], s6[i], s7[i]
	}
}
