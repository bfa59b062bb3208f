package keysort

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// carryCase is one Carry run: n keys of w words (flat), values of width vw
// (the value of entry i is i+1), merged by summing when merge is set.
type carryCase struct {
	keys    []uint64
	w       int
	keyBits []uint
	vw      int
	workers int
	merge   bool
	lend    bool // lend staging arrays (output buffers) to the sort
	stride  int  // with lend: the staged key stride in bytes (0: 8·w)
	mem     bool // staging arrays from a checked allocator (Carry.Mem)
}

// countingAlloc counts the allocations it passes on.
type countingAlloc struct {
	memory.Allocator
	n atomic.Int64
}

func (a *countingAlloc) Allocate(size int) []byte {
	a.n.Add(1)
	return a.Allocator.Allocate(size)
}

// withChecked returns a counting checked allocator when on is set, and
// the check to run at the end: every byte released, and the allocator
// used at least once when used is set.
func withChecked(t *testing.T, on bool) (memory.Allocator, func(used bool)) {
	if !on {
		return nil, func(bool) {}
	}
	checked := memory.NewCheckedAllocator(memory.NewGoAllocator())
	a := &countingAlloc{Allocator: checked}
	return a, func(used bool) {
		checked.AssertSize(t, 0)
		if used {
			require.Positive(t, a.n.Load(), "allocations from Mem")
		}
	}
}

// runCarry sorts c's keys and returns the output keys (flat) and values.
func runCarry(t *testing.T, c carryCase) ([]uint64, []uint64) {
	t.Helper()
	w, vw := c.w, c.vw
	n := len(c.keys) / w
	in := make([]byte, vw*n)
	for i := range n {
		put(in, vw, i, uint64(i+1))
	}
	outKeys := make([]uint64, n*w)
	outVals := make([]byte, vw*n)
	s := Carry{
		N:       n,
		KeyBits: c.keyBits,
		Workers: c.workers,
		Keys: func(lo, hi int, dst []uint64) {
			copy(dst[:(hi-lo)*w], c.keys[lo*w:hi*w])
		},
		In: in,
		VW: vw,
		Reduce: func(pos int, b *Bucket) int {
			u := -1
			var last uint64
			for q, x := range b.Words {
				v := get(b.Vals, vw, b.Entry(x))
				if c.merge && q > 0 && x>>b.IB == last {
					put(outVals, vw, pos+u, get(outVals, vw, pos+u)+v)
					continue
				}
				u++
				last = x >> b.IB
				if w == 1 {
					outKeys[pos+u] = b.Key(x)
				} else {
					copy(outKeys[(pos+u)*w:], b.KeyWords(x))
				}
				put(outVals, vw, pos+u, v)
			}
			return u + 1
		},
		Move: func(dst, src, m int) {
			copy(outKeys[dst*w:], outKeys[src*w:(src+m)*w])
			copy(outVals[dst*vw:], outVals[src*vw:(src+m)*vw])
		},
	}
	if c.lend {
		s.StageVals = outVals
		s.StageKeys, s.StageKeyStride = castBytes(outKeys), 8*w
		if c.stride > 0 {
			s.StageKeys, s.StageKeyStride = alloc(c.stride*n), c.stride
		}
	}
	mem, check := withChecked(t, c.mem)
	s.Mem = mem
	u := s.Run()
	check(!c.lend && n > 0)
	vs := make([]uint64, u)
	for i := range vs {
		vs[i] = get(outVals, vw, i)
	}
	return outKeys[:u*w], vs
}

func put(b []byte, w, i int, v uint64) {
	switch w {
	case 1:
		b[i] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
	default:
		binary.LittleEndian.PutUint64(b[8*i:], v)
	}
}

func get(b []byte, w, i int) uint64 {
	switch w {
	case 1:
		return uint64(b[i])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b[2*i:]))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return binary.LittleEndian.Uint64(b[8*i:])
}

