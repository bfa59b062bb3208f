package csf

import (
	"cmp"
	"math/bits"
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/coords"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/densescan"
	"github.com/arrowsparse/arrowsparse/internal/keysort"
	"github.com/arrowsparse/arrowsparse/internal/par"
	"github.com/arrowsparse/arrowsparse/internal/strided"
	"github.com/arrowsparse/arrowsparse/internal/vals"
	"github.com/arrowsparse/arrowsparse/views"
)

// spec checks the options for a tensor of the given shape with up to n
// entries and returns the build specification. defType is the index type
// used when none is given.
func (o *ConvertOptions) spec(valueType arrow.DataType, shape []int64, names []string, n int64, defType arrow.DataType) (*buildSpec, error) {
	if err := o.Duplicates.Check(); err != nil {
		return nil, err
	}
	order := o.AxisOrder
	if order == nil {
		order = defaultOrder(shape)
	}
	if err := checkHeader(valueType, shape, order, names); err != nil {
		return nil, err
	}
	nl := len(shape)
	s := &buildSpec{
		valueType: valueType,
		shape:     slices.Clone(shape),
		names:     core.CloneDimNames(names),
		order:     slices.Clone(order),
		idxTypes:  make([]arrow.DataType, nl),
		ptrTypes:  make([]arrow.DataType, nl-1),
		workers:   workersOr(o.Workers),
	}
	base, ptrBase := o.IndexType, o.IndptrType
	if base == nil {
		base = defType
	}
	if ptrBase == nil {
		ptrBase = base
	}
	if o.LevelIndexTypes != nil && len(o.LevelIndexTypes) != nl {
		return nil, core.Errorf(arrowsparse.ErrStructure, "csf: %d level index types for %d levels", len(o.LevelIndexTypes), nl)
	}
	if o.LevelIndptrTypes != nil && len(o.LevelIndptrTypes) != nl-1 {
		return nil, core.Errorf(arrowsparse.ErrStructure, "csf: %d level indptr types for %d levels (want %d)", len(o.LevelIndptrTypes), nl, nl-1)
	}
	for l := range nl {
		s.idxTypes[l] = base
		if o.LevelIndexTypes != nil {
			s.idxTypes[l] = o.LevelIndexTypes[l]
		}
		if err := core.CheckIndexType(s.idxTypes[l]); err != nil {
			return nil, err
		}
		if d := shape[order[l]]; n > 0 && d > 0 {
			if err := core.CheckIndexFits(s.idxTypes[l], d-1, "the coordinates of dimension "+strconv.Itoa(order[l])); err != nil {
				return nil, err
			}
		}
		if l < nl-1 {
			s.ptrTypes[l] = ptrBase
			if o.LevelIndptrTypes != nil {
				s.ptrTypes[l] = o.LevelIndptrTypes[l]
			}
			if err := core.CheckIndexType(s.ptrTypes[l]); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

// defaultIndexType returns it if it holds every value up to max, else the
// narrowest signed index type that does.
func defaultIndexType(it arrow.DataType, max int64) arrow.DataType {
	if max <= arrowsparse.IndexMax(it) {
		return it
	}
	return arrowsparse.SmallestIndexType(max)
}

// FromCOO returns the CSF tensor of a COO tensor, in buffers from mem.
// Entries may come in any order; entries with equal coordinates are
// combined under o.Duplicates (summed by default; arrowsparse.RejectDuplicates makes
// them an error wrapping arrowsparse.ErrNotCanonical). Dimension names are kept.
//
// A canonical COO tensor converted in the axis order 0, 1, … is already in
// tree order: it is not sorted again, and its values buffer is shared.
// Otherwise FromCOO sorts 64-bit keys (the linear index in axis order, with
// the entry number below it) with a parallel radix sort, combines
// duplicates as the sorted groups come out, and builds the levels in two
// parallel streaming passes over the sorted keys. For an int64 leaf level and 8-byte values
// the sort runs inside the output buffers: the peak extra memory is the
// sort's per-worker bucket buffers. Hypersparse shapes whose keys do not
// fit in 64 bits (with the entry number) are sorted by one radix pass per
// part of the levels, which needs about 8·(2·parts+4) bytes per entry of
// scratch; a single dimension too large for any key makes it fall back to
// a comparison sort of coordinate rows.
//
// The result must be released by the caller.
func FromCOO(mem memory.Allocator, x *coo.Tensor, o ConvertOptions) (*Tensor, error) {
	shape := x.Shape()
	n := x.NNZ()
	maxPos := n
	for _, d := range shape {
		maxPos = max(maxPos, d-1)
	}
	s, err := o.spec(x.DataType(), shape, x.DimNames(), n, defaultIndexType(x.IndexType(), maxPos))
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return empty(mem, s), nil
	}
	var cbytes []byte
	if b := x.CoordsBuffer(); b != nil {
		cbytes = b.Bytes()
	}
	m := coords.Matrix{Type: x.IndexType(), Data: cbytes, N: n, Shape: shape, ColMajor: x.Layout() == coo.ColMajor}
	iop := coords.For(x.IndexType())
	src := entries{
		n:  n,
		in: x.ValuesBuffer().Bytes(),
		rows: func(lo, hi int64, dst []int64) {
			nd := int64(len(shape))
			tmp := make([]int64, (hi-lo)*nd)
			iop.Fill(m, lo, hi, tmp)
			for j := int64(0); j < hi-lo; j++ {
				for l, k := range s.order {
					dst[j*nd+int64(l)] = tmp[j*nd+int64(k)]
				}
			}
		},
	}
	if lin, ok := coords.Linearize(shape, s.order, n); ok {
		src.keyBits = lin.KeyBits
		src.keys = cooKeys(m, lin.Strides)
		if x.IsCanonical() && slices.IsSorted(s.order) {
			return fromSortedKeys(mem, s, &src, x.ValuesBuffer())
		}
	}
	return sortAndBuild(mem, s, &src, o.Duplicates)
}

// fromSortedKeys builds the tensor of entries that are already in tree
// order without duplicates (a canonical COO tensor in the axis order 0, 1,
// …): no sort is needed, and the values buffer is shared.
func fromSortedKeys(mem memory.Allocator, s *buildSpec, e *entries, values *memory.Buffer) (*Tensor, error) {
	nl := len(s.order)
	n := e.n
	var leaf *memory.Buffer
	var keys []uint64
	if arrowsparse.ByteWidth(s.idxTypes[nl-1]) == 8 {
		leaf = core.NewBuffer(mem, n*8)
		keys = core.MustSliceBytes[uint64](leaf.Bytes())
	} else {
		keys = make([]uint64, n)
	}
	cuts := splitLeaves(0, n, s.workers)
	par.Do(s.workers, func(c int) { e.keys(int(cuts[c]), int(cuts[c+1]), keys[cuts[c]:cuts[c+1]]) })
	vw := int64(arrowsparse.ByteWidth(s.valueType))
	b := newBuilder(s.levelSizes(), n, s.workers)
	b.setKeys([]int{0, nl}, [][]uint64{keys})
	return assemble(mem, s, b, sliceBuffer(values, 0, n*vw), leaf)
}

// cooKeys returns the keysort key function Σ coord[k]·strides[k] of a COO
// coordinate matrix.
//
// coords.Ops.Keys has fast paths for row-major matrices of rank 2 and 3
// that assume the last stride is 1, which holds only when the last
// dimension is last in the axis order; other row-major cases are computed
// here from coordinate rows instead.
func cooKeys(m coords.Matrix, strides []uint64) func(lo, hi int, dst []uint64) {
	nd := len(m.Shape)
	rowMajor := !m.ColMajor || m.N <= 1
	if !rowMajor || strides[nd-1] == 1 || (nd != 2 && nd != 3) {
		return coords.For(m.Type).Keys(m, strides)
	}
	iop := coords.For(m.Type)
	return func(lo, hi int, dst []uint64) {
		step := int(core.ChunkEntries(nd, int64(hi-lo)))
		buf := make([]int64, step*nd)
		for a := lo; a < hi; a += step {
			b := min(a+step, hi)
			iop.Fill(m, int64(a), int64(b), buf)
			for j := range b - a {
				var key uint64
				for k, c := range buf[j*nd : (j+1)*nd] {
					key += uint64(c) * strides[k]
				}
				dst[a-lo+j] = key
			}
		}
	}
}

// entries describes n entries to sort into a tree: their values and either
// their linear keys in axis order (keys not nil) or their coordinates.
type entries struct {
	n       int64
	in      []byte                         // n values of the value type
	keyBits uint                           // keys are below 1<<keyBits
	keys    func(lo, hi int, dst []uint64) // keys of entries [lo, hi); concurrent calls
	rows    func(lo, hi int64, dst []int64)
}

// sortAndBuild sorts the entries, combines duplicates under p and builds
// the tensor.
func sortAndBuild(mem memory.Allocator, s *buildSpec, e *entries, p arrowsparse.Duplicates) (*Tensor, error) {
	nl := len(s.order)
	n := e.n
	vt := s.valueType
	vw := int64(arrowsparse.ByteWidth(vt))
	vop := vals.For(vt)
	values := core.NewBuffer(mem, n*vw)
	vb := values.Bytes()
	dupErr := func() error {
		return core.Errorf(arrowsparse.ErrNotCanonical, "csf: duplicate coordinates, and the duplicate policy rejects them")
	}

	if e.keys == nil {
		if bounds := splitParts(s.levelSizes(), n); bounds != nil {
			values.Release()
			return sortParts(mem, s, e, p, bounds)
		}
		// Comparison sort of coordinate rows.
		rows := make([]int64, n*int64(nl))
		e.rows(0, n, rows)
		perm := make([]int64, n)
		for i := range perm {
			perm[i] = int64(i)
		}
		compare := func(a, b int64) int {
			ra, rb := rows[a*int64(nl):(a+1)*int64(nl)], rows[b*int64(nl):(b+1)*int64(nl)]
			return slices.Compare(ra, rb)
		}
		slices.SortFunc(perm, func(a, b int64) int {
			if r := compare(a, b); r != 0 {
				return r
			}
			return cmp.Compare(a, b)
		})
		starts := make([]int64, 0, n+1)
		for j := range perm {
			if j == 0 || compare(perm[j-1], perm[j]) != 0 {
				starts = append(starts, int64(j))
			}
		}
		starts = append(starts, n)
		if vop.ReducePerm(e.in, vb, 0, perm, starts, p) && p == arrowsparse.RejectDuplicates {
			values.Release()
			return nil, dupErr()
		}
		u := int64(len(starts) - 1)
		uniq := make([]int64, u*int64(nl))
		for r := range u {
			q := perm[starts[r]]
			copy(uniq[r*int64(nl):(r+1)*int64(nl)], rows[q*int64(nl):(q+1)*int64(nl)])
		}
		b := newBuilder(s.levelSizes(), u, s.workers)
		b.rows = uniq
		return assemble(mem, s, b, values, nil)
	}

	// Radix sort of linear keys. The unique keys go to the last indices
	// buffer when it is 8 bytes wide: the builder then turns each key into
	// its leaf index in place.
	var leaf *memory.Buffer
	var keys []uint64
	if arrowsparse.ByteWidth(s.idxTypes[nl-1]) == 8 {
		leaf = core.NewBuffer(mem, n*8)
		keys = core.MustSliceBytes[uint64](leaf.Bytes())
	} else {
		keys = make([]uint64, n)
	}
	var dup atomic.Bool
	srt := keysort.Sort{
		N:       int(n),
		KeyBits: e.keyBits,
		Workers: s.workers,
		Keys:    e.keys,
		Reduce: func(pos int, words []uint64, ib uint) int {
			// Keys first: the values may overwrite the words (Scratch2).
			c := 0
			last := words[0]>>ib + 1
			for _, w := range words {
				if k := w >> ib; k != last {
					keys[pos+c] = k
					c++
					last = k
				}
			}
			if _, d := vop.ReduceWords(e.in, vb, pos, words, ib, p); d {
				dup.Store(true)
			}
			return c
		},
		Move: func(dst, src, m int) {
			copy(keys[dst:dst+m], keys[src:src+m])
			copy(vb[int64(dst)*vw:], vb[int64(src)*vw:int64(src+m)*vw])
		},
		Scratch1: keys, // dead after the scatter, then holds the unique keys
	}
	if vw == 8 {
		srt.Scratch2 = core.MustSliceBytes[uint64](vb)
	}
	u := int64(srt.Run())
	if dup.Load() && p == arrowsparse.RejectDuplicates {
		values.Release()
		if leaf != nil {
			leaf.Release()
		}
		return nil, dupErr()
	}
	b := newBuilder(s.levelSizes(), u, s.workers)
	b.setKeys([]int{0, nl}, [][]uint64{keys[:u]})
	return assemble(mem, s, b, values, leaf)
}

// splitParts cuts the levels into runs, from the last level up, whose
// linear keys fit in a keysort word next to the numbers of n entries: part
// q is levels [bounds[q], bounds[q+1]). It returns nil if a single level
// does not fit.
func splitParts(sizes []int64, n int64) []int {
	budget := 64 - keysort.IndexBits(int(n))
	fits := func(size uint64) bool { return uint(bits.Len64(size-1)) <= budget }
	nl := len(sizes)
	bounds := []int{nl}
	prod := uint64(1) // product of the sizes of the current part's levels
	for l := nl - 1; l >= 0; l-- {
		sz := uint64(max(sizes[l], 1))
		if hi, lo := bits.Mul64(prod, sz); hi == 0 && fits(lo) {
			prod = lo
			continue
		}
		if !fits(sz) {
			return nil
		}
		bounds = append(bounds, l+1)
		prod = sz
	}
	bounds = append(bounds, 0)
	slices.Reverse(bounds)
	return bounds
}

// sortParts sorts entries whose keys do not fit in one word: each entry
// gets one key per part of the levels (see splitParts), and a stable radix
// sort per part, from the last part to the first, orders them (least
// significant digit first, with keysort as the digit sort). Runs of equal
// keys are combined under p.
func sortParts(mem memory.Allocator, s *buildSpec, e *entries, p arrowsparse.Duplicates, bounds []int) (*Tensor, error) {
	nl := len(s.order)
	n := e.n
	m := len(bounds) - 1
	sizes := s.levelSizes()
	stride := make([]uint64, nl) // key stride of each level within its part
	kb := make([]uint, m)
	for q := range m {
		sp := uint64(1)
		for l := bounds[q+1] - 1; l >= bounds[q]; l-- {
			stride[l] = sp
			sp *= uint64(max(sizes[l], 1))
		}
		kb[q] = uint(bits.Len64(sp - 1))
	}
	keys := make([][]uint64, m)
	for q := range keys {
		keys[q] = make([]uint64, n)
	}
	cuts := splitLeaves(0, n, s.workers)
	par.Do(s.workers, func(c int) {
		step := core.ChunkEntries(nl, cuts[c+1]-cuts[c])
		buf := make([]int64, step*int64(nl))
		for a := cuts[c]; a < cuts[c+1]; a += step {
			b := min(a+step, cuts[c+1])
			e.rows(a, b, buf)
			for j := range b - a {
				row := buf[j*int64(nl) : (j+1)*int64(nl)]
				for q := range m {
					var k uint64
					for l := bounds[q]; l < bounds[q+1]; l++ {
						k += uint64(row[l]) * stride[l]
					}
					keys[q][a+j] = k
				}
			}
		}
	})
	// perm is the order so far; each pass sorts it stably by one part.
	perm, next := make([]int64, n), make([]int64, n)
	for q := m - 1; q >= 0; q-- {
		first := q == m-1
		kq, cur, out := keys[q], perm, next
		srt := keysort.Sort{
			N:       int(n),
			KeyBits: kb[q],
			Workers: s.workers,
			Keys: func(lo, hi int, dst []uint64) {
				if first {
					copy(dst, kq[lo:hi])
					return
				}
				for i := lo; i < hi; i++ {
					dst[i-lo] = kq[cur[i]]
				}
			},
			Reduce: func(pos int, words []uint64, ib uint) int {
				mask := uint64(1)<<ib - 1
				for j, w := range words {
					i := int64(w & mask)
					if !first {
						i = cur[i]
					}
					out[pos+j] = i
				}
				return len(words)
			},
			Move: func(dst, src, m int) { copy(out[dst:dst+m], out[src:src+m]) },
		}
		srt.Run()
		perm, next = next, perm
	}
	next = nil
	same := func(a, b int64) bool {
		for q := range m {
			if keys[q][a] != keys[q][b] {
				return false
			}
		}
		return true
	}
	starts := make([]int64, 0, n+1)
	for j := range perm {
		if j == 0 || !same(perm[j-1], perm[j]) {
			starts = append(starts, int64(j))
		}
	}
	starts = append(starts, n)
	vw := int64(arrowsparse.ByteWidth(s.valueType))
	values := core.NewBuffer(mem, n*vw)
	if vals.For(s.valueType).ReducePerm(e.in, values.Bytes(), 0, perm, starts, p) && p == arrowsparse.RejectDuplicates {
		values.Release()
		return nil, core.Errorf(arrowsparse.ErrNotCanonical, "csf: duplicate coordinates, and the duplicate policy rejects them")
	}
	u := int64(len(starts) - 1)
	uniq := make([][]uint64, m)
	for q := range m {
		uniq[q] = make([]uint64, u)
		for r := range u {
			uniq[q][r] = keys[q][perm[starts[r]]]
		}
		keys[q] = nil
	}
	b := newBuilder(sizes, u, s.workers)
	b.setKeys(bounds, uniq)
	return assemble(mem, s, b, values, nil)
}

// FromDense returns the CSF tensor of the non-zero elements of src, in
// buffers from mem, as Arrow C++'s SparseCSFTensor::Make does. Negative
// zero counts as zero; NaN counts as non-zero. Any strides work; src may
// be any arrowsparse.Dense, whose layout is checked as views.New checks
// one. Dimension names are kept. The index types default to the narrowest
// signed type that holds every coordinate of the shape and every position;
// o.Duplicates does not apply. The result must be released by the caller.
func FromDense(mem memory.Allocator, src arrowsparse.Dense, o ConvertOptions) (*Tensor, error) {
	d, err := views.Of(src)
	if err != nil {
		return nil, err
	}
	defer d.Release()
	shape := d.Shape()
	vt := d.DataType()
	size := d.Len()
	maxPos := size
	for _, n := range shape {
		maxPos = max(maxPos, n-1)
	}
	s, err := o.spec(vt, shape, d.DimNames(), size, arrowsparse.SmallestIndexType(maxPos))
	if err != nil {
		return nil, err
	}
	nl := len(shape)
	vop := vals.For(vt)
	data := d.Buffer().Bytes()
	ds := d.ElemStrides()
	sizes := s.levelSizes()
	st := make([]int64, nl) // element stride of each level's dimension
	for l, k := range s.order {
		st[l] = ds[k]
	}
	// rows calls f for every row along the last level, in tree order, with
	// the row's first element and its key prefix (the linear index of the
	// row's first element in axis order).
	rows := func(f func(start int64, prefix uint64)) {
		if size == 0 {
			return
		}
		prefix, last := uint64(0), uint64(sizes[nl-1])
		strided.Walk(sizes[:nl-1], st[:nl-1], d.ElemOffset(), func(_ []int64, start int64) bool {
			f(start, prefix)
			prefix += last
			return true
		})
	}
	nnz, err := densescan.Precheck(d, int64(nl)*8+16, "csf")
	if err != nil {
		return nil, err
	}
	for l := 0; l < nl-1; l++ {
		if err := core.CheckIndexFits(s.ptrTypes[l], nnz, "the indptr of level "+strconv.Itoa(l)); err != nil {
			return nil, err
		}
	}
	if nnz == 0 {
		return empty(mem, s), nil
	}
	vw := int64(arrowsparse.ByteWidth(vt))
	values := core.NewBuffer(mem, nnz*vw)
	var leaf *memory.Buffer
	var keys []uint64
	if arrowsparse.ByteWidth(s.idxTypes[nl-1]) == 8 {
		leaf = core.NewBuffer(mem, nnz*8)
		keys = core.MustSliceBytes[uint64](leaf.Bytes())
	} else {
		keys = make([]uint64, nnz)
	}
	cols := make([]int64, sizes[nl-1])
	var at int64
	rows(func(start int64, prefix uint64) {
		c := vop.CollectNonzero(data, start, sizes[nl-1], st[nl-1], values.Bytes(), at, cols)
		for j, x := range cols[:c] {
			keys[at+int64(j)] = prefix + uint64(x)
		}
		at += int64(c)
	})
	b := newBuilder(sizes, nnz, s.workers)
	b.setKeys([]int{0, nl}, [][]uint64{keys})
	return assemble(mem, s, b, values, leaf)
}

// WithAxisOrder returns the tensor with its levels in another order, in
// new buffers from mem: the values are sorted into the new tree order.
// Level l of the result holds dimension order[l] with the indices type
// that the receiver uses for that dimension; indptr types stay with their
// level position. If order is the receiver's own, the receiver is returned,
// retained. It returns an error wrapping arrowsparse.ErrStructure if order is not a
// permutation of the dimensions. The result must be released by the
// caller.
func (t *Tensor) WithAxisOrder(mem memory.Allocator, order ...int) (*Tensor, error) {
	return t.withAxisOrder(mem, order, 0)
}

func (t *Tensor) withAxisOrder(mem memory.Allocator, order []int, workers int) (*Tensor, error) {
	nl := len(t.levels)
	if err := core.CheckPermutation(order, nl, "csf: axis order"); err != nil {
		return nil, err
	}
	if slices.Equal(order, t.order) {
		t.Retain()
		return t, nil
	}
	levelOf := make([]int, nl) // levelOf[k]: the receiver's level of dimension k
	for l, k := range t.order {
		levelOf[k] = l
	}
	o := ConvertOptions{AxisOrder: order, LevelIndexTypes: make([]arrow.DataType, nl), LevelIndptrTypes: make([]arrow.DataType, nl-1), Workers: workers}
	for l, k := range order {
		o.LevelIndexTypes[l] = t.levels[levelOf[k]].idxType
		if l < nl-1 {
			o.LevelIndptrTypes[l] = t.levels[l].ptrType
		}
	}
	s, err := o.spec(t.valueType, t.shape, t.names, t.nnz, nil)
	if err != nil {
		return nil, err
	}
	if t.nnz == 0 {
		return empty(mem, s), nil
	}
	lo, _ := t.leafRange()
	vw := int64(arrowsparse.ByteWidth(t.valueType))
	e := entries{
		n:  t.nnz,
		in: t.values.Bytes()[(lo-t.vshift)*vw:],
		rows: func(a, b int64, dst []int64) {
			t.walkRows(lo+a, lo+b, func(j int64, row []int64) {
				for l, k := range order {
					dst[j*int64(nl)+int64(l)] = row[levelOf[k]]
				}
			})
		},
	}
	if lin, ok := coords.Linearize(t.shape, order, t.nnz); ok {
		st := make([]uint64, nl) // key stride of each receiver level
		for l, k := range t.order {
			st[l] = lin.Strides[k]
		}
		e.keyBits = lin.KeyBits
		e.keys = func(a, b int, dst []uint64) {
			t.walkRows(lo+int64(a), lo+int64(b), func(j int64, row []int64) {
				var key uint64
				for l, c := range row {
					key += uint64(c) * st[l]
				}
				dst[j] = key
			})
		}
	}
	return sortAndBuild(mem, s, &e, arrowsparse.SumDuplicates)
}

// walkRows calls f(j, row) for leaves lo+j in [lo, hi) (absolute
// positions), with the leaf's level-order coordinates.
func (t *Tensor) walkRows(lo, hi int64, f func(j int64, row []int64)) {
	if lo >= hi {
		return
	}
	nl := int64(len(t.levels))
	w := newWalker(t)
	w.seek(lo)
	step := core.ChunkEntries(int(nl), hi-lo)
	buf := make([]int64, step*nl)
	for a := lo; a < hi; a += step {
		b := min(a+step, hi)
		w.fill(a, b, buf)
		for j := range b - a {
			f(a-lo+j, buf[j*nl:(j+1)*nl])
		}
	}
}
