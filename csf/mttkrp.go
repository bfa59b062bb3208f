package csf

//go:generate go run gen_asm.go

import (
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/par"
)

// MTTKRP computes the matricized tensor times Khatri-Rao product along
// dimension mode, the kernel of CP decomposition (CP-ALS) that CSF was
// designed for (Smith and Karypis, SPLATT):
//
//	out[i, r] = Σ x[c] · Π_{k ≠ mode} factors[k][c[k], r]   over stored c with c[mode] = i
//
// factors[k] is the dense row-major shape[k] × rank factor matrix of
// dimension k (element (i, r) at i·rank + r; factors[mode] is not used and
// may be nil). dst is the row-major shape[mode] × rank result; it is
// overwritten. The tensor's values must have type T.
//
// The tree is walked once. When mode is the root level, each root node's
// row is accumulated bottom-up (SPLATT's root algorithm: one multiply per
// node and one per value per rank column); on an internal level the
// products of the ancestors' rows are carried down and the subtree below
// each node accumulated up; on the leaf level the carried product is
// scaled by each value. Any mode works with any axis order, but the root
// mode is the fastest: a CSF tensor with mode first in its axis order (see
// WithAxisOrder) is the usual choice for the mode updated most often.
//
// Work is split across goroutines by root nodes, in ranges holding about
// equal numbers of values, and out is bit for bit the same for any number
// of workers. For the root mode each root node owns its output row, which
// is summed in tree order. For other modes the root nodes are cut into up
// to 8 chunks that depend on the tensor only; each chunk is summed in
// tree order into an output of its own (the first into out), and the
// outputs are added to out in chunk order. When those outputs would take
// more than 64 MiB, each goroutine instead owns a range of output rows,
// chosen at quantiles of a sample of the nodes, and walks the whole tree
// adding what falls in its range. No two goroutines write the same memory.
//
// It returns an error wrapping arrowsparse.ErrUnsupportedType if T is not the value
// type, arrowsparse.ErrShape if mode is not a dimension or rank is negative, and
// arrowsparse.ErrBufferSize if a factor or out is too short.
func MTTKRP[T arrowsparse.Float](dst []T, t *Tensor, mode int, factors [][]T, rank int, o KernelOptions) error {
	out := dst
	vs, err := Values[T](t)
	if err != nil {
		return err
	}
	nl := len(t.levels)
	if mode < 0 || mode >= nl {
		return core.Errorf(arrowsparse.ErrShape, "csf: MTTKRP mode %d of a %d-d tensor", mode, nl)
	}
	if rank < 0 {
		return core.Errorf(arrowsparse.ErrShape, "csf: negative rank %d", rank)
	}
	if len(factors) != nl {
		return core.Errorf(arrowsparse.ErrShape, "csf: %d factor matrices for %d dimensions", len(factors), nl)
	}
	for k, f := range factors {
		if k == mode {
			continue
		}
		if need, ok := core.MulInt64(t.shape[k], int64(rank)); !ok || int64(len(f)) < need {
			return core.Errorf(arrowsparse.ErrBufferSize, "csf: factor %d has %d elements, need %d × %d", k, len(f), t.shape[k], rank)
		}
	}
	if need, ok := core.MulInt64(t.shape[mode], int64(rank)); !ok || int64(len(out)) < need {
		return core.Errorf(arrowsparse.ErrBufferSize, "csf: MTTKRP output has %d elements, need %d × %d", len(out), t.shape[mode], rank)
	}
	clear(out[:t.shape[mode]*int64(rank)])
	if t.nnz == 0 || rank == 0 {
		return nil
	}
	d := slices.Index(t.order, mode)
	u := make([][]T, nl)
	for l, k := range t.order {
		if l != d {
			u[l] = factors[k]
		}
	}
	workers := par.Workers(o.Workers)
	if t.nnz < 1<<12 {
		workers = 1
	}
	// The kernels read the levels as typed slices: int32 where every level
	// fits, else int64 (levels of other types are widened into copies).
	switch wp, wx := t.wideIndex(true), t.wideIndex(false); {
	case !wp && !wx:
		mttkrp(t, typedTree[int32, int32](t), d, u, rank, out, vs, workers)
	case !wp:
		mttkrp(t, typedTree[int32, int64](t), d, u, rank, out, vs, workers)
	case !wx:
		mttkrp(t, typedTree[int64, int32](t), d, u, rank, out, vs, workers)
	default:
		mttkrp(t, typedTree[int64, int64](t), d, u, rank, out, vs, workers)
	}
	return nil
}