// referenceCarry sorts by comparison, stably, and merges like runCarry.
func referenceCarry(c carryCase) ([]uint64, []uint64) {
	w := c.w
	n := len(c.keys) / w
	key := func(i int) []uint64 { return c.keys[i*w : (i+1)*w] }
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return slices.Compare(key(a), key(b)) })
	mask := uint64(1)<<(8*c.vw) - 1
	if c.vw == 8 {
		mask = ^uint64(0)
	}
	ok, ov := []uint64{}, []uint64{}
	for q, i := range idx {
		v := uint64(i+1) & mask
		if c.merge && q > 0 && slices.Equal(key(i), key(idx[q-1])) {
			ov[len(ov)-1] = (ov[len(ov)-1] + v) & mask
			continue
		}
		ok = append(ok, key(i)...)
		ov = append(ov, v)
	}
	return ok, ov
}

func checkCarry(t *testing.T, c carryCase) {
	t.Helper()
	gk, gv := runCarry(t, c)
	wk, wv := referenceCarry(c)
	require.Equal(t, len(wv), len(gv), "output entries")
	require.Equal(t, wk, gk, "keys")
	require.Equal(t, wv, gv, "values")
}

// randomKeys returns n keys whose words are below 1<<bits[q], with
// duplicates, clusters and shared high bits as asked.
func randomKeys(r *rand.Rand, n int, bits []uint, dupEvery int, cluster bool) []uint64 {
	w := len(bits)
	keys := make([]uint64, n*w)
	shared := make([]uint64, w) // high bits every key shares
	for q, b := range bits {
		if b < 64 && r.IntN(3) == 0 {
			shared[q] = r.Uint64() & lowMask(b) &^ lowMask(b/2)
		}
	}
	for i := range n {
		k := keys[i*w : (i+1)*w]
		if dupEvery > 0 && i > 0 && r.IntN(dupEvery) == 0 {
			copy(k, keys[r.IntN(i)*w:])
			continue
		}
		for q, b := range bits {
			k[q] = r.Uint64() & lowMask(b)
			if shared[q] != 0 {
				k[q] = shared[q] | k[q]&lowMask(b/2)
			}
			if cluster && r.IntN(5) == 0 {
				k[q] &= 0xff // a skewed cluster
			}
		}
	}
	return keys
}

// wordBits cuts a key space of total bits into words, the first taking
// the remainder: 65 → [1, 64], 190 → [62, 64, 64].
func wordBits(total uint) []uint {
	w := int(total+63) / 64
	out := make([]uint, w)
	for q := range out {
		out[q] = 64
	}
	if total%64 != 0 {
		out[0] = total % 64
	}
	return out
}

// Carry agrees with a stable comparison sort for key spaces of 1 to 190
// bits, sizes on both sides of every threshold (insertion sort, one
// bucket, bucket count growth), with duplicates, clusters and shared high
// bits, every value width, merged or not, with and without lent staging.
func TestCarryMatchesComparisonSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	sizes := []int{0, 1, 2, 47, 49, 100, carrySmallN - 1, carrySmallN, 5000, 1 << 15, 70000, 1<<17 + 3}
	spaces := []uint{1, 8, 20, 33, 40, 52, 63, 64, 65, 100, 128, 190}
	for trial := range 3 * len(sizes) {
		n := sizes[trial%len(sizes)]
		total := spaces[r.IntN(len(spaces))]
		bits := wordBits(total)
		c := carryCase{
			w:       len(bits),
			keyBits: bits,
			vw:      []int{1, 2, 4, 8}[r.IntN(4)],
			workers: 1 + r.IntN(3),
			merge:   r.IntN(2) == 0,
			lend:    r.IntN(2) == 0,
			mem:     r.IntN(2) == 0,
		}
		dup := []int{0, 2, 4, 50}[r.IntN(4)]
		cluster := r.IntN(3) == 0
		c.keys = randomKeys(r, n, bits, dup, cluster)
		if r.IntN(4) == 0 {
			// A loose bound: the guess of which bits vary is wrong.
			for q := range c.keyBits {
				c.keyBits[q] = 64
			}
		}
		name := fmt.Sprintf("n=%d/bits=%d/vw=%d/workers=%d/merge=%v/lend=%v/mem=%v/dup=%d/cluster=%v", n, total, c.vw, c.workers, c.merge, c.lend, c.mem, dup, cluster)
		t.Run(name, func(t *testing.T) { checkCarry(t, c) })
	}
}

