package gcs_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
	"github.com/arrowsparse/arrowsparse/views"
)

// storageIndex returns the storage index of the wrapper index idx under
// dims and partitioning: each group linearised in C order.
func storageIndex(shape []int64, dims, cuts []int, idx []int64) []int64 {
	b := append(append([]int{0}, cuts...), len(dims))
	s := make([]int64, len(b)-1)
	for k := range s {
		for _, a := range dims[b[k]:b[k+1]] {
			s[k] = s[k]*shape[a] + idx[a]
		}
	}
	return s
}

func storageShape(shape []int64, dims, cuts []int) []int64 {
	b := append(append([]int{0}, cuts...), len(dims))
	s := make([]int64, len(b)-1)
	for k := range s {
		s[k] = 1
		for _, a := range dims[b[k]:b[k+1]] {
			s[k] *= shape[a]
		}
	}
	return s
}

// dmCase is a wrapper tensor stored in several formats.
type dmCase struct {
	shape  []int64
	dims   []int
	cuts   []int
	ref    *views.View // the wrapper, dense
	stores map[string]arrowsparse.Tensor
}

func (c *dmCase) release() {
	c.ref.Release()
	for _, s := range c.stores {
		s.Release()
	}
}

// newDMCase stores a random wrapper tensor with non-zero values (no
// duplicates) in every storage format that fits its partitioning.
func newDMCase(t *testing.T, mem memory.Allocator, r *rand.Rand, shape []int64, dims, cuts []int) *dmCase {
	t.Helper()
	x, _ := testutil.RandomCOO(t, mem, r, shape, 3+r.IntN(30), coo.RowMajor, i64, f64, 0)
	defer x.Release()
	cx, err := x.Canonicalize(mem, coo.ConvertOptions{Duplicates: arrowsparse.KeepFirst})
	require.NoError(t, err)
	defer cx.Release()
	d, err := cx.ToDense(mem)
	require.NoError(t, err)
	c := &dmCase{shape: shape, dims: dims, cuts: cuts, ref: d.(*views.View), stores: map[string]arrowsparse.Tensor{}}
	ss := storageShape(shape, dims, cuts)
	var sc []int64
	var sv []float64
	for idx, v := range coo.All[float64](cx) {
		sc = append(sc, storageIndex(shape, dims, cuts, idx)...)
		sv = append(sv, v)
	}
	// Shuffle the storage entries: the COO storage is then not canonical.
	n := len(sv)
	for i := n - 1; i > 0; i-- {
		j := r.IntN(i + 1)
		sv[i], sv[j] = sv[j], sv[i]
		w := len(ss)
		for k := range w {
			sc[i*w+k], sc[j*w+k] = sc[j*w+k], sc[i*w+k]
		}
	}
	sx, err := coo.FromSlices(mem, ss, sc, coo.RowMajor, sv)
	require.NoError(t, err)
	c.stores["coo"] = sx
	can, err := sx.Canonicalize(mem, coo.ConvertOptions{})
	require.NoError(t, err)
	c.stores["coo-canonical"] = can
	dense, err := sx.ToDense(mem)
	require.NoError(t, err)
	c.stores["dense"] = dense
	if len(ss) == 2 {
		csr, err := gcs.MatrixFromCOO(mem, sx, gcs.Rows, gcs.ConvertOptions{IndexType: i32})
		require.NoError(t, err)
		c.stores["csr"] = csr
		csc, err := gcs.MatrixFromCOO(mem, sx, gcs.Cols, gcs.ConvertOptions{})
		require.NoError(t, err)
		c.stores["csc"] = csc
		// A CSR with unsorted rows.
		c.stores["csr-unsorted"] = unsortRows(t, mem, csr, r)
	}
	if len(ss) >= 2 {
		g, err := fromCOOMapped(mem, sx, r.Perm(len(ss)), 1, gcs.ConvertOptions{})
		require.NoError(t, err)
		c.stores["gcs"] = g
		// A DM over a CSR: hierarchical storage.
		inner, err := fromCOOMapped(mem, sx, identity(len(ss)), len(ss)-1, gcs.ConvertOptions{})
		require.NoError(t, err)
		h := inner.DM()
		inner.Release()
		c.stores["dm"] = h
	}
	return c
}

func identity(n int) []int {
	p := make([]int, n)
	for k := range p {
		p[k] = k
	}
	return p
}

