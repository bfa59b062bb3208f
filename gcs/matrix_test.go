package gcs_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
	"github.com/arrowsparse/arrowsparse/views"
)

// SciPy-style int32 buffers are adopted as they are: no copy, no widening.
func TestNewAdoptsBuffers(t *testing.T) {
	mem := testutil.Checked(t)
	indptr := testutil.BufferOf(mem, []int32{0, 2, 4, 7, 9})
	indices := testutil.BufferOf(mem, []int32{2, 4, 0, 3, 0, 2, 3, 3, 4})
	values := testutil.BufferOf(mem, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9})
	defer indptr.Release()
	defer indices.Release()
	defer values.Release()
	m, err := gcs.NewCSR(f64, i32, i32, []int64{4, 5}, indptr, indices, values, 9, gcs.WithDimNames("r", "c"))
	require.NoError(t, err)
	defer m.Release()
	assert.Same(t, indptr, m.IndptrBuffer())
	assert.Same(t, indices, m.IndicesBuffer())
	assert.Same(t, values, m.ValuesBuffer())
	assert.Equal(t, i32, m.IndptrType())
	assert.Equal(t, i32, m.IndexType())
	assert.True(t, m.IsCanonical())
	assert.Equal(t, []string{"r", "c"}, m.DimNames())
	ptr, err := gcs.Indptr[int32](m)
	require.NoError(t, err)
	assert.Equal(t, &core.MustSlice[int32](indptr, 5)[0], &ptr[0], "aliases the buffer")
	_, err = gcs.Indptr[int64](m)
	require.ErrorIs(t, err, arrow.ErrType)
	_, err = gcs.Indices[int64](m)
	require.ErrorIs(t, err, arrowsparse.ErrUnsupportedType)
	_, err = gcs.Values[float32](m)
	require.ErrorIs(t, err, arrow.ErrType)
	cols, vs := gcs.Lane[int32, float64](m, 2)
	assert.Equal(t, []int32{0, 2, 3}, cols)
	assert.Equal(t, []float64{5, 6, 7}, vs)
	assert.Equal(t, 6.0, gcs.At[float64](m, 2, 2))
	assert.Equal(t, 0.0, gcs.At[float64](m, 2, 1))

	// Mixed index types: int64 pointers, int32 indices (Arrow allows it),
	// and padded buffers as IPC writes them.
	p64 := testutil.BufferOf(mem, []int64{0, 2, 4, 7, 9, 0, 0})
	defer p64.Release()
	c, err := gcs.NewCSC(f64, i64, i32, []int64{5, 4}, p64, indices, values, 9)
	require.NoError(t, err)
	defer c.Release()
	assert.Equal(t, "CSC", c.Format().String())
	assert.Equal(t, 6.0, gcs.At[float64](c, 2, 2))
	assert.Equal(t, 1.0, gcs.At[float64](c, 2, 0))

	// T shares the buffers and swaps the names.
	tr := m.T()
	defer tr.Release()
	assert.Same(t, indptr, tr.IndptrBuffer())
	assert.Equal(t, gcs.Cols, tr.Axis())
	assert.Equal(t, []int64{5, 4}, tr.Shape())
	assert.Equal(t, []string{"c", "r"}, tr.DimNames())
	for i := range int64(4) {
		for j := range int64(5) {
			assert.Equal(t, gcs.At[float64](m, i, j), gcs.At[float64](tr, j, i))
		}
	}
	back := tr.T()
	defer back.Release()
	assert.Equal(t, gcs.Rows, back.Axis())
	assert.NoError(t, back.Validate())
}

