package coo_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/tensor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
	"github.com/arrowsparse/arrowsparse/views"
)

func dense2(t *testing.T, d arrowsparse.Dense) [][]float64 {
	t.Helper()
	v := d.(*views.View)
	sh := v.Shape()
	out := make([][]float64, sh[0])
	for i := range out {
		out[i] = make([]float64, sh[1])
		for j := range out[i] {
			out[i][j] = views.At[float64](v, int64(i), int64(j))
		}
	}
	return out
}

// The GCS introduction: the 2×3 array with entries (0,1)=1, (1,0)=2, (1,2)=3.
func TestSmallExample(t *testing.T) {
	mem := testutil.Checked(t)
	x, err := coo.FromSlices(mem, []int64{2, 3}, []int32{0, 1, 1, 0, 1, 2}, coo.RowMajor, []float64{1, 2, 3})
	require.NoError(t, err)
	defer x.Release()
	assert.True(t, x.IsCanonical())
	d, err := x.ToDense(mem)
	require.NoError(t, err)
	defer d.Release()
	assert.Equal(t, [][]float64{{0, 1, 0}, {2, 0, 3}}, dense2(t, d))

	// The seed prints the indices as a 2 × NSE table: that is the
	// column-major layout of the same matrix.
	y, err := coo.FromSlices(mem, []int64{2, 3}, []int32{0, 1, 1, 1, 0, 2}, coo.ColMajor, []float64{1, 2, 3})
	require.NoError(t, err)
	defer y.Release()
	assert.True(t, y.IsCanonical())
	for c, v := range coo.All[float64](y) {
		assert.Equal(t, v, coo.At[float64](x, c...))
	}
}

// The GCS introduction: the 4×5 array in COO form.
func TestFourByFiveExample(t *testing.T) {
	mem := testutil.Checked(t)
	rows := []int64{0, 0, 1, 1, 2, 2, 2, 3, 3}
	cols := []int64{2, 4, 0, 3, 0, 2, 3, 3, 4}
	coords := append(slices.Clone(rows), cols...)
	x, err := coo.FromSlices(mem, []int64{4, 5}, coords, coo.ColMajor, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9})
	require.NoError(t, err)
	defer x.Release()
	assert.True(t, x.IsCanonical())
	d, err := x.ToDense(mem)
	require.NoError(t, err)
	defer d.Release()
	assert.Equal(t, [][]float64{
		{0, 0, 1, 0, 2},
		{3, 0, 0, 4, 0},
		{5, 0, 6, 7, 0},
		{0, 0, 0, 8, 9},
	}, dense2(t, d))
	assert.Equal(t, 7.0, coo.At[float64](x, 2, 3))
	assert.Equal(t, 0.0, coo.At[float64](x, 3, 0))

	// Back from dense gives the same entries in row-major order.
	back, err := coo.FromDense(mem, d, coo.ConvertOptions{IndexType: arrow.PrimitiveTypes.Int64})
	require.NoError(t, err)
	defer back.Release()
	got, err := coo.Coords[int64](back)
	require.NoError(t, err)
	want := []int64{}
	for i := range rows {
		want = append(want, rows[i], cols[i])
	}
	assert.Equal(t, want, got)
}

// entries reads a tensor's stored entries as (linear index, value) pairs.
func entries(t *testing.T, x *coo.Tensor) ([]int64, []float64) {
	t.Helper()
	var qs []int64
	var vs []float64
	for i := range x.NNZ() {
		c := make([]int64, x.NumDims())
		for k := range c {
			c[k] = x.Coord(i, k)
		}
		qs = append(qs, testutil.Linear(x.Shape(), c))
		vs = append(vs, testutil.GetFloat(x.ValuesBuffer().Bytes(), x.DataType(), i))
	}
	return qs, vs
}