// unsortRows returns m (a CSR) with every row reversed.
func unsortRows(t *testing.T, mem memory.Allocator, m *gcs.Matrix, r *rand.Rand) *gcs.Matrix {
	t.Helper()
	var ptr, idx []int64
	var vs []float64
	ptr = append(ptr, 0)
	for k := range m.Rows() {
		cols, v := gcs.Row[float64](m, k)
		slices.Reverse(cols)
		slices.Reverse(v)
		idx = append(idx, cols...)
		vs = append(vs, v...)
		ptr = append(ptr, int64(len(idx)))
	}
	out, err := gcs.FromSlices(mem, gcs.Rows, m.Shape(), ptr, idx, vs)
	require.NoError(t, err)
	return out
}

type dmOp struct {
	name  string
	apply func(d *gcs.DM, v *views.View) (*gcs.DM, *views.View, error, error)
}

// randomOp picks a slice, an index, a transpose or a swap for a tensor of
// the given shape.
func randomOp(r *rand.Rand, shape []int64) dmOp {
	nd := len(shape)
	choice := r.IntN(4)
	if nd == 0 {
		choice = 2
	}
	switch choice {
	case 0, 3:
		ranges := make([]views.Range, r.IntN(nd+1))
		for a := range ranges {
			n := shape[a]
			pick := func() int64 {
				switch r.IntN(4) {
				case 0:
					return views.None
				case 1:
					return -r.Int64N(n+2) - 1 + 1
				}
				return r.Int64N(n + 2)
			}
			step := int64(r.IntN(3) + 1)
			if r.IntN(3) == 0 {
				step = -step
			}
			ranges[a] = views.Range{Start: pick(), Stop: pick(), Step: step}
		}
		return dmOp{fmt.Sprintf("slice%v", ranges), func(d *gcs.DM, v *views.View) (*gcs.DM, *views.View, error, error) {
			a, e1 := d.Slice(ranges...)
			b, e2 := v.Slice(ranges...)
			return a, b, e1, e2
		}}
	case 1:
		axis := r.IntN(nd)
		if shape[axis] == 0 {
			return randomOp(r, shape)
		}
		i := r.Int64N(shape[axis])
		if r.IntN(2) == 0 {
			i -= shape[axis]
		}
		return dmOp{fmt.Sprintf("index(%d,%d)", axis, i), func(d *gcs.DM, v *views.View) (*gcs.DM, *views.View, error, error) {
			a, e1 := d.Index(axis, i)
			b, e2 := v.Index(axis, i)
			return a, b, e1, e2
		}}
	}
	perm := r.Perm(nd)
	if r.IntN(2) == 0 && nd >= 2 {
		a, b := r.IntN(nd), r.IntN(nd)
		return dmOp{fmt.Sprintf("swap(%d,%d)", a, b), func(d *gcs.DM, v *views.View) (*gcs.DM, *views.View, error, error) {
			p := identity(nd)
			p[a], p[b] = p[b], p[a]
			x, e1 := d.SwapAxes(a, b)
			y, e2 := v.Transpose(p...)
			return x, y, e1, e2
		}}
	}
	return dmOp{fmt.Sprintf("transpose%v", perm), func(d *gcs.DM, v *views.View) (*gcs.DM, *views.View, error, error) {
		a, e1 := d.Transpose(perm...)
		b, e2 := v.Transpose(perm...)
		return a, b, e1, e2
	}}
}

