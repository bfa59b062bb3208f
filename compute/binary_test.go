package compute_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/compute"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
)

type binaryFunc func(memory.Allocator, arrowsparse.Tensor, arrowsparse.Tensor, compute.Options) (arrowsparse.Tensor, error)

var binaryOps = []struct {
	name string
	f    binaryFunc
}{
	{"add", compute.Add}, {"sub", compute.Subtract}, {"mul", compute.Multiply},
	{"min", compute.Minimum}, {"max", compute.Maximum},
}

// refNumber is the reference of an operation on numbers Go can compute
// with.
func refNumber[T arrowsparse.Number](name string, a, b T) T {
	switch name {
	case "add":
		return a + b
	case "sub":
		return a - b
	case "mul":
		return a * b
	case "min":
		return min(a, b)
	}
	return max(a, b)
}

// refOp is the reference of an operation on any value type: float16 is
// computed in float32 and rounded once.
func refOp[T arrowsparse.Value](name string, a, b T) T {
	switch x := any(a).(type) {
	case float16.Num:
		y := any(b).(float16.Num)
		return any(arrowsparse.Float32ToHalf(refNumber(name, arrowsparse.HalfToFloat32(x), arrowsparse.HalfToFloat32(y)))).(T)
	case int8:
		return any(refNumber(name, x, any(b).(int8))).(T)
	case int16:
		return any(refNumber(name, x, any(b).(int16))).(T)
	case int32:
		return any(refNumber(name, x, any(b).(int32))).(T)
	case int64:
		return any(refNumber(name, x, any(b).(int64))).(T)
	case uint8:
		return any(refNumber(name, x, any(b).(uint8))).(T)
	case uint16:
		return any(refNumber(name, x, any(b).(uint16))).(T)
	case uint32:
		return any(refNumber(name, x, any(b).(uint32))).(T)
	case uint64:
		return any(refNumber(name, x, any(b).(uint64))).(T)
	case float32:
		return any(refNumber(name, x, any(b).(float32))).(T)
	}
	return any(refNumber(name, any(a).(float64), any(b).(float64))).(T)
}

func checkBinary[T arrowsparse.Value](t *testing.T, mem memory.Allocator, name string, f binaryFunc, a, b arrowsparse.Tensor, o compute.Options) {
	t.Helper()
	r, err := f(mem, a, b, o)
	require.NoError(t, err)
	defer r.Release()
	x, y := denseOf[T](t, mem, a), denseOf[T](t, mem, b)
	want := make([]T, len(x))
	for i := range x {
		want[i] = refOp(name, x[i], y[i])
	}
	got := denseOf[T](t, mem, r)
	require.True(t, equalValues(got, want), "got %v\nwant %v", got, want)
	assert.Equal(t, a.Shape(), r.Shape())
	assert.True(t, arrow.TypeEqual(a.DataType(), r.DataType()))
	if o.Format == compute.Auto {
		assert.Equal(t, a.Format(), r.Format(), "the result keeps the first operand's format")
	}
	if !o.KeepZeros {
		checkStoredNonzero(t, r)
	}
}

func binaryByType(t *testing.T, mem memory.Allocator, name string, f binaryFunc, a, b arrowsparse.Tensor, o compute.Options) {
	switch a.DataType().ID() {
	case arrow.INT8:
		checkBinary[int8](t, mem, name, f, a, b, o)
	case arrow.INT16:
		checkBinary[int16](t, mem, name, f, a, b, o)
	case arrow.INT32:
		checkBinary[int32](t, mem, name, f, a, b, o)
	case arrow.INT64:
		checkBinary[int64](t, mem, name, f, a, b, o)
	case arrow.UINT8:
		checkBinary[uint8](t, mem, name, f, a, b, o)
	case arrow.UINT16:
		checkBinary[uint16](t, mem, name, f, a, b, o)
	case arrow.UINT32:
		checkBinary[uint32](t, mem, name, f, a, b, o)
	case arrow.UINT64:
		checkBinary[uint64](t, mem, name, f, a, b, o)
	case arrow.FLOAT16:
		checkBinary[float16.Num](t, mem, name, f, a, b, o)
	case arrow.FLOAT32:
		checkBinary[float32](t, mem, name, f, a, b, o)
	default:
		checkBinary[float64](t, mem, name, f, a, b, o)
	}
}

// TestBinary checks every operation on every value type and shape class,
// with the first operand in every format and the second in a random one
// (and in the same one), against the operation applied to the dense
// operands.
func TestBinary(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, dt := range valueTypes {
		for _, shape := range shapes {
			t.Run(fmt.Sprintf("%s/%v", dt, shape), func(t *testing.T) {
				mem := testutil.Checked(t)
				it := testutil.IndexTypes[r.IntN(len(testutil.IndexTypes))]
				if arrowsparse.IndexMax(it) < maxDim(shape) {
					it = arrow.PrimitiveTypes.Int32
				}
				nnz := 1 + r.IntN(12)
				ca := randomTensor(t, mem, r, shape, nnz, dt, it)
				defer ca.Release()
				cb := randomTensor(t, mem, r, shape, r.IntN(12), dt, arrow.PrimitiveTypes.Int64)
				defer cb.Release()
				formats := formatsFor(len(shape))
				for _, fa := range formats {
					a := as(t, mem, ca, fa)
					for _, fb := range []string{fa, formats[r.IntN(len(formats))]} {
						b := as(t, mem, cb, fb)
						for _, op := range binaryOps {
							t.Run(fmt.Sprintf("%s/%s-%s", op.name, fa, fb), func(t *testing.T) {
								binaryByType(t, mem, op.name, op.f, a, b, compute.Options{Workers: 1 + r.IntN(3)})
							})
						}
						b.Release()
					}
					a.Release()
				}
			})
		}
	}
}

func maxDim(shape []int64) int64 {
	m := int64(1)
	for _, d := range shape {
		m = max(m, d)
	}
	return m
}
