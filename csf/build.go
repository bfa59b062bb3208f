package csf

import (
	"math/bits"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/divide"
	"github.com/arrowsparse/arrowsparse/internal/par"
)

// builder turns sorted, distinct entries into the levels of a tree. The
// entries come as linear keys in axis order: the key of a coordinate tuple
// c is Σ c[l]·S[l], where S[l] is the product of the sizes of the levels
// below l. When that does not fit in 64 bits, the levels are cut into
// parts whose keys do (each entry then has one key per part, compared top
// part first; coords.Linearize cuts them).
//
// The node of level l that holds a key covers the key range [base,
// base+S[l]). A key starts a new node on level l, and on every level below
// it, when it passes the end of the current node's range: finding the
// first such level takes a comparison per level, and each new node costs
// one division (by S[l]), so a key that only adds a leaf to the current
// fiber costs no division at all (nextKey). Where new nodes come at random,
// about every other entry (a matrix with about one entry per row), those
// early exits mispredict, and a walk that compares and divides on every
// level for every entry, without a branch, is faster (nextFlat); each
// chunk picks its walk from the counts of its first entries (flatWalk).
//
// The build makes two passes over the entries, both split into chunks that
// run in parallel: the first counts the new nodes per level in each chunk,
// the second writes indices and indptr at the positions that the counts
// give. An indptr entry is the position of the node's first child, which
// the same entry creates.
type builder struct {
	nl    int
	sizes []int64
	parts []part // the entries' keys
	u     int64  // number of entries

	chunks []int64    // chunk c is entries [chunks[c], chunks[c+1])
	before [][]int64  // before[c][l]: nodes of level l made by chunks < c
	prev   [][]uint64 // prev[c]: the keys of the entry before chunk c (read before pass 2)
	counts []int64    // nodes per level
	hist   [][]int64  // hist[c][d]: entries of chunk c that start new nodes from level d down
}

// part is a run of levels [lo, hi) whose keys fit in 64 bits.
type part struct {
	lo, hi int
	keys   []uint64         // per entry, sorted with the keys of the parts above
	span   []uint64         // span[l-lo]: the key range of a level-l node
	divs   []divide.Divider // divs[l-lo] divides by span[l-lo]
}

func newBuilder(sizes []int64, u int64, workers int) *builder {
	b := &builder{nl: len(sizes), sizes: sizes, u: u}
	if u < 1<<14 {
		workers = 1
	}
	b.chunks = make([]int64, workers+1)
	for c := range workers + 1 {
		b.chunks[c] = u * int64(c) / int64(workers)
	}
	return b
}

// setKeys gives the entries as keys: part q covers levels [bounds[q],
// bounds[q+1]) and keys[q] holds its keys. The product of the sizes of a
// part's levels must fit in 64 bits.
func (b *builder) setKeys(bounds []int, keys [][]uint64) {
	b.parts = make([]part, len(keys))
	for q := range b.parts {
		pt := &b.parts[q]
		pt.lo, pt.hi, pt.keys = bounds[q], bounds[q+1], keys[q]
		pt.span = make([]uint64, pt.hi-pt.lo)
		pt.divs = make([]divide.Divider, pt.hi-pt.lo)
		sp := uint64(1)
		for l := pt.hi - 1; l >= pt.lo; l-- {
			pt.span[l-pt.lo] = sp
			pt.divs[l-pt.lo] = divide.New(sp)
			sp *= uint64(max(b.sizes[l], 1))
		}
	}
}

// pathState is the path to the last entry a pass has read: for each level
// of a part but its last, the key range [base, lim) of its node; the
// coordinates; and the keys of each part.
type pathState struct {
	base, lim []uint64
	base1     []uint64 // single part: base shifted by one level, base1[0] = 0
	coord     []int64
	keys      []uint64
	first     bool // no entry read yet
}

func (b *builder) newState() *pathState {
	return &pathState{base: make([]uint64, b.nl), lim: make([]uint64, b.nl), base1: make([]uint64, b.nl+1),
		coord: make([]int64, b.nl), keys: make([]uint64, len(b.parts)), first: true}
}