func mttkrp[T arrowsparse.Float, P, X arrowsparse.Index](t *Tensor, tr tree[P, X], d int, u [][]T, rank int, out, vs []T, workers int) {
	nl := len(t.levels)
	leafLo, _ := t.leafRange()
	newWorker := func() *mttWorker[T, P, X] {
		w := &mttWorker[T, P, X]{tree: tr, nl: nl, d: d, r: int64(rank), u: u, out: out, vals: vs, vbase: leafLo}
		var zero T
		if _, ok := any(zero).(float64); ok && hasAVX && nl == 3 && !t.unchecked {
			w.asm = asmKernels[unsafe.Sizeof(P(0))/8][unsafe.Sizeof(X(0))/8]
		}
		w.tmp = make([][]T, nl)
		w.pre = make([][]T, nl)
		for l := range nl {
			w.tmp[l] = make([]T, rank)
			w.pre[l] = make([]T, rank)
		}
		return w
	}
	r := int64(rank)
	root := &t.levels[0]
	if d == 0 {
		cuts := t.rootCuts(workers)
		par.Do(workers, func(c int) {
			w := newWorker()
			for i := cuts[c]; i < cuts[c+1]; i++ {
				x := int64(w.idx[0][i])
				row := out[x*r : (x+1)*r]
				if nl == 3 {
					j0 := int64(0)
					if w.asm != nil {
						j0 = w.root3AVX(i, any(row).([]float64))
					}
					w.root3(i, row, j0)
				} else {
					w.acc(0, i, row, 0, r)
				}
			}
		})
		return
	}
	visit := func(w *mttWorker[T, P, X], i int64) {
		if nl == 3 {
			j0 := int64(0)
			if w.asm != nil {
				j0 = w.down3AVX(i)
			}
			if j0 < r {
				w.down3(i, j0)
			}
		} else {
			w.down(0, i, nil)
		}
	}
	dim := t.shape[t.order[d]]
	size := dim * r
	if k := privateChunks(t, size*int64(unsafe.Sizeof(out[0]))); k > 1 {
		// Chunks of root nodes, each summed into its own output (the first
		// into out), then added to out in chunk order. The chunks depend on
		// the tensor only, so the sums do not depend on the workers.
		cuts := t.rootCuts(k)
		bufs := make([][]T, k)
		bufs[0] = out[:size]
		defer func() {
			for _, b := range bufs[1:] {
				putScratch(b)
			}
		}()
		var next atomic.Int64
		par.Do(min(workers, k), func(int) {
			w := newWorker()
			w.own0, w.own1 = 0, dim
			for c := int(next.Add(1) - 1); c < k; c = int(next.Add(1) - 1) {
				if c > 0 {
					bufs[c] = getScratch[T](size)
				}
				w.out = bufs[c]
				for i := cuts[c]; i < cuts[c+1]; i++ {
					visit(w, i)
				}
			}
		})
		parts := splitLeaves(0, size, workers)
		par.Do(workers, func(c int) {
			o := out[parts[c]:parts[c+1]]
			for _, b := range bufs[1:] {
				for j, v := range b[parts[c]:parts[c+1]] {
					o[j] += v
				}
			}
		})
		return
	}
	// An output too large to copy: each goroutine owns a range of output
	// rows and walks the whole tree, adding what falls in its range.
	cuts := t.coordCuts(d, workers)
	par.Do(workers, func(c int) {
		w := newWorker()
		w.own0, w.own1 = cuts[c], cuts[c+1]
		for i := root.off; i < root.off+root.n; i++ {
			visit(w, i)
		}
	})
}

// privateChunks returns the number of chunks of root nodes that MTTKRP
// sums into separate outputs of the given size in bytes, for a mode other
// than the root: up to 8, within 64 MiB of outputs, at least 2^14 values
// per chunk. It depends on the tensor and the output size only.
func privateChunks(t *Tensor, outBytes int64) int {
	k := min(8, t.levels[0].n, t.nnz>>chunkShift)
	if outBytes > 0 {
		k = min(k, privateBudget/outBytes)
	}
	return int(max(k, 1))
}

