package views

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// ref is the naive model of a view: its shape and its elements in
// row-major order, each operation computed element by element from the
// definition.
type ref struct {
	shape []int64
	data  []float64
}

func refSize(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	return n
}

// build evaluates f at every index of shape, in row-major order.
func build(shape []int64, f func(idx []int64) float64) ref {
	r := ref{shape: slices.Clone(shape), data: make([]float64, 0, refSize(shape))}
	if refSize(shape) == 0 {
		return r
	}
	idx := make([]int64, len(shape))
	for {
		r.data = append(r.data, f(idx))
		k := len(shape) - 1
		for ; k >= 0; k-- {
			idx[k]++
			if idx[k] < shape[k] {
				break
			}
			idx[k] = 0
		}
		if k < 0 {
			return r
		}
	}
}

func (r ref) at(idx []int64) float64 {
	p := int64(0)
	for k, i := range idx {
		p = p*r.shape[k] + i
	}
	return r.data[p]
}

// pyRange lists the indices of range(n)[start:stop:step] by Python's
// definition; None bounds are the defaults.
func pyRange(n int64, rg Range) []int64 {
	var out []int64
	norm := func(b int64) int64 {
		if b < 0 {
			return b + n
		}
		return b
	}
	if rg.Step > 0 {
		lo, hi := int64(0), n
		if rg.Start != None {
			lo = min(max(norm(rg.Start), 0), n)
		}
		if rg.Stop != None {
			hi = min(max(norm(rg.Stop), 0), n)
		}
		for i := lo; i < hi; i += rg.Step {
			out = append(out, i)
		}
		return out
	}
	hi, lo := n-1, int64(-1)
	if rg.Start != None {
		hi = min(max(norm(rg.Start), -1), n-1)
	}
	if rg.Stop != None {
		lo = min(max(norm(rg.Stop), -1), n-1)
	}
	for i := hi; i > lo; i += rg.Step {
		out = append(out, i)
	}
	return out
}