// next reads entry j and returns the first level on which it starts a new
// node (0 for the first entry read). It leaves the coordinates of the new
// nodes in st.coord.
func (b *builder) next(st *pathState, j int64) int {
	nl := b.nl
	if len(b.parts) == 1 {
		return b.nextKey(st, &b.parts[0], b.parts[0].keys[j])
	}
	fresh := st.first
	st.first = false
	q := 0
	if !fresh {
		for q < len(b.parts) && b.parts[q].keys[j] == st.keys[q] {
			q++
		}
		if q == len(b.parts) {
			return nl // a duplicate; sorted input has none
		}
	}
	d := -1
	for ; q < len(b.parts); q++ {
		pt := &b.parts[q]
		key := pt.keys[j]
		st.keys[q] = key
		l := pt.lo // every level of the parts below the first changed one is new
		if d < 0 && !fresh {
			l = pt.hi - 2
			for l >= pt.lo && key >= st.lim[l] {
				l--
			}
			l++
		}
		if d < 0 {
			d = l
		}
		var base uint64
		if l > pt.lo {
			base = st.base[l-1]
		}
		r := key - base
		for ; l < pt.hi-1; l++ {
			c, rem := pt.divs[l-pt.lo].DivMod(r)
			st.coord[l] = int64(c)
			sp := pt.span[l-pt.lo]
			base += c * sp
			st.base[l], st.lim[l] = base, base+sp
			r = rem
		}
		st.coord[pt.hi-1] = int64(r)
	}
	return d
}

// nextKey is next for a single part (keys that fit in one word).
func (b *builder) nextKey(st *pathState, pt *part, key uint64) int {
	nl := b.nl
	l := nl - 2
	if st.first {
		l = -1
		st.first = false
	}
	lim := st.lim[:nl]
	for l >= 0 && key >= lim[l] {
		l--
	}
	d := l + 1
	// base1[l+1] is the base of level l's node, and base1[0] = 0, so that
	// finding the base of the parent of level d takes no branch.
	base1 := st.base1[:nl+1]
	base := base1[d]
	r := key - base
	span, divs := pt.span[:nl], pt.divs[:nl]
	for l := d; l < nl-1; l++ {
		c, rem := divs[l].DivMod(r)
		st.coord[l] = int64(c)
		base += c * span[l]
		base1[l+1], lim[l] = base, base+span[l]
		r = rem
	}
	st.coord[nl-1] = int64(r)
	return d
}

// nextFlat is nextKey without a branch that depends on the key: it
// compares the key with the end of the current node on every level at
// once, and divides it down every level whether or not it starts a new
// node there. When new nodes come at no predictable rhythm (a matrix with
// about one entry per row) this is faster than nextKey's early exits,
// which then mispredict; when most keys only add a leaf, nextKey is, as
// it divides nothing for them (see flatWalk). The two keep the same state
// and may follow each other.
func (b *builder) nextFlat(st *pathState, pt *part, key uint64) int {
	nl := b.nl
	lim := st.lim[: nl-1 : nl-1]
	d := 0
	for _, x := range lim {
		_, borrow := bits.Sub64(key, x, 0) // key < x: no new node on this level
		d += int(borrow)
	}
	span, divs := pt.span[:nl-1], pt.divs[:nl-1]
	base1, coord := st.base1[:nl], st.coord[:nl]
	r := key
	for l := range lim {
		c, rem := divs[l].DivMod(r)
		coord[l] = int64(c)
		base1[l+1] = key - rem
		lim[l] = key - rem + span[l]
		r = rem
	}
	coord[nl-1] = int64(r)
	st.first = false
	return d
}

// flatSample is the number of entries at the start of each chunk that
// pass 1 walks with nextKey before it picks the walk for the rest of the
// chunk (flatWalk).
const flatSample = 2048

// flatWalk reports whether entries like those counted in h (h[d] entries
// starting new nodes from level d down) are walked faster by nextFlat than
// by nextKey. A mispredicted branch costs some 15 cycles and a division
// 3 to 4: nextFlat pays the divisions of every level for every entry,
// nextKey a misprediction on about min(f, 1-f) of the entries per level,
// f being the share of entries that start a node there. Only a single
// inner level (matrices) or nearly random node starts on two pay off.
func (b *builder) flatWalk(h []int64) bool {
	nl := b.nl
	if nl < 2 || forceWalk != 0 {
		return nl >= 2 && forceWalk > 0
	}
	n := int64(0)
	for _, x := range h {
		n += x
	}
	if n == 0 {
		return false
	}
	miss, run := 0.0, int64(0)
	for l := range nl - 1 {
		run += h[l]
		f := float64(run) / float64(n)
		miss += min(f, 1-f)
	}
	return miss > flatMissShare*float64(nl-1)
}

