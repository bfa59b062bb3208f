package compute_test

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
	"github.com/arrowsparse/arrowsparse/compute"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
)

// negOf and absOf are Go's -v and |v| (float16 by its sign bit).
func negOf[T arrowsparse.Value](v T) T {
	var z T
	switch x := any(v).(type) {
	case float16.Num:
		return any(float16.FromBits(x.Uint16() ^ 0x8000)).(T)
	}
	return refOp("sub", z, v)
}

func absOf[T arrowsparse.Value](v T) T {
	switch x := any(v).(type) {
	case float16.Num:
		return any(float16.FromBits(x.Uint16() &^ 0x8000)).(T)
	case float32:
		return any(float32(math.Abs(float64(x)))).(T)
	case float64:
		return any(math.Abs(x)).(T)
	}
	var z T
	if refOp("min", v, z) != z { // v < 0
		return negOf(v)
	}
	return v
}

// valueOf returns the value of type T nearest to f.
func valueOf[T arrowsparse.Value](f float64) T {
	b := make([]byte, 8)
	testutil.PutFloat(b, arrowsparse.DataTypeOf[T](), 0, f)
	v, err := arrowsparse.AsSlice[T](memory.NewBufferBytes(b), 1)
	if err != nil {
		panic(err)
	}
	return v[0]
}

func checkUnary[T arrowsparse.Value](t *testing.T, mem memory.Allocator, x arrowsparse.Tensor, r *rand.Rand) {
	dense := denseOf[T](t, mem, x)
	s := valueOf[T](float64(r.IntN(7) - 3))
	square := func(v T) T { return refOp("mul", v, v) }
	cases := []struct {
		name string
		run  func(o compute.Options) (arrowsparse.Tensor, error)
		ref  func(T) T
	}{
		{"scale", func(o compute.Options) (arrowsparse.Tensor, error) { return compute.Scale(mem, x, s, o) }, func(v T) T { return refOp("mul", v, s) }},
		{"map", func(o compute.Options) (arrowsparse.Tensor, error) { return compute.Map(mem, x, square, o) }, square},
		{"abs", func(o compute.Options) (arrowsparse.Tensor, error) { return compute.Abs(mem, x, o) }, absOf[T]},
		{"negate", func(o compute.Options) (arrowsparse.Tensor, error) { return compute.Negate(mem, x, o) }, negOf[T]},
	}
	for _, c := range cases {
		for _, keep := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/keep=%v", c.name, keep), func(t *testing.T) {
				res, err := c.run(compute.Options{KeepZeros: keep, Workers: 1 + r.IntN(2)})
				require.NoError(t, err)
				defer res.Release()
				want := make([]T, len(dense))
				for i, v := range dense {
					want[i] = c.ref(v)
				}
				got := denseOf[T](t, mem, res)
				require.True(t, equalValues(got, want), "got %v\nwant %v", got, want)
				assert.Equal(t, x.Format(), res.Format())
				if !keep {
					checkStoredNonzero(t, res)
				}
			})
		}
	}
}

// TestUnary checks Scale, Map, Abs and Negate on every value type, shape
// class and format against the dense reference.
func TestUnary(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, dt := range valueTypes {
		for _, shape := range shapes {
			for _, f := range formatsFor(len(shape)) {
				t.Run(fmt.Sprintf("%s/%v/%s", dt, shape, f), func(t *testing.T) {
					mem := testutil.Checked(t)
					c := randomTensor(t, mem, r, shape, 1+r.IntN(12), dt, arrow.PrimitiveTypes.Int32)
					defer c.Release()
					x := as(t, mem, c, f)
					defer x.Release()
					switch dt.ID() {
					case arrow.INT8:
						checkUnary[int8](t, mem, x, r)
					case arrow.INT16:
						checkUnary[int16](t, mem, x, r)
					case arrow.INT32:
						checkUnary[int32](t, mem, x, r)
					case arrow.INT64:
						checkUnary[int64](t, mem, x, r)
					case arrow.UINT8:
						checkUnary[uint8](t, mem, x, r)
					case arrow.UINT16:
						checkUnary[uint16](t, mem, x, r)
					case arrow.UINT32:
						checkUnary[uint32](t, mem, x, r)
					case arrow.UINT64:
						checkUnary[uint64](t, mem, x, r)
					case arrow.FLOAT16:
						checkUnary[float16.Num](t, mem, x, r)
					case arrow.FLOAT32:
						checkUnary[float32](t, mem, x, r)
					default:
						checkUnary[float64](t, mem, x, r)
					}
				})
			}
		}
	}
}

func TestMapChangesType(t *testing.T) {
	mem := testutil.Checked(t)
	m, err := gcs.FromSlices(mem, gcs.Rows, []int64{2, 3}, []int32{0, 2, 3}, []int32{0, 2, 1}, []float64{1.5, -2, 0.25})
	require.NoError(t, err)
	defer m.Release()
	r, err := compute.Map(mem, m, func(v float64) int32 { return int32(v) }, compute.Options{})
	require.NoError(t, err)
	defer r.Release()
	assert.Equal(t, arrowsparse.FormatCSR, r.Format())
	assert.Equal(t, int64(2), r.NNZ(), "int32(0.25) is a zero, dropped")
	assert.Equal(t, []int32{1, 0, -2, 0, 0, 0}, denseOf[int32](t, mem, r))

	_, err = compute.Map(mem, m, func(v float32) float32 { return v }, compute.Options{})
	require.ErrorIs(t, err, arrowsparse.ErrUnsupportedType)
	_, err = compute.Scale(mem, m, float32(2), compute.Options{})
	require.ErrorIs(t, err, arrow.ErrType)
}

func TestScaleByZero(t *testing.T) {
	mem := testutil.Checked(t)
	m, err := gcs.FromSlices(mem, gcs.Cols, []int64{2, 2}, []int8{0, 1, 2}, []int8{1, 0}, []int16{7, -3})
	require.NoError(t, err)
	defer m.Release()
	r, err := compute.Scale(mem, m, int16(0), compute.Options{})
	require.NoError(t, err)
	defer r.Release()
	assert.Equal(t, int64(0), r.NNZ())
	assert.Equal(t, arrowsparse.FormatCSC, r.Format())
	k, err := compute.Scale(mem, m, int16(0), compute.Options{KeepZeros: true})
	require.NoError(t, err)
	defer k.Release()
	assert.Equal(t, int64(2), k.NNZ())
}
