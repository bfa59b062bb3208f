package testutil_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
	"github.com/arrowsparse/arrowsparse/views"
)

func TestLinear(t *testing.T) {
	shape := []int64{3, 4, 5}
	for q := range int64(60) {
		c := testutil.Unlinear(shape, q)
		for k, v := range c {
			require.Less(t, v, shape[k])
		}
		require.Equal(t, q, testutil.Linear(shape, c))
	}
	assert.Equal(t, int64(0), testutil.Linear(nil, nil))
	assert.Empty(t, testutil.Unlinear(nil, 0))
}

func TestRefCombined(t *testing.T) {
	rf := testutil.NewRef([]int64{2, 3})
	rf.Add([]int64{1, 2}, 2)
	rf.Add([]int64{0, 1}, 7)
	rf.Add([]int64{1, 2}, 1)
	rf.Add([]int64{1, 2}, 3)
	for p, want := range map[arrowsparse.Duplicates]float64{
		arrowsparse.SumDuplicates: 6, arrowsparse.KeepFirst: 2, arrowsparse.KeepLast: 3, arrowsparse.KeepMin: 1, arrowsparse.KeepMax: 3,
	} {
		assert.Equal(t, map[int64]float64{1: 7, 5: want}, rf.Combined(p), "policy %s", p)
		assert.Equal(t, []float64{0, 7, 0, 0, 0, want}, rf.Dense(p), "policy %s", p)
	}
	assert.Panics(t, func() { rf.Combined(arrowsparse.RejectDuplicates) })
	assert.Empty(t, testutil.NewRef([]int64{0, 4}).Dense(arrowsparse.SumDuplicates))
}

// Every type round-trips through the raw-buffer helpers, at an unaligned
// position in a slice longer than needed; float16 keeps subnormals exact.
func TestPutGet(t *testing.T) {
	raw := make([]byte, 8*4+3)
	b := raw[1:]
	for _, dt := range testutil.IndexTypes {
		for _, v := range []int64{0, 1, 5, 127, -1, -128} {
			if v < 0 && arrow.IsUnsignedInteger(dt.ID()) {
				continue
			}
			testutil.PutInt(b, dt, 3, v)
			assert.Equal(t, v, testutil.GetInt(b, dt, 3), "%s", dt)
		}
	}
	testutil.PutInt(b, arrow.PrimitiveTypes.Uint8, 0, 200)
	assert.Equal(t, int64(200), testutil.GetInt(b, arrow.PrimitiveTypes.Uint8, 0))
	assert.Equal(t, int64(-56), testutil.GetInt(b, arrow.PrimitiveTypes.Int8, 0))
	for _, dt := range testutil.ValueTypes {
		for _, v := range []float64{0, 1, 3, 100} {
			testutil.PutFloat(b, dt, 3, v)
			assert.Equal(t, v, testutil.GetFloat(b, dt, 3), "%s", dt)
		}
	}
	f16 := arrow.FixedWidthTypes.Float16
	for _, v := range []float64{math.Ldexp(1, -24), math.Ldexp(3, -20), -math.Ldexp(1023, -24), 0.5, 65504} {
		testutil.PutFloat(b, f16, 2, v)
		assert.Equal(t, v, testutil.GetFloat(b, f16, 2))
	}
	testutil.PutFloat(b, arrow.PrimitiveTypes.Uint64, 1, math.Ldexp(1, 63))
	assert.Equal(t, math.Ldexp(1, 63), testutil.GetFloat(b, arrow.PrimitiveTypes.Uint64, 1))
	assert.Panics(t, func() { testutil.PutInt(b, arrow.BinaryTypes.String, 0, 1) })
	assert.Panics(t, func() { testutil.GetInt(b, arrow.PrimitiveTypes.Float32, 0) })
}

