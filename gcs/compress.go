package gcs

import (
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/divide"
	"github.com/arrowsparse/arrowsparse/internal/keysort"
	"github.com/arrowsparse/arrowsparse/internal/vals"
)

// job describes one conversion to compressed storage: n input entries, each
// with a lane (major) and an index within it (minor), sorted by (major,
// minor) with ties in entry order, then merged under a duplicate policy (or
// kept), and written as indptr, indices and values.
type job struct {
	n            int
	major, minor int64 // output lanes and lane length
	// keyBits and keys give each entry its sort key: one word, major·span
	// + index, when that fits in 64 bits, and otherwise two words, major
	// and index (keysort.Carry's KeyBits and Keys).
	keyBits []uint
	keys    func(lo, hi int, dst []uint64)
	// span is the factor of the major in one-word keys: minor, or a power
	// of two above it (0 means minor).
	span uint64
	// packed, when not zero, says that keys are major<<packed | minor
	// rather than major·minor + minor, and that the minor part is already
	// ascending in entry order among entries of one major (the row numbers
	// of a CSR walked for its transpose), so the sort skips those bits.
	packed uint
	// count, when not nil with packed, adds one to h[major>>sh] for every
	// entry of [lo, hi): the entries are those of a CSR walked in storage
	// order, and run transposes them with a counting sort
	// (keysort.Transpose) when it fits.
	count    func(lo, hi int, sh uint, h []int)
	in       []byte // input values, indexed by entry
	vt       arrow.DataType
	pt, it   arrow.DataType
	policy   arrowsparse.Duplicates
	keepDups bool
	workers  int
}

// wideKeyBits returns the key bounds of two-word keys (major, index).
func wideKeyBits(major, minor int64) []uint {
	return []uint{uint(bits.Len64(uint64(max(major-1, 0)))), uint(bits.Len64(uint64(max(minor-1, 0))))}
}

// fitsKeys reports whether keys major·minor + index fit in 64 bits, and
// returns their width.
func fitsKeys(major, minor int64) (uint, bool) {
	size, ok := core.SizeUint64([]int64{major, minor})
	if !ok {
		return 0, false
	}
	kb := uint(0)
	if size > 1 {
		kb = uint(bits.Len64(size - 1))
	}
	return kb, true
}

// run performs the conversion. It returns the three buffers (from mem), the
// number of entries written and whether duplicates were met.
func (j *job) run(mem memory.Allocator) (indptr, indices, values *memory.Buffer, nnz int64, dup bool) {
	pw, iw, vw := int64(arrowsparse.ByteWidth(j.pt)), int64(arrowsparse.ByteWidth(j.it)), int64(arrowsparse.ByteWidth(j.vt))
	n := int64(j.n)
	indptr = core.NewBuffer(mem, (j.major+1)*pw)
	indices = core.NewBuffer(mem, n*iw)
	values = core.NewBuffer(mem, n*vw)
	if n > 0 && j.count != nil && j.packed > 0 && j.keepDups {
		t := keysort.Transpose{
			N:         j.n,
			Majors:    int(j.major),
			MinorBits: j.packed,
			Workers:   j.workers,
			Count:     j.count,
			Keys:      j.keys,
			In:        j.in,
			Out:       values.Bytes(),
			VW:        int(vw),
			Ptr:       indptr.Bytes(),
			PW:        int(pw),
			Idx:       indices.Bytes(),
			IW:        int(iw),
			Mem:       mem,
		}
		if t.Fits() {
			t.Run()
			return indptr, indices, values, n, false
		}
	}
	clear(indptr.Bytes())
	if n == 0 {
		return indptr, indices, values, 0, false
	}
	cmp := ixFor(j.pt, j.it).compressor()
	nnz, dup = j.sortKeys(mem, cmp, indptr.Bytes(), indices.Bytes(), values.Bytes())
	cmp.prefix(indptr.Bytes())
	indices.ResizeNoShrink(int(nnz * iw))
	values.ResizeNoShrink(int(nnz * vw))
	return indptr, indices, values, nnz, dup
}

// sortKeys runs the radix sort of internal/keysort (Carry), which moves
// the values with the keys. Reduce writes each bucket's indices and values
// and counts the entries of each lane into ptr[lane+1]; the output buffers
// serve as the sort's staging arrays, and mem supplies any other.
func (j *job) sortKeys(mem memory.Allocator, c compressor, ptr, idx, out []byte) (int64, bool) {
	iw, vw := arrowsparse.ByteWidth(j.it), arrowsparse.ByteWidth(j.vt)
	div := divide.New(uint64(max(j.minor, 1)))
	if j.span > 0 {
		div = divide.New(j.span)
	}
	if j.packed > 0 {
		div = divide.New(uint64(1) << j.packed)
	}
	var mu sync.Mutex
	var dup atomic.Bool
	vop := vals.For(j.vt)
	srt := keysort.Carry{
		N:          j.n,
		KeyBits:    j.keyBits,
		SortedBits: j.packed,
		Workers:    j.workers,
		Keys:       j.keys,
		In:         j.in,
		VW:         vw,
		Reduce: func(pos int, b *keysort.Bucket) int {
			u := c.emit(ptr, idx, &mu, pos, b, div, j.keepDups)
			if j.keepDups {
				gatherWords(b.Vals, out, vw, pos, b.Words, b.IB)
				return u
			}
			if _, d := vop.ReduceWords(b.Vals, out, pos, b.Words, b.IB, j.policy); d {
				dup.Store(true)
			}
			return u
		},
		Move: func(dst, src, m int) {
			copy(idx[dst*iw:], idx[src*iw:(src+m)*iw])
			copy(out[dst*vw:], out[src*vw:(src+m)*vw])
		},
		StageKeys:      idx,
		StageKeyStride: iw,
		StageVals:      out,
		Mem:            mem,
	}
	u := srt.Run()
	return int64(u), dup.Load()
}