// scratch keeps the private outputs of MTTKRP between calls (CP-ALS calls
// it in a loop), one pool per element type.
var scratch32, scratch64 sync.Pool

// getScratch returns a zeroed []T of length n, reused if possible.
func getScratch[T arrowsparse.Float](n int64) []T {
	p := &scratch64
	var z T
	if _, ok := any(z).(float32); ok {
		p = &scratch32
	}
	if b, ok := p.Get().(*[]T); ok && int64(cap(*b)) >= n {
		s := (*b)[:n]
		clear(s)
		return s
	}
	return make([]T, n)
}

// putScratch returns b to its pool.
func putScratch[T arrowsparse.Float](b []T) {
	if b == nil {
		return
	}
	p := &scratch64
	var z T
	if _, ok := any(z).(float32); ok {
		p = &scratch32
	}
	p.Put(&b)
}

// privateBudget bounds the bytes of the outputs of privateChunks, and
// 1<<chunkShift is the fewest values per chunk (variables for tests).
var (
	privateBudget int64 = 64 << 20
	chunkShift          = 14
)

// mttWorker holds one goroutine's scratch rows.
type mttWorker[T arrowsparse.Float, P, X arrowsparse.Index] struct {
	tree[P, X]
	nl, d      int
	r          int64 // rank
	u          [][]T // factor matrix of each level's dimension (nil on level d)
	out        []T
	vals       []T   // the value of leaf k is vals[k-vbase]
	vbase      int64 //
	tmp, pre   [][]T // scratch rows per level
	own0, own1 int64 // the coordinates of dimension mode this worker owns (d > 0)
	asm        *kernels3
}

// kernels3 are the assembly kernels of 3-level trees for one pair of index
// types (see gen_asm.go): float64 values, 16 columns at a time.
type kernels3 struct {
	root      func(p1, i1, i2 unsafe.Pointer, vals *float64, vb int64, bm, cm *float64, r, s, e int64, out *float64)
	mid, leaf func(p1, i1, i2 unsafe.Pointer, vals *float64, vb int64, arow, fm, out *float64, r, s, e, own0, own1 int64)
}

// root3 computes the output row of root node i of a 3-level tree. The
// columns are taken 8 at a time, accumulated in registers over all the
// fibers below the root (one cache line of float64 per factor row per
// pass); the operations on each column are those of acc, in the same
// order, so the results are the same bits.
func (w *mttWorker[T, P, X]) root3(i int64, row []T, j0 int64) {
	r := w.r
	bm, cm := w.u[1], w.u[2]
	p1, i1, i2 := w.ptr[1], w.idx[1], w.idx[2]
	vals, vb := w.vals, w.vbase
	s, e := int64(w.ptr[0][i]), int64(w.ptr[0][i+1])
	for ; j0+8 <= r; j0 += 8 {
		var a0, a1, a2, a3, a4, a5, a6, a7 T
		for f := s; f < e; f++ {
			x := int64(i1[f])
			b := (*[8]T)(bm[x*r+j0:])
			l0, l1 := int64(p1[f]), int64(p1[f+1])
			if l1-l0 == 1 {
				v := vals[l0-vb]
				c := (*[8]T)(cm[int64(i2[l0])*r+j0:])
				a0 += (v * c[0]) * b[0]
				a1 += (v * c[1]) * b[1]
				a2 += (v * c[2]) * b[2]
				a3 += (v * c[3]) * b[3]
				a4 += (v * c[4]) * b[4]
				a5 += (v * c[5]) * b[5]
				a6 += (v * c[6]) * b[6]
				a7 += (v * c[7]) * b[7]
				continue
			}
			var t0, t1, t2, t3, t4, t5, t6, t7 T
			for k := l0; k < l1; k++ {
				v := vals[k-vb]
				c := (*[8]T)(cm[int64(i2[k])*r+j0:])
				t0 += v * c[0]
				t1 += v * c[1]
				t2 += v * c[2]
				t3 += v * c[3]
				t4 += v * c[4]
				t5 += v * c[5]
				t6 += v * c[6]
				t7 += v * c[7]
			}
			a0 += t0 * b[0]
			a1 += t1 * b[1]
			a2 += t2 * b[2]
			a3 += t3 * b[3]
			a4 += t4 * b[4]
			a5 += t5 * b[5]
			a6 += t6 * b[6]
			a7 += t7 * b[7]
		}
		o := (*[8]T)(row[j0:])
		o[0] += a0
		o[1] += a1
		o[2] += a2
		o[3] += a3
		o[4] += a4
		o[5] += a5
		o[6] += a6
		o[7] += a7
	}
	if j0 < r {
		w.acc(0, i, row[j0:], j0, r)
	}
}