func TestPropertyAgainstDense(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(7, 8))
	for trial := range 400 {
		it := testutil.IndexTypes[trial%len(testutil.IndexTypes)]
		vt := testutil.ValueTypes[trial%len(testutil.ValueTypes)]
		layout := coo.Layout(trial % 2)
		shape := testutil.RandomShape(r, 0, 4, 9, 25)
		nnz := r.IntN(40)
		if len(shape) == 0 {
			nnz = r.IntN(3)
		}
		name := fmt.Sprintf("%d/%v/%s/%s/%s/nnz%d", trial, shape, it, vt, layout, nnz)
		t.Run(name, func(t *testing.T) {
			x, rf := testutil.RandomCOO(t, mem, r, shape, nnz, layout, it, vt, 4)
			defer x.Release()
			require.NoError(t, x.Validate())

			// The canonical flag is true exactly when sorted and unique.
			qs, _ := entries(t, x)
			sorted := true
			for i := 1; i < len(qs); i++ {
				if qs[i] <= qs[i-1] {
					sorted = false
				}
			}
			assert.Equal(t, sorted, x.IsCanonical())

			// ToDense sums duplicates.
			d, err := x.ToDense(mem)
			require.NoError(t, err)
			want := rf.Combined(arrowsparse.SumDuplicates)
			dv := d.(*views.View)
			size := dv.Len()
			db := dv.Buffer().Bytes()
			for q := range size {
				assert.Equal(t, want[q], testutil.GetFloat(db, vt, q), "dense element %d", q)
			}
			d.Release()

			for _, p := range []arrowsparse.Duplicates{arrowsparse.SumDuplicates, arrowsparse.KeepLast, arrowsparse.KeepFirst, arrowsparse.KeepMin, arrowsparse.KeepMax} {
				c, err := x.Canonicalize(mem, coo.ConvertOptions{Duplicates: p, Workers: 1 + trial%2})
				require.NoError(t, err)
				assert.True(t, c.IsCanonical())
				require.NoError(t, c.Validate())
				cq, cv := entries(t, c)
				wq := make([]int64, 0)
				for q := range rf.Combined(p) {
					wq = append(wq, q)
				}
				slices.Sort(wq)
				if len(wq) == 0 {
					wq = nil
				}
				assert.Equal(t, wq, cq, "policy %s", p)
				wv := rf.Combined(p)
				for i, q := range cq {
					assert.Equal(t, wv[q], cv[i], "policy %s entry %d", p, i)
					assert.Equal(t, wv[q], atFloat(c, testutil.Unlinear(shape, q)))
					assert.Equal(t, rf.Combined(arrowsparse.SumDuplicates)[q], atFloat(x, testutil.Unlinear(shape, q)))
				}
				c.Release()
			}
			rc, err := x.Canonicalize(mem, coo.ConvertOptions{Duplicates: arrowsparse.RejectDuplicates})
			hasDup := len(rf.Entries) < int(x.NNZ())
			if hasDup {
				require.ErrorIs(t, err, arrowsparse.ErrNotCanonical)
			} else {
				require.NoError(t, err)
				rc.Release()
			}
		})
		if t.Failed() {
			return
		}
	}
}

// atFloat calls At with the tensor's Go value type.
func atFloat(x *coo.Tensor, idx []int64) float64 {
	switch x.DataType().ID() {
	case arrow.FLOAT64:
		return coo.At[float64](x, idx...)
	case arrow.FLOAT32:
		return float64(coo.At[float32](x, idx...))
	case arrow.FLOAT16:
		return float64(arrowsparse.HalfToFloat32(coo.At[float16.Num](x, idx...)))
	case arrow.INT8:
		return float64(coo.At[int8](x, idx...))
	case arrow.INT16:
		return float64(coo.At[int16](x, idx...))
	case arrow.INT32:
		return float64(coo.At[int32](x, idx...))
	case arrow.INT64:
		return float64(coo.At[int64](x, idx...))
	case arrow.UINT8:
		return float64(coo.At[uint8](x, idx...))
	case arrow.UINT16:
		return float64(coo.At[uint16](x, idx...))
	case arrow.UINT32:
		return float64(coo.At[uint32](x, idx...))
	default:
		return float64(coo.At[uint64](x, idx...))
	}
}

