package coo

import (
	"iter"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/coords"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/vals"
)

// All returns an iterator over the stored entries in storage order,
// duplicates included. It yields each entry's coordinates and value. The
// coordinate slice is reused: it is valid until the next iteration and must
// not be modified. It panics if T is not the value type.
func All[T arrowsparse.Value](t *Tensor) iter.Seq2[[]int64, T] {
	vs := mustValues[T](t)
	iop := coords.For(t.indexType)
	nd := int64(len(t.shape))
	return func(yield func([]int64, T) bool) {
		step := core.ChunkEntries(int(nd), t.nnz)
		buf := make([]int64, step*max(nd, 1))
		for lo := int64(0); lo < t.nnz; lo += step {
			hi := min(lo+step, t.nnz)
			iop.Fill(t.matrix(), lo, hi, buf)
			for i := lo; i < hi; i++ {
				j := (i - lo) * nd
				if !yield(buf[j:j+nd:j+nd], vs[i]) {
					return
				}
			}
		}
	}
}

func mustValues[T arrowsparse.Value](t *Tensor) []T {
	v, err := Values[T](t)
	if err != nil {
		panic(arrowsparse.PanicError{Msg: err.Error()})
	}
	return v
}

// At returns the value at idx: the stored value, the sum of the stored
// duplicates, or zero if nothing is stored there. On a canonical tensor it
// binary-searches in O(ndim·log nnz); otherwise it scans all entries. It
// panics if T is not the value type, or idx has the wrong rank or an entry
// outside the shape.
func At[T arrowsparse.Value](t *Tensor, idx ...int64) T {
	vs := mustValues[T](t)
	if len(idx) != len(t.shape) {
		panic(arrowsparse.PanicError{Msg: "coo: index rank does not match the tensor's rank"})
	}
	for k, i := range idx {
		if uint64(i) >= uint64(t.shape[k]) {
			panic(arrowsparse.PanicError{Msg: "coo: index out of range"})
		}
	}
	var zero T
	if t.canonical {
		lo, hi := coords.For(t.indexType).Search(t.matrix(), idx)
		if lo < hi {
			return vs[lo]
		}
		return zero
	}
	// Sum the matches in storage order, in the value type.
	var perm []int64
	iop := coords.For(t.indexType)
	step := core.ChunkEntries(len(idx), t.nnz)
	buf := make([]int64, step*int64(len(idx)))
	for lo := int64(0); lo < t.nnz; lo += step {
		hi := min(lo+step, t.nnz)
		iop.Fill(t.matrix(), lo, hi, buf)
		for i := lo; i < hi; i++ {
			j := (i - lo) * int64(len(idx))
			if equal(buf[j:j+int64(len(idx))], idx) {
				perm = append(perm, i)
			}
		}
	}
	if len(perm) == 0 {
		return zero
	}
	out := []T{zero}
	vals.For(t.valueType).ReducePerm(core.BytesOf(vs), core.BytesOf(out), 0, perm, []int64{0, int64(len(perm))}, arrowsparse.SumDuplicates)
	return out[0]
}

func equal(a, b []int64) bool {
	for k := range a {
		if a[k] != b[k] {
			return false
		}
	}
	return true
}