// flatMissShare is the share of mispredicted entries per inner level above
// which flatWalk picks nextFlat (about 4 cycles of division against 15 of
// a misprediction).
const flatMissShare = 0.25

// forceWalk, for the tests and benchmarks, overrides flatWalk: 1 always
// picks nextFlat, -1 never.
var forceWalk int

// fillFlat is pass 2's loop over entries [lo, hi) with nextFlat and
// without branches on the new levels: every inner level's stage gets the
// entry's coordinate and child position, and takes it only when the entry
// starts a node there.
func (b *builder) fillFlat(st *pathState, pt *part, lo, hi int64, is, ps []stage, pos []int64) {
	nl := b.nl
	leaf := &is[nl-1]
	for _, key := range pt.keys[lo:hi] {
		d := b.nextFlat(st, pt, key)
		for l := range nl - 1 {
			k := int((uint(d) - uint(l) - 1) >> (bits.UintSize - 1)) // 1 when l ≥ d
			is[l].put(st.coord[l])
			ps[l].put(pos[l+1])
			is[l].take(k)
			ps[l].take(k)
			pos[l] += int64(k)
		}
		leaf.push(st.coord[nl-1])
		pos[nl-1]++
	}
	flushAll(is, ps)
}

// flushAll flushes the indices stages is and the indptr stages ps.
func flushAll(is, ps []stage) {
	for l := range is {
		is[l].flush()
		if l < len(ps) {
			ps[l].flush()
		}
	}
}

// savedKeys returns the keys of entry j, one per part.
func (b *builder) savedKeys(j int64) []uint64 {
	k := make([]uint64, len(b.parts))
	for q := range b.parts {
		k[q] = b.parts[q].keys[j]
	}
	return k
}

// nextSaved is next for an entry given by its keys.
func (b *builder) nextSaved(st *pathState, keys []uint64) int {
	c := *b
	c.parts = slices.Clone(b.parts)
	for q := range c.parts {
		c.parts[q].keys = keys[q : q+1]
	}
	return c.next(st, 0)
}

// count runs pass 1 and returns the number of nodes on each level.
func (b *builder) count() []int64 {
	w := len(b.chunks) - 1
	hist := make([][]int64, w)
	b.prev = make([][]uint64, w)
	par.Do(w, func(c int) {
		lo, hi := b.chunks[c], b.chunks[c+1]
		h := make([]int64, b.nl+1)
		st := b.newState()
		if lo > 0 {
			b.next(st, lo-1)
			if b.parts != nil {
				b.prev[c] = b.savedKeys(lo - 1)
			}
		}
		if len(b.parts) == 1 {
			// The first entries say whether the rest of the chunk is
			// walked with branches or without (flatWalk).
			pt := &b.parts[0]
			keys := pt.keys[lo:hi]
			s := min(len(keys), flatSample)
			for _, key := range keys[:s] {
				h[b.nextKey(st, pt, key)]++
			}
			if b.flatWalk(h) {
				for _, key := range keys[s:] {
					h[b.nextFlat(st, pt, key)]++
				}
			} else {
				for _, key := range keys[s:] {
					h[b.nextKey(st, pt, key)]++
				}
			}
		} else {
			for j := lo; j < hi; j++ {
				h[b.next(st, j)]++
			}
		}
		hist[c] = h
	})
	b.hist = hist
	b.before = make([][]int64, w+1)
	total := make([]int64, b.nl)
	for c := range w + 1 {
		b.before[c] = append([]int64(nil), total...)
		if c == w {
			break
		}
		run := int64(0)
		for l := range b.nl {
			run += hist[c][l]
			total[l] += run
		}
	}
	b.counts = total
	return total
}

