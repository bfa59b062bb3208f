package gcs

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/par"
)

// MulMatrix returns the sparse matrix product C = A·B (SpGEMM) in buffers
// from mem. A's columns must number B's rows (an error wrapping
// arrowsparse.ErrShape otherwise), and both must hold the same value type,
// any but float16 (an error wrapping arrowsparse.ErrUnsupportedType
// otherwise); integer products and sums wrap around as Go's arithmetic
// does.
//
// C has A's compressed axis. CSR·CSR runs Gustavson's algorithm row by
// row; CSC·CSC computes the CSR Cᵀ = Bᵀ·Aᵀ over the same buffers (T) and
// returns its T; a B along the other axis is first transposed physically
// (ToCSR or ToCSC), so CSR·CSC and CSC·CSR cost one transpose of B more.
// For the transposed cases pass a.T() or b.T(). A and B need not be
// canonical: duplicates are summed.
//
// C is canonical (sorted indices, no duplicates), and its entries whose
// value is zero are dropped, as scipy's A @ B does. The work is split by
// rows of the CSR product among o.Workers goroutines in ranges of equal
// numbers of multiplications; each row is the sum, in A's storage order,
// of A's entries times B's rows, so C does not depend on the number of
// workers. A first pass counts each row's columns exactly (a marker per
// column and worker), so that C's buffers are allocated once at their
// final size: the memory beyond the inputs and C is two arrays of B's
// columns per worker (a hash table per row instead, sized by the row's
// multiplications, when B has more columns than 4·(NNZ(A)+NNZ(B)) and
// 2^22), whatever the number of multiplications. C's indices have B's
// index type (widened if B's columns need it) and its pointers A's
// pointer type, widened to hold NNZ(C). The result must be released by
// the caller.
func MulMatrix(mem memory.Allocator, a, b *Matrix, o KernelOptions) (*Matrix, error) {
	if a.cols != b.rows {
		return nil, core.Errorf(arrowsparse.ErrShape, "gcs: A is %d×%d and B is %d×%d", a.rows, a.cols, b.rows, b.cols)
	}
	if !arrow.TypeEqual(a.valueType, b.valueType) {
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "gcs: A holds %s and B holds %s", a.valueType, b.valueType)
	}
	if a.valueType.ID() == arrow.FLOAT16 {
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "gcs: MulMatrix of float16 matrices (convert them to float32)")
	}
	if b.axis != a.axis {
		var err error
		if a.axis == Rows {
			b, err = b.ToCSR(mem, ConvertOptions{Workers: o.Workers})
		} else {
			b, err = b.ToCSC(mem, ConvertOptions{Workers: o.Workers})
		}
		if err != nil {
			return nil, err
		}
		defer b.Release()
	}
	if a.axis == Cols {
		// C = (Bᵀ·Aᵀ)ᵀ, where Bᵀ and Aᵀ are CSR views of the same buffers.
		bt, at := b.T(), a.T()
		defer bt.Release()
		defer at.Release()
		ct, err := mulCSR(mem, bt, at, o.Workers)
		if err != nil {
			return nil, err
		}
		defer ct.Release()
		return ct.T(), nil
	}
	return mulCSR(mem, a, b, o.Workers)
}

// mulCSR returns A·B for CSR matrices A and B.
func mulCSR(mem memory.Allocator, a, b *Matrix, workers int) (*Matrix, error) {
	switch a.valueType.ID() {
	case arrow.INT8:
		return mulTyped[int8](mem, a, b, workers)
	case arrow.INT16:
		return mulTyped[int16](mem, a, b, workers)
	case arrow.INT32:
		return mulTyped[int32](mem, a, b, workers)
	case arrow.INT64:
		return mulTyped[int64](mem, a, b, workers)
	case arrow.UINT8:
		return mulTyped[uint8](mem, a, b, workers)
	case arrow.UINT16:
		return mulTyped[uint16](mem, a, b, workers)
	case arrow.UINT32:
		return mulTyped[uint32](mem, a, b, workers)
	case arrow.UINT64:
		return mulTyped[uint64](mem, a, b, workers)
	case arrow.FLOAT32:
		return mulTyped[float32](mem, a, b, workers)
	}
	return mulTyped[float64](mem, a, b, workers)
}

// wideIndices returns m's indices as int32 or int64 (ok false), in place
// when they have one of those types and widened into a copy otherwise.
func wideIndices(m *Matrix) (i32 []int32, i64 []int64, is32 bool) {
	switch m.indicesType.ID() {
	case arrow.INT32:
		return idxOf[int32](m), nil, true
	case arrow.INT64:
		return nil, idxOf[int64](m), false
	case arrow.UINT32:
		i64 = make([]int64, m.nnz)
		m.ix().indices(m, 0, m.nnz, i64)
		return nil, i64, false
	}
	i64 = make([]int64, m.nnz)
	m.ix().indices(m, 0, m.nnz, i64)
	i32 = make([]int32, m.nnz)
	for p, x := range i64 {
		i32[p] = int32(x)
	}
	return i32, nil, true
}