// gatherWords writes in[entry(words[q])] to out[pos+q] for every word, for
// values of w bytes.
func gatherWords(in, out []byte, w, pos int, words []uint64, ib uint) {
	switch w {
	case 1:
		gatherTyped(in, out[pos:], words, ib)
	case 2:
		gatherTyped(core.MustSliceBytes[uint16](in), core.MustSliceBytes[uint16](out)[pos:], words, ib)
	case 4:
		gatherTyped(core.MustSliceBytes[uint32](in), core.MustSliceBytes[uint32](out)[pos:], words, ib)
	default:
		gatherTyped(core.MustSliceBytes[uint64](in), core.MustSliceBytes[uint64](out)[pos:], words, ib)
	}
}

func gatherTyped[E uint8 | uint16 | uint32 | uint64](in, out []E, words []uint64, ib uint) {
	mask := uint64(1)<<ib - 1
	out = out[:len(words)]
	for q, w := range words {
		out[q] = in[w&mask]
	}
}

// compressor writes sorted entries as compressed indices for one pair of
// index types.
type compressor interface {
	// emit writes the minor index of each distinct key of a sorted bucket
	// (of every key when keepDups) to idx from entry pos, counts the
	// entries of each lane into ptr[lane+1], and returns the number of
	// entries written. A one-word key is lane·span + index (div divides by
	// span), a two-word key is (lane, index). Lanes seen first or last in
	// the call may be shared with concurrent calls and are updated under
	// mu; the others belong to this call alone.
	emit(ptr, idx []byte, mu *sync.Mutex, pos int, b *keysort.Bucket, div divide.Divider, keepDups bool) int
	// put writes entries with the given lanes (ascending) and indices, and
	// counts them into ptr.
	put(ptr, idx []byte, lanes, index []int64)
	// prefix turns the counts ptr[1:] into pointers.
	prefix(ptr []byte)
}

type comp[P, I arrowsparse.Index] struct{}

func (comp[P, I]) emit(ptrb, idxb []byte, mu *sync.Mutex, pos int, b *keysort.Bucket, div divide.Divider, keepDups bool) int {
	ptr, idx := core.MustSliceBytes[P](ptrb), core.MustSliceBytes[I](idxb)
	words := b.Words
	if len(words) == 0 {
		return 0
	}
	wide := b.Tab != nil && b.W == 2
	split := func(x uint64) (lane, r uint64) {
		if wide {
			k := b.KeyWords(x)
			return k[0], k[1]
		}
		return div.DivMod(b.Key(x))
	}
	firstLane, _ := split(words[0])
	lastLane, _ := split(words[len(words)-1])
	// The loop has no branch that depends on the data but the one, taken
	// only at the ends, that keeps the shared first and last lanes out:
	// with about one entry a lane, a branch on each change of lane would
	// be mispredicted every other entry. Each lane's count is stored at
	// every entry (over the count the previous entry stored), a duplicate
	// key writes its index over the one its key wrote, and inFirst counts
	// the first lane.
	out := idx[pos : pos+len(words)]
	u, start, inFirst := 0, 0, 0
	prev := firstLane
	last := ^(words[0] >> b.IB)
	for _, x := range words {
		kn := x >> b.IB
		lane, r := split(x)
		if kn == last && !keepDups {
			u-- // a duplicate rewrites the index its key wrote
		}
		out[u] = I(r)
		u++
		last = kn
		if lane != prev {
			start = u - 1
		}
		prev = lane
		if lane == firstLane {
			inFirst = u
		}
		if lane != firstLane && lane != lastLane {
			ptr[lane+1] = P(u - start)
		}
	}
	mu.Lock()
	ptr[firstLane+1] += P(inFirst)
	if lastLane != firstLane {
		ptr[lastLane+1] += P(u - start)
	}
	mu.Unlock()
	return u
}

func (comp[P, I]) put(ptrb, idxb []byte, lanes, index []int64) {
	ptr, idx := core.MustSliceBytes[P](ptrb), core.MustSliceBytes[I](idxb)
	for r, l := range lanes {
		ptr[l+1]++
		idx[r] = I(index[r])
	}
}

func (comp[P, I]) prefix(ptrb []byte) {
	// The running sum stays in a register: reading back the pointer just
	// stored would wait on the store, several cycles a lane.
	ptr := core.MustSliceBytes[P](ptrb)
	var sum P
	for k, v := range ptr {
		sum += v
		ptr[k] = sum
	}
}