// checkDM compares a DM with its dense reference.
func checkDM(t *testing.T, mem memory.Allocator, d *gcs.DM, ref *views.View, dense bool) {
	t.Helper()
	require.Equal(t, ref.Shape(), d.Shape())
	want := testutil.DenseValues(t, ref)
	got, err := d.ToDense(mem)
	require.NoError(t, err)
	require.Equal(t, want, testutil.DenseValues(t, got))
	got.Release()
	// All yields exactly the elements of the slice: every non-zero once
	// over sparse storage (no stored zeros here), every element over dense.
	shape := d.Shape()
	seen := map[int64]bool{}
	for idx, v := range gcs.All[float64](d) {
		require.Len(t, idx, len(shape))
		q := testutil.Linear(shape, idx)
		require.False(t, seen[q], "index %v yielded twice", idx)
		seen[q] = true
		require.Equal(t, want[q], v, "index %v", idx)
	}
	nz := 0
	for _, v := range want {
		if v != 0 {
			nz++
		}
	}
	if dense {
		require.Len(t, seen, len(want))
	} else {
		require.Len(t, seen, nz)
	}
	require.Equal(t, int64(len(seen)), d.NNZ())
	// At on every element.
	idx := make([]int64, len(shape))
	for q := range want {
		r := int64(q)
		for k := len(shape) - 1; k >= 0; k-- {
			idx[k] = r % shape[k]
			r /= shape[k]
		}
		require.Equal(t, want[q], gcs.At[float64](d, idx...), "At%v", idx)
	}
	// Materialised.
	c, err := d.ToCOO(mem, gcs.ConvertOptions{})
	require.NoError(t, err)
	cd, err := c.ToDense(mem)
	require.NoError(t, err)
	require.Equal(t, want, testutil.DenseValues(t, cd))
	cd.Release()
	c.Release()
	rev := identity(len(shape))
	slices.Reverse(rev)
	g, err := toGCSMapped(mem, d, rev, len(shape)/2, gcs.ConvertOptions{})
	require.NoError(t, err)
	gd, err := g.ToDense(mem)
	require.NoError(t, err)
	require.Equal(t, want, testutil.DenseValues(t, gd))
	gd.Release()
	g.Release()
	if len(shape) == 2 {
		m, err := d.ToMatrix(mem, gcs.Cols, gcs.ConvertOptions{})
		require.NoError(t, err)
		md, err := m.ToDense(mem)
		require.NoError(t, err)
		require.Equal(t, want, testutil.DenseValues(t, md))
		md.Release()
		m.Release()
	}
}

// Random wrappers over every storage format, under random chains of
// slices, indexing and permutations, against the same chain applied to a
// dense view.
func TestPropertyDM(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	configs := []struct {
		shape []int64
		dims  []int
		cuts  []int
	}{
		{[]int64{3, 4, 5}, []int{2, 1, 0}, []int{1}}, // the DM proposal: storage (5, 12)
		{[]int64{2, 3, 4}, []int{0, 1, 2}, []int{2}},
		{[]int64{4, 5}, []int{1, 0}, []int{1}},
		{[]int64{6}, []int{0}, nil},
		{[]int64{2, 3, 2, 3}, []int{3, 0, 2, 1}, []int{2}},
		{[]int64{2, 3, 4}, []int{1, 2, 0}, []int{1, 2}},
		{[]int64{3, 2, 2, 2}, []int{0, 3, 1, 2}, []int{1, 3}},
		{[]int64{3, 4}, []int{0, 1}, []int{0}}, // an empty group: storage (1, 12)
		{[]int64{2, 0, 3}, []int{0, 1, 2}, []int{1}},
	}
	for ci, cfg := range configs {
		mem := testutil.Checked(t)
		c := newDMCase(t, mem, r, cfg.shape, cfg.dims, cfg.cuts)
		for name, st := range c.stores {
			t.Run(fmt.Sprintf("%d:%v/%v/%v/%s", ci, cfg.shape, cfg.dims, cfg.cuts, name), func(t *testing.T) {
				d, err := gcs.NewDM(cfg.shape, cfg.dims, cfg.cuts, st)
				require.NoError(t, err)
				assert.Equal(t, "DM", d.Format().String())
				assert.Equal(t, cfg.dims, d.Dims())
				assert.Equal(t, append([]int{}, cfg.cuts...), d.Partitioning())
				dense := name == "dense"
				checkDM(t, mem, d, c.ref, dense)
				for chain := range 12 {
					cur, ref := d, c.ref
					cur.Retain()
					ref.Retain()
					var names []string
					for range 1 + chain%4 {
						op := randomOp(r, cur.Shape())
						names = append(names, op.name)
						nd, nr, e1, e2 := op.apply(cur, ref)
						require.NoError(t, e2, "%v", names)
						require.NoError(t, e1, "%v", names)
						cur.Release()
						ref.Release()
						cur, ref = nd, nr
						// No copy: the storage is the original.
						if name != "gcs" {
							assert.Same(t, st, cur.Storage())
						}
					}
					t.Logf("%v", names)
					checkDM(t, mem, cur, ref, dense)
					cur.Release()
					ref.Release()
				}
				d.Release()
			})
		}
		c.release()
	}
}

