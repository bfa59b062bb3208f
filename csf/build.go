package csf

import (
	"math/bits"
	"runtime"
	"strconv"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	as "github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/keysort"
)

// builder turns sorted, distinct entries into the levels of a tree. The
// entries are either linear keys in axis order (the key of a coordinate
// tuple c is Σ c[l]·S[l], where S[l] is the product of the sizes of the
// levels below l) or, when keys would not fit in 64 bits, rows of
// level-order coordinates.
//
// The node of level l that holds a key covers the key range [base,
// base+S[l]). A key starts a new node on level l, and on every level below
// it, when it passes the end of the current node's range: finding the
// first such level takes a comparison per level, and each new node costs
// one division (by S[l]), so a key that only adds a leaf to the current
// fiber costs no division at all.
//
// The build makes two passes over the entries, both split into chunks that
// run in parallel: the first counts the new nodes per level in each chunk,
// the second writes indices and indptr at the positions that the counts
// give. An indptr entry is the position of the node's first child, which
// the same entry creates.
type builder struct {
	nl   int
	span []uint64          // span[l] = S[l], the key range of a level-l node
	divs []keysort.Divider // divs[l] divides by S[l]
	keys []uint64          // sorted distinct keys, or nil
	rows []int64           // or sorted distinct coordinate rows, nl per entry
	u    int64             // number of entries

	chunks []int64   // chunk c is entries [chunks[c], chunks[c+1])
	before [][]int64 // before[c][l]: nodes of level l made by chunks < c
	prev   []uint64  // prev[c]: the key before chunk c (read before pass 2)
	counts []int64   // nodes per level
}

func newBuilder(sizes []int64, u int64, workers int) *builder {
	nl := len(sizes)
	b := &builder{nl: nl, span: make([]uint64, nl), divs: make([]keysort.Divider, nl), u: u}
	// The spans fit in 64 bits when the entries come as keys; for rows the
	// upper ones may not, and are not used.
	sp := uint64(1)
	for l := nl - 1; l >= 0; l-- {
		b.span[l] = sp
		b.divs[l] = keysort.NewDivider(sp)
		hi, lo := bits.Mul64(sp, uint64(max(sizes[l], 1)))
		if hi != 0 {
			break
		}
		sp = lo
	}
	if u < 1<<14 {
		workers = 1
	}
	b.chunks = make([]int64, workers+1)
	for c := range workers + 1 {
		b.chunks[c] = u * int64(c) / int64(workers)
	}
	return b
}

// pathState is the path to the last entry a pass has read: for each
// upper level, the key range [base, lim) of its node and its coordinate.
type pathState struct {
	base, lim []uint64
	coord     []int64
	first     bool // no entry read yet
}

func (b *builder) newState() *pathState {
	return &pathState{base: make([]uint64, b.nl), lim: make([]uint64, b.nl), coord: make([]int64, b.nl), first: true}
}

// next reads entry j and returns the first level on which it starts a new
// node (0 for the first entry read). It leaves the coordinates of the new
// nodes in st.coord.
func (b *builder) next(st *pathState, j int64) int {
	nl := b.nl
	if b.keys == nil {
		row := b.rows[j*int64(nl) : (j+1)*int64(nl)]
		d := 0
		if !st.first {
			for d < nl && row[d] == st.coord[d] {
				d++
			}
		}
		st.first = false
		copy(st.coord, row)
		return d
	}
	return b.nextKey(st, b.keys[j])
}

// nextKey is next for a key.
func (b *builder) nextKey(st *pathState, key uint64) int {
	nl := b.nl
	l := nl - 2
	if st.first {
		l = -1
		st.first = false
	}
	for l >= 0 && key >= st.lim[l] {
		l--
	}
	d := l + 1
	var base uint64
	if d > 0 {
		base = st.base[d-1]
	}
	r := key - base
	for l := d; l < nl-1; l++ {
		c, rem := b.divs[l].DivMod(r)
		st.coord[l] = int64(c)
		base += c * b.span[l]
		st.base[l], st.lim[l] = base, base+b.span[l]
		r = rem
	}
	st.coord[nl-1] = int64(r)
	return d
}

// count runs pass 1 and returns the number of nodes on each level.
func (b *builder) count() []int64 {
	w := len(b.chunks) - 1
	hist := make([][]int64, w)
	b.prev = make([]uint64, w)
	parallel(w, func(c int) {
		lo, hi := b.chunks[c], b.chunks[c+1]
		h := make([]int64, b.nl+1)
		st := b.newState()
		if lo > 0 {
			b.next(st, lo-1)
			if b.keys != nil {
				b.prev[c] = b.keys[lo-1]
			}
		}
		for j := lo; j < hi; j++ {
			h[b.next(st, j)]++
		}
		hist[c] = h
	})
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
	parallel(w, func(c int) {
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
			if b.keys != nil {
				b.nextKey(st, b.prev[c])
			} else {
				b.next(st, lo-1)
			}
		}
		leaf := &is[nl-1]
		for j := lo; j < hi; j++ {
			d := b.next(st, j)
			for l := d; l < nl-1; l++ {
				is[l].push(st.coord[l])
				ps[l].push(pos[l+1])
				pos[l]++
			}
			leaf.push(st.coord[nl-1])
			pos[nl-1]++
		}
		for l := range nl {
			is[l].flush()
			if l < nl-1 {
				ps[l].flush()
			}
		}
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
		if err := as.CheckIndexFits(s.ptrTypes[l], counts[l+1], "the indptr of level "+strconv.Itoa(l)); err != nil {
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
			idx[l] = newBuffer(mem, counts[l]*int64(as.ByteWidth(s.idxTypes[l])))
		}
		if l < nl-1 {
			ptr[l] = newBuffer(mem, (counts[l]+1)*int64(as.ByteWidth(s.ptrTypes[l])))
		}
	}
	b.fill(idx, ptr, s.idxTypes, s.ptrTypes)
	u := counts[nl-1]
	idx[nl-1].ResizeNoShrink(int(u) * as.ByteWidth(s.idxTypes[nl-1]))
	values.ResizeNoShrink(int(u) * as.ByteWidth(s.valueType))
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
	b.keys = []uint64{}
	t, _ := assemble(mem, s, b, newBuffer(mem, 0), nil)
	return t
}

// workersOr returns w, or GOMAXPROCS if w ≤ 0.
func workersOr(w int) int {
	if w <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return w
}

// parallel runs f(0), …, f(k-1), concurrently when k > 1.
func parallel(k int, f func(c int)) {
	if k == 1 {
		f(0)
		return
	}
	var wg sync.WaitGroup
	for c := range k {
		wg.Go(func() { f(c) })
	}
	wg.Wait()
}
