package arrowsparse_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
	"github.com/arrowsparse/arrowsparse/ipc"
	"github.com/arrowsparse/arrowsparse/views"
)

// The conformance harness, in the manner of gonum's mat/list_test.go: one
// table of every way to make a tensor, crossed with every value type and
// with shapes of every class (0-d, 1-d, N-d, zero-size), each checked
// against one dense reference through the operations every tensor has:
// Shape, NNZ, ToDense, At, All, runtime-typed access, and an IPC round trip
// where the format has a message.

// reference is a dense tensor in row-major order, as float64 values that
// every value type holds exactly (small integers, non-negative for the
// unsigned types).
type reference struct {
	shape []int64
	data  []float64
}

func (r reference) nonzeros() int64 {
	var n int64
	for _, v := range r.data {
		if v != 0 {
			n++
		}
	}
	return n
}

// reversed returns the reference with its axes reversed (its transpose).
func (r reference) reversed() reference {
	nd := len(r.shape)
	out := reference{shape: make([]int64, nd), data: make([]float64, len(r.data))}
	for k := range nd {
		out.shape[k] = r.shape[nd-1-k]
	}
	idx := make([]int64, nd)
	for q := range r.data {
		rev := make([]int64, nd)
		for k := range nd {
			rev[k] = idx[nd-1-k]
		}
		out.data[testutil.Linear(out.shape, rev)] = r.data[q]
		for k := nd - 1; k >= 0; k-- {
			if idx[k]++; idx[k] < r.shape[k] {
				break
			}
			idx[k] = 0
		}
	}
	return out
}

func newReference(r *rand.Rand, shape []int64, unsigned bool) reference {
	n, _ := arrowsparse.NumElements(shape)
	ref := reference{shape: shape, data: make([]float64, n)}
	for i := range ref.data {
		if r.IntN(10) < 3 {
			v := float64(r.IntN(7) - 3)
			if unsigned {
				v = float64(r.IntN(6) + 1)
			}
			ref.data[i] = v
		}
	}
	return ref
}

// view returns a row-major view of the reference in type dt.
func (r reference) view(t *testing.T, mem memory.Allocator, dt arrow.DataType) *views.View {
	v, err := views.Alloc(mem, dt, r.shape)
	require.NoError(t, err)
	b := v.Buffer().Bytes()
	for i, x := range r.data {
		testutil.PutFloat(b, dt, i, x)
	}
	return v
}

// maker is one way to make a tensor holding a reference.
type maker struct {
	name  string
	ranks func(nd int) bool
	// ipc says whether the tensor has an IPC message.
	ipc  bool
	make func(t *testing.T, mem memory.Allocator, ref reference, dt arrow.DataType) arrowsparse.Tensor
}

func anyRank(int) bool         { return true }
func rank2(nd int) bool        { return nd == 2 }
func rankAtLeast2(nd int) bool { return nd >= 2 }
func rankAtLeast1(nd int) bool { return nd >= 1 }

// reversedDims returns n-1, …, 0 and the partitioning 1, …, n-1 that makes
// each axis a storage dimension of its own.
func reversedDims(n int) ([]int, []int) {
	dims, part := make([]int, n), make([]int, max(n-1, 0))
	for k := range n {
		dims[k] = n - 1 - k
	}
	for k := range part {
		part[k] = k + 1
	}
	return dims, part
}

