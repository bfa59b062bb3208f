package compute

import (
	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/par"
)

// maxDigit is the widest radix digit, in bits: 2048 counters per worker
// and pass.
const maxDigit = 11

// sortKeys sorts keys (below 1<<bits) stably with an LSD radix sort on w
// workers, carrying vals along (nil: no values), and returns the sorted
// keys and values. keys is overwritten; vals is only read, so it may alias
// the operand. One read pass counts the digits of every pass (each worker
// counts its part again before each later pass, when there are several);
// passes whose digit is the same for every key are skipped.
func sortKeys[A arrowsparse.Number](keys []uint64, vals []A, bits uint, w int) ([]uint64, []A) {
	n := len(keys)
	if n < 2 || bits == 0 {
		return keys, vals
	}
	passes := int((bits + maxDigit - 1) / maxDigit)
	width := (bits + uint(passes) - 1) / uint(passes)
	buckets := 1 << width
	mask := uint64(buckets - 1)
	w = max(1, min(w, n/4096+1))
	// counts[c][q*buckets+d]: keys of worker c with digit d in pass q.
	counts := make([][]int, w)
	bound := func(c int) (int, int) { return n * c / w, n * (c + 1) / w }
	par.Do(w, func(c int) {
		h := make([]int, passes*buckets)
		a, b := bound(c)
		for _, x := range keys[a:b] {
			for q := range passes {
				h[q*buckets+int((x>>(uint(q)*width))&mask)]++
			}
		}
		counts[c] = h
	})
	src, dst := keys, make([]uint64, n)
	vsrc, input := vals, vals != nil
	var vdst []A
	for q := range passes {
		base := q * buckets
		// Skip a pass in which every key has the same digit.
		single := false
		for d := range buckets {
			t := 0
			for c := range w {
				t += counts[c][base+d]
			}
			if t != 0 {
				single = t == n
				break
			}
		}
		if single {
			continue
		}
		shift := uint(q) * width
		if w > 1 && q > 0 {
			// The counts of the first read pass are per worker for the
			// keys' first layout only: count this layout's again.
			par.Do(w, func(c int) {
				h := counts[c][base : base+buckets]
				clear(h)
				a, b := bound(c)
				for _, x := range src[a:b] {
					h[(x>>shift)&mask]++
				}
			})
		}
		// Exclusive offsets, digit-major then worker: stable.
		off := 0
		for d := range buckets {
			for c := range w {
				t := counts[c][base+d]
				counts[c][base+d] = off
				off += t
			}
		}
		if vsrc != nil && vdst == nil {
			vdst = make([]A, n)
		}
		par.Do(w, func(c int) {
			h := counts[c][base : base+buckets]
			a, b := bound(c)
			if vsrc == nil {
				for _, x := range src[a:b] {
					d := (x >> shift) & mask
					dst[h[d]] = x
					h[d]++
				}
				return
			}
			vs := vsrc[a:b]
			for i, x := range src[a:b] {
				d := (x >> shift) & mask
				dst[h[d]] = x
				vdst[h[d]] = vs[i]
				h[d]++
			}
		})
		src, dst = dst, src
		// The operand's values are never written: the first pass reads
		// them and later passes alternate between two copies.
		if input {
			vsrc, vdst, input = vdst, nil, false
		} else {
			vsrc, vdst = vdst, vsrc
		}
	}
	return src, vsrc
}
