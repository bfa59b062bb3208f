package compute_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/compute"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
)

// vector1 returns a 1-d COO tensor holding one value of type dt, written
// by put.
func vector1(t *testing.T, mem memory.Allocator, dt arrow.DataType, put func(b []byte)) *coo.Tensor {
	t.Helper()
	vb := memory.NewResizableBuffer(mem)
	defer vb.Release()
	vb.Resize(arrowsparse.ByteWidth(dt))
	put(vb.Bytes())
	cb := testutil.BufferOf(mem, []int32{0})
	defer cb.Release()
	x, err := coo.New(dt, arrow.PrimitiveTypes.Int32, []int64{1}, cb, coo.RowMajor, vb, 1)
	require.NoError(t, err)
	return x
}

var (
	i8  = arrow.PrimitiveTypes.Int8
	i32 = arrow.PrimitiveTypes.Int32
	i64 = arrow.PrimitiveTypes.Int64
	u8  = arrow.PrimitiveTypes.Uint8
	u64 = arrow.PrimitiveTypes.Uint64
	f16 = arrow.FixedWidthTypes.Float16
	f32 = arrow.PrimitiveTypes.Float32
	f64 = arrow.PrimitiveTypes.Float64
)

// TestAsTypeRules checks Arrow's cast rules value by value: what fails
// without the flags, and what the flags give.
func TestAsTypeRules(t *testing.T) {
	for _, c := range []struct {
		from, to arrow.DataType
		in       float64 // stored in from (integers through int64 bits)
		inBits   int64   // for integers, when not 0
		fails    bool    // without flags
		o        compute.CastOptions
		want     float64
	}{
		{from: i64, to: i8, in: 300, fails: true},
		{from: i64, to: i8, in: 300, o: compute.CastOptions{AllowIntOverflow: true}, want: 44},
		{from: i64, to: i8, in: -129, o: compute.CastOptions{AllowIntOverflow: true}, want: 127},
		{from: i64, to: u8, in: -1, fails: true},
		{from: i64, to: u8, in: -1, o: compute.CastOptions{AllowIntOverflow: true}, want: 255},
		{from: u64, to: i64, inBits: -1, fails: true}, // 2^64-1
		{from: u64, to: i64, inBits: -1, o: compute.CastOptions{AllowIntOverflow: true}, want: -1},
		{from: i8, to: u64, in: -5, fails: true},
		{from: i32, to: i64, in: -7, want: -7},
		{from: f64, to: i32, in: 2.5, fails: true},
		{from: f64, to: i32, in: 2.5, o: compute.CastOptions{AllowFloatTruncate: true}, want: 2},
		{from: f64, to: i32, in: -2.5, o: compute.CastOptions{AllowFloatTruncate: true}, want: -2},
		{from: f64, to: i32, in: 1e10, fails: true},
		{from: f64, to: i32, in: 1e10, o: compute.CastOptions{AllowFloatTruncate: true}, want: math.MaxInt32},
		{from: f64, to: i32, in: 1e10, o: compute.CastOptions{AllowIntOverflow: true}, fails: true},
		{from: f64, to: u8, in: -0.5, fails: true},
		{from: f64, to: u8, in: -0.5, o: compute.CastOptions{AllowFloatTruncate: true}, want: 0},
		{from: f64, to: i64, in: math.NaN(), fails: true},
		{from: f64, to: i64, in: math.NaN(), o: compute.CastOptions{AllowFloatTruncate: true}, want: 0},
		{from: f64, to: i64, in: math.Inf(-1), o: compute.CastOptions{AllowFloatTruncate: true}, want: math.MinInt64},
		{from: f64, to: i64, in: 1 << 63, fails: true},
		{from: f32, to: u64, in: 1 << 40, want: 1 << 40},
		{from: i64, to: f64, inBits: 1<<53 + 1, fails: true},
		{from: i64, to: f64, inBits: 1<<53 + 1, o: compute.CastOptions{AllowFloatTruncate: true}, want: 1 << 53},
		{from: i64, to: f32, in: 1<<24 + 1, fails: true},
		{from: i64, to: f32, in: 1 << 24, want: 1 << 24},
		{from: i64, to: f16, in: 2049, fails: true},
		{from: i64, to: f16, in: 2048, want: 2048},
		{from: i64, to: f16, in: 70000, fails: true},
		{from: i64, to: f16, in: 70000, o: compute.CastOptions{AllowFloatTruncate: true}, want: math.Inf(1)},
		{from: f64, to: f32, in: 1e300, want: math.Inf(1)},
		{from: f64, to: f16, in: 1 + 1.0/2048, want: 1},                          // a tie, to even
		{from: f64, to: f16, in: 1 + 1.0/2048 + 1.0/(1<<40), want: 1 + 1.0/1024}, // just above the tie
		{from: f16, to: i8, in: -3, want: -3},
		{from: f64, to: f64, in: -0.5, want: -0.5},
	} {
		t.Run(fmt.Sprintf("%s(%v)->%s/%+v", c.from, c.in, c.to, c.o), func(t *testing.T) {
			mem := testutil.Checked(t)
			x := vector1(t, mem, c.from, func(b []byte) {
				if c.inBits != 0 {
					testutil.PutInt(b, c.from, 0, c.inBits)
				} else if kind := c.from.ID(); kind == arrow.FLOAT16 || kind == arrow.FLOAT32 || kind == arrow.FLOAT64 {
					testutil.PutFloat(b, c.from, 0, c.in)
				} else {
					testutil.PutInt(b, c.from, 0, int64(c.in))
				}
			})
			defer x.Release()
			r, err := compute.AsType(mem, x, c.to, c.o)
			if c.fails {
				require.ErrorIs(t, err, arrowsparse.ErrOutOfRange)
				require.ErrorIs(t, err, arrow.ErrIndex)
				return
			}
			require.NoError(t, err)
			defer r.Release()
			require.True(t, arrow.TypeEqual(c.to, r.DataType()))
			got := testutil.GetFloat(r.(arrowsparse.Sparse).ValueBytes(), c.to, 0)
			if c.to.ID() == arrow.INT64 || c.to.ID() == arrow.UINT64 {
				got = float64(testutil.GetInt(r.(arrowsparse.Sparse).ValueBytes(), c.to, 0))
			}
			assert.Equal(t, c.want, got)
		})
	}
}