// The key spaces of the issue (63, 64, 65, 100 and 190 bits), each at sizes
// where the low key bits and the position fit in one word and where they
// do not, with many duplicates, on 1 and 2 workers.
func TestCarryKeySpaces(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, total := range []uint{63, 64, 65, 100, 190} {
		for _, n := range []int{3000, 40000, 200000} {
			if raceEnabled && n > 100000 {
				continue
			}
			bits := wordBits(total)
			keys := randomKeys(r, n, bits, 3, false)
			for _, workers := range []int{1, 2} {
				c := carryCase{keys: keys, w: len(bits), keyBits: bits, vw: 8, workers: workers, merge: true, lend: true}
				t.Run(fmt.Sprintf("bits=%d/n=%d/workers=%d", total, n, workers), func(t *testing.T) { checkCarry(t, c) })
			}
		}
	}
}

// TestCarryStreamed sorts inputs (2M entries) with enough buckets for the
// scatter through line buffers, with staged keys of 4 and 8 bytes (lent at
// strides 4 and 8, the latter taking 8-byte keys even when 4 would do, or
// not lent), values of 4 and 8 bytes and one to three workers, against the
// comparison sort.
func TestCarryStreamed(t *testing.T) {
	streamedTest(t)
	r := rand.New(rand.NewPCG(13, 14))
	for _, c := range []carryCase{
		{keyBits: []uint{30}, vw: 8, workers: 1, merge: true, lend: true},
		{keyBits: []uint{30}, vw: 4, workers: 2, lend: true, stride: 4},
		{keyBits: []uint{40}, vw: 8, workers: 3, merge: true, lend: true},
		{keyBits: []uint{52}, vw: 4, workers: 2, merge: true, mem: true},
		{keyBits: []uint{36}, vw: 4, workers: 1, lend: true},
	} {
		c.w = 1
		c.keys = randomKeys(r, 1<<21, c.keyBits, 5, false)
		t.Run(fmt.Sprintf("bits=%d/vw=%d/workers=%d/lend=%v/stride=%d", c.keyBits[0], c.vw, c.workers, c.lend, c.stride), func(t *testing.T) {
			before := streamedRuns.Load()
			checkCarry(t, c)
			if canStream {
				require.Equal(t, before+1, streamedRuns.Load(), "the scatter went through line buffers")
			} else {
				require.Equal(t, before, streamedRuns.Load(), "line buffers without non-temporal stores")
			}
		})
	}
}

// Staged keys at a stride wider than they need (a coordinate row of a
// canonicalised COO tensor), and lent arrays too narrow to serve.
func TestCarryStageStride(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, total := range []uint{20, 40, 64, 100} {
		bits := wordBits(total)
		keys := randomKeys(r, 50000, bits, 10, false)
		for _, stride := range []int{4, 8, 12, 16, 24, 32} {
			c := carryCase{keys: keys, w: len(bits), keyBits: bits, vw: 4, workers: 2, merge: true, lend: true, stride: stride}
			t.Run(fmt.Sprintf("bits=%d/stride=%d", total, stride), func(t *testing.T) { checkCarry(t, c) })
		}
	}
}

// All keys equal, and all keys equal but in their last bit: one long run
// of ties.
func TestCarryTies(t *testing.T) {
	for _, total := range []uint{64, 100, 190} {
		bits := wordBits(total)
		w := len(bits)
		n := 40000
		keys := make([]uint64, n*w)
		for i := range n {
			for q := range w {
				keys[i*w+q] = lowMask(bits[q]) &^ 1
			}
			keys[i*w+w-1] |= uint64(n-i) & 1
		}
		for _, merge := range []bool{false, true} {
			c := carryCase{keys: keys, w: w, keyBits: bits, vw: 8, workers: 2, merge: merge}
			t.Run(fmt.Sprintf("bits=%d/merge=%v", total, merge), func(t *testing.T) { checkCarry(t, c) })
		}
	}
}