func TestBadInput(t *testing.T) {
	mem := testutil.Checked(t)
	good := func() (*memory.Buffer, *memory.Buffer, *memory.Buffer) {
		return testutil.BufferOf(mem, []int64{0, 2, 3}), testutil.BufferOf(mem, []int64{0, 2, 1}), testutil.BufferOf(mem, []float64{1, 2, 3})
	}
	shape := []int64{2, 3}
	cases := []struct {
		name string
		mk   func(p, i, v *memory.Buffer) (*gcs.Matrix, error)
		want error
	}{
		{"ok", func(p, i, v *memory.Buffer) (*gcs.Matrix, error) {
			return gcs.NewCSR(f64, i64, i64, shape, p, i, v, 3)
		}, nil},
		{"indptr does not start at 0", func(_, i, v *memory.Buffer) (*gcs.Matrix, error) {
			p := testutil.BufferOf(mem, []int64{1, 2, 3})
			defer p.Release()
			return gcs.NewCSR(f64, i64, i64, shape, p, i, v, 3)
		}, arrowsparse.ErrStructure},
		{"indptr decreases", func(_, i, v *memory.Buffer) (*gcs.Matrix, error) {
			p := testutil.BufferOf(mem, []int64{0, 4, 3})
			defer p.Release()
			return gcs.NewCSR(f64, i64, i64, shape, p, i, v, 3)
		}, arrowsparse.ErrStructure},
		{"indptr negative", func(_, i, v *memory.Buffer) (*gcs.Matrix, error) {
			p := testutil.BufferOf(mem, []int64{0, -1, 3})
			defer p.Release()
			return gcs.NewCSR(f64, i64, i64, shape, p, i, v, 3)
		}, arrowsparse.ErrStructure},
		{"indptr ends before nnz", func(_, i, v *memory.Buffer) (*gcs.Matrix, error) {
			p := testutil.BufferOf(mem, []int64{0, 2, 2})
			defer p.Release()
			return gcs.NewCSR(f64, i64, i64, shape, p, i, v, 3)
		}, arrowsparse.ErrStructure},
		{"indptr ends after nnz", func(p, i, v *memory.Buffer) (*gcs.Matrix, error) {
			return gcs.NewCSR(f64, i64, i64, shape, p, i, v, 2)
		}, arrowsparse.ErrStructure},
		{"index too large", func(p, _, v *memory.Buffer) (*gcs.Matrix, error) {
			i := testutil.BufferOf(mem, []int64{0, 3, 1})
			defer i.Release()
			return gcs.NewCSR(f64, i64, i64, shape, p, i, v, 3)
		}, arrowsparse.ErrOutOfRange},
		{"negative index", func(p, _, v *memory.Buffer) (*gcs.Matrix, error) {
			i := testutil.BufferOf(mem, []int64{0, -2, 1})
			defer i.Release()
			return gcs.NewCSR(f64, i64, i64, shape, p, i, v, 3)
		}, arrow.ErrIndex},
		{"short indptr", func(_, i, v *memory.Buffer) (*gcs.Matrix, error) {
			p := testutil.BufferOf(mem, []int64{0, 3})
			defer p.Release()
			return gcs.NewCSR(f64, i64, i64, shape, p, i, v, 3)
		}, arrowsparse.ErrBufferSize},
		{"short indices", func(p, _, v *memory.Buffer) (*gcs.Matrix, error) {
			i := testutil.BufferOf(mem, []int64{0, 2})
			defer i.Release()
			return gcs.NewCSR(f64, i64, i64, shape, p, i, v, 3)
		}, arrowsparse.ErrBufferSize},
		{"short values", func(p, i, _ *memory.Buffer) (*gcs.Matrix, error) {
			v := testutil.BufferOf(mem, []float64{1, 2})
			defer v.Release()
			return gcs.NewCSR(f64, i64, i64, shape, p, i, v, 3)
		}, arrowsparse.ErrBufferSize},
		{"nil indptr", func(_, i, v *memory.Buffer) (*gcs.Matrix, error) {
			return gcs.NewCSR(f64, i64, i64, shape, nil, i, v, 3)
		}, arrowsparse.ErrBufferSize},
		{"indptr type too narrow for the buffer (int32 reading int64)", func(p, i, v *memory.Buffer) (*gcs.Matrix, error) {
			return gcs.NewCSR(f64, i32, i64, []int64{5, 3}, p, i, v, 3)
		}, arrowsparse.ErrStructure},
		{"misaligned indices", func(p, _, v *memory.Buffer) (*gcs.Matrix, error) {
			raw := testutil.BufferOf(mem, make([]byte, 8*3+4))
			defer raw.Release()
			i := memory.SliceBuffer(raw, 4, 24)
			defer i.Release()
			return gcs.NewCSR(f64, i64, i64, shape, p, i, v, 3)
		}, arrowsparse.ErrAlignment},
		{"uint64 indices", func(p, i, v *memory.Buffer) (*gcs.Matrix, error) {
			return gcs.NewCSR(f64, i64, arrow.PrimitiveTypes.Uint64, shape, p, i, v, 3)
		}, arrowsparse.ErrUnsupportedType},
		{"string values", func(p, i, v *memory.Buffer) (*gcs.Matrix, error) {
			return gcs.NewCSR(arrow.BinaryTypes.String, i64, i64, shape, p, i, v, 3)
		}, arrow.ErrType},
		{"nil indptr type", func(p, i, v *memory.Buffer) (*gcs.Matrix, error) {
			return gcs.NewCSR(f64, nil, i64, shape, p, i, v, 3)
		}, arrowsparse.ErrUnsupportedType},
		{"3-d shape", func(p, i, v *memory.Buffer) (*gcs.Matrix, error) {
			return gcs.NewCSR(f64, i64, i64, []int64{2, 3, 1}, p, i, v, 3)
		}, arrowsparse.ErrShape},
		{"negative dimension", func(p, i, v *memory.Buffer) (*gcs.Matrix, error) {
			return gcs.NewCSR(f64, i64, i64, []int64{2, -3}, p, i, v, 3)
		}, arrowsparse.ErrShape},
		{"negative nnz", func(p, i, v *memory.Buffer) (*gcs.Matrix, error) {
			return gcs.NewCSR(f64, i64, i64, shape, p, i, v, -1)
		}, arrowsparse.ErrShape},
		{"rows overflow the pointer count", func(p, i, v *memory.Buffer) (*gcs.Matrix, error) {
			return gcs.NewCSR(f64, i64, i64, []int64{math.MaxInt64, 3}, p, i, v, 3)
		}, arrowsparse.ErrOverflow},
		{"rows too many for the buffer", func(p, i, v *memory.Buffer) (*gcs.Matrix, error) {
			return gcs.NewCSR(f64, i64, i64, []int64{math.MaxInt64 / 4, 3}, p, i, v, 3)
		}, arrowsparse.ErrOverflow},
		{"int8 indices in range in a matrix of 300 columns (legal, as in Arrow C++)", func(p, _, v *memory.Buffer) (*gcs.Matrix, error) {
			i := testutil.BufferOf(mem, []int8{0, 2, 1})
			defer i.Release()
			return gcs.NewCSR(f64, i64, arrow.PrimitiveTypes.Int8, []int64{2, 300}, p, i, v, 3)
		}, nil},
		{"indptr type too narrow for nnz", func(_, _, _ *memory.Buffer) (*gcs.Matrix, error) {
			n := 200
			p := testutil.BufferOf(mem, []int8{0, 0})
			i := testutil.BufferOf(mem, make([]int8, n))
			v := testutil.BufferOf(mem, make([]float64, n))
			defer p.Release()
			defer i.Release()
			defer v.Release()
			return gcs.NewCSR(f64, arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int8, []int64{1, 1}, p, i, v, int64(n))
		}, arrowsparse.ErrUnsupportedType},
		{"false canonical claim", func(p, _, v *memory.Buffer) (*gcs.Matrix, error) {
			i := testutil.BufferOf(mem, []int64{2, 0, 1})
			defer i.Release()
			return gcs.NewCSR(f64, i64, i64, shape, p, i, v, 3, gcs.WithCanonicalClaim(true))
		}, arrowsparse.ErrNotCanonical},
		{"unknown axis", func(p, i, v *memory.Buffer) (*gcs.Matrix, error) {
			return gcs.New(f64, i64, i64, shape, gcs.Axis(7), p, i, v, 3)
		}, arrowsparse.ErrStructure},
		{"wrong number of names", func(p, i, v *memory.Buffer) (*gcs.Matrix, error) {
			return gcs.NewCSR(f64, i64, i64, shape, p, i, v, 3, gcs.WithDimNames("x"))
		}, arrowsparse.ErrShape},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, i, v := good()
			defer p.Release()
			defer i.Release()
			defer v.Release()
			m, err := c.mk(p, i, v)
			if c.want == nil {
				require.NoError(t, err)
				m.Release()
				return
			}
			require.ErrorIs(t, err, c.want)
			require.Nil(t, m)
			assert.NotEmpty(t, err.Error())
		})
	}

	// FromSlices checks the same things and frees its copies on failure.
	_, err := gcs.FromSlices(mem, gcs.Rows, shape, []int64{0, 3, 2}, []int64{0, 1, 2}, []float64{1, 2, 3})
	require.ErrorIs(t, err, arrowsparse.ErrStructure)
	_, err = gcs.FromSlices(mem, gcs.Rows, shape, []int64{0, 2, 3}, []int64{0, 1}, []float64{1, 2, 3})
	require.ErrorIs(t, err, arrowsparse.ErrBufferSize)
}

