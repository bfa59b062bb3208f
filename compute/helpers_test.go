package compute_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
	"github.com/arrowsparse/arrowsparse/views"
)

// shapes are the shape classes every operation is checked on: 0-d, 1-d,
// matrices (one with mostly empty rows), zero-size dimensions, ranks 3
// and 4.
var shapes = [][]int64{{}, {7}, {5, 6}, {30, 4}, {0, 4}, {4, 0}, {3, 4, 5}, {2, 0, 3}, {2, 3, 2, 3}}

// randomTensor returns a random non-canonical COO tensor: nnz entries
// with about one in dupEvery repeating an earlier coordinate, about one in
// zeroEvery value an explicit zero, integers drawn from the whole range
// of the type (so that sums and products wrap) and floating-point values
// that are small multiples of 1/2 (so that sums are exact in any order).
func randomTensor(t testing.TB, mem memory.Allocator, r *rand.Rand, shape []int64, nnz int, dt, it arrow.DataType) *coo.Tensor {
	t.Helper()
	for _, d := range shape {
		if d == 0 {
			nnz = 0
		}
	}
	nd := len(shape)
	layout := coo.RowMajor
	if r.IntN(2) == 0 {
		layout = coo.ColMajor
	}
	cb := memory.NewResizableBuffer(mem)
	defer cb.Release()
	cb.Resize(nnz * nd * arrowsparse.ByteWidth(it))
	vb := memory.NewResizableBuffer(mem)
	defer vb.Release()
	vb.Resize(nnz * arrowsparse.ByteWidth(dt))
	var prev [][]int64
	for i := range nnz {
		c := make([]int64, nd)
		if i > 0 && r.IntN(4) == 0 {
			copy(c, prev[r.IntN(i)])
		} else {
			for k := range c {
				c[k] = r.Int64N(shape[k])
			}
		}
		prev = append(prev, c)
		for k, x := range c {
			j := i*nd + k
			if layout == coo.ColMajor {
				j = k*nnz + i
			}
			testutil.PutInt(cb.Bytes(), it, j, x)
		}
		putRandom(vb.Bytes(), dt, i, r)
	}
	x, err := coo.New(dt, it, shape, cb, layout, vb, int64(nnz))
	require.NoError(t, err)
	return x
}

// putRandom stores a random value as element j of a buffer of type dt.
func putRandom(b []byte, dt arrow.DataType, j int, r *rand.Rand) {
	if r.IntN(8) == 0 {
		testutil.PutInt(b, dt, j, 0) // an explicit zero: all bits clear
		return
	}
	switch dt.ID() {
	case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
		testutil.PutFloat(b, dt, j, float64(r.IntN(33)-16)/2)
	default:
		if r.IntN(2) == 0 {
			testutil.PutInt(b, dt, j, int64(r.Uint64()))
		} else {
			testutil.PutInt(b, dt, j, int64(r.IntN(9)-4))
		}
	}
}

// formatsFor returns the names of the ways to store a tensor of rank nd
// that every operation is checked on.
func formatsFor(nd int) []string {
	f := []string{"coo", "coo-canonical", "gcs", "gcs-alt", "dense"}
	if nd == 2 {
		f = append(f, "csr", "csr-unsorted", "csc", "csc-dups")
	}
	if nd >= 2 {
		f = append(f, "csf", "csf-alt")
	}
	return f
}

// as returns x stored the way name says. The result must be released.
func as(t testing.TB, mem memory.Allocator, x *coo.Tensor, name string) arrowsparse.Tensor {
	t.Helper()
	nd := x.NumDims()
	var r arrowsparse.Tensor
	var err error
	switch name {
	case "coo":
		x.Retain()
		return x
	case "coo-canonical":
		r, err = x.Canonicalize(mem, coo.ConvertOptions{})
	case "dense":
		var d arrowsparse.Dense
		d, err = x.ToDense(mem)
		if err == nil {
			r, err = views.Of(d)
			d.Release()
		}
	case "csr":
		r, err = gcs.MatrixFromCOO(mem, x, gcs.Rows, gcs.ConvertOptions{})
	case "csc":
		r, err = gcs.MatrixFromCOO(mem, x, gcs.Cols, gcs.ConvertOptions{})
	case "csr-unsorted":
		return unsortedCSR(t, mem, x)
	case "csc-dups":
		m := unsortedCSR(t, mem, x)
		defer m.Release()
		r, err = m.ToCSC(mem, gcs.ConvertOptions{})
	case "gcs":
		r, err = gcs.FromCOO(mem, x, gcs.ConvertOptions{})
	case "gcs-alt":
		// Reversed dims split in the middle, over a CSC storage.
		dims := make([]int, nd)
		for k := range dims {
			dims[k] = nd - 1 - k
		}
		mp, merr := gcs.NewMapping(x.Shape(), dims, nd/2)
		require.NoError(t, merr)
		g, gerr := gcs.FromCOO(mem, x, gcs.ConvertOptions{Mapping: mp})
		require.NoError(t, gerr)
		defer g.Release()
		r, err = g.WithStorage(mem, gcs.Cols, gcs.ConvertOptions{})
	case "csf":
		r, err = csf.FromCOO(mem, x, csf.ConvertOptions{})
	case "csf-alt":
		order := make([]int, nd)
		for k := range order {
			order[k] = nd - 1 - k
		}
		r, err = csf.FromCOO(mem, x, csf.ConvertOptions{AxisOrder: order, IndexType: arrow.PrimitiveTypes.Int16})
	default:
		t.Fatalf("unknown format %q", name)
	}
	require.NoError(t, err, name)
	return r
}

