package gcs

import (
	"iter"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/vals"
)

// Sparse is the constraint of the generic accessors At and All: a matrix, a
// GCS tensor or a DM.
type Sparse interface{ *Matrix | *Tensor | *DM }

// At returns the element at idx: the stored value, the sum of the stored
// duplicates, or zero if nothing is stored there.
//
// On a sorted matrix (IsSorted) it binary-searches the lane, in
// O(log lane length); otherwise it scans the lane. A GCS tensor maps idx to
// (row, column) first. A DM maps idx to its storage and asks it: a view
// reads the element, a COO tensor binary-searches if it is canonical, a
// matrix as above. At panics with an arrowsparse.PanicError if T is not the value
// type, or idx has the wrong rank or an entry outside the shape.
func At[T arrowsparse.Value, X Sparse](x X, idx ...int64) T {
	switch s := any(x).(type) {
	case *Matrix:
		if len(idx) != 2 {
			panic(arrowsparse.PanicError{Msg: "gcs: a matrix has 2 dimensions"})
		}
		return matrixAt[T](s, idx[0], idx[1])
	case *Tensor:
		s.mp.checkIndex(idx)
		mustType[T](s.m)
		r, c := s.mp.ToRowCol(idx...)
		return matrixAt[T](s.m, r, c)
	case *DM:
		return dmAt[T](s, idx)
	}
	panic(arrowsparse.PanicError{Msg: "gcs: unreachable"})
}

// All returns an iterator over the stored elements, yielding each
// element's index and value. The index slice is reused: it is valid until
// the next iteration and must not be modified. Duplicates are yielded one
// by one.
//
// A matrix and a GCS tensor yield their elements in storage order (lane by
// lane). A DM yields exactly the elements of its slice, in the wrapper's
// index space, in an order that follows its storage (see DM). All panics
// with an arrowsparse.PanicError if T is not the value type.
func All[T arrowsparse.Value, X Sparse](x X) iter.Seq2[[]int64, T] {
	switch s := any(x).(type) {
	case *Matrix:
		return matrixAll[T](s)
	case *Tensor:
		return tensorAll[T](s)
	case *DM:
		return dmAll[T](s)
	}
	panic(arrowsparse.PanicError{Msg: "gcs: unreachable"})
}

func mustType[T arrowsparse.Value](m *Matrix) []T {
	v, err := Values[T](m)
	if err != nil {
		panic(arrowsparse.PanicError{Msg: err.Error()})
	}
	return v
}

func matrixAt[T arrowsparse.Value](m *Matrix, row, col int64) T {
	vs := mustType[T](m)
	if uint64(row) >= uint64(m.rows) || uint64(col) >= uint64(m.cols) {
		panic(arrowsparse.PanicError{Msg: "gcs: index out of range"})
	}
	k, j := row, col
	if m.axis == Cols {
		k, j = col, row
	}
	ix := m.ix()
	var zero T
	if m.sorted {
		lo, hi := ix.search(m, k, j)
		switch {
		case lo == hi:
			return zero
		case hi-lo == 1:
			return vs[lo]
		}
		return sumAt(m, vs, []int64{lo, hi}, nil)
	}
	perm := ix.scan(m, k, j, nil)
	if len(perm) == 0 {
		return zero
	}
	return sumAt(m, vs, nil, perm)
}

// sumAt sums the values of entries [r[0], r[1]) or perm, in storage order
// and in the value type.
func sumAt[T arrowsparse.Value](m *Matrix, vs []T, r, perm []int64) T {
	if perm == nil {
		for p := r[0]; p < r[1]; p++ {
			perm = append(perm, p)
		}
	}
	out := make([]T, 1)
	vals.For(m.valueType).ReducePerm(core.BytesOf(vs), core.BytesOf(out), 0, perm, []int64{0, int64(len(perm))}, arrowsparse.SumDuplicates)
	return out[0]
}

func matrixAll[T arrowsparse.Value](m *Matrix) iter.Seq2[[]int64, T] {
	vs := mustType[T](m)
	return func(yield func([]int64, T) bool) {
		ix := m.ix()
		major, _ := m.dims()
		idx := make([]int64, 2)
		lk, lj := 0, 1 // positions of the lane and of the index in idx
		if m.axis == Cols {
			lk, lj = 1, 0
		}
		buf := make([]int64, chunk)
		for k := range major {
			lo, hi := ix.lane(m, k)
			for a := lo; a < hi; a += chunk {
				b := min(a+chunk, hi)
				ix.indices(m, a, b, buf)
				for q, j := range buf[:b-a] {
					idx[lk], idx[lj] = k, j
					if !yield(idx, vs[a+int64(q)]) {
						return
					}
				}
			}
		}
	}
}

// Lane returns lane k (row k of a CSR, column k of a CSC) as slices of its
// indices and values that alias the matrix's buffers: no copy. The slices
// must not be modified. Lane panics with an arrowsparse.PanicError if I or T is not
// the matrix's index or value type, or k is not a lane.
func Lane[I arrowsparse.Index, T arrowsparse.Value](m *Matrix, k int64) ([]I, []T) {
	idx, err := Indices[I](m)
	if err != nil {
		panic(arrowsparse.PanicError{Msg: err.Error()})
	}
	vs := mustType[T](m)
	major, _ := m.dims()
	if uint64(k) >= uint64(major) {
		panic(arrowsparse.PanicError{Msg: "gcs: lane out of range"})
	}
	lo, hi := m.ix().lane(m, k)
	return idx[lo:hi:hi], vs[lo:hi:hi]
}

// Row returns the stored entries of row i: their columns and values, in
// new slices, in storage order for a CSR and in column order for a CSC
// (which it finds by a binary search per column when the matrix is sorted,
// a scan otherwise). Use Lane to read a CSR row without copying. Row panics
// with an arrowsparse.PanicError if T is not the value type or i is not a row.
func Row[T arrowsparse.Value](m *Matrix, i int64) ([]int64, []T) {
	if uint64(i) >= uint64(m.rows) {
		panic(arrowsparse.PanicError{Msg: "gcs: row out of range"})
	}
	return cross[T](m, Rows, i)
}

// Col returns the stored entries of column j: their rows and values, in new
// slices, as Row does for rows. Use Lane to read a CSC column without
// copying.
func Col[T arrowsparse.Value](m *Matrix, j int64) ([]int64, []T) {
	if uint64(j) >= uint64(m.cols) {
		panic(arrowsparse.PanicError{Msg: "gcs: column out of range"})
	}
	return cross[T](m, Cols, j)
}

// cross returns the entries at position i along axis a.
func cross[T arrowsparse.Value](m *Matrix, a Axis, i int64) ([]int64, []T) {
	vs := mustType[T](m)
	ix := m.ix()
	if m.axis == a {
		lo, hi := ix.lane(m, i)
		idx := make([]int64, hi-lo)
		ix.indices(m, lo, hi, idx)
		return idx, append([]T(nil), vs[lo:hi]...)
	}
	var idx []int64
	var out []T
	major, _ := m.dims()
	var perm []int64
	for k := range major {
		if m.sorted {
			lo, hi := ix.search(m, k, i)
			for p := lo; p < hi; p++ {
				idx, out = append(idx, k), append(out, vs[p])
			}
			continue
		}
		perm = ix.scan(m, k, i, perm[:0])
		for _, p := range perm {
			idx, out = append(idx, k), append(out, vs[p])
		}
	}
	return idx, out
}