func TestRangeMatchesPython(t *testing.T) {
	// Expected values are Python's list(range(10)[s]).
	for _, tc := range []struct {
		r    Range
		want []int64
	}{
		{Range{2, 8, 2}, []int64{2, 4, 6}},
		{Range{None, None, -1}, []int64{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}},
		{Range{-3, None, 1}, []int64{7, 8, 9}},
		{Range{8, 2, -2}, []int64{8, 6, 4}},
		{Range{-100, 100, 1}, []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{Range{100, -100, -1}, []int64{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}},
		{Range{5, 5, 1}, nil},
		{Range{None, None, 3}, []int64{0, 3, 6, 9}},
		{Range{-1, -12, -3}, []int64{9, 6, 3, 0}},
		{Range{3, 1, 1}, nil},
		{Range{None, 3, -1}, []int64{9, 8, 7, 6, 5, 4}},
		{Range{1, None, -1}, []int64{1, 0}},
		{Range{0, 10, 1 << 62}, []int64{0}},
		{Range{9, None, None}, []int64{9}}, // step None (MinInt64): one index
	} {
		t.Run(fmt.Sprint(tc.r), func(t *testing.T) {
			start, step, n, err := tc.r.Resolve(10)
			require.NoError(t, err)
			var got []int64
			for i := range n {
				got = append(got, start+i*step)
			}
			assert.Equal(t, tc.want, got)
			if tc.r.Step != None {
				assert.Equal(t, tc.want, pyRange(10, tc.r))
			}
		})
	}
	_, _, _, err := Range{0, 1, 0}.Resolve(10)
	require.ErrorIs(t, err, arrow.ErrIndex)
}

// chain applies random operations to a view and its naive model and checks
// them against each other after every step.
type chain struct {
	t   *testing.T
	rng *rand.Rand
	mem memory.Allocator
	log []string
}

func (c *chain) randRange(n int64) Range {
	pick := func() int64 {
		switch c.rng.IntN(4) {
		case 0:
			return None
		case 1:
			return c.rng.Int64N(2*n+5) - n - 2
		default:
			return c.rng.Int64N(n + 1)
		}
	}
	step := int64(c.rng.IntN(3) + 1)
	if c.rng.IntN(3) == 0 {
		step = -step
	}
	return Range{pick(), pick(), step}
}

// step applies one random operation. It returns the new view and model, or
// the old ones (with the new view nil) when the operation was refused.
func (c *chain) step(v *viewBase, r ref) (*viewBase, ref) {
	nd := len(r.shape)
	rng := c.rng
	axis := func() int { return rng.IntN(max(nd, 1)) }
	switch op := rng.IntN(12); op {
	case 0: // slice
		if nd == 0 {
			return nil, r
		}
		rs := make([]Range, rng.IntN(nd+1))
		lists := make([][]int64, nd)
		for k := range nd {
			if k < len(rs) {
				rs[k] = c.randRange(r.shape[k])
				lists[k] = pyRange(r.shape[k], rs[k])
			} else {
				lists[k] = pyRange(r.shape[k], Full())
			}
		}
		c.log = append(c.log, fmt.Sprintf("Slice%v", rs))
		out, err := v.slice(rs)
		require.NoError(c.t, err)
		shape := make([]int64, nd)
		for k := range nd {
			shape[k] = int64(len(lists[k]))
		}
		return out, build(shape, func(idx []int64) float64 {
			old := make([]int64, nd)
			for k, i := range idx {
				old[k] = lists[k][i]
			}
			return r.at(old)
		})
	case 1: // index
		if nd == 0 || r.shape[0] == 0 {
			return nil, r
		}
		k := axis()
		if r.shape[k] == 0 {
			return nil, r
		}
		i := rng.Int64N(2*r.shape[k]) - r.shape[k]
		c.log = append(c.log, fmt.Sprintf("Index(%d,%d)", k, i))
		out, err := v.index(k, i)
		require.NoError(c.t, err)
		ii := i
		if ii < 0 {
			ii += r.shape[k]
		}
		shape := slices.Delete(slices.Clone(r.shape), k, k+1)
		return out, build(shape, func(idx []int64) float64 {
			return r.at(slices.Insert(slices.Clone(idx), k, ii))
		})
	case 2: // transpose
		perm := rng.Perm(nd)
		c.log = append(c.log, fmt.Sprintf("Transpose%v", perm))
		out, err := v.transpose(perm)
		require.NoError(c.t, err)
		shape := make([]int64, nd)
		for k, p := range perm {
			shape[k] = r.shape[p]
		}
		return out, build(shape, func(idx []int64) float64 {
			old := make([]int64, nd)
			for k, p := range perm {
				old[p] = idx[k]
			}
			return r.at(old)
		})
	case 3: // flip
		if nd == 0 {
			return nil, r
		}
		k := axis()
		c.log = append(c.log, fmt.Sprintf("Flip(%d)", k))
		out, err := v.flip(k)
		require.NoError(c.t, err)
		return out, build(r.shape, func(idx []int64) float64 {
			old := slices.Clone(idx)
			old[k] = r.shape[k] - 1 - idx[k]
			return r.at(old)
		})
	case 4: // expand dims
		if nd >= 6 {
			return nil, r
		}
		k := rng.IntN(nd + 1)
		c.log = append(c.log, fmt.Sprintf("ExpandDims(%d)", k))
		out, err := v.expandDims(k)
		require.NoError(c.t, err)
		return out, build(slices.Insert(slices.Clone(r.shape), k, 1), func(idx []int64) float64 {
			return r.at(slices.Delete(slices.Clone(idx), k, k+1))
		})
	case 5: // squeeze all
		c.log = append(c.log, "Squeeze()")
		out, err := v.squeeze(nil)
		require.NoError(c.t, err)
		var shape []int64
		for _, d := range r.shape {
			if d != 1 {
				shape = append(shape, d)
			}
		}
		return out, ref{shape: shape, data: r.data}
	case 6, 7: // broadcast or tile
		tile := op == 7
		lead := rng.IntN(2)
		if nd+lead > 6 || refSize(r.shape) > 200 {
			return nil, r
		}
		shape := make([]int64, lead+nd)
		for k := range lead {
			shape[k] = rng.Int64N(3)
		}
		for k, d := range r.shape {
			switch {
			case d == 1:
				shape[lead+k] = rng.Int64N(4)
			case tile && d > 0 && rng.IntN(2) == 0:
				shape[lead+k] = d * (1 + rng.Int64N(3))
			default:
				shape[lead+k] = d
			}
		}
		c.log = append(c.log, fmt.Sprintf("broadcast(%v,%v)", shape, tile))
		out, err := v.broadcast(shape, tile)
		require.NoError(c.t, err)
		return out, build(shape, func(idx []int64) float64 {
			old := make([]int64, nd)
			for k, d := range r.shape {
				old[k] = idx[lead+k] % d
			}
			return r.at(old)
		})
	case 8: // rotate
		if nd == 0 {
			return nil, r
		}
		k := axis()
		shift := rng.Int64N(11) - 5
		c.log = append(c.log, fmt.Sprintf("Rotate(%d,%d)", k, shift))
		out, err := v.rotate(k, shift)
		require.NoError(c.t, err)
		n := r.shape[k]
		return out, build(r.shape, func(idx []int64) float64 {
			old := slices.Clone(idx)
			old[k] = ((idx[k]-shift)%n + n) % n
			return r.at(old)
		})
	case 9: // select
		if nd == 0 {
			return nil, r
		}
		k := axis()
		n := r.shape[k]
		if n == 0 {
			return nil, r
		}
		list := make([]int64, rng.IntN(5))
		for j := range list {
			list[j] = rng.Int64N(2*n) - n
		}
		c.log = append(c.log, fmt.Sprintf("Select(%d,%v)", k, list))
		out, err := v.selectIdx(k, list)
		require.NoError(c.t, err)
		shape := slices.Clone(r.shape)
		shape[k] = int64(len(list))
		return out, build(shape, func(idx []int64) float64 {
			old := slices.Clone(idx)
			old[k] = (list[idx[k]] + n) % n
			return r.at(old)
		})
	case 10: // reshape, when the view allows it
		if v.maps != nil {
			return nil, r
		}
		shape := randomFactorisation(rng, r.shape)
		c.log = append(c.log, fmt.Sprintf("Reshape%v", shape))
		out, err := asView(v).Reshape(shape...)
		if err != nil {
			require.ErrorIs(c.t, err, arrow.ErrInvalid)
			// the copy always works, and the copy's own reshape is a view
			cp, err := asView(v).ReshapeCopy(c.mem, shape...)
			require.NoError(c.t, err)
			defer cp.Release()
			assert.True(c.t, cp.IsCContiguous())
			assert.Equal(c.t, r.data, data[float64](cp)[:len(r.data)])
			return nil, r
		}
		resolved := slices.Clone(shape)
		for k, d := range resolved {
			if d == -1 {
				resolved[k] = 1
				resolved[k] = refSize(r.shape) / refSize(resolved)
			}
		}
		return &out.viewBase, ref{shape: resolved, data: r.data}
	default: // read-only, names
		c.log = append(c.log, "AsReadOnly")
		return v.asReadOnly(), r
	}
}

// randomFactorisation returns a random shape with the same element count.
func randomFactorisation(rng *rand.Rand, shape []int64) []int64 {
	n := refSize(shape)
	if n == 0 {
		return []int64{0, int64(rng.IntN(3))}
	}
	var out []int64
	for n > 1 {
		d := int64(2)
		for n%d != 0 {
			d++
		}
		if len(out) > 0 && rng.IntN(2) == 0 {
			out[len(out)-1] *= d
		} else {
			out = append(out, d)
		}
		n /= d
		if rng.IntN(4) == 0 {
			out = append(out, 1)
		}
	}
	if rng.IntN(3) == 0 && len(out) > 0 {
		out[rng.IntN(len(out))] = -1
		return out
	}
	return out
}

// check compares every element of v with the model.
func (c *chain) check(v *viewBase, r ref) {
	t := c.t
	t.Helper()
	msg := strings.Join(c.log, " → ")
	require.True(t, slices.Equal(r.shape, v.shape), "%s: shape %v, want %v", msg, v.shape, r.shape)
	require.Equal(t, int64(len(r.data)), v.size, msg)
	data := typed[float64](v)
	// At and Offset, and Locate as Offset's inverse
	i := 0
	for idx, x := range All[float64](asRemapped(v)) {
		require.Equal(t, r.data[i], x, "%s: All at %v", msg, idx)
		off := v.Offset(idx...)
		require.Equal(t, r.at(idx), data[off], "%s: At %v", msg, idx)
		back, ok := v.Locate(off)
		require.True(t, ok, "%s: Locate(%d) of %v", msg, off, idx)
		require.Equal(t, off, v.Offset(back...), "%s: Locate(%d)", msg, off)
		i++
	}
	require.Equal(t, len(r.data), i, msg)
	got := slices.Collect(Elements[float64](asRemapped(v)))
	require.Equal(t, len(r.data), len(got), msg)
	if len(got) > 0 {
		require.Equal(t, r.data, got, msg)
	}
	// Locate answers "no such element" exactly for the positions not reached
	reached := map[int64]bool{}
	for idx := range All[float64](asRemapped(v)) {
		reached[v.Offset(idx...)] = true
	}
	for pos := int64(-2); pos < int64(len(data))+2; pos++ {
		_, ok := v.Locate(pos)
		require.Equal(t, reached[pos], ok, "%s: Locate(%d)", msg, pos)
	}
	cp, err := v.Copy(c.mem, CopyOptions{})
	require.NoError(t, err, msg)
	defer cp.Release()
	require.True(t, cp.IsCContiguous())
	if len(r.data) > 0 {
		require.Equal(t, r.data, typed[float64](&cp.viewBase)[:len(r.data)], msg)
	}
	// CopyTo a transposed (non-contiguous) destination, then read it back
	if len(r.shape) >= 2 && !v.readOnly {
		rev := slices.Clone(r.shape)
		slices.Reverse(rev)
		dst, err := Alloc(c.mem, arrow.PrimitiveTypes.Float64, rev)
		require.NoError(t, err)
		dt := dst.T()
		require.NoError(t, v.CopyTo(c.mem, dt, CopyOptions{}), msg)
		for idx, x := range All[float64](dt) {
			require.Equal(t, r.at(idx), x, msg)
		}
		dt.Release()
		dst.Release()
	}
	if v.readOnly {
		if v.size > 0 {
			zero := make([]int64, len(v.shape))
			require.ErrorIs(t, Set(asRemapped(v), 0.0, zero...), arrowsparse.ErrReadOnly)
		}
	}
}

func TestPropertyRandomChains(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(1, 2))
	n := 3000
	if testing.Short() {
		n = 300
	}
	for trial := range n {
		c := &chain{t: t, rng: rng, mem: mem}
		v, r := c.randomBase()
		c.check(v, r)
		for range 1 + rng.IntN(7) {
			nv, nr := c.step(v, r)
			if nv == nil {
				continue
			}
			v.Release() // the derived view keeps the buffer alive
			v, r = nv, nr
			c.check(v, r)
		}
		v.Release()
		if t.Failed() {
			t.Fatalf("trial %d failed", trial)
		}
	}
}