// The tensor RandomCOO returns holds what its reference says, in either
// layout and any types, with duplicates at about the rate asked for.
func TestRandomCOO(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(1, 2))
	shape := []int64{4, 50, 30}
	for trial := range 2 * len(testutil.ValueTypes) {
		layout := coo.Layout(trial % 2)
		it := testutil.IndexTypes[trial%len(testutil.IndexTypes)]
		vt := testutil.ValueTypes[trial%len(testutil.ValueTypes)]
		for _, dupEvery := range []int{0, 2} {
			x, rf := testutil.RandomCOO(t, mem, r, shape, 400, layout, it, vt, dupEvery)
			require.NoError(t, x.Validate())
			assert.Equal(t, layout, x.Layout())
			assert.Equal(t, it, x.IndexType())
			assert.Equal(t, vt, x.DataType())
			assert.Equal(t, shape, rf.Shape)
			require.EqualValues(t, 400, x.NNZ())
			got := testutil.NewRef(shape)
			for i := range x.NNZ() {
				c := make([]int64, len(shape))
				for k := range c {
					c[k] = x.Coord(i, k)
				}
				v := testutil.GetFloat(x.ValuesBuffer().Bytes(), vt, i)
				assert.Contains(t, []float64{1, 2, 3}, v)
				got.Add(c, v)
			}
			assert.Equal(t, rf, got)
			dups := 400 - len(rf.Entries)
			if dupEvery == 0 {
				assert.Less(t, dups, 40, "chance collisions only") // about 13 expected
			} else {
				assert.Greater(t, dups, 150) // about 200 expected
			}
			x.Release()
		}
	}
	x, rf := testutil.RandomCOO(t, mem, r, []int64{3, 0}, 10, coo.RowMajor, arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Float64, 4)
	assert.EqualValues(t, 0, x.NNZ())
	assert.Empty(t, rf.Entries)
	x.Release()
}

func TestDenseValues(t *testing.T) {
	mem := testutil.Checked(t)
	d, err := views.Alloc(mem, arrow.PrimitiveTypes.Int16, []int64{2, 3})
	require.NoError(t, err)
	defer d.Release()
	for q := range int64(6) {
		require.NoError(t, views.Set(d, int16(q+1), testutil.Unlinear([]int64{2, 3}, q)...))
	}
	assert.Equal(t, []float64{1, 2, 3, 4, 5, 6}, testutil.DenseValues(t, d))
	tr, err := d.Transpose(1, 0)
	require.NoError(t, err)
	defer tr.Release()
	assert.Equal(t, []float64{1, 4, 2, 5, 3, 6}, testutil.DenseValues(t, tr))
}

func TestBufferOf(t *testing.T) {
	mem := testutil.Checked(t)
	b := testutil.BufferOf(mem, []int32{1, -2, 3})
	defer b.Release()
	assert.Equal(t, []int32{1, -2, 3}, core.MustSliceBytes[int32](b.Bytes()))
	e := testutil.BufferOf(mem, []float64{})
	defer e.Release()
	assert.Zero(t, e.Len())
}

// Checked's clean-up reports a leak.
func TestCheckedReportsLeaks(t *testing.T) {
	ft := &fakeT{TB: t}
	mem := testutil.Checked(ft)
	b := memory.NewResizableBuffer(mem)
	b.Resize(64)
	for i := len(ft.cleanups) - 1; i >= 0; i-- {
		ft.cleanups[i]()
	}
	assert.True(t, ft.failed, "a leak must fail the test")
	b.Release()
	ft.failed = false
	for i := len(ft.cleanups) - 1; i >= 0; i-- {
		ft.cleanups[i]()
	}
	assert.False(t, ft.failed)
}

// fakeT records failures and clean-ups instead of acting on them.
type fakeT struct {
	testing.TB
	cleanups []func()
	failed   bool
}

func (f *fakeT) Helper()               {}
func (f *fakeT) Cleanup(fn func())     { f.cleanups = append(f.cleanups, fn) }
func (f *fakeT) Errorf(string, ...any) { f.failed = true }
func (f *fakeT) Fatalf(string, ...any) { f.failed = true }
func (f *fakeT) Error(...any)          { f.failed = true }
func (f *fakeT) Fatal(...any)          { f.failed = true }
func (f *fakeT) Log(...any)            {}
func (f *fakeT) Logf(string, ...any)   {}

func TestRandomShape(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	dims := map[int]bool{}
	zeros := 0
	for range 2000 {
		shape := testutil.RandomShape(r, 1, 3, 4, 10)
		dims[len(shape)] = true
		for _, d := range shape {
			require.True(t, d >= 0 && d <= 4)
			if d == 0 {
				zeros++
			}
		}
	}
	assert.Equal(t, map[int]bool{1: true, 2: true, 3: true}, dims)
	assert.Positive(t, zeros)
}