// root3AVX computes the columns of root node i's row in blocks of 16 with
// the assembly kernel and returns the first column it did not compute.
func (w *mttWorker[T, P, X]) root3AVX(i int64, row []float64) int64 {
	r := w.r
	s, e := int64(w.ptr[0][i]), int64(w.ptr[0][i+1])
	if s == e || r < 16 {
		return 0
	}
	p1, i1, i2 := w.ptr[1], w.idx[1], w.idx[2]
	vals, bm, cm := any(w.vals).([]float64), any(w.u[1]).([]float64), any(w.u[2]).([]float64)
	// The kernel indexes without bounds checks: check the ranges once.
	_ = p1[e]
	_ = i1[e-1]
	lo, hi := int64(p1[s]), int64(p1[e])
	_ = i2[hi-1]
	_ = vals[hi-1-w.vbase]
	_ = vals[lo-w.vbase]
	j0 := int64(0)
	for ; j0+16 <= r; j0 += 16 {
		w.asm.root(unsafe.Pointer(&p1[0]), unsafe.Pointer(&i1[0]), unsafe.Pointer(&i2[0]), &vals[0], w.vbase, &bm[j0], &cm[j0], r, s, e, &row[j0])
	}
	return j0
}

// down3 is down for a 3-level tree and the columns [j0, r) of root node
// i: the middle or the last level holds the mode. Its operations are
// those of down, in the same order.
func (w *mttWorker[T, P, X]) down3(i int64, j0 int64) {
	r := w.r
	x0 := int64(w.idx[0][i])
	a := w.u[0][x0*r+j0 : x0*r+r]
	p1, i1, i2 := w.ptr[1], w.idx[1], w.idx[2]
	s, e := int64(w.ptr[0][i]), int64(w.ptr[0][i+1])
	if w.d == 1 {
		cm := w.u[2]
		tmp := w.tmp[1][:r-j0]
		for f := s; f < e; f++ {
			x := int64(i1[f])
			if x < w.own0 || x >= w.own1 {
				continue
			}
			clear(tmp)
			l0, l1 := int64(p1[f]), int64(p1[f+1])
			vs := w.vals[l0-w.vbase : l1-w.vbase]
			for j, y := range i2[l0:l1] {
				q := int64(y) * r
				axpy(tmp, vs[j], cm[q+j0:q+r])
			}
			mulAdd(w.out[x*r+j0:x*r+r], tmp, a)
		}
		return
	}
	bm := w.u[1]
	pre := w.pre[1][:r-j0]
	for f := s; f < e; f++ {
		x := int64(i1[f]) * r
		have := false
		l0, l1 := int64(p1[f]), int64(p1[f+1])
		vs := w.vals[l0-w.vbase : l1-w.vbase]
		for j, y := range i2[l0:l1] {
			y := int64(y)
			if y < w.own0 || y >= w.own1 {
				continue
			}
			if !have {
				mul(pre, a, bm[x+j0:x+r])
				have = true
			}
			axpy(w.out[y*r+j0:y*r+r], vs[j], pre)
		}
	}
}

// down3AVX computes the columns of down3 in blocks of 16 with the assembly
// kernels and returns the first column it did not compute.
func (w *mttWorker[T, P, X]) down3AVX(i int64) int64 {
	r := w.r
	s, e := int64(w.ptr[0][i]), int64(w.ptr[0][i+1])
	if s == e || r < 16 {
		return 0
	}
	p1, i1, i2 := w.ptr[1], w.idx[1], w.idx[2]
	vals, out := any(w.vals).([]float64), any(w.out).([]float64)
	x0 := int64(w.idx[0][i])
	am := any(w.u[0]).([]float64)
	// The kernels index without bounds checks: check the ranges once.
	_ = p1[e]
	_ = i1[e-1]
	lo, hi := int64(p1[s]), int64(p1[e])
	_ = i2[hi-1]
	_ = vals[hi-1-w.vbase]
	_ = vals[lo-w.vbase]
	k, fm := w.asm.leaf, any(w.u[1]).([]float64)
	if w.d == 1 {
		k, fm = w.asm.mid, any(w.u[2]).([]float64)
	}
	j0 := int64(0)
	for ; j0+16 <= r; j0 += 16 {
		k(unsafe.Pointer(&p1[0]), unsafe.Pointer(&i1[0]), unsafe.Pointer(&i2[0]), &vals[0], w.vbase, &am[x0*r+j0], &fm[j0], &out[j0], r, s, e, w.own0, w.own1)
	}
	return j0
}