var makers = func() []maker {
	cooOf := func(t *testing.T, mem memory.Allocator, ref reference, dt arrow.DataType) *coo.Tensor {
		v := ref.view(t, mem, dt)
		defer v.Release()
		x, err := coo.FromDense(mem, v, coo.ConvertOptions{})
		require.NoError(t, err)
		return x
	}
	ms := []maker{
		{"view", anyRank, true, func(t *testing.T, mem memory.Allocator, ref reference, dt arrow.DataType) arrowsparse.Tensor {
			return ref.view(t, mem, dt)
		}},
		{"view/transposed", anyRank, true, func(t *testing.T, mem memory.Allocator, ref reference, dt arrow.DataType) arrowsparse.Tensor {
			v := ref.reversed().view(t, mem, dt)
			defer v.Release()
			return v.T()
		}},
		{"remapped/rotated", rankAtLeast1, true, func(t *testing.T, mem memory.Allocator, ref reference, dt arrow.DataType) arrowsparse.Tensor {
			// Roll the reference by 1 along axis 0 into storage; rotating
			// the view back by −1 is the reference.
			v := ref.view(t, mem, dt)
			defer v.Release()
			r, err := v.Rotate(0, 1)
			require.NoError(t, err)
			defer r.Release()
			rolled, err := r.Copy(mem, views.CopyOptions{})
			require.NoError(t, err)
			defer rolled.Release()
			back, err := rolled.Rotate(0, -1)
			require.NoError(t, err)
			return back
		}},
		{"coo/row-major", anyRank, true, func(t *testing.T, mem memory.Allocator, ref reference, dt arrow.DataType) arrowsparse.Tensor {
			return cooOf(t, mem, ref, dt)
		}},
		{"coo/column-major", anyRank, true, func(t *testing.T, mem memory.Allocator, ref reference, dt arrow.DataType) arrowsparse.Tensor {
			x := cooOf(t, mem, ref, dt)
			defer x.Release()
			c, err := x.WithLayout(mem, coo.ColMajor)
			require.NoError(t, err)
			return c
		}},
		{"csr", rank2, true, func(t *testing.T, mem memory.Allocator, ref reference, dt arrow.DataType) arrowsparse.Tensor {
			v := ref.view(t, mem, dt)
			defer v.Release()
			m, err := gcs.MatrixFromDense(mem, v, gcs.Rows, gcs.ConvertOptions{})
			require.NoError(t, err)
			return m
		}},
		{"csc", rank2, true, func(t *testing.T, mem memory.Allocator, ref reference, dt arrow.DataType) arrowsparse.Tensor {
			v := ref.view(t, mem, dt)
			defer v.Release()
			m, err := gcs.MatrixFromDense(mem, v, gcs.Cols, gcs.ConvertOptions{})
			require.NoError(t, err)
			return m
		}},
		{"gcs/reversed-dims", anyRank, true, func(t *testing.T, mem memory.Allocator, ref reference, dt arrow.DataType) arrowsparse.Tensor {
			x := cooOf(t, mem, ref, dt)
			defer x.Release()
			dims, _ := reversedDims(len(ref.shape))
			mp, err := gcs.NewMapping(ref.shape, dims, min(1, len(dims)))
			require.NoError(t, err)
			g, err := gcs.FromCOO(mem, x, gcs.ConvertOptions{Mapping: mp})
			require.NoError(t, err)
			return g
		}},
		{"csf/reversed-order", rankAtLeast2, true, func(t *testing.T, mem memory.Allocator, ref reference, dt arrow.DataType) arrowsparse.Tensor {
			v := ref.view(t, mem, dt)
			defer v.Release()
			order, _ := reversedDims(len(ref.shape))
			c, err := csf.FromDense(mem, v, csf.ConvertOptions{AxisOrder: order})
			require.NoError(t, err)
			return c
		}},
	}
	// A DM over each storage: the storage holds the reference's
	// transpose, and the DM's reversed dims turn it back.
	for _, s := range []maker{ms[0], ms[3], ms[4], ms[5], ms[6], ms[7]} {
		ranks := s.ranks
		ms = append(ms, maker{"dm/" + s.name, func(nd int) bool { return nd >= 1 && ranks(nd) }, false,
			func(t *testing.T, mem memory.Allocator, ref reference, dt arrow.DataType) arrowsparse.Tensor {
				st := s.make(t, mem, ref.reversed(), dt)
				defer st.Release()
				dims, part := reversedDims(len(ref.shape))
				d, err := gcs.NewDM(ref.shape, dims, part, st)
				require.NoError(t, err)
				return d
			}})
	}
	return ms
}()

var conformanceShapes = [][]int64{{}, {7}, {1}, {0}, {3, 4}, {4, 1}, {0, 3}, {2, 3, 4}, {3, 0, 2}, {2, 1, 3, 2}}

func TestConformance(t *testing.T) {
	r := rand.New(rand.NewPCG(2026, 11))
	for _, dt := range testutil.ValueTypes {
		unsigned := dt.ID() >= arrow.UINT8 && dt.ID() <= arrow.UINT64
		for _, shape := range conformanceShapes {
			ref := newReference(r, shape, unsigned)
			for _, mk := range makers {
				if !mk.ranks(len(shape)) {
					continue
				}
				t.Run(fmt.Sprintf("%s/%s/%v", mk.name, dt, shape), func(t *testing.T) {
					mem := testutil.Checked(t)
					x := mk.make(t, mem, ref, dt)
					defer x.Release()
					conform(t, mem, mk, ref, x)
				})
			}
		}
	}
}