func TestTrustedAndValidate(t *testing.T) {
	mem := testutil.Checked(t)
	p, i, v := testutil.BufferOf(mem, []int64{0, 2, 3}), testutil.BufferOf(mem, []int64{0, 7, 1}), testutil.BufferOf(mem, []float64{1, 2, 3})
	defer p.Release()
	defer i.Release()
	defer v.Release()
	// Trusted skips the index check but never the pointer check.
	m, err := gcs.NewCSR(f64, i64, i64, []int64{2, 3}, p, i, v, 3, gcs.WithTrusted(), gcs.WithCanonicalClaim(true))
	require.NoError(t, err)
	defer m.Release()
	assert.True(t, m.IsCanonical())
	require.ErrorIs(t, m.Validate(), arrowsparse.ErrOutOfRange)
	bad := testutil.BufferOf(mem, []int64{0, 4, 3})
	defer bad.Release()
	_, err = gcs.NewCSR(f64, i64, i64, []int64{2, 3}, bad, i, v, 3, gcs.WithTrusted())
	require.ErrorIs(t, err, arrowsparse.ErrStructure)
}

// The flags are computed: sorted with duplicates, unsorted, canonical.
func TestCanonicalFlag(t *testing.T) {
	mem := testutil.Checked(t)
	for _, c := range []struct {
		idx                 []int32
		sorted, canonical   bool
		transposedCanonical bool // sorting by the other axis removes disorder but not duplicates
	}{
		{[]int32{0, 2, 1}, true, true, true},
		{[]int32{0, 0, 1}, true, false, false},
		{[]int32{2, 0, 1}, false, false, true},
	} {
		m, err := gcs.FromSlices(mem, gcs.Rows, []int64{2, 3}, []int32{0, 2, 3}, c.idx, []float64{1, 2, 3})
		require.NoError(t, err)
		assert.Equal(t, c.sorted, m.IsSorted(), "%v", c.idx)
		assert.Equal(t, c.canonical, m.IsCanonical(), "%v", c.idx)
		// At sums duplicates whether it searches or scans.
		want := map[[2]int64]float64{}
		for r, lo := range []int{0, 2} {
			for q := lo; q < []int{2, 3}[r]; q++ {
				want[[2]int64{int64(r), int64(c.idx[q])}] += float64(q + 1)
			}
		}
		for r := range int64(2) {
			for j := range int64(3) {
				assert.Equal(t, want[[2]int64{r, j}], gcs.At[float64](m, r, j))
			}
		}
		d, err := m.ToDense(mem)
		require.NoError(t, err)
		dv := testutil.DenseValues(t, d)
		for r := range int64(2) {
			for j := range int64(3) {
				assert.Equal(t, want[[2]int64{r, j}], dv[r*3+j])
			}
		}
		d.Release()
		csc, err := m.ToCSC(mem, gcs.ConvertOptions{})
		require.NoError(t, err)
		assert.True(t, csc.IsSorted())
		assert.Equal(t, c.transposedCanonical, csc.IsCanonical())
		for r := range int64(2) {
			for j := range int64(3) {
				assert.Equal(t, want[[2]int64{r, j}], gcs.At[float64](csc, r, j))
			}
		}
		csc.Release()
		m.Release()
	}
}

