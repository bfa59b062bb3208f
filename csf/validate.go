package csf

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// Validate runs the full check of the tensor's structure, as New does
// without WithTrusted:
//
//   - the axis order is a permutation of the dimensions;
//   - there is one indptr buffer per level but the last, and one indices
//     buffer per level, of index types, large enough and aligned;
//   - every indptr starts at 0 (for a sub-tensor: at the first node of the
//     next level it uses), never decreases, and ends at the next level's
//     length;
//   - every index lies inside its dimension and the indices of each node's
//     children are strictly increasing;
//   - the last level's length equals NNZ, and the values buffer holds NNZ
//     values.
//
// It returns nil or an error wrapping arrow.ErrInvalid, arrow.ErrIndex or
// arrow.ErrType that names the level and position of the first failure.
func (t *Tensor) Validate() error {
	if err := checkHeader(t.valueType, t.shape, t.order, t.names); err != nil {
		return err
	}
	if err := t.checkSizes(); err != nil {
		return err
	}
	return t.checkStructure(true)
}

// checkSizes verifies types and buffer sizes, in O(ndim).
func (t *Tensor) checkSizes() error {
	nl := len(t.levels)
	for l := range t.levels {
		lv := &t.levels[l]
		if err := core.CheckIndexType(lv.idxType); err != nil {
			return core.Errorf(arrowsparse.ErrUnsupportedType, "csf: level %d indices: %w", l, err)
		}
		if lv.n < 0 {
			return core.Errorf(arrowsparse.ErrShape, "csf: level %d has negative length %d", l, lv.n)
		}
		if err := checkBuffer(lv.idx, lv.off+lv.n, lv.idxType, l, "indices"); err != nil {
			return err
		}
		if l == nl-1 {
			if lv.ptr != nil || lv.ptrType != nil {
				return core.Errorf(arrowsparse.ErrStructure, "csf: the last level (%d) has an indptr; a %d-d tensor has %d indptr buffers", l, nl, nl-1)
			}
			continue
		}
		if lv.ptr == nil || lv.ptrType == nil {
			return core.Errorf(arrowsparse.ErrStructure, "csf: level %d has no indptr; a %d-d tensor has %d indptr buffers", l, nl, nl-1)
		}
		if err := core.CheckIndexType(lv.ptrType); err != nil {
			return core.Errorf(arrowsparse.ErrUnsupportedType, "csf: level %d indptr: %w", l, err)
		}
		if err := checkBuffer(lv.ptr, lv.off+lv.n+1, lv.ptrType, l, "indptr"); err != nil {
			return err
		}
	}
	last := &t.levels[nl-1]
	if t.nnz < 0 {
		return core.Errorf(arrowsparse.ErrShape, "csf: negative number of stored values %d", t.nnz)
	}
	if last.n != t.nnz {
		return core.Errorf(arrowsparse.ErrStructure, "csf: the last level has %d nodes but nnz is %d", last.n, t.nnz)
	}
	if last.off-t.vshift < 0 {
		return core.Errorf(arrowsparse.ErrStructure, "csf: values start before the values buffer")
	}
	if err := checkBuffer(t.values, last.off-t.vshift+t.nnz, t.valueType, -1, "values"); err != nil {
		return err
	}
	for l := 0; l < nl-1; l++ {
		if t.levels[l].n == 0 && t.levels[l+1].n != 0 {
			return core.Errorf(arrowsparse.ErrStructure, "csf: level %d is empty but level %d has %d nodes", l, l+1, t.levels[l+1].n)
		}
	}
	for l, lv := range t.levels {
		if lv.n > 0 && t.shape[t.order[l]] == 0 {
			return core.Errorf(arrowsparse.ErrOutOfRange, "csf: level %d has %d nodes in dimension %d of size 0", l, lv.n, t.order[l])
		}
	}
	return nil
}

// checkStructure verifies the end points of every indptr, in O(ndim), and
// with content, everything else; the buffer sizes must have been checked.
func (t *Tensor) checkStructure(content bool) error {
	nl := len(t.levels)
	// End points, O(ndim).
	for l := 0; l < nl-1; l++ {
		lv, next := &t.levels[l], &t.levels[l+1]
		ops := opsFor(lv.ptrType)
		if first := ops.get(lv.ptr.Bytes(), lv.off); first != next.off {
			return core.Errorf(arrowsparse.ErrStructure, "csf: indptr of level %d starts at %d, want %d", l, first, next.off)
		}
		if end := ops.get(lv.ptr.Bytes(), lv.off+lv.n); end != next.off+next.n {
			return core.Errorf(arrowsparse.ErrStructure, "csf: indptr of level %d ends at %d, but level %d has %d nodes", l, end-next.off, l+1, next.n)
		}
	}
	if !content {
		return nil
	}
	for l := 0; l < nl-1; l++ {
		lv := &t.levels[l]
		if p := opsFor(lv.ptrType).firstDecrease(lv.ptr.Bytes(), lv.off, lv.off+lv.n); p >= 0 {
			return core.Errorf(arrowsparse.ErrStructure, "csf: indptr of level %d decreases at entry %d", l, p-lv.off)
		}
	}
	bounds := make([]int64, chunk+1)
	for l := range t.levels {
		lv := &t.levels[l]
		ops := opsFor(lv.idxType)
		dim := t.shape[t.order[l]]
		check := func(bounds []int64) error {
			p, outside := ops.checkRuns(lv.idx.Bytes(), bounds, dim)
			switch {
			case p < 0:
				return nil
			case outside:
				return core.Errorf(arrowsparse.ErrOutOfRange, "csf: index %d of level %d (dimension %d) is %d, outside [0, %d)", p-lv.off, l, t.order[l], ops.get(lv.idx.Bytes(), p), dim)
			}
			return core.Errorf(arrowsparse.ErrStructure, "csf: indices of level %d are not strictly increasing within a node at entry %d", l, p-lv.off)
		}
		if l == 0 {
			if err := check([]int64{lv.off, lv.off + lv.n}); err != nil {
				return err
			}
			continue
		}
		// The parents' indptr cuts the level into runs.
		par := &t.levels[l-1]
		pops := opsFor(par.ptrType)
		for i := int64(0); i < par.n; i += chunk {
			m := min(chunk, par.n-i)
			b := bounds[:m+1]
			pops.read(par.ptr.Bytes(), par.off+i, b)
			if err := check(b); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkBuffer is core.CheckBuffer naming the level (or the values, for l < 0).
func checkBuffer(buf *memory.Buffer, n int64, dt arrow.DataType, l int, what string) error {
	if l >= 0 {
		what = "level " + strconv.Itoa(l) + " " + what
	}
	return core.CheckBuffer(buf, n, dt, "csf: "+what)
}