// acc adds to acc the subtree sums of node's children, for the columns
// [j0, j1): Σ_children u[l+1][x_child] ∘ S(child), where S of a leaf is
// its value and S of an inner node is what acc computes for it.
func (w *mttWorker[T, P, X]) acc(l int, node int64, acc []T, j0, j1 int64) {
	r := w.r
	s, e := int64(w.ptr[l][node]), int64(w.ptr[l][node+1])
	nl := w.nl
	if l == nl-2 {
		uu := w.u[nl-1]
		vs := w.vals[s-w.vbase : e-w.vbase]
		for j, x := range w.idx[nl-1][s:e] {
			y := int64(x) * r
			axpy(acc, vs[j], uu[y+j0:y+j1])
		}
		return
	}
	uc := w.u[l+1]
	tmp := w.tmp[l+1][:j1-j0]
	if l == nl-3 {
		// The children are fibers; a fiber with one value (common in
		// hypersparse tensors) skips the scratch row. Both paths round
		// alike: (v·C)·B.
		ul := w.u[nl-1]
		fp, li := w.ptr[nl-2], w.idx[nl-1]
		for c := s; c < e; c++ {
			x := int64(w.idx[l+1][c]) * r
			b := uc[x+j0 : x+j1]
			s2, e2 := int64(fp[c]), int64(fp[c+1])
			if e2-s2 == 1 {
				y := int64(li[s2]) * r
				axpyMul(acc, w.vals[s2-w.vbase], ul[y+j0:y+j1], b)
				continue
			}
			clear(tmp)
			vs := w.vals[s2-w.vbase : e2-w.vbase]
			for j, y := range li[s2:e2] {
				q := int64(y) * r
				axpy(tmp, vs[j], ul[q+j0:q+j1])
			}
			mulAdd(acc, tmp, b)
		}
		return
	}
	for c := s; c < e; c++ {
		x := int64(w.idx[l+1][c]) * r
		clear(tmp)
		w.acc(l+1, c, tmp, j0, j1)
		mulAdd(acc, tmp, uc[x+j0:x+j1])
	}
}

// down visits node on level l < d. pre is the product of the factor rows
// of its ancestors (nil for a root); the product including node's own row
// is made only when a descendant on level d is owned.
func (w *mttWorker[T, P, X]) down(l int, node int64, pre []T) {
	r := w.r
	x := int64(w.idx[l][node])
	own := w.pre[l]
	have := false
	ensure := func() {
		if !have {
			row := w.u[l][x*r : (x+1)*r]
			if pre == nil {
				copy(own, row)
			} else {
				mul(own, pre, row)
			}
			have = true
		}
	}
	s, e := int64(w.ptr[l][node]), int64(w.ptr[l][node+1])
	d := w.d
	if l+1 < d {
		for c := s; c < e; c++ {
			ensure()
			w.down(l+1, c, own)
		}
		return
	}
	if d == w.nl-1 {
		vs := w.vals[s-w.vbase : e-w.vbase]
		for j, y := range w.idx[d][s:e] {
			y := int64(y)
			if y < w.own0 || y >= w.own1 {
				continue
			}
			ensure()
			axpy(w.out[y*r:(y+1)*r], vs[j], own)
		}
		return
	}
	tmp := w.tmp[d]
	for c := s; c < e; c++ {
		y := int64(w.idx[d][c])
		if y < w.own0 || y >= w.own1 {
			continue
		}
		ensure()
		clear(tmp)
		w.acc(d, c, tmp, 0, r)
		mulAdd(w.out[y*r:(y+1)*r], tmp, own)
	}
}