func TestDuplicatePolicies(t *testing.T) {
	mem := testutil.Checked(t)
	// (0,1) three times: 3, 1, 2 in storage order; (1,0) once.
	x, err := coo.FromSlices(mem, []int64{2, 2}, []int64{0, 1, 1, 0, 0, 1, 0, 1}, coo.RowMajor, []float64{3, 4, 1, 2})
	require.NoError(t, err)
	defer x.Release()
	for p, want := range map[arrowsparse.Duplicates]float64{
		arrowsparse.SumDuplicates: 6, arrowsparse.KeepLast: 2, arrowsparse.KeepFirst: 3, arrowsparse.KeepMin: 1, arrowsparse.KeepMax: 3,
	} {
		for _, axis := range []gcs.Axis{gcs.Rows, gcs.Cols} {
			m, err := gcs.MatrixFromCOO(mem, x, axis, gcs.ConvertOptions{Duplicates: p})
			require.NoError(t, err)
			assert.Equal(t, int64(2), m.NNZ())
			assert.True(t, m.IsCanonical())
			assert.Equal(t, want, gcs.At[float64](m, 0, 1), "%s %s", p, axis)
			assert.Equal(t, 4.0, gcs.At[float64](m, 1, 0))
			m.Release()
		}
	}
	_, err = gcs.MatrixFromCOO(mem, x, gcs.Rows, gcs.ConvertOptions{Duplicates: arrowsparse.RejectDuplicates})
	require.ErrorIs(t, err, arrowsparse.ErrNotCanonical)
	_, err = gcs.MatrixFromCOO(mem, x, gcs.Rows, gcs.ConvertOptions{Duplicates: arrowsparse.Duplicates(42)})
	require.ErrorIs(t, err, arrowsparse.ErrStructure)
	_, err = gcs.MatrixFromCOO(mem, x, gcs.Axis(3), gcs.ConvertOptions{})
	require.ErrorIs(t, err, arrowsparse.ErrStructure)
	three, _ := testutil.RandomCOO(t, mem, rand.New(rand.NewPCG(1, 1)), []int64{2, 2, 2}, 3, coo.RowMajor, i64, f64, 0)
	defer three.Release()
	_, err = gcs.MatrixFromCOO(mem, three, gcs.Rows, gcs.ConvertOptions{})
	require.ErrorIs(t, err, arrowsparse.ErrShape)
	_, err = gcs.MatrixFromCOO(mem, x, gcs.Rows, gcs.ConvertOptions{IndexType: arrow.PrimitiveTypes.Uint64})
	require.ErrorIs(t, err, arrowsparse.ErrUnsupportedType)
	_, err = gcs.MatrixFromCOO(mem, x, gcs.Rows, gcs.ConvertOptions{IndptrType: arrow.PrimitiveTypes.Float32})
	require.ErrorIs(t, err, arrowsparse.ErrUnsupportedType)
}