// Large inputs take the parallel radix path; check it against the slow
// reference on both layouts and on shapes whose keys need the fallback.
func TestCanonicalizeLarge(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(9, 10))
	cases := []struct {
		shape []int64
		nnz   int
	}{
		{[]int64{1000, 1000}, 200_000},
		{[]int64{50, 60, 70}, 150_000},
		{[]int64{7, 1 << 20}, 100_000},
		{[]int64{1 << 40, 1 << 30}, 50_000},          // key + index bits exceed 64
		{[]int64{1 << 40, 1 << 30, 1 << 20}, 20_000}, // dense size exceeds 2^64
	}
	for _, c := range cases {
		for _, layout := range []coo.Layout{coo.RowMajor, coo.ColMajor} {
			t.Run(fmt.Sprintf("%v/%s", c.shape, layout), func(t *testing.T) {
				nd := len(c.shape)
				flat := make([]int64, c.nnz*nd)
				vals := make([]float64, c.nnz)
				type e struct {
					c []int64
					v float64
				}
				es := make([]e, c.nnz)
				for i := range c.nnz {
					co := make([]int64, nd)
					for k := range co {
						co[k] = r.Int64N(c.shape[k])
						if k > 0 && r.IntN(3) == 0 {
							co[k] = r.Int64N(4) // many duplicates
						}
						if k == 0 {
							co[k] = r.Int64N(min(c.shape[k], 64))
						}
					}
					es[i] = e{co, float64(i%7 + 1)}
					vals[i] = es[i].v
					for k, v := range co {
						if layout == coo.RowMajor {
							flat[i*nd+k] = v
						} else {
							flat[k*c.nnz+i] = v
						}
					}
				}
				x, err := coo.FromSlices(mem, c.shape, flat, layout, vals)
				require.NoError(t, err)
				defer x.Release()
				slices.SortStableFunc(es, func(a, b e) int { return slices.Compare(a.c, b.c) })
				var wc [][]int64
				var wv []float64
				for _, en := range es {
					if len(wc) > 0 && slices.Equal(wc[len(wc)-1], en.c) {
						wv[len(wv)-1] += en.v
						continue
					}
					wc = append(wc, en.c)
					wv = append(wv, en.v)
				}
				for _, workers := range []int{1, 2} {
					y, err := x.Canonicalize(mem, coo.ConvertOptions{Workers: workers})
					require.NoError(t, err)
					require.EqualValues(t, len(wc), y.NNZ())
					gc, err := coo.Coords[int64](y)
					require.NoError(t, err)
					gv, err := coo.Values[float64](y)
					require.NoError(t, err)
					for i := range wc {
						require.Equal(t, wc[i], gc[i*nd:i*nd+nd], "entry %d", i)
						require.Equal(t, wv[i], gv[i], "entry %d", i)
					}
					y.Release()
				}
			})
		}
	}
}

func TestCanonicalizeReturnsCanonicalReceiver(t *testing.T) {
	mem := testutil.Checked(t)
	x, err := coo.FromSlices(mem, []int64{3}, []int8{0, 2}, coo.RowMajor, []float32{1, 2})
	require.NoError(t, err)
	defer x.Release()
	y, err := x.Canonicalize(mem, coo.ConvertOptions{})
	require.NoError(t, err)
	defer y.Release()
	assert.Same(t, x, y)
}

func TestZeroD(t *testing.T) {
	mem := testutil.Checked(t)
	x, err := coo.FromSlices(mem, nil, []int64{}, coo.RowMajor, []float64{1.5, 2})
	require.NoError(t, err)
	defer x.Release()
	assert.False(t, x.IsCanonical())
	assert.Equal(t, 3.5, coo.At[float64](x))
	c, err := x.Canonicalize(mem, coo.ConvertOptions{})
	require.NoError(t, err)
	defer c.Release()
	assert.EqualValues(t, 1, c.NNZ())
	assert.Equal(t, 3.5, coo.At[float64](c))
	d, err := c.ToDense(mem)
	require.NoError(t, err)
	defer d.Release()
	assert.Equal(t, 3.5, views.At[float64](d.(*views.View)))
}

