//go:generate go run gen_asm.go

package gcs

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/par"
	"github.com/arrowsparse/arrowsparse/views"
)

// parallelNNZ is the number of stored values below which the kernels run
// on one goroutine: under it, starting goroutines costs more than it saves.
const parallelNNZ = 1 << 16

// MulVec computes dst = A·x for a float32 or float64 matrix A and vectors
// of the same type; for Aᵀ·x pass a.T(), which shares a's buffers. dst is
// overwritten and must not overlap x. len(x) must be the number of columns
// of A and len(dst) its number of rows; a mismatch is an error wrapping
// arrowsparse.ErrShape, and a T other than the value type one wrapping
// arrowsparse.ErrUnsupportedType (arrow.ErrType). Duplicates are summed.
//
// A CSR runs lane by lane, each output element being one sequential dot
// product (scipy's order of summation), on up to o.Workers goroutines that
// get ranges of lanes holding equal numbers of values. A CSC scatters;
// with several workers each accumulates into a private vector and the
// vectors are added at the end. Matrices with fewer than 65536 values use
// one goroutine. Every index width works; the index types are dispatched
// once per call. The kernels skip bounds checks on matrices whose indices
// were checked (all but those built with WithTrusted).
func MulVec[T arrowsparse.Float](dst []T, a *Matrix, x []T, o KernelOptions) error {
	if !arrowsparse.TypeMatches[T](a.valueType) {
		return core.Errorf(arrowsparse.ErrUnsupportedType, "gcs: the matrix holds %s, not %s (MulVec needs float32 or float64)", a.valueType, arrowsparse.DataTypeOf[T]())
	}
	if int64(len(x)) != a.cols || int64(len(dst)) != a.rows {
		return core.Errorf(arrowsparse.ErrShape, "gcs: A is %d×%d, x has %d elements and dst %d", a.rows, a.cols, len(x), len(dst))
	}
	k := kernelFor[T](a.indptrType, a.indicesType)
	vs := core.MustSlice[T](a.values, a.nnz)
	w := effectiveWorkers(o.Workers, a.nnz)
	if a.axis == Rows {
		k.gather(a, vs, x, dst, w)
	} else {
		k.scatter(a, vs, x, dst, w)
	}
	return nil
}

func effectiveWorkers(workers int, nnz int64) int {
	if nnz < parallelNNZ {
		return 1
	}
	return par.Workers(workers)
}

// mulKernel are the product kernels for one value type and one pair of
// index types.
type mulKernel[T arrowsparse.Float] interface {
	// gather writes y[k] = Σ_{p in lane k} v[p]·x[idx[p]] for every lane.
	gather(m *Matrix, v, x, y []T, workers int)
	// scatter writes y = 0, then y[idx[p]] += v[p]·x[k] for every lane k.
	scatter(m *Matrix, v, x, y []T, workers int)
	// gatherRows writes C[k, :] = Σ_{p in lane k} v[p]·B[idx[p], :] for the
	// lanes [k0, k1).
	gatherRows(m *Matrix, v []T, b, c dense[T], k0, k1 int64)
	// scatterCols writes C[idx[p], j] += v[p]·B[k, j] for every lane k and
	// the columns j in [j0, j1).
	scatterCols(m *Matrix, v []T, b, c dense[T], j0, j1 int64)
}

// dense is a strided matrix of T for SpMM: element (i, j) is
// data[off + i·rs + j·cs].
type dense[T arrowsparse.Float] struct {
	data       []T
	off        int64
	rs, cs     int64
	rows, cols int64
}

func kernelFor[T arrowsparse.Float](pt, it arrow.DataType) mulKernel[T] {
	switch pt.ID() {
	case arrow.INT8:
		return kernelWith[int8, T](it)
	case arrow.INT16:
		return kernelWith[int16, T](it)
	case arrow.INT32:
		return kernelWith[int32, T](it)
	case arrow.INT64:
		return kernelWith[int64, T](it)
	case arrow.UINT8:
		return kernelWith[uint8, T](it)
	case arrow.UINT16:
		return kernelWith[uint16, T](it)
	case arrow.UINT32:
		return kernelWith[uint32, T](it)
	}
	panic(arrowsparse.PanicError{Msg: "gcs: " + pt.String() + " is not an index type"})
}