// fill runs pass 2, writing the indices and indptr of every level into
// buffers of the given types, sized by count. The last indices buffer may
// be the memory of keys: each entry's leaf index is written after its key
// is read, and the key before each chunk was saved by count.
func (b *builder) fill(idx, ptr []*memory.Buffer, idxTypes, ptrTypes []arrow.DataType) {
	nl := b.nl
	w := len(b.chunks) - 1
	par.Do(w, func(c int) {
		lo, hi := b.chunks[c], b.chunks[c+1]
		if lo == hi {
			return
		}
		pos := append([]int64(nil), b.before[c]...)
		is := make([]stage, nl)
		ps := make([]stage, nl-1)
		for l := range nl {
			is[l] = newStage(idxTypes[l], idx[l].Bytes(), pos[l])
			if l < nl-1 {
				ps[l] = newStage(ptrTypes[l], ptr[l].Bytes(), pos[l])
			}
		}
		st := b.newState()
		if lo > 0 {
			if b.parts != nil {
				b.nextSaved(st, b.prev[c])
			} else {
				b.next(st, lo-1)
			}
		}
		leaf := &is[nl-1]
		var pt *part
		if len(b.parts) == 1 {
			pt = &b.parts[0]
		}
		if pt != nil && b.flatWalk(b.hist[c]) {
			b.fillFlat(st, pt, lo, hi, is, ps, pos)
			return
		}
		for j := lo; j < hi; j++ {
			var d int
			if pt != nil {
				d = b.nextKey(st, pt, pt.keys[j])
			} else {
				d = b.next(st, j)
			}
			for l := d; l < nl-1; l++ {
				is[l].push(st.coord[l])
				ps[l].push(pos[l+1])
				pos[l]++
			}
			leaf.push(st.coord[nl-1])
			pos[nl-1]++
		}
		flushAll(is, ps)
	})
	for l := 0; l < nl-1; l++ {
		opsFor(ptrTypes[l]).write(ptr[l].Bytes(), b.counts[l], []int64{b.counts[l+1]})
	}
}

// buildSpec says what to build: the output tensor's metadata and types.
type buildSpec struct {
	valueType arrow.DataType
	shape     []int64
	names     []string
	order     []int
	idxTypes  []arrow.DataType // per level
	ptrTypes  []arrow.DataType // per level but the last
	workers   int
}

// levelSizes returns the size of each level's dimension.
func (s *buildSpec) levelSizes() []int64 {
	sz := make([]int64, len(s.order))
	for l, k := range s.order {
		sz[l] = s.shape[k]
	}
	return sz
}

// assemble builds the levels from sorted distinct entries held by b and
// returns the tensor over them and values, taking over values and leaf (the
// last indices buffer, if the caller already holds it: then b.keys may
// alias it). It releases both on error.
func assemble(mem memory.Allocator, s *buildSpec, b *builder, values, leaf *memory.Buffer) (*Tensor, error) {
	nl := len(s.order)
	counts := b.count()
	for l := 0; l < nl-1; l++ {
		if err := core.CheckIndexFits(s.ptrTypes[l], counts[l+1], "the indptr of level "+strconv.Itoa(l)); err != nil {
			values.Release()
			if leaf != nil {
				leaf.Release()
			}
			return nil, err
		}
	}
	idx := make([]*memory.Buffer, nl)
	ptr := make([]*memory.Buffer, nl)
	for l := range nl {
		if l == nl-1 && leaf != nil {
			idx[l] = leaf
		} else {
			idx[l] = core.NewBuffer(mem, counts[l]*int64(arrowsparse.ByteWidth(s.idxTypes[l])))
		}
		if l < nl-1 {
			ptr[l] = core.NewBuffer(mem, (counts[l]+1)*int64(arrowsparse.ByteWidth(s.ptrTypes[l])))
		}
	}
	b.fill(idx, ptr, s.idxTypes, s.ptrTypes)
	u := counts[nl-1]
	if n := int(u) * arrowsparse.ByteWidth(s.idxTypes[nl-1]); idx[nl-1].Len() != n {
		idx[nl-1].ResizeNoShrink(n)
	}
	if n := int(u) * arrowsparse.ByteWidth(s.valueType); values.Len() != n {
		values.ResizeNoShrink(n)
	}
	t := &Tensor{
		valueType: s.valueType,
		shape:     s.shape,
		names:     s.names,
		order:     s.order,
		levels:    make([]level, nl),
		values:    values,
		nnz:       u,
	}
	for l := range nl {
		t.levels[l] = level{idx: idx[l], idxType: s.idxTypes[l], n: counts[l]}
		if l < nl-1 {
			t.levels[l].ptr, t.levels[l].ptrType = ptr[l], s.ptrTypes[l]
		}
	}
	t.refCount.Store(1)
	return t, nil
}

// empty returns a tensor with no values.
func empty(mem memory.Allocator, s *buildSpec) *Tensor {
	b := newBuilder(s.levelSizes(), 0, 1)
	t, _ := assemble(mem, s, b, core.NewBuffer(mem, 0), nil)
	return t
}