func TestBuilder(t *testing.T) {
	mem := testutil.Checked(t)
	b := coo.NewBuilder[int32, float64](mem, 3, 4)
	defer b.Release()
	b.SetDimNames("user", "movie")
	require.NoError(t, b.Append(5, 2, 1))
	require.NoError(t, b.Append(3, 0, 3))
	require.NoError(t, b.Append(1, 2, 1))
	require.ErrorIs(t, b.Append(1, 3, 0), arrow.ErrIndex)
	require.ErrorIs(t, b.Append(1, 0), arrow.ErrInvalid)
	x, err := b.NewTensor()
	require.NoError(t, err)
	defer x.Release()
	assert.EqualValues(t, 3, x.NNZ())
	assert.Equal(t, []string{"user", "movie"}, x.DimNames())
	assert.False(t, x.IsCanonical())
	assert.Equal(t, 6.0, coo.At[float64](x, 2, 1))
	var got []string
	for c, v := range coo.All[float64](x) {
		got = append(got, fmt.Sprint(c, v))
	}
	assert.Equal(t, []string{"[2 1] 5", "[0 3] 3", "[2 1] 1"}, got)
	assert.EqualValues(t, 0, b.Len())
}

// The CSF tutorial's "user, movie, rating" table round-trips through a record batch.
func TestRecordRoundTrip(t *testing.T) {
	mem := testutil.Checked(t)
	bld := array.NewRecordBuilder(mem, arrow.NewSchema([]arrow.Field{
		{Name: "user", Type: arrow.PrimitiveTypes.Uint32},
		{Name: "movie", Type: arrow.PrimitiveTypes.Int64},
		{Name: "rating", Type: arrow.PrimitiveTypes.Float32},
	}, nil))
	defer bld.Release()
	bld.Field(0).(*array.Uint32Builder).AppendValues([]uint32{0, 0, 1, 1, 2, 2, 2, 3}, nil)
	bld.Field(1).(*array.Int64Builder).AppendValues([]int64{0, 1, 1, 3, 2, 3, 4, 5}, nil)
	bld.Field(2).(*array.Float32Builder).AppendValues([]float32{10, 20, 30, 40, 50, 60, 70, 80}, nil)
	rec := bld.NewRecordBatch()
	defer rec.Release()

	x, err := coo.FromRecord(mem, rec, coo.RecordOptions{DimColumns: []string{"user", "movie"}, ValueColumn: "rating", IndexType: arrow.PrimitiveTypes.Int32})
	require.NoError(t, err)
	defer x.Release()
	assert.Equal(t, []int64{4, 6}, x.Shape())
	assert.Equal(t, coo.ColMajor, x.Layout())
	assert.True(t, x.IsCanonical())
	assert.Equal(t, float32(60), coo.At[float32](x, 2, 3))

	out, err := x.ToRecord(mem)
	require.NoError(t, err)
	defer out.Release()
	assert.Equal(t, "user", out.ColumnName(0))
	assert.Equal(t, "movie", out.ColumnName(1))
	assert.Equal(t, []int32{0, 0, 1, 1, 2, 2, 2, 3}, out.Column(0).(*array.Int32).Int32Values())
	assert.Equal(t, []int32{0, 1, 1, 3, 2, 3, 4, 5}, out.Column(1).(*array.Int32).Int32Values())
	assert.Equal(t, []float32{10, 20, 30, 40, 50, 60, 70, 80}, out.Column(2).(*array.Float32).Float32Values())

	// A row-major tensor is transposed on the way out.
	rm, err := x.WithLayout(mem, coo.RowMajor)
	require.NoError(t, err)
	defer rm.Release()
	out2, err := rm.ToRecord(mem)
	require.NoError(t, err)
	defer out2.Release()
	assert.Equal(t, []int32{0, 1, 1, 3, 2, 3, 4, 5}, out2.Column(1).(*array.Int32).Int32Values())

	// The shape and the names come back from the schema metadata, even
	// where the largest coordinates would say otherwise.
	wide, err := coo.FromSlices(mem, []int64{10, 10}, []int32{0, 1, 2, 0}, coo.RowMajor, []float64{1, 2}, coo.WithDimNames("row", "col"))
	require.NoError(t, err)
	defer wide.Release()
	wrec, err := wide.ToRecord(mem)
	require.NoError(t, err)
	defer wrec.Release()
	back, err := coo.FromRecord(mem, wrec, coo.RecordOptions{})
	require.NoError(t, err)
	defer back.Release()
	assert.Equal(t, []int64{10, 10}, back.Shape())
	assert.Equal(t, []string{"row", "col"}, back.DimNames())
	assert.Equal(t, 2.0, coo.At[float64](back, 2, 0))
	unnamed, err := coo.FromSlices(mem, []int64{5, 7}, []int32{4, 6}, coo.RowMajor, []float64{3})
	require.NoError(t, err)
	defer unnamed.Release()
	urec, err := unnamed.ToRecord(mem)
	require.NoError(t, err)
	defer urec.Release()
	uback, err := coo.FromRecord(mem, urec, coo.RecordOptions{})
	require.NoError(t, err)
	defer uback.Release()
	assert.Equal(t, []int64{5, 7}, uback.Shape())
	assert.Nil(t, uback.DimNames())

	// An empty table (whose arrays have no values buffer at all) is an
	// empty tensor.
	eb := array.NewRecordBuilder(mem, rec.Schema())
	erec := eb.NewRecordBatch()
	eb.Release()
	defer erec.Release()
	empty, err := coo.FromRecord(mem, erec, coo.RecordOptions{DimColumns: []string{"user", "movie"}, ValueColumn: "rating"})
	require.NoError(t, err)
	assert.Equal(t, int64(0), empty.NNZ())
	assert.Equal(t, []int64{0, 0}, empty.Shape())
	empty.Release()

	// Bad tables.
	_, err = coo.FromRecord(mem, rec, coo.RecordOptions{DimColumns: []string{"user", "nope"}, ValueColumn: "rating", IndexType: arrow.PrimitiveTypes.Int32})
	require.ErrorIs(t, err, arrow.ErrInvalid)
	assert.Contains(t, err.Error(), `"nope"`)
	assert.Contains(t, err.Error(), `"user", "movie", "rating"`, "the error lists the columns the table has")
	_, err = coo.FromRecord(mem, rec, coo.RecordOptions{DimColumns: []string{"user", "rating"}, ValueColumn: "movie", IndexType: arrow.PrimitiveTypes.Int32})
	require.ErrorIs(t, err, arrow.ErrType)
	_, err = coo.FromRecord(mem, rec, coo.RecordOptions{DimColumns: []string{"user", "movie"}, ValueColumn: "rating", Shape: []int64{4, 5}, IndexType: arrow.PrimitiveTypes.Int32})
	require.ErrorIs(t, err, arrow.ErrIndex)
	_, err = coo.FromRecord(mem, rec, coo.RecordOptions{DimColumns: []string{"user", "movie"}, ValueColumn: "rating", IndexType: arrow.PrimitiveTypes.Uint64})
	require.ErrorIs(t, err, arrow.ErrType)
}