// randomBase returns a view over a buffer whose element p holds float64(p):
// contiguous, or with permuted, negative or padded strides.
func (c *chain) randomBase() (*viewBase, ref) {
	rng := c.rng
	nd := rng.IntN(5)
	shape := make([]int64, nd)
	for k := range shape {
		shape[k] = rng.Int64N(5)
		if rng.IntN(8) == 0 {
			shape[k] = 1
		}
	}
	c.log = append(c.log, fmt.Sprintf("base%v", shape))
	// a padded row-major layout, its axes permuted and some flipped
	perm := rng.Perm(nd)
	strides := make([]int64, nd)
	s := int64(1 + rng.IntN(2))
	for j := nd - 1; j >= 0; j-- {
		k := perm[j]
		strides[k] = s
		s *= max(shape[k], 1) + int64(rng.IntN(2))
	}
	offset := int64(rng.IntN(3))
	for k := range nd {
		if rng.IntN(3) == 0 {
			offset += (max(shape[k], 1) - 1) * strides[k]
			strides[k] = -strides[k]
		}
	}
	total := s + offset + 3
	buf := core.NewZeroedBuffer(c.mem, total*8)
	defer buf.Release()
	d := core.MustSlice[float64](buf, total)
	for i := range d {
		d[i] = float64(i)
	}
	v, err := New(arrow.PrimitiveTypes.Float64, buf, offset, shape, strides)
	require.NoError(c.t, err, "%v %v %d", shape, strides, offset)
	return &v.viewBase, build(shape, func(idx []int64) float64 {
		p := offset
		for k, i := range idx {
			p += i * strides[k]
		}
		return float64(p)
	})
}