// checkMatrix compares every element, the dense form and the COO form of m
// with the reference.
func checkMatrix(t *testing.T, mem memory.Allocator, m *gcs.Matrix, want []float64) {
	t.Helper()
	require.NoError(t, m.Validate())
	d, err := m.ToDense(mem)
	require.NoError(t, err)
	defer d.Release()
	require.Equal(t, want, testutil.DenseValues(t, d))
	cols := m.Cols()
	vt := m.DataType()
	got := make([]float64, len(want))
	switch vt.ID() {
	case arrow.FLOAT64:
		for idx, v := range gcs.All[float64](m) {
			got[idx[0]*cols+idx[1]] += v
		}
		for q, w := range want {
			require.Equal(t, w, gcs.At[float64](m, int64(q)/cols, int64(q)%cols))
		}
	case arrow.FLOAT16:
		for idx, v := range gcs.All[float16.Num](m) {
			got[idx[0]*cols+idx[1]] += float64(arrowsparse.HalfToFloat32(v))
		}
	default:
		copy(got, want)
	}
	require.Equal(t, want, got)
	c, err := m.ToCOO(mem, gcs.ConvertOptions{})
	require.NoError(t, err)
	defer c.Release()
	cd, err := c.ToDense(mem)
	require.NoError(t, err)
	defer cd.Release()
	require.Equal(t, want, testutil.DenseValues(t, cd))
}