// The DM proposal's example: shape (3, 4, 5), dims (2, 1, 0), partitioning (1,)
// gives a (5, 12) storage; and the parameters of its reference implementation.
func TestDMStorageExample(t *testing.T) {
	mem := testutil.Checked(t)
	v, err := views.Alloc(mem, f64, []int64{5, 12})
	require.NoError(t, err)
	defer v.Release()
	for i := range testutil.ViewValues[float64](t, v) {
		testutil.ViewValues[float64](t, v)[i] = float64(i)
	}
	d, err := gcs.NewDM([]int64{3, 4, 5}, []int{2, 1, 0}, []int{1}, v)
	require.NoError(t, err)
	defer d.Release()
	// Element (i, j, k) is storage (k, j·3 + i).
	assert.Equal(t, float64(4*12+2*3+1), gcs.At[float64](d, 1, 2, 4))
	rd, rs, ro := d.Reduction()
	assert.Equal(t, [][]int{{2}, {1, 0}}, rd)
	assert.Equal(t, [][]int64{{1}, {3, 1}}, rs)
	assert.Equal(t, []int64{0, 0}, ro)
	// Slicing moves the offsets and scales the strides.
	s, err := d.Slice(views.Range{Start: 1, Stop: 3, Step: 1}, views.Full(), views.Range{Start: 4, Stop: views.None, Step: -2})
	require.NoError(t, err)
	defer s.Release()
	assert.Equal(t, []int64{2, 4, 3}, s.Shape())
	rd, rs, ro = s.Reduction()
	assert.Equal(t, [][]int{{2}, {1, 0}}, rd)
	assert.Equal(t, [][]int64{{-2}, {3, 1}}, rs)
	assert.Equal(t, []int64{4, 1}, ro)
	assert.Equal(t, gcs.At[float64](d, 2, 3, 0), gcs.At[float64](s, 1, 3, 2))
	assert.Same(t, v, s.Storage())
	// Indexing away a whole group leaves a fixed storage index.
	ix, err := s.Index(2, 1)
	require.NoError(t, err)
	defer ix.Release()
	assert.Equal(t, []int{1, 0}, ix.Dims())
	assert.Equal(t, []int{0}, ix.Partitioning())
	rd, _, ro = ix.Reduction()
	assert.Equal(t, [][]int{nil, {1, 0}}, rd)
	assert.Equal(t, []int64{2, 1}, ro)
	assert.Equal(t, gcs.At[float64](d, 2, 3, 2), gcs.At[float64](ix, 1, 3))
}

// A CSR storage is read lane by lane: slicing rows skips the others, and
// At answers by binary search.
func TestDMOverCSR(t *testing.T) {
	mem := testutil.Checked(t)
	x := gcs4x5(t, mem)
	defer x.Release()
	m, err := gcs.MatrixFromCOO(mem, x, gcs.Rows, gcs.ConvertOptions{})
	require.NoError(t, err)
	defer m.Release()
	d, err := gcs.NewDM([]int64{4, 5}, []int{0, 1}, []int{1}, m)
	require.NoError(t, err)
	defer d.Release()
	s, err := d.Slice(views.Range{Start: 2, Stop: 4, Step: 1}, views.Range{Start: 3, Stop: views.None, Step: 1})
	require.NoError(t, err)
	defer s.Release()
	var got [][3]float64
	for idx, v := range gcs.All[float64](s) {
		got = append(got, [3]float64{float64(idx[0]), float64(idx[1]), v})
	}
	assert.Equal(t, [][3]float64{{0, 0, 7}, {1, 0, 8}, {1, 1, 9}}, got)
	assert.Equal(t, int64(3), s.NNZ())
	tr, err := s.Transpose()
	require.NoError(t, err)
	defer tr.Release()
	assert.Equal(t, 9.0, gcs.At[float64](tr, 1, 1))
	assert.Equal(t, 8.0, gcs.At[float64](tr, 0, 1))
	assert.Same(t, m, tr.Storage())
}

