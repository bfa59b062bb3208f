package csf

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// tree gives typed access to the levels for the hot kernels: every indptr
// as a []P and every indices buffer as a []X, each sliced from element 0
// of its buffer, so that node positions and indptr entries index them
// directly (a sub-tensor uses a range of them).
type tree[P, X arrowsparse.Index] struct {
	ptr [][]P // nil on the last level
	idx [][]X
}

// wideIndex reports whether the kernels read the tree with int64 indptr
// (ptr) or indices (!ptr): when some level uses int64 or uint32. Otherwise
// int32 holds every value.
func (t *Tensor) wideIndex(ptr bool) bool {
	for _, lv := range t.levels {
		dt := lv.idxType
		if ptr {
			dt = lv.ptrType
		}
		if dt != nil && (dt.ID() == arrow.INT64 || dt.ID() == arrow.UINT32) {
			return true
		}
	}
	return false
}

// typedTree returns the levels of t as a tree[P, X]. If the levels have
// exactly these types the slices alias the buffers; otherwise the levels
// are widened into new Go slices (which the kernels then read), so the
// caller chooses P and X wide enough.
func typedTree[P, X arrowsparse.Index](t *Tensor) tree[P, X] {
	nl := len(t.levels)
	tr := tree[P, X]{ptr: make([][]P, nl), idx: make([][]X, nl)}
	for l := range t.levels {
		lv := &t.levels[l]
		tr.idx[l] = levelSlice[X](lv.idx, lv.idxType, lv.off+lv.n)
		if l < nl-1 {
			tr.ptr[l] = levelSlice[P](lv.ptr, lv.ptrType, lv.off+lv.n+1)
		}
	}
	return tr
}

// levelSlice returns the first n elements of b, of type dt, as a []I:
// aliasing b if dt is I's type, else converted into a new slice.
func levelSlice[I arrowsparse.Index](b *memory.Buffer, dt arrow.DataType, n int64) []I {
	if arrowsparse.TypeMatches[I](dt) {
		return core.MustSlice[I](b, n)
	}
	out := make([]I, n)
	ops := opsFor(dt)
	buf := make([]int64, chunk)
	for i := int64(0); i < n; i += chunk {
		m := min(chunk, n-i)
		ops.read(b.Bytes(), i, buf[:m])
		for j, v := range buf[:m] {
			out[i+int64(j)] = I(v)
		}
	}
	return out
}