// pointers returns m's index pointers as int64s (in place if they are).
func pointers(m *Matrix) []int64 {
	major, _ := m.dims()
	if m.indptrType.ID() == arrow.INT64 {
		return ptrOf[int64](m)
	}
	p := make([]int64, major+1)
	m.ix().pointers(m, 0, major, p)
	return p
}

func mulTyped[T arrowsparse.Number](mem memory.Allocator, a, b *Matrix, workers int) (*Matrix, error) {
	a32, a64, aIs32 := wideIndices(a)
	b32, b64, bIs32 := wideIndices(b)
	switch {
	case aIs32 && bIs32:
		return gustavson(mem, a, b, a32, b32, workers, T(0))
	case aIs32:
		return gustavson(mem, a, b, a32, b64, workers, T(0))
	case bIs32:
		return gustavson(mem, a, b, a64, b32, workers, T(0))
	}
	return gustavson(mem, a, b, a64, b64, workers, T(0))
}

// spa is a worker's accumulator for one row of C at a time: dense (a
// marker and a value per column of B) or, for very wide B, a hash table
// sized for the row.
type spa[IB int32 | int64, T arrowsparse.Number] struct {
	dense bool
	mark  []int64 // dense: the tag of the row that last touched each column
	acc   []T     // dense: the column's sum in that row
	keys  []int64 // hash: the column of each slot, -1 if free
	vals  []T     // hash: the slot's sum
	used  []int   // hash: the slots in use
	cols  []IB    // the columns of the current row, in first-touch order
}

func gustavson[IA, IB int32 | int64, T arrowsparse.Number](mem memory.Allocator, a, b *Matrix, ai []IA, bi []IB, workers int, _ T) (*Matrix, error) {
	pa, pb := pointers(a), pointers(b)
	va := core.MustSlice[T](a.values, a.nnz)
	vb := core.MustSlice[T](b.values, b.nnz)
	rows, cols := a.rows, b.cols

	// Multiplications per row, as a prefix sum: the split of the rows
	// among the workers and the size of each row's hash table.
	flops := make([]int64, rows+1)
	for i := range rows {
		f := int64(0)
		for p := pa[i]; p < pa[i+1]; p++ {
			k := ai[p]
			f += pb[k+1] - pb[k]
		}
		flops[i+1] = flops[i] + f
	}
	w := 1
	if flops[rows]+a.nnz >= parallelNNZ {
		w = int(min(int64(par.Workers(workers)), max(rows, 1)))
	}
	r := splitLanes(flops, w)
	dense := cols <= 1<<22 || cols <= 4*(a.nnz+b.nnz)
	spas := make([]*spa[IB, T], w)
	for c := range spas {
		s := &spa[IB, T]{dense: dense}
		if dense {
			s.mark = make([]int64, cols)
			s.acc = make([]T, cols)
		}
		spas[c] = s
	}

	// Symbolic pass: the number of distinct columns of each row.
	cnt := make([]int64, rows+1)
	par.Do(w, func(c int) {
		s := spas[c]
		for i := r[c]; i < r[c+1]; i++ {
			s.begin(flops[i+1] - flops[i])
			for p := pa[i]; p < pa[i+1]; p++ {
				k := ai[p]
				for q := pb[k]; q < pb[k+1]; q++ {
					s.touch(2*i+1, bi[q])
				}
			}
			cnt[i+1] = int64(len(s.cols))
			s.end()
		}
	})
	for i := range rows {
		cnt[i+1] += cnt[i]
	}
	n := cnt[rows]
	it := widen(b.indicesType, cols-1)
	wt := arrowsparse.DataTypeOf[IB]()
	iw, vw := int64(arrowsparse.ByteWidth(wt)), int64(arrowsparse.ByteWidth(a.valueType))
	for _, need := range []int64{n * iw, n * vw} {
		if err := core.CheckAlloc(need, "gcs: the product"); err != nil {
			return nil, err
		}
	}
	idxBuf := core.NewBuffer(mem, n*iw)
	defer idxBuf.Release()
	valBuf := core.NewBuffer(mem, n*vw)
	defer valBuf.Release()
	oi := core.MustSlice[IB](idxBuf, n)
	ov := core.MustSlice[T](valBuf, n)

	// Numeric pass: each row's sums, in column order, zeros left out;
	// kept[i+1] is how many row i keeps.
	kept := make([]int64, rows+1)
	par.Do(w, func(c int) {
		s := spas[c]
		for i := r[c]; i < r[c+1]; i++ {
			s.begin(flops[i+1] - flops[i])
			for p := pa[i]; p < pa[i+1]; p++ {
				k, x := ai[p], va[p]
				for q := pb[k]; q < pb[k+1]; q++ {
					s.add(2*i+2, bi[q], x*vb[q])
				}
			}
			kept[i+1] = s.emit(oi[cnt[i]:cnt[i+1]], ov[cnt[i]:cnt[i+1]])
			s.end()
		}
	})
	for i := range rows {
		kept[i+1] += kept[i]
	}
	if kept[rows] != n {
		// Sums that cancelled were left out: close the gaps.
		m := kept[rows]
		ib, vb2 := core.NewBuffer(mem, m*iw), core.NewBuffer(mem, m*vw)
		defer ib.Release()
		defer vb2.Release()
		ni, nv := core.MustSlice[IB](ib, m), core.MustSlice[T](vb2, m)
		for i := range rows {
			l := kept[i+1] - kept[i]
			copy(ni[kept[i]:kept[i+1]], oi[cnt[i]:cnt[i]+l])
			copy(nv[kept[i]:kept[i+1]], ov[cnt[i]:cnt[i]+l])
		}
		idxBuf, valBuf, n = ib, vb2, m
	}
	pt := widen(a.indptrType, n)
	if arrowsparse.ByteWidth(pt) < 4 {
		pt = widen(arrow.PrimitiveTypes.Int32, n)
	}
	ptrBuf := core.NewBuffer(mem, (rows+1)*int64(arrowsparse.ByteWidth(pt)))
	writePointers(ptrBuf.Bytes(), pt, kept)
	c := adopt(Rows, rows, cols, nil, a.valueType, pt, wt, ptrBuf, idxBuf, valBuf, n, true, true)
	idxBuf.Retain()
	valBuf.Retain()
	if !arrow.TypeEqual(it, wt) {
		defer c.Release()
		return c.WithIndexTypes(mem, nil, it)
	}
	return c, nil
}