// Random matrices with duplicates, in every layout, index type and worker
// count, small and large enough for the parallel radix sort, against a
// dense reference.
func TestPropertyMatrix(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	shapes := [][]int64{{0, 0}, {0, 5}, {5, 0}, {1, 1}, {3, 4}, {17, 1}, {1, 19}, {40, 33}, {300, 200}, {1000, 3}}
	for trial := range 60 {
		mem := testutil.Checked(t)
		shape := shapes[trial%len(shapes)]
		nnz := r.IntN(80)
		if trial%5 == 4 {
			nnz = 20000 + r.IntN(20000) // past keysort's single-sort size
		}
		layout := coo.Layout(r.IntN(2))
		it := testutil.IndexTypes[r.IntN(len(testutil.IndexTypes))]
		if shape[0] > 127 || shape[1] > 127 {
			it = i32
		}
		x, rf := testutil.RandomCOO(t, mem, r, shape, nnz, layout, it, f64, 3)
		want := rf.Dense(arrowsparse.SumDuplicates)
		name := fmt.Sprintf("%d:%v/nnz=%d/%s/%s", trial, shape, x.NNZ(), layout, it)
		t.Run(name, func(t *testing.T) {
			for _, axis := range []gcs.Axis{gcs.Rows, gcs.Cols} {
				for _, workers := range []int{1, 2, 3} {
					m, err := gcs.MatrixFromCOO(mem, x, axis, gcs.ConvertOptions{Workers: workers})
					require.NoError(t, err)
					assert.True(t, m.IsCanonical())
					assert.Equal(t, int64(len(rf.Entries)), m.NNZ())
					checkMatrix(t, mem, m, want)
					// Physical transposes, both ways.
					o, err := m.ToCSC(mem, gcs.ConvertOptions{Workers: workers})
					require.NoError(t, err)
					assert.Equal(t, gcs.Cols, o.Axis())
					assert.True(t, o.IsCanonical())
					checkMatrix(t, mem, o, want)
					back, err := o.ToCSR(mem, gcs.ConvertOptions{Workers: workers})
					require.NoError(t, err)
					checkMatrix(t, mem, back, want)
					o.Release()
					back.Release()
					m.Release()
				}
			}
			// From a canonical COO the conversion is a linear pass.
			cx, err := x.Canonicalize(mem, coo.ConvertOptions{})
			require.NoError(t, err)
			m, err := gcs.MatrixFromCOO(mem, cx, gcs.Rows, gcs.ConvertOptions{})
			require.NoError(t, err)
			checkMatrix(t, mem, m, want)
			// Dense round trip.
			d, err := m.ToDense(mem)
			require.NoError(t, err)
			for _, axis := range []gcs.Axis{gcs.Rows, gcs.Cols} {
				b, err := gcs.MatrixFromDense(mem, d, axis, gcs.ConvertOptions{})
				require.NoError(t, err)
				checkMatrix(t, mem, b, want)
				b.Release()
			}
			d.Release()
			m.Release()
			cx.Release()
		})
		x.Release()
	}
}

// Every pair of index types, for pointers and indices, as the output of
// FromCOO and as input of every operation.
func TestIndexTypePairs(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(3, 4))
	x, rf := testutil.RandomCOO(t, mem, r, []int64{9, 12}, 60, coo.RowMajor, i64, f64, 4)
	defer x.Release()
	want := rf.Dense(arrowsparse.SumDuplicates)
	xv := make([]float64, 12)
	for i := range xv {
		xv[i] = float64(i + 1)
	}
	yRef := make([]float64, 9)
	for i := range 9 {
		for j := range 12 {
			yRef[i] += want[i*12+j] * xv[j]
		}
	}
	for _, pt := range testutil.IndexTypes {
		for _, it := range testutil.IndexTypes {
			for _, axis := range []gcs.Axis{gcs.Rows, gcs.Cols} {
				m, err := gcs.MatrixFromCOO(mem, x, axis, gcs.ConvertOptions{IndptrType: pt, IndexType: it})
				require.NoError(t, err)
				assert.Equal(t, pt, m.IndptrType())
				assert.Equal(t, it, m.IndexType())
				checkMatrix(t, mem, m, want)
				y := make([]float64, 9)
				require.NoError(t, gcs.MulVec(y, m, xv, gcs.KernelOptions{Workers: 1}))
				assert.InDeltaSlice(t, yRef, y, 1e-9)
				o, err := m.ToCSC(mem, gcs.ConvertOptions{})
				require.NoError(t, err)
				checkMatrix(t, mem, o, want)
				o.Release()
				m.Release()
			}
		}
	}
}