func TestPermuteAndLayout(t *testing.T) {
	mem := testutil.Checked(t)
	x, err := coo.FromSlices(mem, []int64{2, 3, 4}, []int16{0, 0, 1, 0, 2, 1, 1, 0, 3}, coo.RowMajor, []int32{1, 2, 3}, coo.WithDimNames("a", "b", "c"))
	require.NoError(t, err)
	defer x.Release()
	p, err := x.Permute(mem, 2, 0, 1)
	require.NoError(t, err)
	defer p.Release()
	assert.Equal(t, []int64{4, 2, 3}, p.Shape())
	assert.Equal(t, []string{"c", "a", "b"}, p.DimNames())
	assert.Equal(t, int32(3), coo.At[int32](p, 3, 1, 0))
	assert.Equal(t, int32(2), coo.At[int32](p, 1, 0, 2))
	assert.True(t, p.IsCanonical()) // (1,0,0) < (1,0,2) < (3,1,0)
	q, err := x.Permute(mem, 1, 0, 2)
	require.NoError(t, err)
	defer q.Release()
	assert.False(t, q.IsCanonical()) // (0,0,1), (2,0,1), (0,1,3)
	_, err = x.Permute(mem, 0, 0, 1)
	require.ErrorIs(t, err, arrow.ErrInvalid)

	cm, err := x.WithLayout(mem, coo.ColMajor)
	require.NoError(t, err)
	defer cm.Release()
	c, _ := coo.Coords[int16](cm)
	assert.Equal(t, []int16{0, 0, 1, 0, 2, 0, 1, 1, 3}, c)
	assert.True(t, cm.IsCanonical())
}