// unsortedCSR returns a CSR of x's entries in their storage order within
// each row, duplicates kept: neither sorted nor canonical (unless x is).
func unsortedCSR(t testing.TB, mem memory.Allocator, x *coo.Tensor) *gcs.Matrix {
	t.Helper()
	shape := x.Shape()
	c := x.AppendCoords(nil)
	n := int(x.NNZ())
	ptr := make([]int64, shape[0]+1)
	for i := range n {
		ptr[c[2*i]+1]++
	}
	for k := range shape[0] {
		ptr[k+1] += ptr[k]
	}
	next := slices.Clone(ptr)
	idx := make([]int32, n)
	w := arrowsparse.ByteWidth(x.DataType())
	vals := make([]byte, n*w)
	src := x.ValueBytes()
	for i := range n {
		p := next[c[2*i]]
		next[c[2*i]]++
		idx[p] = int32(c[2*i+1])
		copy(vals[int(p)*w:], src[i*w:(i+1)*w])
	}
	pb, ib, vb := testutil.BufferOf(mem, ptr), testutil.BufferOf(mem, idx), testutil.BufferOf(mem, vals)
	defer pb.Release()
	defer ib.Release()
	defer vb.Release()
	m, err := gcs.NewCSR(x.DataType(), arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, shape, pb, ib, vb, int64(n))
	require.NoError(t, err)
	return m
}

// denseOf returns every element of x, row-major, as T.
func denseOf[T arrowsparse.Value](t testing.TB, mem memory.Allocator, x arrowsparse.Tensor) []T {
	t.Helper()
	d, err := x.ToDense(mem)
	require.NoError(t, err)
	defer d.Release()
	v, err := arrowsparse.AppendValues[T](nil, d)
	require.NoError(t, err)
	return v
}

// equalValues reports whether two slices hold the same values, NaN equal
// to NaN, +0 equal to -0.
func equalValues[T arrowsparse.Value](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameValue(a[i], b[i]) {
			return false
		}
	}
	return true
}

func sameValue[T arrowsparse.Value](x, y T) bool {
	if x == y {
		return true
	}
	fx, fy := toF64(x), toF64(y)
	return (fx != fx && fy != fy) || fx == fy
}

// toF64 converts a value to float64 (float16 exactly).
func toF64[T arrowsparse.Value](x T) float64 {
	switch v := any(x).(type) {
	case float16.Num:
		return float64(arrowsparse.HalfToFloat32(v))
	case float32:
		return float64(v)
	case float64:
		return v
	case int8:
		return float64(v)
	case int16:
		return float64(v)
	case int32:
		return float64(v)
	case int64:
		return float64(v)
	case uint8:
		return float64(v)
	case uint16:
		return float64(v)
	case uint32:
		return float64(v)
	case uint64:
		return float64(v)
	}
	panic(fmt.Sprintf("toF64 of %T", x))
}

// checkStoredNonzero fails unless x, a sparse result, is canonical and
// stores no zero.
func checkStoredNonzero(t testing.TB, x arrowsparse.Tensor) {
	t.Helper()
	s, ok := x.(arrowsparse.Sparse)
	if !ok {
		return
	}
	require.True(t, s.IsCanonical(), "result is not canonical")
	vs, err := arrowsparse.AppendValues[float64](nil, x)
	require.NoError(t, err)
	for i, v := range vs {
		require.False(t, v == 0, "stored value %d is zero", i)
	}
}

// valueTypes are the value types every operation is checked on.
var valueTypes = testutil.ValueTypes