// conform checks x against the reference.
func conform(t *testing.T, mem memory.Allocator, mk maker, ref reference, x arrowsparse.Tensor) {
	assert.True(t, slices.Equal(ref.shape, x.Shape()), "shape %v, want %v", x.Shape(), ref.shape)
	assert.Equal(t, len(ref.shape), x.NumDims())
	wantNNZ := ref.nonzeros()
	switch x.Format() {
	case arrowsparse.FormatDense:
		wantNNZ = int64(len(ref.data))
	case arrowsparse.FormatDM:
		wantNNZ = -1 // a DM counts its storage's entries
	}
	if wantNNZ >= 0 {
		assert.Equal(t, wantNNZ, x.NNZ(), "nnz")
	}

	d, err := x.ToDense(mem)
	require.NoError(t, err)
	got, err := arrowsparse.AppendValues[float64](nil, d)
	d.Release()
	require.NoError(t, err)
	assert.Equal(t, ref.data, nonNil(got), "ToDense")

	assert.Equal(t, ref.data, nonNil(allDense(t, x, ref)), "All")
	checkAt(t, x, ref)

	if s, ok := x.(arrowsparse.Sparse); ok {
		coords := s.AppendCoords(nil)
		vals, err := arrowsparse.AppendValues[float64](nil, s)
		require.NoError(t, err)
		acc := make([]float64, len(ref.data))
		nd := len(ref.shape)
		for i, v := range vals {
			acc[testutil.Linear(ref.shape, coords[i*nd:(i+1)*nd])] += v
		}
		assert.Equal(t, ref.data, nonNil(acc), "AppendCoords and AppendValues")
	}

	var buf bytes.Buffer
	_, err = ipc.WriteTensor(&buf, x, ipc.WithAllocator(mem))
	if !mk.ipc {
		require.ErrorIs(t, err, arrowsparse.ErrUnsupportedType, "formats without a message say so")
		return
	}
	require.NoError(t, err)
	m, err := ipc.ParseMessage(buf.Bytes(), ipc.WithAllocator(mem))
	require.NoError(t, err)
	defer m.Release()
	assert.Equal(t, x.Format(), m.Tensor.Format())
	rd, err := m.Tensor.ToDense(mem)
	require.NoError(t, err)
	back, err := arrowsparse.AppendValues[float64](nil, rd)
	rd.Release()
	require.NoError(t, err)
	assert.Equal(t, ref.data, nonNil(back), "IPC round trip")
}

func nonNil(s []float64) []float64 {
	if s == nil {
		return []float64{}
	}
	return s
}

// allDense adds up what All yields into a dense array.
func allDense(t *testing.T, x arrowsparse.Tensor, ref reference) []float64 {
	switch x.DataType().ID() {
	case arrow.INT8:
		return allTyped[int8](t, x, ref)
	case arrow.INT16:
		return allTyped[int16](t, x, ref)
	case arrow.INT32:
		return allTyped[int32](t, x, ref)
	case arrow.INT64:
		return allTyped[int64](t, x, ref)
	case arrow.UINT8:
		return allTyped[uint8](t, x, ref)
	case arrow.UINT16:
		return allTyped[uint16](t, x, ref)
	case arrow.UINT32:
		return allTyped[uint32](t, x, ref)
	case arrow.UINT64:
		return allTyped[uint64](t, x, ref)
	case arrow.FLOAT16:
		return allTyped[float16.Num](t, x, ref)
	case arrow.FLOAT32:
		return allTyped[float32](t, x, ref)
	}
	return allTyped[float64](t, x, ref)
}

func toFloat[T arrowsparse.Value](v T) float64 {
	switch x := any(v).(type) {
	case float16.Num:
		return float64(arrowsparse.HalfToFloat32(x))
	case int8:
		return float64(x)
	case int16:
		return float64(x)
	case int32:
		return float64(x)
	case int64:
		return float64(x)
	case uint8:
		return float64(x)
	case uint16:
		return float64(x)
	case uint32:
		return float64(x)
	case uint64:
		return float64(x)
	case float32:
		return float64(x)
	}
	return any(v).(float64)
}