// leafStart returns the position of the first leaf below node i of level
// l (or the end of the previous node's leaves if i has none).
func (t *Tensor) leafStart(l int, i int64) int64 {
	for ; l < len(t.levels)-1; l++ {
		lv := &t.levels[l]
		i = opsFor(lv.ptrType).get(lv.ptr.Bytes(), i)
	}
	return i
}

// rootCuts splits the root nodes into k ranges holding nearly equal
// numbers of leaves: range c is [r[c], r[c+1]).
func (t *Tensor) rootCuts(k int) []int64 {
	root := &t.levels[0]
	lo, hi := t.leafRange()
	r := make([]int64, k+1)
	r[0], r[k] = root.off, root.off+root.n
	for c := 1; c < k; c++ {
		target := lo + (hi-lo)*int64(c)/int64(k)
		// The first root whose leaves start at or after target.
		a, b := r[c-1], root.off+root.n
		for a < b {
			m := int64(uint64(a+b) >> 1)
			if t.leafStart(0, m) < target {
				a = m + 1
			} else {
				b = m
			}
		}
		r[c] = a
	}
	return r
}

// coordCuts splits the coordinates of level d's dimension into k ranges
// holding about equal numbers of leaves, judging by a sample of level d's
// nodes: range c is [r[c], r[c+1]).
func (t *Tensor) coordCuts(d, k int) []int64 {
	dim := t.shape[t.order[d]]
	r := make([]int64, k+1)
	r[k] = dim
	if k == 1 {
		return r
	}
	lv := &t.levels[d]
	const samples = 4096
	step := max(1, lv.n/samples)
	type sample struct{ x, w int64 }
	var ss []sample
	var total int64
	ops := opsFor(lv.idxType)
	for i := lv.off; i < lv.off+lv.n; i += step {
		wgt := int64(1)
		if d < len(t.levels)-1 {
			wgt = t.leafStart(d, i+1) - t.leafStart(d, i)
		}
		ss = append(ss, sample{ops.get(lv.idx.Bytes(), i), wgt})
		total += wgt
	}
	slices.SortFunc(ss, func(a, b sample) int { return int(min(max(a.x-b.x, -1), 1)) })
	var run int64
	c := 1
	for _, s := range ss {
		for c < k && run >= total*int64(c)/int64(k) {
			r[c] = s.x
			c++
		}
		run += s.w
	}
	for ; c < k; c++ {
		r[c] = dim
	}
	for c := 1; c <= k; c++ {
		r[c] = max(r[c], r[c-1])
	}
	return r
}

// axpy computes y += a·x.
func axpy[T arrowsparse.Float](y []T, a T, x []T) {
	x = x[:len(y)]
	i := 0
	for ; i+4 <= len(y); i += 4 {
		y[i] += a * x[i]
		y[i+1] += a * x[i+1]
		y[i+2] += a * x[i+2]
		y[i+3] += a * x[i+3]
	}
	for ; i < len(y); i++ {
		y[i] += a * x[i]
	}
}

// axpyMul computes y += (a·x)∘b.
func axpyMul[T arrowsparse.Float](y []T, a T, x, b []T) {
	x, b = x[:len(y)], b[:len(y)]
	i := 0
	for ; i+4 <= len(y); i += 4 {
		y[i] += (a * x[i]) * b[i]
		y[i+1] += (a * x[i+1]) * b[i+1]
		y[i+2] += (a * x[i+2]) * b[i+2]
		y[i+3] += (a * x[i+3]) * b[i+3]
	}
	for ; i < len(y); i++ {
		y[i] += (a * x[i]) * b[i]
	}
}

// mulAdd computes y += a∘b.
func mulAdd[T arrowsparse.Float](y, a, b []T) {
	a, b = a[:len(y)], b[:len(y)]
	i := 0
	for ; i+4 <= len(y); i += 4 {
		y[i] += a[i] * b[i]
		y[i+1] += a[i+1] * b[i+1]
		y[i+2] += a[i+2] * b[i+2]
		y[i+3] += a[i+3] * b[i+3]
	}
	for ; i < len(y); i++ {
		y[i] += a[i] * b[i]
	}
}

// mul computes y = a∘b.
func mul[T arrowsparse.Float](y, a, b []T) {
	a, b = a[:len(y)], b[:len(y)]
	for i := range y {
		y[i] = a[i] * b[i]
	}
}