// Keys whose low bits are already in order (a row number in a CSR walked
// row by row, under a column number) sort the same with SortedBits, also
// when the buckets take the tie path and when their top bits alone are
// sorted by radix (partialTop).
func TestCarrySortedBits(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{40, 3000, 50000} {
		for _, sizes := range [][2]uint{{16, 13}, {50, 13}, {16, 30}} {
			rowBits, colBits := sizes[0], sizes[1]
			keys := make([]uint64, 0, n)
			row := uint64(0)
			for len(keys) < n {
				for range r.IntN(8) {
					keys = append(keys, uint64(r.IntN(5000<<(colBits-13)))<<rowBits|row)
				}
				row++
			}
			keys = keys[:n]
			for _, sb := range []uint{0, rowBits} {
				for _, workers := range []int{1, 2} {
					s := Carry{N: n, KeyBits: []uint{rowBits + colBits}, SortedBits: sb, Workers: workers, In: make([]byte, n), VW: 1,
						Keys: func(lo, hi int, dst []uint64) { copy(dst, keys[lo:hi]) }}
					var got []uint64
					var mu sync.Mutex
					s.Reduce = func(pos int, b *Bucket) int {
						mu.Lock()
						defer mu.Unlock()
						for q, x := range b.Words {
							if q > 0 && b.Key(x) < b.Key(b.Words[q-1]) {
								t.Errorf("bucket not sorted at %d", q)
							}
							got = append(got, b.Key(x))
						}
						return len(b.Words)
					}
					s.Move = func(int, int, int) {}
					s.Run()
					want := slices.Clone(keys)
					slices.Sort(want)
					slices.Sort(got) // buckets may be reduced in any order across workers
					require.Equal(t, want, got)
				}
			}
		}
	}
}

func TestLayout(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for range 200 {
		w := 1 + r.IntN(4)
		tops := make([]uint, w)
		high := make([]uint64, w)
		for q := range tops {
			tops[q] = uint(r.IntN(65))
			high[q] = r.Uint64() &^ lowMask(tops[q])
		}
		l := newLayout(tops, high)
		k := make([]uint64, w)
		for q := range k {
			k[q] = high[q] | r.Uint64()&lowMask(tops[q])
		}
		e := make([]uint64, (l.k+63)/64+1)
		l.pack(k, e)
		for lo := uint(0); lo < l.k; lo += 1 + uint(r.IntN(40)) {
			n := min(uint(1+r.IntN(64)), l.k-lo)
			require.Equal(t, extract(e, lo, n), l.bitsAt(k, lo, n), "lo=%d n=%d", lo, n)
		}
		back := make([]uint64, w)
		l.unpack(e, back)
		require.Equal(t, k, back)
	}
}

// pack, the inverse of unpack, writes the effective key of the key words k to e, least significant
// word first (len(e) ≥ (l.k+63)/64).
func (l *layout) pack(k, e []uint64) {
	clear(e)
	for q, t := range l.tops {
		if t == 0 {
			continue
		}
		v := k[q] & lowMask(t)
		o := l.off[q]
		i, s := o/64, o%64
		e[i] |= v << s
		if s+t > 64 {
			e[i+1] |= v >> (64 - s)
		}
	}
}