func TestBadInput(t *testing.T) {
	mem := testutil.Checked(t)
	buf := func(n int) *memory.Buffer {
		b := memory.NewResizableBuffer(mem)
		b.Resize(n)
		return b
	}
	c8 := buf(16) // two int64 coordinates
	defer c8.Release()
	core.MustSliceBytes[int64](c8.Bytes())[1] = 5
	v8 := buf(8)
	defer v8.Release()
	f64, i64 := arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Int64

	_, err := coo.New(f64, i64, []int64{2, 3}, c8, coo.RowMajor, v8, 1)
	require.ErrorIs(t, err, arrow.ErrIndex) // coordinate 5 in a dimension of 3
	require.ErrorIs(t, err, arrowsparse.ErrOutOfRange)
	_, err = coo.New(f64, i64, []int64{2, 6}, c8, coo.RowMajor, v8, 2)
	require.ErrorIs(t, err, arrowsparse.ErrBufferSize) // values too small
	_, err = coo.New(f64, i64, []int64{2, -6}, c8, coo.RowMajor, v8, 1)
	require.ErrorIs(t, err, arrowsparse.ErrShape)
	_, err = coo.New(f64, i64, []int64{2, 6}, c8, coo.RowMajor, v8, -1)
	require.ErrorIs(t, err, arrow.ErrInvalid)
	_, err = coo.New(f64, i64, []int64{2, 6}, c8, coo.RowMajor, v8, math.MaxInt64/2)
	require.ErrorIs(t, err, arrowsparse.ErrOverflow)
	_, err = coo.New(f64, arrow.PrimitiveTypes.Uint64, []int64{2, 6}, c8, coo.RowMajor, v8, 1)
	require.ErrorIs(t, err, arrow.ErrType)
	_, err = coo.New(arrow.BinaryTypes.String, i64, []int64{2, 6}, c8, coo.RowMajor, v8, 1)
	require.ErrorIs(t, err, arrow.ErrType)
	// An index type needs to hold only the coordinates stored, as in Arrow
	// C++: int8 coordinates (0, 0) in a 2 × 600 shape are legal.
	narrow, err := coo.New(f64, arrow.PrimitiveTypes.Int8, []int64{2, 600}, c8, coo.RowMajor, v8, 1)
	require.NoError(t, err)
	narrow.Release()
	_, err = coo.New(f64, i64, []int64{2, 6}, c8, coo.Layout(7), v8, 1)
	require.ErrorIs(t, err, arrow.ErrInvalid)
	_, err = coo.New(f64, i64, []int64{2, 6}, c8, coo.RowMajor, v8, 1, coo.WithDimNames("x"))
	require.ErrorIs(t, err, arrowsparse.ErrShape)
	_, err = coo.New(f64, i64, []int64{2, 6}, nil, coo.RowMajor, v8, 1)
	require.ErrorIs(t, err, arrowsparse.ErrBufferSize)

	// A false canonical claim is rejected; under WithTrusted it is adopted.
	two := buf(32)
	defer two.Release()
	copy(core.MustSliceBytes[int64](two.Bytes()), []int64{1, 0, 0, 1})
	v16 := buf(16)
	defer v16.Release()
	_, err = coo.New(f64, i64, []int64{2, 2}, two, coo.RowMajor, v16, 2, coo.WithCanonicalClaim(true))
	require.ErrorIs(t, err, arrowsparse.ErrNotCanonical)
	tr, err := coo.New(f64, i64, []int64{2, 2}, two, coo.RowMajor, v16, 2, coo.WithCanonicalClaim(true), coo.WithTrusted())
	require.NoError(t, err)
	assert.True(t, tr.IsCanonical())
	require.ErrorIs(t, tr.Validate(), arrowsparse.ErrNotCanonical)
	tr.Release()
	_, err = coo.FromSlices(mem, []int64{2, 2}, []int64{0, 1}, coo.RowMajor, []float64{1, 2})
	require.ErrorIs(t, err, arrowsparse.ErrBufferSize)

	// Typed access with the wrong Go type.
	ok, err := coo.New(f64, i64, []int64{2, 6}, c8, coo.RowMajor, v8, 1)
	require.NoError(t, err)
	defer ok.Release()
	_, err = coo.Coords[int32](ok)
	require.ErrorIs(t, err, arrow.ErrType)
	_, err = coo.Values[float32](ok)
	require.ErrorIs(t, err, arrow.ErrType)
	assert.Panics(t, func() { coo.At[float64](ok, 2, 0) })
	assert.Panics(t, func() { coo.At[float64](ok, 0) })
	_, err = ok.Canonicalize(mem, coo.ConvertOptions{Duplicates: 42})
	require.ErrorIs(t, err, arrow.ErrInvalid)

	// A dense size that overflows cannot be densified.
	huge, err := coo.New(f64, i64, []int64{1 << 40, 1 << 40}, c8, coo.RowMajor, v8, 1)
	require.NoError(t, err)
	defer huge.Release()
	_, err = huge.ToDense(mem)
	require.ErrorIs(t, err, arrowsparse.ErrOverflow)
}