func kernelWith[P arrowsparse.Index, T arrowsparse.Float](it arrow.DataType) mulKernel[T] {
	switch it.ID() {
	case arrow.INT8:
		return mk[P, int8, T]{}
	case arrow.INT16:
		return mk[P, int16, T]{}
	case arrow.INT32:
		return mk[P, int32, T]{}
	case arrow.INT64:
		return mk[P, int64, T]{}
	case arrow.UINT8:
		return mk[P, uint8, T]{}
	case arrow.UINT16:
		return mk[P, uint16, T]{}
	case arrow.UINT32:
		return mk[P, uint32, T]{}
	}
	panic(arrowsparse.PanicError{Msg: "gcs: " + it.String() + " is not an index type"})
}

type mk[P, I arrowsparse.Index, T arrowsparse.Float] struct{}

// splitLanes cuts the lanes into w runs holding nearly equal numbers of
// values: run c is lanes [r[c], r[c+1]).
func splitLanes[P arrowsparse.Index](ptr []P, w int) []int64 {
	major := int64(len(ptr) - 1)
	nnz := int64(ptr[major])
	r := make([]int64, w+1)
	r[w] = major
	for c := 1; c < w; c++ {
		target := nnz / int64(w) * int64(c)
		// First lane whose start is at or past the target.
		lo, hi := r[c-1], major
		for lo < hi {
			mid := int64(uint64(lo+hi) >> 1)
			if int64(ptr[mid]) < target {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		r[c] = lo
	}
	return r
}

func (mk[P, I, T]) gather(m *Matrix, v, x, y []T, workers int) {
	ptr, idx := ptrOf[P](m), idxOf[I](m)
	r := splitLanes(ptr, workers)
	lanes := gatherLanes[P, I, T]
	if m.bounded && len(idx) > 0 {
		lanes = gatherLanesUnchecked[P, I, T]
		if k := asmGather[P, I, T](); k != nil {
			pp, ip := unsafe.Pointer(unsafe.SliceData(ptr)), unsafe.Pointer(unsafe.SliceData(idx))
			vp, xp, yp := unsafe.Pointer(unsafe.SliceData(v)), unsafe.Pointer(unsafe.SliceData(x)), unsafe.Pointer(unsafe.SliceData(y))
			par.Do(workers, func(c int) { k(pp, ip, vp, xp, yp, r[c], r[c+1], int64(len(idx))) })
			return
		}
	}
	par.Do(workers, func(c int) { lanes(ptr, idx, v, x, y, r[c], r[c+1]) })
}

// asmGather returns the assembly dot-product kernel for the types
// (gen_asm.go), which gives the bits of gatherLanesUnchecked faster, or
// nil where there is none (other types, other architectures, the purego
// build tag).
func asmGather[P, I arrowsparse.Index, T arrowsparse.Float]() func(ptr, idx, v, x, y unsafe.Pointer, k0, k1, pfEnd int64) {
	width := func(dt arrow.DataType) (int, bool) {
		switch dt.ID() {
		case arrow.INT32:
			return 0, true
		case arrow.INT64:
			return 1, true
		}
		return 0, false
	}
	pi, okp := width(arrowsparse.DataTypeOf[P]())
	ii, oki := width(arrowsparse.DataTypeOf[I]())
	if !okp || !oki {
		return nil
	}
	vi := 0
	if arrowsparse.TypeMatches[float32](arrowsparse.DataTypeOf[T]()) {
		vi = 1
	}
	return spmvKernels[vi][pi][ii]
}

// gatherLanes is the dot-product kernel, one sequential sum per lane (the
// order scipy sums in), with bounds checks.
func gatherLanes[P, I arrowsparse.Index, T arrowsparse.Float](ptr []P, idx []I, v, x, y []T, k0, k1 int64) {
	v = v[:len(idx)]
	for k := k0; k < k1; k++ {
		var s T
		for j := int(ptr[k]); j < int(ptr[k+1]); j++ {
			s += T(v[j] * x[idx[j]]) // rounded: never fused into an FMA
		}
		y[k] = s
	}
}

// gatherLanesUnchecked is gatherLanes without bounds checks, for matrices
// whose pointers and indices were all checked against the buffers and the
// shape (and len(x) against the shape by MulVec): the checks cost 40 % of
// the time on rows of a few values. idx and v must not be empty.
func gatherLanesUnchecked[P, I arrowsparse.Index, T arrowsparse.Float](ptr []P, idx []I, v, x, y []T, k0, k1 int64) {
	var zi I
	var zt T
	iw, tw := unsafe.Sizeof(zi), unsafe.Sizeof(zt)
	ip, vp := unsafe.Pointer(unsafe.SliceData(idx)), unsafe.Pointer(unsafe.SliceData(v))
	xp := unsafe.Pointer(unsafe.SliceData(x))
	y = y[k0:k1]
	ptr = ptr[k0 : k1+1]
	lo := uintptr(ptr[0])
	for k := range y {
		hi := uintptr(ptr[k+1])
		var s T
		for j := lo; j < hi; j++ {
			c := uintptr(*(*I)(unsafe.Add(ip, j*iw)))
			s += T(*(*T)(unsafe.Add(vp, j*tw)) * *(*T)(unsafe.Add(xp, c*tw))) // rounded: never fused into an FMA
		}
		y[k] = s
		lo = hi
	}
}

func (mk[P, I, T]) scatter(m *Matrix, v, x, y []T, workers int) {
	ptr, idx := ptrOf[P](m), idxOf[I](m)
	clear(y)
	lanes := scatterLanes[P, I, T]
	if m.bounded && len(idx) > 0 {
		lanes = scatterLanesUnchecked[P, I, T]
	}
	if workers == 1 {
		lanes(ptr, idx, v, x, y, 0, int64(len(ptr)-1))
		return
	}
	r := splitLanes(ptr, workers)
	acc := make([][]T, workers)
	acc[0] = y
	par.Do(workers, func(c int) {
		if c > 0 {
			acc[c] = make([]T, len(y))
		}
		lanes(ptr, idx, v, x, acc[c], r[c], r[c+1])
	})
	// Add the private vectors into y, in parallel over ranges of y.
	par.Do(workers, func(c int) {
		lo, hi := len(y)*c/workers, len(y)*(c+1)/workers
		for _, a := range acc[1:] {
			for i, s := range a[lo:hi] {
				y[lo+i] += s
			}
		}
	})
}

func scatterLanes[P, I arrowsparse.Index, T arrowsparse.Float](ptr []P, idx []I, v, x, y []T, k0, k1 int64) {
	for k := k0; k < k1; k++ {
		lo, hi := int(ptr[k]), int(ptr[k+1])
		if lo == hi {
			continue
		}
		xk := x[k]
		ids, vs := idx[lo:hi], v[lo:hi]
		vs = vs[:len(ids)]
		for j, c := range ids {
			y[c] += vs[j] * xk
		}
	}
}

// scatterLanesUnchecked is scatterLanes without bounds checks, for checked
// matrices (see gatherLanesUnchecked).
func scatterLanesUnchecked[P, I arrowsparse.Index, T arrowsparse.Float](ptr []P, idx []I, v, x, y []T, k0, k1 int64) {
	var zi I
	var zt T
	iw, tw := unsafe.Sizeof(zi), unsafe.Sizeof(zt)
	ip, vp := unsafe.Pointer(unsafe.SliceData(idx)), unsafe.Pointer(unsafe.SliceData(v))
	yp := unsafe.Pointer(unsafe.SliceData(y))
	x = x[k0:k1]
	ptr = ptr[k0 : k1+1]
	lo := uintptr(ptr[0])
	for k, xk := range x {
		hi := uintptr(ptr[k+1])
		for j := lo; j < hi; j++ {
			c := uintptr(*(*I)(unsafe.Add(ip, j*iw)))
			*(*T)(unsafe.Add(yp, c*tw)) += *(*T)(unsafe.Add(vp, j*tw)) * xk
		}
		lo = hi
	}
}

func (mk[P, I, T]) gatherRows(m *Matrix, v []T, b, c dense[T], k0, k1 int64) {
	ptr, idx := ptrOf[P](m), idxOf[I](m)
	n := c.cols
	for k := k0; k < k1; k++ {
		out := c.data[c.off+k*c.rs:]
		for p := int64(ptr[k]); p < int64(ptr[k+1]); p++ {
			a := v[p]
			src := b.off + int64(idx[p])*b.rs
			if b.cs == 1 && c.cs == 1 {
				row := b.data[src : src+n]
				o := out[:n]
				for j, x := range row {
					o[j] += a * x
				}
				continue
			}
			for j := range n {
				out[j*c.cs] += a * b.data[src+j*b.cs]
			}
		}
	}
}

func (mk[P, I, T]) scatterCols(m *Matrix, v []T, b, c dense[T], j0, j1 int64) {
	ptr, idx := ptrOf[P](m), idxOf[I](m)
	for k := int64(0); k+1 < int64(len(ptr)); k++ {
		src := b.off + k*b.rs
		for p := int64(ptr[k]); p < int64(ptr[k+1]); p++ {
			a := v[p]
			dst := c.off + int64(idx[p])*c.rs
			for j := j0; j < j1; j++ {
				c.data[dst+j*c.cs] += a * b.data[src+j*b.cs]
			}
		}
	}
}

// MulDense returns C = A·B as a new row-major dense view in a buffer from
// mem, for a float32 or float64 matrix A and a 2-d dense B of the same type
// with any strides; for Aᵀ·B pass a.T(). B's rows must number A's columns
// (an error wrapping arrowsparse.ErrShape otherwise); another value type is
// an error wrapping arrowsparse.ErrUnsupportedType. b may be any
// arrowsparse.Dense, whose layout is checked as views.New checks one. A CSR
// runs lane by lane on up to o.Workers goroutines, split by values; a CSC
// splits the columns of C among the workers. The result must be released
// by the caller.
func MulDense(mem memory.Allocator, a *Matrix, b arrowsparse.Dense, o KernelOptions) (*views.View, error) {
	bv, err := views.Of(b)
	if err != nil {
		return nil, err
	}
	defer bv.Release()
	switch a.valueType.ID() {
	case arrow.FLOAT32:
		return mulDense[float32](mem, a, bv, o.Workers)
	case arrow.FLOAT64:
		return mulDense[float64](mem, a, bv, o.Workers)
	}
	return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "gcs: MulDense needs float32 or float64 values, not %s", a.valueType)
}

func mulDense[T arrowsparse.Float](mem memory.Allocator, m *Matrix, b *views.View, workers int) (*views.View, error) {
	if !arrow.TypeEqual(b.DataType(), m.valueType) {
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "gcs: the matrix holds %s but B holds %s", m.valueType, b.DataType())
	}
	bs := b.Shape()
	if len(bs) != 2 {
		return nil, core.Errorf(arrowsparse.ErrShape, "gcs: B must be 2-d, not %d-d", len(bs))
	}
	rows, cols := m.rows, m.cols
	if bs[0] != cols {
		return nil, core.Errorf(arrowsparse.ErrShape, "gcs: A is %d×%d but B is %d×%d", rows, cols, bs[0], bs[1])
	}
	c, err := views.Alloc(mem, m.valueType, []int64{rows, bs[1]})
	if err != nil {
		return nil, err
	}
	st := b.ElemStrides()
	bd, _ := views.Values[T](b) // the type was checked above
	bm := dense[T]{data: bd, off: b.ElemOffset(), rs: st[0], cs: st[1], rows: bs[0], cols: bs[1]}
	cdata, _ := views.Values[T](c) // c was allocated with T's type
	cm := dense[T]{data: cdata, rs: bs[1], cs: 1, rows: rows, cols: bs[1]}
	if m.nnz == 0 || bs[1] == 0 {
		return c, nil
	}
	k := kernelFor[T](m.indptrType, m.indicesType)
	vs := core.MustSlice[T](m.values, m.nnz)
	w := effectiveWorkers(workers, m.nnz*bs[1])
	if m.axis == Rows {
		r := splitLanesOf(m, w)
		par.Do(w, func(i int) { k.gatherRows(m, vs, bm, cm, r[i], r[i+1]) })
		return c, nil
	}
	w = int(min(int64(w), bs[1]))
	par.Do(w, func(i int) {
		k.scatterCols(m, vs, bm, cm, bs[1]*int64(i)/int64(w), bs[1]*int64(i+1)/int64(w))
	})
	return c, nil
}

// splitLanesOf splits the lanes of m by values for w workers.
func splitLanesOf(m *Matrix, w int) []int64 {
	major, _ := m.dims()
	ptrs := make([]int64, major+1)
	m.ix().pointers(m, 0, major, ptrs)
	return splitLanes(ptrs, w)
}