// TestAsTypeEveryPair casts small integers, which every type holds, between
// every pair of value types and formats, and checks the dense result and
// that the index buffers are shared.
func TestAsTypeEveryPair(t *testing.T) {
	for _, from := range valueTypes {
		for _, to := range valueTypes {
			for _, f := range formatsFor(2) {
				t.Run(fmt.Sprintf("%s->%s/%s", from, to, f), func(t *testing.T) {
					mem := testutil.Checked(t)
					c := smallMatrix(t, mem, from)
					defer c.Release()
					x := as(t, mem, c, f)
					defer x.Release()
					r, err := compute.AsType(mem, x, to, compute.CastOptions{})
					require.NoError(t, err)
					defer r.Release()
					assert.Equal(t, x.Format(), r.Format())
					assert.Equal(t, x.NNZ(), r.NNZ())
					assert.Equal(t, denseOf[float64](t, mem, x), denseOf[float64](t, mem, r))
				})
			}
		}
	}
}

// smallMatrix returns a 3×4 COO matrix of type dt with values 0 to 100,
// an explicit zero and a duplicate.
func smallMatrix(t *testing.T, mem memory.Allocator, dt arrow.DataType) *coo.Tensor {
	t.Helper()
	coords := []int64{0, 1, 2, 3, 1, 0, 0, 1, 2, 2}
	vals := []float64{5, 100, 0, 7, 9}
	vb := memory.NewResizableBuffer(mem)
	defer vb.Release()
	vb.Resize(len(vals) * arrowsparse.ByteWidth(dt))
	for j, v := range vals {
		testutil.PutFloat(vb.Bytes(), dt, j, v)
	}
	cb := testutil.BufferOf(mem, coords)
	defer cb.Release()
	x, err := coo.New(dt, arrow.PrimitiveTypes.Int64, []int64{3, 4}, cb, coo.RowMajor, vb, int64(len(vals)))
	require.NoError(t, err)
	return x
}

func TestAsTypeIndexTypes(t *testing.T) {
	for _, f := range formatsFor(2) {
		t.Run(f, func(t *testing.T) {
			mem := testutil.Checked(t)
			c := smallMatrix(t, mem, f64)
			defer c.Release()
			x := as(t, mem, c, f)
			defer x.Release()
			r, err := compute.AsType(mem, x, f32, compute.CastOptions{IndexType: arrow.PrimitiveTypes.Uint8, IndptrType: arrow.PrimitiveTypes.Int16})
			require.NoError(t, err)
			defer r.Release()
			assert.Equal(t, denseOf[float64](t, mem, x), denseOf[float64](t, mem, r))
			_, err = compute.AsType(mem, x, f32, compute.CastOptions{IndexType: arrow.PrimitiveTypes.Uint64})
			require.ErrorIs(t, err, arrowsparse.ErrUnsupportedType)
		})
	}
}