func TestFromDenseStrided(t *testing.T) {
	mem := testutil.Checked(t)
	// A column-major 2×3 view: Arrow C++ gets this wrong (apache/arrow#47520).
	buf := core.NewZeroedBuffer(mem, 6*8)
	defer buf.Release()
	// Column-major storage of [[0, 1.5, 0], [2.5, 0, 3.5]].
	copy(core.MustSlice[float64](buf, 6), []float64{0, 2.5, 1.5, 0, 0, 3.5})
	v, err := views.New(arrow.PrimitiveTypes.Float64, buf, 0, []int64{2, 3}, []int64{1, 2})
	require.NoError(t, err)
	defer v.Release()
	x, err := coo.FromDense(mem, v, coo.ConvertOptions{IndexType: arrow.PrimitiveTypes.Int32})
	require.NoError(t, err)
	defer x.Release()
	c, _ := coo.Coords[int32](x)
	vs, _ := coo.Values[float64](x)
	assert.Equal(t, []int32{0, 1, 1, 0, 1, 2}, c)
	assert.Equal(t, []float64{1.5, 2.5, 3.5}, vs)

	// Negative zero is zero, NaN is not.
	copy(core.MustSlice[float64](buf, 6), []float64{math.Copysign(0, -1), math.NaN(), 0, 0, 0, 1})
	y, err := coo.FromDense(mem, v, coo.ConvertOptions{IndexType: arrow.PrimitiveTypes.Int8})
	require.NoError(t, err)
	defer y.Release()
	assert.EqualValues(t, 2, y.NNZ())
	_, err = coo.FromDense(mem, v, coo.ConvertOptions{IndexType: arrow.PrimitiveTypes.Uint64})
	require.ErrorIs(t, err, arrow.ErrType)
}