// writePointers writes int64 pointers to b as values of index type dt.
func writePointers(b []byte, dt arrow.DataType, p []int64) {
	switch dt.ID() {
	case arrow.INT32:
		d := core.MustSliceBytes[int32](b)
		for i, x := range p {
			d[i] = int32(x)
		}
	case arrow.UINT32:
		d := core.MustSliceBytes[uint32](b)
		for i, x := range p {
			d[i] = uint32(x)
		}
	default:
		copy(core.MustSliceBytes[int64](b), p)
	}
}

// begin prepares the accumulator for a row of at most f multiplications.
func (s *spa[IB, T]) begin(f int64) {
	s.cols = s.cols[:0]
	if s.dense {
		return
	}
	size := 16
	for int64(size) < 2*f {
		size <<= 1
	}
	if len(s.keys) < size {
		s.keys = make([]int64, size)
		s.vals = make([]T, size)
		for i := range s.keys {
			s.keys[i] = -1
		}
	}
	s.keys, s.vals = s.keys[:size], s.vals[:size]
}

// end clears what the row left in a hash accumulator.
func (s *spa[IB, T]) end() {
	if s.dense {
		return
	}
	for _, h := range s.used {
		s.keys[h] = -1
	}
	s.used = s.used[:0]
	s.keys, s.vals = s.keys[:cap(s.keys)], s.vals[:cap(s.vals)]
}

// slot returns the hash slot of column j, and whether it was free.
func (s *spa[IB, T]) slot(j IB) (int, bool) {
	mask := len(s.keys) - 1
	h := int(uint64(j)*0x9e3779b97f4a7c15>>32) & mask
	for {
		switch s.keys[h] {
		case int64(j):
			return h, false
		case -1:
			s.keys[h] = int64(j)
			s.used = append(s.used, h)
			return h, true
		}
		h = (h + 1) & mask
	}
}

// touch records column j in the row of the given tag (symbolic pass).
// Tags differ between rows and between the two passes over a row, so
// that the dense markers never need clearing.
func (s *spa[IB, T]) touch(tag int64, j IB) {
	if s.dense {
		if s.mark[j] != tag {
			s.mark[j] = tag
			s.cols = append(s.cols, j)
		}
		return
	}
	if _, fresh := s.slot(j); fresh {
		s.cols = append(s.cols, j)
	}
}

// add adds x to column j in the row of the given tag (numeric pass).
func (s *spa[IB, T]) add(tag int64, j IB, x T) {
	if s.dense {
		if s.mark[j] != tag {
			s.mark[j] = tag
			s.acc[j] = x
			s.cols = append(s.cols, j)
			return
		}
		s.acc[j] += x
		return
	}
	h, fresh := s.slot(j)
	if fresh {
		s.vals[h] = x
		s.cols = append(s.cols, j)
		return
	}
	s.vals[h] += x
}

// emit writes the row's non-zero sums in column order and returns how
// many it wrote.
func (s *spa[IB, T]) emit(oi []IB, ov []T) int64 {
	slices.Sort(s.cols)
	n := 0
	for _, j := range s.cols {
		var x T
		if s.dense {
			x = s.acc[j]
		} else {
			h, _ := s.slot(j)
			x = s.vals[h]
		}
		if x != 0 {
			oi[n], ov[n] = j, x
			n++
		}
	}
	return int64(n)
}