// TestLoadCountRadix checks the LSD sort whose digit counts are taken while
// the words are loaded (loadCount, radixCounted) against slices.Sort: one to
// three passes, 4- and 8-byte staged keys at strides of one and two
// elements, and digits that are the same for every word (a pass to skip).
func TestLoadCountRadix(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, rb := range []uint{5, 11, 17, 22, 28, 33} {
		for _, constMid := range []bool{false, true} {
			for _, kw := range []int{4, 8} {
				for _, ke := range []int{1, 2} {
					if kw == 4 && rb > 32 {
						continue
					}
					name := fmt.Sprintf("bits=%d/const=%v/kw=%d/ke=%d", rb, constMid, kw, ke)
					t.Run(name, func(t *testing.T) {
						const m, ib = 3000, 12
						passes := lsdPasses(rb)
						dw := (rb + passes - 1) / passes
						keys := make([]uint64, m)
						for j := range keys {
							keys[j] = rng.Uint64() & lowMask(rb)
							if constMid && passes > 1 {
								// Digit 1 is 5 for every key.
								keys[j] = keys[j]&^(lowMask(dw)<<dw) | 5<<dw
							}
						}
						sk := make([]byte, m*ke*kw)
						for j, k := range keys {
							if kw == 4 {
								binary.LittleEndian.PutUint32(sk[j*ke*kw:], uint32(k))
							} else {
								binary.LittleEndian.PutUint64(sk[j*ke*kw:], k)
							}
						}
						w, tmp := make([]uint64, m), make([]uint64, m)
						cnt := new(digitCounts)[:passes]
						if kw == 4 {
							loadCount(w, castU32(sk), ke, 0, ib, ib, dw, cnt)
						} else {
							loadCount(w, castU64(sk), ke, 0, ib, ib, dw, cnt)
						}
						got := radixCounted(w, tmp, ib, dw, cnt)
						want := make([]uint64, m)
						for j, k := range keys {
							want[j] = k<<ib | uint64(j)
						}
						slices.Sort(want) // positions break ties: the sort is stable
						require.Equal(t, want, got)
					})
				}
			}
		}
	}
}

// finishSort sorts words sorted by their top bits, whatever the runs of
// equal top bits hold, when its budget allows, and otherwise reports that
// it did not, leaving a permutation.
func TestFinishSort(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	const ib, cut = 16, 40
	var w []uint64
	for _, n := range []int{1, 2, 3, 48, 49, 50, 300, 1, 7} {
		top := uint64(len(w)+1) << cut
		for range n {
			w = append(w, top|(r.Uint64()&lowMask(cut-ib))<<ib)
		}
	}
	for j := range w {
		w[j] |= uint64(j) // positions ascend within each run, as after a stable sort
	}
	want := slices.Clone(w)
	slices.Sort(want)
	got := slices.Clone(w)
	require.True(t, finishSort(got, len(got)*len(got)))
	require.Equal(t, want, got)

	got = slices.Clone(w)
	require.False(t, finishSort(got, 100), "the run of 300 takes more than 100 moves")
	slices.Sort(got)
	require.Equal(t, want, got, "not a permutation")
}

// Buckets whose keys agree in the top bits that loadSort sorts by radix,
// in runs of thousands, and differ below them: loadSort must sort them
// again by all bits, with and without the partial sort.
func TestCarryPartialRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	const n = 100000
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = uint64(r.IntN(4))<<40 | r.Uint64()&lowMask(20)
		if r.IntN(1000) == 0 {
			keys[i] |= r.Uint64() & lowMask(40) // the middle bits vary, rarely
		}
	}
	for _, off := range []bool{false, true} {
		t.Run(fmt.Sprintf("noPartial=%v", off), func(t *testing.T) {
			defer func(v bool) { noPartial = v }(noPartial)
			noPartial = off
			for _, workers := range []int{1, 2} {
				checkCarry(t, carryCase{keys: keys, w: 1, keyBits: []uint{42}, vw: 8, workers: workers, merge: true, lend: true})
			}
		})
	}
}