// Buffers may be longer than needed by any number of bytes (IPC pads them,
// crafted messages need not).
func TestLongerBuffers(t *testing.T) {
	mem := testutil.Checked(t)
	cb := memory.NewResizableBuffer(mem)
	cb.Resize(4*8 + 3)
	defer cb.Release()
	copy(core.MustSliceBytes[int64](cb.Bytes()[:32]), []int64{1, 2, 0, 1})
	vb := memory.NewResizableBuffer(mem)
	vb.Resize(2*4 + 3)
	defer vb.Release()
	copy(core.MustSliceBytes[float32](vb.Bytes()[:8]), []float32{5, 7})
	x, err := coo.New(arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Int64, []int64{2, 3}, cb, coo.RowMajor, vb, 2)
	require.NoError(t, err)
	defer x.Release()
	assert.False(t, x.IsCanonical())
	c, err := x.Canonicalize(mem, coo.ConvertOptions{})
	require.NoError(t, err)
	defer c.Release()
	assert.Equal(t, float32(7), coo.At[float32](c, 0, 1))
	d, err := x.ToDense(mem)
	require.NoError(t, err)
	defer d.Release()
	assert.Equal(t, []float32{0, 7, 0, 0, 0, 5}, testutil.ViewValues[float32](t, d.(*views.View)))
	p, err := x.Permute(mem, 1, 0)
	require.NoError(t, err)
	defer p.Release()
	assert.Equal(t, float32(5), coo.At[float32](p, 2, 1))
	r, err := x.WithLayout(mem, coo.ColMajor)
	require.NoError(t, err)
	defer r.Release()
	assert.Equal(t, float32(5), coo.At[float32](r, 1, 2))
}

// From arrow-go's dense tensors, row- and column-major.
func TestFromArrowTensor(t *testing.T) {
	mem := testutil.Checked(t)
	b := array.NewFloat64Builder(mem)
	defer b.Release()
	b.AppendValues([]float64{0, 1.5, 0, 2.5, 0, 3.5}, nil)
	arr := b.NewFloat64Array()
	defer arr.Release()
	for _, c := range []struct {
		strides []int64
		want    []int32
		vals    []float64
	}{
		{[]int64{24, 8}, []int32{0, 1, 1, 0, 1, 2}, []float64{1.5, 2.5, 3.5}}, // row-major [[0 1.5 0] [2.5 0 3.5]]
		{[]int64{8, 16}, []int32{1, 0, 1, 1, 1, 2}, []float64{1.5, 2.5, 3.5}}, // column-major [[0 0 0] [1.5 2.5 3.5]]
	} {
		tn := tensor.NewFloat64(arr.Data(), []int64{2, 3}, c.strides, []string{"r", "c"})
		x, err := coo.FromArrowTensor(mem, tn, coo.ConvertOptions{IndexType: arrow.PrimitiveTypes.Int32})
		require.NoError(t, err)
		got, _ := coo.Coords[int32](x)
		vs, _ := coo.Values[float64](x)
		assert.Equal(t, c.want, got, "strides %v", c.strides)
		assert.Equal(t, c.vals, vs)
		assert.Equal(t, []string{"r", "c"}, x.DimNames())
		assert.True(t, x.IsCanonical())
		x.Release()
		tn.Release()
	}
}

// Densifying a tensor whose dense size fits in int64 but not in memory is
// an error, not a runtime panic.
func TestToDenseTooLarge(t *testing.T) {
	mem := testutil.Checked(t)
	x, err := coo.FromSlices(mem, []int64{1 << 28, 1 << 28}, []int64{5, 7}, coo.RowMajor, []float64{1})
	require.NoError(t, err)
	defer x.Release()
	_, err = x.ToDense(mem)
	require.ErrorIs(t, err, arrowsparse.ErrOverflow)
}
