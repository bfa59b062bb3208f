package csf

import (
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
		workers:   par.Workers(o.Workers),
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
// Otherwise FromCOO sorts the linear indices in axis order (one 64-bit
// key word, or one per part of the levels when the shape has 2^64
// elements or more) with a parallel radix sort that moves each value with
// its key (internal/keysort Carry), combines duplicates as the sorted
// buckets come out, and builds the levels in two parallel streaming passes
// over the sorted keys. Memory, beyond the output: with one key word and
// an int64 leaf level the sort stages in the output buffers, so the peak
// extra memory is the sort's per-worker bucket buffers (a few MiB); with
// a narrower leaf level the keys take 8 bytes per entry; with W key words,
// 8·W bytes per entry for the keys plus 4 to 8·W for the staged key bits.
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
	lin := coords.Linearize(shape, s.order)
	src := entries{
		n:       n,
		in:      x.ValuesBuffer().Bytes(),
		keyBits: lin.KeyBits,
		bounds:  lin.Bounds,
		keys:    coords.For(x.IndexType()).Keys(m, lin.Strides),
	}
	if x.IsCanonical() && slices.IsSorted(s.order) {
		return fromSortedKeys(mem, s, &src, x.ValuesBuffer())
	}
	return sortAndBuild(mem, s, &src, o.Duplicates)
}

// fromSortedKeys builds the tensor of entries that are already in tree
// order without duplicates (a canonical COO tensor in the axis order 0, 1,
// …): no sort is needed, and the values buffer is shared.
func fromSortedKeys(mem memory.Allocator, s *buildSpec, e *entries, values *memory.Buffer) (*Tensor, error) {
	nl := len(s.order)
	n := e.n
	w := len(e.keyBits)
	var leaf *memory.Buffer
	keys := make([][]uint64, w)
	if w == 1 && arrowsparse.ByteWidth(s.idxTypes[nl-1]) == 8 {
		leaf = core.NewBuffer(mem, n*8)
		keys[0] = core.MustSliceBytes[uint64](leaf.Bytes())
	} else {
		for q := range keys {
			keys[q] = make([]uint64, n)
		}
	}
	cuts := splitLeaves(0, n, s.workers)
	par.Do(s.workers, func(c int) {
		if w == 1 {
			e.keys(int(cuts[c]), int(cuts[c+1]), keys[0][cuts[c]:cuts[c+1]])
			return
		}
		buf := make([]uint64, chunk*w)
		for a := cuts[c]; a < cuts[c+1]; a += chunk {
			b := min(a+chunk, cuts[c+1])
			e.keys(int(a), int(b), buf)
			for j := range b - a {
				for q := range w {
					keys[q][a+j] = buf[j*int64(w)+int64(q)]
				}
			}
		}
	})
	vw := int64(arrowsparse.ByteWidth(s.valueType))
	b := newBuilder(s.levelSizes(), n, s.workers)
	b.setKeys(e.bounds, keys)
	return assemble(mem, s, b, sliceBuffer(values, 0, n*vw), leaf)
}

// entries describes n entries to sort into a tree: their values and their
// keys in axis order (coords.Linearization: one word per part of the
// levels).
type entries struct {
	n       int64
	in      []byte                         // n values of the value type
	keyBits []uint                         // word q of a key is below 1<<keyBits[q]
	bounds  []int                          // part q is levels [bounds[q], bounds[q+1])
	keys    func(lo, hi int, dst []uint64) // keys of entries [lo, hi), len(keyBits) words each; concurrent calls
}