func TestDMBadInput(t *testing.T) {
	mem := testutil.Checked(t)
	v, err := views.Alloc(mem, f64, []int64{5, 12})
	require.NoError(t, err)
	defer v.Release()
	shape := []int64{3, 4, 5}
	for _, c := range []struct {
		name  string
		shape []int64
		dims  []int
		cuts  []int
		st    arrowsparse.Tensor
		want  error
	}{
		{"dims not a permutation", shape, []int{2, 2, 0}, []int{1}, v, arrowsparse.ErrStructure},
		{"dims too short", shape, []int{2, 1}, []int{1}, v, arrowsparse.ErrStructure},
		{"partitioning decreasing", shape, []int{2, 1, 0}, []int{2, 1}, v, arrowsparse.ErrStructure},
		{"partitioning out of range", shape, []int{2, 1, 0}, []int{4}, v, arrowsparse.ErrStructure},
		{"partitioning negative", shape, []int{2, 1, 0}, []int{-1}, v, arrowsparse.ErrStructure},
		{"storage rank", shape, []int{2, 1, 0}, []int{1, 2}, v, arrowsparse.ErrShape},
		{"group size", shape, []int{0, 1, 2}, []int{1}, v, arrowsparse.ErrShape},
		{"negative shape", []int64{3, -4, 5}, []int{2, 1, 0}, []int{1}, v, arrowsparse.ErrShape},
		{"overflow", []int64{1 << 40, 1 << 40, 5}, []int{2, 1, 0}, []int{1}, v, arrowsparse.ErrOverflow},
		{"nil storage", shape, []int{2, 1, 0}, []int{1}, nil, arrowsparse.ErrUnsupportedType},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := gcs.NewDM(c.shape, c.dims, c.cuts, c.st)
			require.ErrorIs(t, err, c.want)
		})
	}
	rot, err := v.Rotate(0, 1)
	require.NoError(t, err)
	defer rot.Release()
	_, err = gcs.NewDM(shape, []int{2, 1, 0}, []int{1}, rot)
	require.ErrorIs(t, err, arrowsparse.ErrUnsupportedType)

	d, err := gcs.NewDM(shape, []int{2, 1, 0}, []int{1}, v)
	require.NoError(t, err)
	defer d.Release()
	_, err = d.Slice(views.Full(), views.Full(), views.Full(), views.Full())
	require.ErrorIs(t, err, arrowsparse.ErrShape)
	_, err = d.Slice(views.Range{Start: 0, Stop: 1, Step: 0})
	require.ErrorIs(t, err, arrowsparse.ErrOutOfRange)
	_, err = d.Index(3, 0)
	require.ErrorIs(t, err, arrowsparse.ErrOutOfRange)
	_, err = d.Index(0, 3)
	require.ErrorIs(t, err, arrowsparse.ErrOutOfRange)
	_, err = d.Index(-1, -6)
	require.ErrorIs(t, err, arrowsparse.ErrOutOfRange)
	_, err = d.Transpose(0, 1)
	require.ErrorIs(t, err, arrowsparse.ErrStructure)
	_, err = d.SwapAxes(0, 3)
	require.ErrorIs(t, err, arrowsparse.ErrOutOfRange)
	_, err = d.WithDimNames("a")
	require.ErrorIs(t, err, arrowsparse.ErrShape)
	_, err = d.ToMatrix(mem, gcs.Rows, gcs.ConvertOptions{})
	require.ErrorIs(t, err, arrowsparse.ErrShape)
	assert.Panics(t, func() { gcs.At[float64](d, 0, 0) })
	assert.Panics(t, func() { gcs.At[float64](d, 0, 0, 5) })
	assert.Panics(t, func() { gcs.At[float32](d, 0, 0, 0) })
	assert.Panics(t, func() { gcs.All[int64](d) })

	named, err := d.WithDimNames("i", "j", "k")
	require.NoError(t, err)
	defer named.Release()
	sw, err := named.SwapAxes(0, -1)
	require.NoError(t, err)
	defer sw.Release()
	assert.Equal(t, []string{"k", "j", "i"}, sw.DimNames())
	dd, err := sw.ToDense(mem)
	require.NoError(t, err)
	defer dd.Release()
	assert.Equal(t, []string{"k", "j", "i"}, dd.DimNames())
}

// Duplicates in the storage are summed by At and ToDense and yielded one by
// one by All, as for the storage itself.
func TestDMDuplicates(t *testing.T) {
	mem := testutil.Checked(t)
	x, err := coo.FromSlices(mem, []int64{2, 6}, []int64{1, 4, 0, 2, 1, 4}, coo.RowMajor, []float64{1, 2, 3})
	require.NoError(t, err)
	defer x.Release()
	d, err := gcs.NewDM([]int64{2, 2, 3}, []int{0, 1, 2}, []int{1}, x)
	require.NoError(t, err)
	defer d.Release()
	assert.Equal(t, 4.0, gcs.At[float64](d, 1, 1, 1))
	assert.Equal(t, 2.0, gcs.At[float64](d, 0, 0, 2))
	n := 0
	for range gcs.All[float64](d) {
		n++
	}
	assert.Equal(t, 3, n)
	assert.Equal(t, int64(3), d.NNZ())
	s, err := d.Index(1, 1)
	require.NoError(t, err)
	defer s.Release()
	assert.Equal(t, int64(2), s.NNZ())
	dd, err := s.ToDense(mem)
	require.NoError(t, err)
	defer dd.Release()
	assert.Equal(t, []float64{0, 0, 0, 0, 4, 0}, testutil.DenseValues(t, dd))
}