// Every value type through conversion, densification and access.
func TestValueTypes(t *testing.T) {
	for _, vt := range testutil.ValueTypes {
		t.Run(vt.String(), func(t *testing.T) {
			mem := testutil.Checked(t)
			r := rand.New(rand.NewPCG(5, 6))
			x, rf := testutil.RandomCOO(t, mem, r, []int64{7, 6}, 30, coo.ColMajor, arrow.PrimitiveTypes.Uint8, vt, 4)
			defer x.Release()
			want := rf.Dense(arrowsparse.SumDuplicates)
			for _, axis := range []gcs.Axis{gcs.Rows, gcs.Cols} {
				m, err := gcs.MatrixFromCOO(mem, x, axis, gcs.ConvertOptions{})
				require.NoError(t, err)
				assert.Equal(t, vt, m.DataType())
				assert.Equal(t, arrow.PrimitiveTypes.Uint8, m.IndexType())
				checkMatrix(t, mem, m, want)
				o, err := m.ToCSC(mem, gcs.ConvertOptions{})
				require.NoError(t, err)
				checkMatrix(t, mem, o, want)
				o.Release()
				m.Release()
			}
		})
	}
}

func TestRowColLane(t *testing.T) {
	mem := testutil.Checked(t)
	x := gcs4x5(t, mem)
	defer x.Release()
	for _, axis := range []gcs.Axis{gcs.Rows, gcs.Cols} {
		m, err := gcs.MatrixFromCOO(mem, x, axis, gcs.ConvertOptions{})
		require.NoError(t, err)
		cols, vs := gcs.Row[float64](m, 2)
		assert.Equal(t, []int64{0, 2, 3}, cols)
		assert.Equal(t, []float64{5, 6, 7}, vs)
		rows, vs := gcs.Col[float64](m, 3)
		assert.Equal(t, []int64{1, 2, 3}, rows)
		assert.Equal(t, []float64{4, 7, 8}, vs)
		rows, vs = gcs.Col[float64](m, 1)
		assert.Empty(t, rows)
		assert.Empty(t, vs)
		assert.Panics(t, func() { gcs.Row[float64](m, 4) })
		assert.Panics(t, func() { gcs.Col[float64](m, -1) })
		assert.Panics(t, func() { gcs.Row[float32](m, 0) })
		assert.Panics(t, func() { gcs.At[float64](m, 4, 0) })
		assert.Panics(t, func() { gcs.At[float64](m, 0) })
		assert.Panics(t, func() { gcs.Lane[int32, float64](m, 0) })
		assert.Panics(t, func() { gcs.Lane[int64, float64](m, m.Lanes()) })
		m.Release()
	}
	// A CSR with unsorted rows: Col scans.
	m, err := gcs.FromSlices(mem, gcs.Rows, []int64{2, 3}, []int64{0, 3, 4}, []int64{2, 0, 2, 1}, []float64{1, 2, 3, 4})
	require.NoError(t, err)
	defer m.Release()
	assert.False(t, m.IsSorted())
	rows, vs := gcs.Col[float64](m, 2)
	assert.Equal(t, []int64{0, 0}, rows)
	assert.Equal(t, []float64{1, 3}, vs)
	assert.Equal(t, 4.0, gcs.At[float64](m, 0, 2))
}

// Dense input with any strides converts, and zeros (negative ones too) are
// dropped while NaN is kept.
func TestFromDenseStrided(t *testing.T) {
	mem := testutil.Checked(t)
	v, err := views.Alloc(mem, f64, []int64{3, 4})
	require.NoError(t, err)
	defer v.Release()
	data := testutil.ViewValues[float64](t, v)
	copy(data, []float64{1, 0, 2, 0, 0, math.Copysign(0, -1), 0, 3, math.NaN(), 0, 0, 4})
	tr := v.T() // 4×3, column-major
	defer tr.Release()
	for _, axis := range []gcs.Axis{gcs.Rows, gcs.Cols} {
		m, err := gcs.MatrixFromDense(mem, tr, axis, gcs.ConvertOptions{IndexType: arrow.PrimitiveTypes.Int8})
		require.NoError(t, err)
		assert.Equal(t, int64(5), m.NNZ())
		assert.Equal(t, arrow.PrimitiveTypes.Int8, m.IndexType())
		assert.Equal(t, 3.0, gcs.At[float64](m, 3, 1))
		assert.True(t, math.IsNaN(gcs.At[float64](m, 0, 2)))
		assert.Equal(t, 0.0, gcs.At[float64](m, 1, 1))
		m.Release()
	}
	three, err := views.Alloc(mem, f64, []int64{2, 2, 2})
	require.NoError(t, err)
	defer three.Release()
	_, err = gcs.MatrixFromDense(mem, three, gcs.Rows, gcs.ConvertOptions{})
	require.ErrorIs(t, err, arrowsparse.ErrShape)
}

