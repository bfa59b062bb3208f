package gcs

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// ixOps are the kernels that depend on the two index types of a matrix: P
// of the pointers and I of the indices. ixFor picks them once per call.
type ixOps interface {
	// checkPointers verifies that indptr starts at 0, never decreases and
	// ends at nnz.
	checkPointers(m *Matrix) error
	// checkIndices verifies that every index lies inside the minor
	// dimension and reports whether every lane is sorted (non-decreasing)
	// and canonical (strictly increasing).
	checkIndices(m *Matrix) (sorted, canonical bool, err error)
	// lane returns the entry range [lo, hi) of lane k.
	lane(m *Matrix, k int64) (lo, hi int64)
	// search returns the entries of lane k whose index is j, in a sorted
	// matrix: a range [lo, hi).
	search(m *Matrix, k, j int64) (lo, hi int64)
	// lowerBound returns the first entry of [lo, hi) whose index is ≥ j, in
	// a sorted matrix.
	lowerBound(m *Matrix, lo, hi, j int64) int64
	// scan appends to dst the entries of lane k whose index is j, in
	// storage order.
	scan(m *Matrix, k, j int64, dst []int64) []int64
	// indices writes the indices of entries [lo, hi) to dst as int64.
	indices(m *Matrix, lo, hi int64, dst []int64)
	// pointers writes the pointers of lanes [lo, hi] to dst as int64.
	pointers(m *Matrix, lo, hi int64, dst []int64)
	// compressor returns the kernel that writes sorted output.
	compressor() compressor
	// entries writes the lane and the index of each entry of [lo, hi).
	entries(m *Matrix, lo, hi int64, lanes, idx []int64)
	// transposeKeys and transposePairs give the sort keys of the
	// transposed matrix.
	transposeKeys(m *Matrix, packed uint) func(lo, hi int, dst []uint64)
	// countIndices adds one to h[index>>sh] for the index of every entry
	// of [lo, hi): the histogram of the transposed matrix's lanes.
	countIndices(m *Matrix) func(lo, hi int, sh uint, h []int)
	transposePairs(m *Matrix) func(lo, hi int, dst []uint64)
}

// ixFor returns the kernels for the index types pt (pointers) and it
// (indices), which must be index types.
func ixFor(pt, it arrow.DataType) ixOps {
	switch pt.ID() {
	case arrow.INT8:
		return ixWith[int8](it)
	case arrow.INT16:
		return ixWith[int16](it)
	case arrow.INT32:
		return ixWith[int32](it)
	case arrow.INT64:
		return ixWith[int64](it)
	case arrow.UINT8:
		return ixWith[uint8](it)
	case arrow.UINT16:
		return ixWith[uint16](it)
	case arrow.UINT32:
		return ixWith[uint32](it)
	}
	panic(arrowsparse.PanicError{Msg: "gcs: " + pt.String() + " is not an index type"})
}

func ixWith[P arrowsparse.Index](it arrow.DataType) ixOps {
	switch it.ID() {
	case arrow.INT8:
		return ix[P, int8]{}
	case arrow.INT16:
		return ix[P, int16]{}
	case arrow.INT32:
		return ix[P, int32]{}
	case arrow.INT64:
		return ix[P, int64]{}
	case arrow.UINT8:
		return ix[P, uint8]{}
	case arrow.UINT16:
		return ix[P, uint16]{}
	case arrow.UINT32:
		return ix[P, uint32]{}
	}
	panic(arrowsparse.PanicError{Msg: "gcs: " + it.String() + " is not an index type"})
}

func (m *Matrix) ix() ixOps { return ixFor(m.indptrType, m.indicesType) }

type ix[P, I arrowsparse.Index] struct{}

// ptrOf returns the pointers of m as a []P; the type has been checked.
func ptrOf[P arrowsparse.Index](m *Matrix) []P {
	major, _ := m.dims()
	return core.MustSlice[P](m.indptr, major+1)
}

// idxOf returns the indices of m as a []I; the type has been checked.
func idxOf[I arrowsparse.Index](m *Matrix) []I { return core.MustSlice[I](m.indices, m.nnz) }

func (ix[P, I]) checkPointers(m *Matrix) error {
	ptr := ptrOf[P](m)
	if ptr[0] != 0 {
		return core.Errorf(arrowsparse.ErrStructure, "gcs: indptr starts at %d, not 0", int64(ptr[0]))
	}
	for k := 1; k < len(ptr); k++ {
		if ptr[k] < ptr[k-1] {
			return core.Errorf(arrowsparse.ErrStructure, "gcs: indptr decreases from %d to %d at %s %d", int64(ptr[k-1]), int64(ptr[k]), m.axis.singular(), k-1)
		}
	}
	if last := int64(ptr[len(ptr)-1]); last != m.nnz {
		return core.Errorf(arrowsparse.ErrStructure, "gcs: indptr ends at %d, but nnz is %d", last, m.nnz)
	}
	return nil
}