func allTyped[T arrowsparse.Value](t *testing.T, x arrowsparse.Tensor, ref reference) []float64 {
	acc := make([]float64, len(ref.data))
	add := func(idx []int64, v T) {
		require.Len(t, idx, len(ref.shape))
		acc[testutil.Linear(ref.shape, idx)] += toFloat(v)
	}
	switch y := x.(type) {
	case *views.View:
		for idx, v := range views.All[T](y) {
			add(idx, v)
		}
	case *views.Remapped:
		for idx, v := range views.All[T](y) {
			add(idx, v)
		}
	case *coo.Tensor:
		for idx, v := range coo.All[T](y) {
			add(idx, v)
		}
	case *gcs.Matrix:
		for idx, v := range gcs.All[T](y) {
			add(idx, v)
		}
	case *gcs.Tensor:
		for idx, v := range gcs.All[T](y) {
			add(idx, v)
		}
	case *gcs.DM:
		for idx, v := range gcs.All[T](y) {
			add(idx, v)
		}
	case *csf.Tensor:
		for idx, v := range csf.All[T](y) {
			add(idx, v)
		}
	default:
		t.Fatalf("no All for %T", x)
	}
	return acc
}

// checkAt compares At at every index with the reference.
func checkAt(t *testing.T, x arrowsparse.Tensor, ref reference) {
	at := func(idx []int64) float64 {
		switch x.DataType().ID() {
		case arrow.FLOAT64:
			return atTyped[float64](x, idx)
		case arrow.INT8:
			return atTyped[int8](x, idx)
		case arrow.UINT32:
			return atTyped[uint32](x, idx)
		case arrow.FLOAT16:
			return atTyped[float16.Num](x, idx)
		}
		return atGeneric(x, idx)
	}
	idx := make([]int64, len(ref.shape))
	for q := range ref.data {
		require.Equal(t, ref.data[q], at(idx), "At%v", idx)
		for k := len(idx) - 1; k >= 0; k-- {
			if idx[k]++; idx[k] < ref.shape[k] {
				break
			}
			idx[k] = 0
		}
	}
}

// atGeneric reads through int64 for the types atTyped is not instantiated
// for, so that At is checked on a few types without 11 copies.
func atGeneric(x arrowsparse.Tensor, idx []int64) float64 {
	switch x.DataType().ID() {
	case arrow.INT16:
		return atTyped[int16](x, idx)
	case arrow.INT32:
		return atTyped[int32](x, idx)
	case arrow.INT64:
		return atTyped[int64](x, idx)
	case arrow.UINT8:
		return atTyped[uint8](x, idx)
	case arrow.UINT16:
		return atTyped[uint16](x, idx)
	case arrow.UINT64:
		return atTyped[uint64](x, idx)
	}
	return atTyped[float32](x, idx)
}

func atTyped[T arrowsparse.Value](x arrowsparse.Tensor, idx []int64) float64 {
	switch y := x.(type) {
	case *views.View:
		return toFloat(views.At[T](y, idx...))
	case *views.Remapped:
		return toFloat(views.At[T](y, idx...))
	case *coo.Tensor:
		return toFloat(coo.At[T](y, idx...))
	case *gcs.Matrix:
		return toFloat(gcs.At[T](y, idx...))
	case *gcs.Tensor:
		return toFloat(gcs.At[T](y, idx...))
	case *gcs.DM:
		return toFloat(gcs.At[T](y, idx...))
	case *csf.Tensor:
		return toFloat(csf.At[T](y, idx...))
	}
	panic(fmt.Sprintf("no At for %T", x))
}

// The harness covers every format of the module.
func TestConformanceCoversEveryFormat(t *testing.T) {
	var names []string
	for _, m := range makers {
		names = append(names, m.name)
	}
	for _, want := range []string{"view", "remapped/rotated", "coo/row-major", "coo/column-major", "csr", "csc", "gcs/reversed-dims", "csf/reversed-order", "dm/view", "dm/coo/row-major", "dm/csr", "dm/gcs/reversed-dims"} {
		assert.True(t, slices.Contains(names, want), want)
	}
}
