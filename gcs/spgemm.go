package gcs

import (
	"math/bits"
	"slices"
	"unsafe"

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
// workers. C's buffers are allocated once: at the number of
// multiplications when it is at most 4·(NNZ(A)+NNZ(B)), else at the exact
// size that a first pass counts (a marker per column and worker). The
// memory beyond the inputs and C is two arrays of B's columns per worker
// (a hash table per row instead, sized by the row's multiplications, when
// B has more columns than 4·(NNZ(A)+NNZ(B)) and 2^22), whatever the number
// of multiplications. C's indices have B's
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

// mergeLists is the largest number of entries of a row of A for which
// the numeric pass merges the sorted rows of B it scales (a heap of that
// many cursors) instead of accumulating them in a dense or hashed
// accumulator and sorting the columns. The merge reads B's rows in
// sequence and produces the columns in order; the accumulators touch a
// random place of an array of B's columns per multiplication.
const mergeLists = 16

// spa is a worker's accumulator for one row of C at a time: dense (a bit
// and a value per column of B) or, for very wide B, a hash table sized
// for the row; and the heap of the merge.
type spa[IB int32 | int64, T arrowsparse.Number] struct {
	dense bool
	bits  []uint64 // dense: a bit per column, set while the row holds it
	acc   []T      // dense: the column's sum in the current row
	keys  []int64  // hash: the column of each slot, -1 if free
	vals  []T      // hash: the slot's sum
	used  []int    // hash: the slots in use
	cols  []IB     // the columns of the current row, in first-touch order
	heap  []cursor // merge: one cursor per row of B, by (column, list)
	// colBits is the width of B's largest column; tmp is the radix
	// sort's scratch.
	colBits uint
	tmp     []IB
}

// cursor is a position in a row of B during a merge.
type cursor struct {
	col  int64 // the column at q
	list int   // the row's position in A's row: the order of the sum
	q    int64 // the position in B
	end  int64 // the end of B's row
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
		s := &spa[IB, T]{dense: dense, colBits: uint(bits.Len64(uint64(max(cols-1, 0))))}
		if dense {
			s.bits = make([]uint64, (cols+63)/64)
			s.acc = make([]T, cols)
		}
		spas[c] = s
	}

	// Room for each row, as a prefix sum: its number of multiplications
	// when they number at most 4·(NNZ(A)+NNZ(B)), an upper bound that
	// costs no pass; otherwise the exact number of columns, which a
	// symbolic pass counts, so that nothing is allocated in proportion to
	// the multiplications.
	room := flops
	if flops[rows] > 4*(a.nnz+b.nnz) {
		room = make([]int64, rows+1)
		par.Do(w, func(c int) {
			s := spas[c]
			for i := r[c]; i < r[c+1]; i++ {
				room[i+1] = countRow(s, ai[pa[i]:pa[i+1]], pb, bi, flops[i+1]-flops[i])
			}
		})
		for i := range rows {
			room[i+1] += room[i]
		}
	}
	n := room[rows]
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

	// Numeric pass: each worker writes its rows' non-zero sums, in column
	// order, one after the other from the start of its range's room;
	// kept[i+1] is how many row i keeps.
	kept := make([]int64, rows+1)
	written := make([]int64, w)
	merge := b.sorted
	pf := newPrefetcher(pb, bi, vb)
	par.Do(w, func(c int) {
		s := spas[c]
		start := room[r[c]]
		pos := start
		for i := r[c]; i < r[c+1]; i++ {
			// The rows of B that come next: their pointers four rows
			// ahead, their starts two rows ahead.
			if j := i + 2*prefetchAhead; j < r[c+1] {
				prefetchPointers(ai[pa[j]:pa[j+1]], pb)
			}
			if j := i + prefetchAhead; j < r[c+1] {
				prefetchRows(&pf, ai[pa[j]:pa[j+1]])
			}
			row := ai[pa[i]:pa[i+1]]
			x := va[pa[i]:pa[i+1]]
			end := pos + room[i+1] - room[i]
			var k int64
			if merge && len(row) <= mergeLists {
				k = mergeRow(s, row, x, pb, bi, vb, oi[pos:end], ov[pos:end])
			} else {
				k = accumulateRow(s, row, x, pb, bi, vb, flops[i+1]-flops[i], oi[pos:end], ov[pos:end])
			}
			kept[i+1] = k
			pos += k
		}
		written[c] = pos - start
	})
	for i := range rows {
		kept[i+1] += kept[i]
	}
	if m := kept[rows]; m != n {
		// Close the gaps between the workers' ranges, then keep exact
		// buffers: new ones when more than an eighth would be unused,
		// else slices of these.
		for c := 1; c < w; c++ {
			from, to := room[r[c]], kept[r[c]]
			copy(oi[to:to+written[c]], oi[from:from+written[c]])
			copy(ov[to:to+written[c]], ov[from:from+written[c]])
		}
		var ib, vb2 *memory.Buffer
		if m < n-n/8 {
			ib, vb2 = core.NewBuffer(mem, m*iw), core.NewBuffer(mem, m*vw)
			copy(ib.Bytes(), idxBuf.Bytes()[:m*iw])
			copy(vb2.Bytes(), valBuf.Bytes()[:m*vw])
		} else {
			ib, vb2 = memory.SliceBuffer(idxBuf, 0, int(m*iw)), memory.SliceBuffer(valBuf, 0, int(m*vw))
		}
		defer ib.Release()
		defer vb2.Release()
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

// begin prepares the accumulator for a row of at most f
// multiplications.
func (s *spa[IB, T]) begin(f int64) {
	s.cols = s.cols[:0]
	if s.dense {
		return
	}
	size := 16
	for int64(size) < 2*f {
		size <<= 1
	}
	if cap(s.keys) < size {
		s.keys = make([]int64, size)
		s.vals = make([]T, size)
		for i := range s.keys {
			s.keys[i] = -1
		}
	}
	s.keys, s.vals = s.keys[:size], s.vals[:size]
}

// radixCols is the number of columns of a row of C from which sortCols
// sorts them by radix (8 bits per pass) rather than by comparison.
const radixCols = 256

// sortCols sorts the columns of the current row.
func (s *spa[IB, T]) sortCols() {
	a := s.cols
	if len(a) < radixCols {
		slices.Sort(a)
		return
	}
	if cap(s.tmp) < len(a) {
		s.tmp = make([]IB, len(a), 2*len(a))
	}
	src, dst := a, s.tmp[:len(a)]
	for shift := uint(0); shift < s.colBits; shift += 8 {
		var at [256]int
		for _, x := range src {
			at[uint8(x>>shift)]++
		}
		sum := 0
		for d, c := range at {
			at[d] = sum
			sum += c
		}
		for _, x := range src {
			d := uint8(x >> shift)
			dst[at[d]] = x
			at[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &a[0] {
		copy(a, src)
	}
}

// end clears what the row left in the accumulator.
func (s *spa[IB, T]) end() {
	if s.dense {
		for _, j := range s.cols {
			s.bits[j>>6] = 0
		}
		return
	}
	for _, h := range s.used {
		s.keys[h] = -1
	}
	s.used = s.used[:0]
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

// countRow returns the number of distinct columns of a row of C, whose
// entries of A are in the columns row and which takes f multiplications
// (the symbolic pass).
func countRow[IA, IB int32 | int64, T arrowsparse.Number](s *spa[IB, T], row []IA, pb []int64, bi []IB, f int64) int64 {
	s.begin(f)
	if s.dense {
		bits := s.bits
		for _, k := range row {
			for _, j := range bi[pb[k]:pb[k+1]] {
				w, m := j>>6, uint64(1)<<(j&63)
				if bits[w]&m == 0 {
					bits[w] |= m
					s.cols = append(s.cols, j)
				}
			}
		}
	} else {
		for _, k := range row {
			for _, j := range bi[pb[k]:pb[k+1]] {
				if _, fresh := s.slot(j); fresh {
					s.cols = append(s.cols, j)
				}
			}
		}
	}
	n := int64(len(s.cols))
	s.end()
	return n
}

// accumulateRow computes a row of C, whose entries of A are the columns
// row with the values x and which takes f multiplications, in the
// accumulator, then writes its non-zero sums in column order to oi and
// ov and returns how many it wrote.
func accumulateRow[IA, IB int32 | int64, T arrowsparse.Number](s *spa[IB, T], row []IA, x []T, pb []int64, bi []IB, vb []T, f int64, oi []IB, ov []T) int64 {
	s.begin(f)
	x = x[:len(row)]
	if s.dense {
		bits, acc := s.bits, s.acc
		for p, k := range row {
			xp := x[p]
			cs, vs := bi[pb[k]:pb[k+1]], vb[pb[k]:pb[k+1]]
			vs = vs[:len(cs)]
			for q, j := range cs {
				w, m := j>>6, uint64(1)<<(j&63)
				if bits[w]&m == 0 {
					bits[w] |= m
					acc[j] = xp * vs[q]
					s.cols = append(s.cols, j)
				} else {
					acc[j] += xp * vs[q]
				}
			}
		}
	} else {
		for p, k := range row {
			xp := x[p]
			cs, vs := bi[pb[k]:pb[k+1]], vb[pb[k]:pb[k+1]]
			vs = vs[:len(cs)]
			for q, j := range cs {
				if h, fresh := s.slot(j); fresh {
					s.vals[h] = xp * vs[q]
					s.cols = append(s.cols, j)
				} else {
					s.vals[h] += xp * vs[q]
				}
			}
		}
	}
	s.sortCols()
	n := 0
	for _, j := range s.cols {
		var v T
		if s.dense {
			v = s.acc[j]
		} else {
			h, _ := s.slot(j)
			v = s.vals[h]
		}
		if v != 0 {
			oi[n], ov[n] = j, v
			n++
		}
	}
	s.end()
	return int64(n)
}

// mergeRow computes a row of C as accumulateRow does, by merging the
// sorted rows of B that the entries of A scale, and returns how many sums
// it wrote. B's rows must be sorted (duplicates adjacent). The sum of a
// column adds its products in the order of A's entries, as the
// accumulators do, so both give the same bits.
func mergeRow[IA, IB int32 | int64, T arrowsparse.Number](s *spa[IB, T], row []IA, x []T, pb []int64, bi []IB, vb []T, oi []IB, ov []T) int64 {
	h := s.heap[:0]
	for p, k := range row {
		if pb[k] < pb[k+1] {
			h = append(h, cursor{col: int64(bi[pb[k]]), list: p, q: pb[k], end: pb[k+1]})
		}
	}
	x = x[:len(row)]
	n := 0
	if len(h) == 1 {
		// One row of B, scaled; its duplicates are adjacent.
		c := h[0]
		xp := x[c.list]
		for q := c.q; q < c.end; {
			j, v := bi[q], xp*vb[q]
			for q++; q < c.end && bi[q] == j; q++ {
				v += xp * vb[q]
			}
			if v != 0 {
				oi[n], ov[n] = j, v
				n++
			}
		}
		s.heap = h
		return int64(n)
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		siftDown(h, i)
	}
	for len(h) > 0 {
		j := h[0].col
		var v T
		for len(h) > 0 && h[0].col == j {
			c := &h[0]
			v += x[c.list] * vb[c.q]
			c.q++
			if c.q < c.end {
				c.col = int64(bi[c.q])
			} else {
				h[0] = h[len(h)-1]
				h = h[:len(h)-1]
			}
			if len(h) > 0 {
				siftDown(h, 0)
			}
		}
		if v != 0 {
			oi[n], ov[n] = IB(j), v
			n++
		}
	}
	s.heap = h
	return int64(n)
}

// less orders cursors by column, then by their entry's place in A's row.
func (c *cursor) less(d *cursor) bool {
	return c.col < d.col || (c.col == d.col && c.list < d.list)
}

// siftDown restores the heap order below position i.
func siftDown(h []cursor, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h[r].less(&h[l]) {
			m = r
		}
		if !h[m].less(&h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// prefetchAhead is how many rows of C ahead of the one it computes a
// worker prefetches the rows of B that row of C needs (and twice as many
// ahead, their index pointers): B's rows are read in random order, and a
// row of C takes about a microsecond, longer than a miss to memory.
const prefetchAhead = 2

// prefetcher prefetches rows of B: the start of their indices and values.
type prefetcher struct {
	pb             []int64
	bi, vb         unsafe.Pointer
	bshift, vshift uint
}

// newPrefetcher returns a prefetcher of the rows of B, with index
// pointers pb, indices bi and values vb.
func newPrefetcher[IB int32 | int64, T arrowsparse.Number](pb []int64, bi []IB, vb []T) prefetcher {
	var i IB
	var v T
	return prefetcher{
		pb: pb, bi: unsafe.Pointer(unsafe.SliceData(bi)), vb: unsafe.Pointer(unsafe.SliceData(vb)),
		bshift: uint(bits.TrailingZeros(uint(unsafe.Sizeof(i)))), vshift: uint(bits.TrailingZeros(uint(unsafe.Sizeof(v)))),
	}
}

// prefetchRows prefetches the rows ks of B.
func prefetchRows[IA int32 | int64](f *prefetcher, ks []IA) {
	if !canPrefetch || len(ks) == 0 {
		return
	}
	p, pb := unsafe.Pointer(unsafe.SliceData(ks)), unsafe.Pointer(unsafe.SliceData(f.pb))
	if unsafe.Sizeof(ks[0]) == 4 {
		prefetchRows32(p, len(ks), pb, len(f.pb), f.bi, f.bshift, f.vb, f.vshift)
	} else {
		prefetchRows64(p, len(ks), pb, len(f.pb), f.bi, f.bshift, f.vb, f.vshift)
	}
}

// prefetchPointers prefetches the index pointers pb[k] of the rows ks of
// B.
func prefetchPointers[IA int32 | int64](ks []IA, pb []int64) {
	if !canPrefetch || len(ks) == 0 {
		return
	}
	p := unsafe.Pointer(unsafe.SliceData(ks))
	if unsafe.Sizeof(ks[0]) == 4 {
		prefetchPointers32(p, len(ks), unsafe.Pointer(unsafe.SliceData(pb)))
	} else {
		prefetchPointers64(p, len(ks), unsafe.Pointer(unsafe.SliceData(pb)))
	}
}