// sortAndBuild sorts the entries, combines duplicates under p and builds
// the tensor.
//
// The sort is keysort.Carry, which moves the values with the keys; Reduce
// writes the distinct keys, one array per key word, and the combined
// values. With one key word and an 8-byte leaf indices type the keys go to
// the leaf indices buffer, where the builder turns each key into its leaf
// index in place, and the sort stages in the output buffers.
func sortAndBuild(mem memory.Allocator, s *buildSpec, e *entries, p arrowsparse.Duplicates) (*Tensor, error) {
	nl := len(s.order)
	n := e.n
	w := len(e.keyBits)
	vt := s.valueType
	vw := int64(arrowsparse.ByteWidth(vt))
	vop := vals.For(vt)
	values := core.NewBuffer(mem, n*vw)
	vb := values.Bytes()
	var leaf *memory.Buffer
	keys := make([][]uint64, w)
	if w == 1 && arrowsparse.ByteWidth(s.idxTypes[nl-1]) == 8 {
		leaf = core.NewBuffer(mem, n*8)
		keys[0] = core.MustSliceBytes[uint64](leaf.Bytes())
	} else {
		for q := range keys {
			keys[q] = make([]uint64, n)
		}
	}
	var dup atomic.Bool
	srt := keysort.Carry{
		N:       int(n),
		KeyBits: e.keyBits,
		Workers: s.workers,
		Keys:    e.keys,
		In:      e.in,
		VW:      int(vw),
		Reduce: func(pos int, b *keysort.Bucket) int {
			c := 0
			var last uint64
			for q, x := range b.Words {
				if kn := x >> b.IB; q > 0 && kn == last {
					continue
				}
				last = x >> b.IB
				if w == 1 {
					keys[0][pos+c] = b.Key(x)
				} else {
					for i, k := range b.KeyWords(x) {
						keys[i][pos+c] = k
					}
				}
				c++
			}
			if _, d := vop.ReduceWords(b.Vals, vb, pos, b.Words, b.IB, p); d {
				dup.Store(true)
			}
			return c
		},
		Move: func(dst, src, m int) {
			for _, k := range keys {
				copy(k[dst:dst+m], k[src:src+m])
			}
			copy(vb[int64(dst)*vw:], vb[int64(src)*vw:int64(src+m)*vw])
		},
		StageVals: vb,
		Mem:       mem,
	}
	if w == 1 {
		srt.StageKeys, srt.StageKeyStride = core.BytesOf(keys[0]), 8
	}
	u := int64(srt.Run())
	if dup.Load() && p == arrowsparse.RejectDuplicates {
		values.Release()
		if leaf != nil {
			leaf.Release()
		}
		return nil, core.Errorf(arrowsparse.ErrNotCanonical, "csf: duplicate coordinates, and the duplicate policy rejects them")
	}
	for q := range keys {
		keys[q] = keys[q][:u]
	}
	b := newBuilder(s.levelSizes(), u, s.workers)
	b.setKeys(e.bounds, keys)
	return assemble(mem, s, b, values, leaf)
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
	b.setKeys([]int{0, nl}, [][]uint64{keys}) // a dense shape has fewer than 2^63 elements: one part
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
	lin := coords.Linearize(t.shape, order)
	e := entries{
		n:       t.nnz,
		in:      t.values.Bytes()[(lo-t.vshift)*vw:],
		keyBits: lin.KeyBits,
		bounds:  lin.Bounds,
		keys:    t.levelKeys(lo, lin.Strides, t.order),
	}
	return sortAndBuild(mem, s, &e, arrowsparse.SumDuplicates)
}

// levelKeys returns a key function for the leaves from lo on: word q of
// a leaf's key is Σ coord[k]·strides[q][k] over its coordinates in axis
// numbering, where level l of the receiver holds dimension axes[l] (an
// axis beyond len(strides[q]) — TTV's contracted mode, numbered -1 — has
// weight 0).
func (t *Tensor) levelKeys(lo int64, strides [][]uint64, axes []int) func(a, b int, dst []uint64) {
	nl := len(axes)
	w := len(strides)
	st := make([][]uint64, w) // st[q][l]: weight of receiver level l in word q
	for q := range w {
		st[q] = make([]uint64, nl)
		for l, k := range axes {
			if k >= 0 {
				st[q][l] = strides[q][k]
			}
		}
	}
	return func(a, b int, dst []uint64) {
		t.walkRows(lo+int64(a), lo+int64(b), func(j int64, row []int64) {
			for q := range w {
				var key uint64
				for l, c := range row {
					key += uint64(c) * st[q][l]
				}
				dst[j*int64(w)+int64(q)] = key
			}
		})
	}
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
