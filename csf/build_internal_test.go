package csf

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse/internal/core"
)

// sortedKeys returns n distinct random linear keys (at most; duplicates
// drawn are dropped) of a tensor of the given sizes, ascending, with about
// perTop entries under each node of the top level.
func sortedKeys(r *rand.Rand, sizes []int64, n int, perTop float64) []uint64 {
	span := uint64(1)
	for _, s := range sizes[1:] {
		span *= uint64(s)
	}
	tops := max(min(int64(float64(n)/perTop), sizes[0]), 1)
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = uint64(r.Int64N(tops))*span + r.Uint64N(span)
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// referenceLevels builds the levels of sorted distinct keys the plain way:
// the nodes of level l are the distinct prefixes of l+1 coordinates.
func referenceLevels(sizes []int64, keys []uint64) (idx, ptr [][]int64) {
	nl := len(sizes)
	idx, ptr = make([][]int64, nl), make([][]int64, nl-1)
	prev := make([]int64, nl)
	for j, key := range keys {
		c := make([]int64, nl)
		for l := nl - 1; l >= 0; l-- {
			c[l] = int64(key % uint64(sizes[l]))
			key /= uint64(sizes[l])
		}
		d := 0
		for j > 0 && d < nl-1 && c[d] == prev[d] {
			d++
		}
		for l := d; l < nl; l++ {
			if l < nl-1 {
				ptr[l] = append(ptr[l], int64(len(idx[l+1])))
			}
			idx[l] = append(idx[l], c[l])
		}
		prev = c
	}
	for l := range nl - 1 {
		ptr[l] = append(ptr[l], int64(len(idx[l+1])))
	}
	return idx, ptr
}

// runPasses runs both passes of b over keys into new int64 buffers.
func runPasses(mem memory.Allocator, b *builder, sizes []int64, keys []uint64) (ib, pb []*memory.Buffer) {
	nl := len(sizes)
	b.setKeys([]int{0, nl}, [][]uint64{keys})
	counts := b.count()
	types := make([]arrow.DataType, nl)
	ib, pb = make([]*memory.Buffer, nl), make([]*memory.Buffer, nl-1)
	for l := range nl {
		types[l] = arrow.PrimitiveTypes.Int64
		ib[l] = core.NewBuffer(mem, 8*counts[l])
		if l < nl-1 {
			pb[l] = core.NewBuffer(mem, 8*(counts[l]+1))
		}
	}
	b.fill(ib, pb, types, types[:nl-1])
	return ib, pb
}

// buildLevels runs both passes of b over keys and returns the levels as
// int64s.
func buildLevels(mem memory.Allocator, b *builder, sizes []int64, keys []uint64) (idx, ptr [][]int64) {
	ib, pb := runPasses(mem, b, sizes, keys)
	for _, x := range ib {
		idx = append(idx, slices.Clone(core.MustSliceBytes[int64](x.Bytes())))
		x.Release()
	}
	for _, x := range pb {
		ptr = append(ptr, slices.Clone(core.MustSliceBytes[int64](x.Bytes())))
		x.Release()
	}
	return idx, ptr
}

// TestBuilderWalks checks that pass 1 and pass 2 give the reference levels
// whichever walk they take (nextKey, nextFlat, or each chunk's choice),
// on 2 to 4 levels of sizes that are and are not powers of two, with one
// entry per node or many, over 1 to 3 chunks.
func TestBuilderWalks(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		sizes  []int64
		n      int
		perTop float64
	}{
		{[]int64{1_000_000, 1_000_000}, 40_000, 1},
		{[]int64{1_000_000, 1_000_000}, 40_000, 30},
		{[]int64{1 << 16, 1 << 20}, 40_000, 2},
		{[]int64{3, 5}, 15, 5},
		{[]int64{1000, 7, 1 << 10}, 30_000, 3},
		{[]int64{12092, 9184, 28818}, 30_000, 1},
		{[]int64{300, 200, 100, 50}, 30_000, 1.5},
		{[]int64{5000, 1}, 3000, 1},
	} {
		keys := sortedKeys(r, c.sizes, c.n, c.perTop)
		wantIdx, wantPtr := referenceLevels(c.sizes, keys)
		for _, walk := range []int{0, 1, -1} {
			for _, workers := range []int{1, 2, 3} {
				name := fmt.Sprintf("%v/n=%d/perTop=%v/walk=%d/workers=%d", c.sizes, len(keys), c.perTop, walk, workers)
				t.Run(name, func(t *testing.T) {
					forceWalk = walk
					defer func() { forceWalk = 0 }()
					b := newBuilder(c.sizes, int64(len(keys)), workers)
					b.chunks = make([]int64, workers+1) // chunks even for small inputs
					for q := range workers + 1 {
						b.chunks[q] = int64(len(keys) * q / workers)
					}
					idx, ptr := buildLevels(mem, b, c.sizes, keys)
					require.Equal(t, wantIdx, idx, "indices")
					require.Equal(t, wantPtr, ptr, "indptr")
				})
			}
		}
	}
}

// TestFlatWalkChoice checks flatWalk's choice on the histograms of a
// matrix with about one entry per row (flat), with many (nextKey), and of
// a tensor whose entries each start a fibre (nextKey: the fibre branch is
// predictable).
func TestFlatWalkChoice(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct {
		sizes  []int64
		perTop float64
		flat   bool
	}{
		{[]int64{1_000_000, 1_000_000}, 1, true},
		{[]int64{1_000_000, 1_000_000}, 20, false},
		{[]int64{1_000_000, 1_000_000, 1_000_000}, 10, false},
		{[]int64{1_000_000}, 1, false},
	} {
		keys := sortedKeys(r, c.sizes, 20_000, c.perTop)
		b := newBuilder(c.sizes, int64(len(keys)), 1)
		b.setKeys([]int{0, len(c.sizes)}, [][]uint64{keys})
		b.count()
		require.Equal(t, c.flat, b.flatWalk(b.hist[0]), "%v, %v entries per top node", c.sizes, c.perTop)
	}
}

// BenchmarkBuilder times both passes of the builder alone over sorted keys
// shaped like the bench workloads (a at 1M and 10M entries: about 1 and 10
// entries per row; b's 3-d 10^6 modes), and a at 4× the entries with 10^9
// rows and columns, with each walk: ns/entry should not grow.
func BenchmarkBuilder(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, c := range []struct {
		name   string
		sizes  []int64
		n      int
		perTop float64
	}{
		{"2d-1perrow", []int64{1_000_000, 1_000_000}, 1_000_000, 1.3},
		{"2d-1perrow-4x-1e9", []int64{1_000_000_000, 1_000_000_000}, 4_000_000, 1.3},
		{"2d-10perrow", []int64{1_000_000, 1_000_000}, 4_000_000, 10},
		{"3d-1e6", []int64{1_000_000, 1_000_000, 1_000_000}, 4_000_000, 10},
	} {
		keys := sortedKeys(r, c.sizes, c.n, c.perTop)
		for _, walk := range []int{0, 1, -1} {
			b.Run(fmt.Sprintf("%s/walk=%d", c.name, walk), func(b *testing.B) {
				forceWalk = walk
				defer func() { forceWalk = 0 }()
				mem := memory.NewGoAllocator()
				b.ReportAllocs()
				for b.Loop() {
					ib, pb := runPasses(mem, newBuilder(c.sizes, int64(len(keys)), 1), c.sizes, keys)
					for _, x := range append(ib, pb...) {
						x.Release()
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(keys)), "ns/entry")
			})
		}
	}
}