func (ix[P, I]) checkIndices(m *Matrix) (sorted, canonical bool, err error) {
	ptr, idx := ptrOf[P](m), idxOf[I](m)
	_, minor := m.dims()
	sorted, canonical = true, true
	for k := 0; k+1 < len(ptr); k++ {
		lane := idx[ptr[k]:ptr[k+1]]
		prev := int64(-1)
		for _, c := range lane {
			j := int64(c)
			if j < 0 || j >= minor {
				return false, false, core.Errorf(arrowsparse.ErrOutOfRange, "gcs: index %d in %s %d is outside [0, %d)", j, m.axis.singular(), k, minor)
			}
			if j <= prev {
				canonical = false
				if j < prev {
					sorted = false
				}
			}
			prev = j
		}
	}
	return sorted, canonical, nil
}

func (ix[P, I]) lane(m *Matrix, k int64) (int64, int64) {
	ptr := ptrOf[P](m)
	return int64(ptr[k]), int64(ptr[k+1])
}

func (o ix[P, I]) search(m *Matrix, k, j int64) (int64, int64) {
	lo, hi := o.lane(m, k)
	lo = o.lowerBound(m, lo, hi, j)
	idx := idxOf[I](m)
	e := lo
	for e < hi && int64(idx[e]) == j {
		e++
	}
	return lo, e
}

func (ix[P, I]) lowerBound(m *Matrix, lo, hi, j int64) int64 {
	idx := idxOf[I](m)
	for lo < hi {
		mid := int64(uint64(lo+hi) >> 1)
		if int64(idx[mid]) < j {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

func (o ix[P, I]) scan(m *Matrix, k, j int64, dst []int64) []int64 {
	lo, hi := o.lane(m, k)
	idx := idxOf[I](m)
	for p := lo; p < hi; p++ {
		if int64(idx[p]) == j {
			dst = append(dst, p)
		}
	}
	return dst
}

func (ix[P, I]) indices(m *Matrix, lo, hi int64, dst []int64) {
	for j, c := range idxOf[I](m)[lo:hi] {
		dst[j] = int64(c)
	}
}

func (ix[P, I]) pointers(m *Matrix, lo, hi int64, dst []int64) {
	for j, c := range ptrOf[P](m)[lo : hi+1] {
		dst[j] = int64(c)
	}
}

func (ix[P, I]) compressor() compressor { return comp[P, I]{} }

// transposeKeys returns a sort key function giving entry p the key
// index(p)·major + lane(p), or index(p)<<packed | lane(p) when packed is not
// zero: the order of the transposed matrix.
func (ix[P, I]) transposeKeys(m *Matrix, packed uint) func(lo, hi int, dst []uint64) {
	ptr, idx := ptrOf[P](m), idxOf[I](m)
	mul := uint64(len(ptr) - 1)
	if packed > 0 {
		mul = uint64(1) << packed
	}
	return func(lo, hi int, dst []uint64) {
		// Without a branch per entry (lanes are short; its mispredictions
		// cost more than the rest): first dst[p-lo] is set to the last lane
		// starting at p, then a running maximum gives the lane of each
		// entry, as lanes ascend. (Counting the lanes that start at p
		// instead would chain the increments of a run of empty lanes, one
		// store waiting on the last: most of the time of a hypersparse
		// matrix.)
		dst = dst[:hi-lo]
		clear(dst)
		k := laneOf(ptr, int64(lo))
		for l := k + 1; l < int64(len(ptr)-1) && int(ptr[l]) < hi; l++ {
			dst[int(ptr[l])-lo] = uint64(l) // ptr[l] > lo: lane k is the last to start at or before lo
		}
		lane := uint64(k)
		src := idx[lo:hi]
		for q := range dst {
			lane = max(lane, dst[q])
			dst[q] = uint64(src[q])*mul + lane
		}
	}
}

func (ix[P, I]) countIndices(m *Matrix) func(lo, hi int, sh uint, h []int) {
	idx := idxOf[I](m)
	return func(lo, hi int, sh uint, h []int) {
		for _, c := range idx[lo:hi] {
			h[uint64(c)>>sh]++
		}
	}
}

// transposePairs returns a two-word sort key function giving entry p the
// key (index(p), lane(p)).
func (ix[P, I]) transposePairs(m *Matrix) func(lo, hi int, dst []uint64) {
	ptr, idx := ptrOf[P](m), idxOf[I](m)
	return func(lo, hi int, dst []uint64) {
		k := laneOf(ptr, int64(lo))
		for p := lo; p < hi; p++ {
			for int64(p) >= int64(ptr[k+1]) {
				k++
			}
			dst[2*(p-lo)], dst[2*(p-lo)+1] = uint64(idx[p]), uint64(k)
		}
	}
}

// laneOf returns the lane holding entry p (p < nnz): the last k with
// ptr[k] ≤ p, skipping empty lanes.
func laneOf[P arrowsparse.Index](ptr []P, p int64) int64 {
	lo, hi := 0, len(ptr)-1 // answer in [lo, hi)
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if int64(ptr[mid]) <= p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return int64(lo)
}

func (ix[P, I]) entries(m *Matrix, lo, hi int64, lanes, idx []int64) {
	if lo >= hi {
		return
	}
	ptr, ind := ptrOf[P](m), idxOf[I](m)
	k := laneOf(ptr, lo)
	end := int64(ptr[k+1])
	for p := lo; p < hi; p++ {
		for p >= end {
			k++
			end = int64(ptr[k+1])
		}
		lanes[p-lo], idx[p-lo] = k, int64(ind[p])
	}
}