// ToCOO shares the values; a CSC gives a COO in column order, which the
// COO reports as not canonical.
func TestToCOOShares(t *testing.T) {
	mem := testutil.Checked(t)
	x := gcs4x5(t, mem)
	defer x.Release()
	m, err := gcs.MatrixFromCOO(mem, x, gcs.Cols, gcs.ConvertOptions{IndexType: arrow.PrimitiveTypes.Int8, IndptrType: arrow.PrimitiveTypes.Int8})
	require.NoError(t, err)
	defer m.Release()
	c, err := m.ToCOO(mem, gcs.ConvertOptions{})
	require.NoError(t, err)
	defer c.Release()
	assert.Same(t, m.ValuesBuffer(), c.ValuesBuffer())
	assert.Equal(t, arrow.PrimitiveTypes.Int8, c.IndexType())
	assert.False(t, c.IsCanonical())
	// Re-typing the indices without moving anything.
	w, err := m.ToCSC(mem, gcs.ConvertOptions{IndexType: i64})
	require.NoError(t, err)
	defer w.Release()
	assert.Same(t, m.ValuesBuffer(), w.ValuesBuffer())
	assert.Equal(t, i64, w.IndexType())
	assert.Equal(t, arrow.PrimitiveTypes.Int8, w.IndptrType())
	same, err := m.ToCSC(mem, gcs.ConvertOptions{})
	require.NoError(t, err)
	defer same.Release()
	assert.Same(t, m, same)
}

// Buffers longer than their elements, by a number of bytes that is not a
// multiple of the element width, are read correctly everywhere.
func TestOddBufferLengths(t *testing.T) {
	mem := testutil.Checked(t)
	p := testutil.BufferOf(mem, []byte{0, 2, 3, 9, 9, 9, 9})
	i := testutil.BufferOf(mem, []byte{1, 0, 1, 7})
	raw := testutil.BufferOf(mem, make([]byte, 3*8+5))
	defer p.Release()
	defer i.Release()
	defer raw.Release()
	copy(raw.Bytes(), core.BytesOf([]float64{1, 2, 3}))
	m, err := gcs.NewCSR(f64, arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Int8, []int64{2, 2}, p, i, raw, 3)
	require.NoError(t, err)
	defer m.Release()
	want := []float64{2, 1, 0, 3}
	checkMatrix(t, mem, m, want)
	d, err := gcs.NewDM([]int64{2, 2}, []int{1, 0}, []int{1}, m)
	require.NoError(t, err)
	defer d.Release()
	dd, err := d.ToDense(mem)
	require.NoError(t, err)
	defer dd.Release()
	assert.Equal(t, []float64{2, 0, 1, 3}, testutil.DenseValues(t, dd))
	y := make([]float64, 2)
	mT := m.T()
	defer mT.Release()
	require.NoError(t, gcs.MulVec(y, mT, []float64{1, 1}, gcs.KernelOptions{Workers: 1}))
	assert.Equal(t, []float64{2, 4}, y)
	v, err := views.New(f64, raw, 0, []int64{3}, []int64{1})
	require.NoError(t, err)
	defer v.Release()
	dv, err := gcs.NewDM([]int64{3}, []int{0}, nil, v)
	require.NoError(t, err)
	defer dv.Release()
	assert.Equal(t, 3.0, gcs.At[float64](dv, 2))
	n := 0
	for range gcs.All[float64](dv) {
		n++
	}
	assert.Equal(t, 3, n)
}