// BenchmarkCarryPartial sorts 4M keys of 42 and 50 bits on one core, with
// the LSD passes of a bucket limited to its top bits and insertion after
// (partialTop) and with all bits sorted by radix. The keys are uniform
// (runs=1) or come in groups of about 16 or 64 that share all but their
// low 12 or 20 bits, in random order: the clustered keys that make
// loadSort go back to the whole sort. Run with -count to interleave the
// two.
func BenchmarkCarryPartial(b *testing.B) {
	const n = 4 << 20
	for _, lowBits := range []uint{12, 20} {
		for _, runs := range []int{1, 16, 64} {
			r := rand.New(rand.NewPCG(1, 2))
			groups := make([]uint64, n/runs)
			for i := range groups {
				groups[i] = r.Uint64() & lowMask(30)
			}
			keys := make([]uint64, n)
			for i := range keys {
				keys[i] = groups[r.IntN(len(groups))]<<lowBits | r.Uint64()&lowMask(lowBits)
			}
			benchPartial(b, fmt.Sprintf("bits=%d/runs=%d", 30+lowBits, runs), keys, 30+lowBits)
		}
	}
}

// BenchmarkCarrySizes sorts uniform keys of 40 and 60 bits, 20K to 1M of
// them, on one core, with partialTop and without; with 60-bit keys the
// buckets of the smaller sizes hold a few hundred to a few thousand
// entries. Run with -count to interleave the two.
func BenchmarkCarrySizes(b *testing.B) {
	for _, n := range []int{20000, 100000, 1000000} {
		for _, kb := range []uint{40, 60} {
			r := rand.New(rand.NewPCG(1, 2))
			keys := make([]uint64, n)
			for i := range keys {
				keys[i] = r.Uint64() & lowMask(kb)
			}
			benchPartial(b, fmt.Sprintf("n=%d/bits=%d", n, kb), keys, kb)
		}
	}
}

// benchPartial runs, as two sub-benchmarks, a one-core Carry of keys of kb
// bits with 8-byte values and lent staging, with and without partialTop.
func benchPartial(b *testing.B, name string, keys []uint64, kb uint) {
	n := len(keys)
	in := make([]byte, 8*n)
	outKeys := make([]uint64, n)
	outVals := make([]byte, 8*n)
	for _, partial := range []bool{true, false} {
		b.Run(fmt.Sprintf("%s/partial=%v", name, partial), func(b *testing.B) {
			noPartial = !partial
			defer func() { noPartial = false }()
			s := Carry{N: n, KeyBits: []uint{kb}, Workers: 1, In: in, VW: 8,
				Keys:      func(lo, hi int, dst []uint64) { copy(dst, keys[lo:hi]) },
				StageVals: outVals, StageKeys: castBytes(outKeys), StageKeyStride: 8,
				Reduce: func(pos int, bk *Bucket) int {
					for q, x := range bk.Words {
						outKeys[pos+q] = bk.Key(x)
					}
					return len(bk.Words)
				},
				Move: func(int, int, int) {},
			}
			runCarryBench(b, &s)
		})
	}
}

// BenchmarkCarryScatter sorts 10M uniform 40-bit keys (512 buckets) with
// 8-byte values and lent staging on one core, with the scatter through
// line buffers and directly. Run with -count to interleave the two.
func BenchmarkCarryScatter(b *testing.B) {
	const n = 10_000_000
	r := rand.New(rand.NewPCG(1, 2))
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = r.Uint64() & lowMask(40)
	}
	in, sk, sv := alignedBytes(8*n), alignedBytes(8*n), alignedBytes(8*n)
	for _, lines := range []bool{true, false} {
		b.Run(fmt.Sprintf("lines=%v", lines), func(b *testing.B) {
			noStream = !lines
			defer func() { noStream = false }()
			s := Carry{N: n, KeyBits: []uint{40}, Workers: 1, In: in, VW: 8,
				Keys:      func(lo, hi int, dst []uint64) { copy(dst, keys[lo:hi]) },
				StageVals: sv, StageKeys: sk, StageKeyStride: 8,
				Reduce: func(pos int, bk *Bucket) int { return len(bk.Words) },
				Move:   func(int, int, int) {},
			}
			runCarryBench(b, &s)
		})
	}
}

// runCarryBench times s.Run after a first, untimed run (the first touch of
// the output and staging pages) and reports ns per entry.
func runCarryBench(b *testing.B, s *Carry) {
	s.Run()
	b.ReportAllocs()
	for b.Loop() {
		s.Run()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(s.N), "ns/entry")
}
