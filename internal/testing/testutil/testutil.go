// Package testutil holds the helpers that the test suites of coo, csf and
// gcs share: a leak-checking allocator, the lists of index and value types,
// row-major linear indices, a dense reference model of a COO tensor with
// duplicates, generators of random shapes and random COO tensors, and typed
// access to raw Arrow buffers and dense tensors of every index and value
// type.
//
// It is imported only by tests. Its functions report failures through the
// testing.TB they are given, and panic on a misuse that no test intends (an
// unsupported type, a policy the model does not know).
package testutil

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/views"
)

// Checked returns a checked allocator that asserts, when t and its subtests
// end, that every byte allocated from it has been released.
func Checked(t testing.TB) *CheckedAllocator {
	t.Helper()
	mem := &CheckedAllocator{memory.NewCheckedAllocator(memory.NewGoAllocator())}
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}

// CheckedAllocator is a memory.CheckedAllocator that is also an
// arrowsparse.UninitializedAllocator, whose uninitialized memory is filled
// with Poison: a kernel that reads bytes of a result it did not write sees
// garbage in the tests, not the zeros of a Go allocation.
type CheckedAllocator struct {
	*memory.CheckedAllocator
}

// Poison is the byte that fills a CheckedAllocator's uninitialized memory.
const Poison = 0xA5

// AllocateUninitialized returns size bytes of Poison.
func (a *CheckedAllocator) AllocateUninitialized(size int) []byte {
	b := a.Allocate(size)
	for i := range b {
		b[i] = Poison
	}
	return b
}

// IndexTypes are the Arrow types a sparse index may have: every signed and
// unsigned integer type but uint64. Tests must not modify the slice.
var IndexTypes = []arrow.DataType{
	arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
	arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32,
}

// ValueTypes are the Arrow types a sparse tensor's values may have: every
// integer type, float16, float32 and float64. Tests must not modify the
// slice.
var ValueTypes = []arrow.DataType{
	arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
	arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64,
	arrow.FixedWidthTypes.Float16, arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64,
}

// Linear returns the row-major linear index of coordinate c in shape.
func Linear(shape, c []int64) int64 {
	q := int64(0)
	for k := range shape {
		q = q*shape[k] + c[k]
	}
	return q
}

// Unlinear returns the coordinate of row-major linear index q in shape: the
// inverse of Linear.
func Unlinear(shape []int64, q int64) []int64 {
	c := make([]int64, len(shape))
	for k := len(shape) - 1; k >= 0; k-- {
		c[k] = q % shape[k]
		q /= shape[k]
	}
	return c
}

// RandomShape returns a random shape of minDims to maxDims dimensions, each
// of extent 1 to maxExtent, or 0 with probability 1/zeroOneIn.
func RandomShape(r *rand.Rand, minDims, maxDims int, maxExtent int64, zeroOneIn int) []int64 {
	shape := make([]int64, minDims+r.IntN(maxDims-minDims+1))
	for k := range shape {
		shape[k] = r.Int64N(maxExtent) + 1
		if r.IntN(zeroOneIn) == 0 {
			shape[k] = 0
		}
	}
	return shape
}

// Ref is a dense reference model of a COO tensor: for every row-major linear
// index holding at least one entry, the values stored there, in storage
// order. An index with more than one value is a duplicate.
type Ref struct {
	Shape   []int64
	Entries map[int64][]float64
}

// NewRef returns an empty reference for a tensor of the given shape.
func NewRef(shape []int64) Ref {
	return Ref{Shape: shape, Entries: map[int64][]float64{}}
}

// Add records value v stored at coordinate c, after those already recorded.
func (r Ref) Add(c []int64, v float64) {
	q := Linear(r.Shape, c)
	r.Entries[q] = append(r.Entries[q], v)
}

// Combined returns, for every linear index holding an entry, the value that
// duplicates combine to under policy p: SumDuplicates, KeepFirst, KeepLast,
// KeepMin or KeepMax (the values are finite, so math.Min and math.Max agree
// with the library's NaN rules). It panics on any other policy.
func (r Ref) Combined(p arrowsparse.Duplicates) map[int64]float64 {
	switch p {
	case arrowsparse.SumDuplicates, arrowsparse.KeepFirst, arrowsparse.KeepLast, arrowsparse.KeepMin, arrowsparse.KeepMax:
	default:
		panic(fmt.Sprintf("testutil: no reference for duplicate policy %v", p))
	}
	out := make(map[int64]float64, len(r.Entries))
	for q, vs := range r.Entries {
		acc := vs[0]
		for _, v := range vs[1:] {
			switch p {
			case arrowsparse.SumDuplicates:
				acc += v
			case arrowsparse.KeepLast:
				acc = v
			case arrowsparse.KeepMin:
				acc = math.Min(acc, v)
			case arrowsparse.KeepMax:
				acc = math.Max(acc, v)
			}
		}
		out[q] = acc
	}
	return out
}

// Dense returns the reference as a row-major array of every element, with
// duplicates combined under policy p as by Combined and zero elsewhere.
func (r Ref) Dense(p arrowsparse.Duplicates) []float64 {
	n := int64(1)
	for _, d := range r.Shape {
		n *= d
	}
	out := make([]float64, n)
	for q, v := range r.Combined(p) {
		out[q] = v
	}
	return out
}

// RandomCOO returns a random COO tensor of the given shape with nnz
// entries (none if the shape has a zero dimension), its coordinates laid out
// in layout and stored as indexType, its values stored as valueType, and the
// reference model of it.
//
// Each entry after the first repeats the coordinates of a random earlier
// entry with probability 1/dupEvery (never if dupEvery ≤ 0), and otherwise
// draws every coordinate uniformly. Values are small positive integers
// (1 to 3), so that they and their sums stay exact in every value type. The
// tensor does not claim to be canonical. The caller releases it.
func RandomCOO(t testing.TB, mem memory.Allocator, r *rand.Rand, shape []int64, nnz int, layout coo.Layout, indexType, valueType arrow.DataType, dupEvery int) (*coo.Tensor, Ref) {
	t.Helper()
	nd := len(shape)
	rf := NewRef(shape)
	for _, d := range shape {
		if d == 0 {
			nnz = 0
		}
	}
	cs := make([][]int64, nnz)
	vs := make([]float64, nnz)
	for i := range nnz {
		c := make([]int64, nd)
		if i > 0 && dupEvery > 0 && r.IntN(dupEvery) == 0 {
			copy(c, cs[r.IntN(i)])
		} else {
			for k := range c {
				c[k] = r.Int64N(shape[k])
			}
		}
		cs[i] = c
		vs[i] = float64(r.IntN(3) + 1)
		rf.Add(c, vs[i])
	}
	ib := memory.NewResizableBuffer(mem)
	defer ib.Release()
	ib.Resize(nnz * nd * arrowsparse.ByteWidth(indexType))
	for i, c := range cs {
		for k, v := range c {
			j := i*nd + k
			if layout == coo.ColMajor {
				j = k*nnz + i
			}
			PutInt(ib.Bytes(), indexType, j, v)
		}
	}
	vb := memory.NewResizableBuffer(mem)
	defer vb.Release()
	vb.Resize(nnz * arrowsparse.ByteWidth(valueType))
	for j, v := range vs {
		PutFloat(vb.Bytes(), valueType, j, v)
	}
	x, err := coo.New(valueType, indexType, shape, ib, layout, vb, int64(nnz))
	require.NoError(t, err)
	return x, rf
}

// The raw-buffer helpers below address element j of a buffer of Arrow type
// dt in the machine's byte order, as Arrow buffers are stored. They accept
// any slice that holds the element: neither its alignment nor the length
// beyond the element matters. They panic on a type that is not an integer or
// floating-point type.

// width returns dt's byte width, panicking on a type without one.
func width(dt arrow.DataType) int {
	w := arrowsparse.ByteWidth(dt)
	if w == 0 {
		panic(fmt.Sprintf("testutil: %v is not a fixed-width number type", dt))
	}
	return w
}

// PutInt stores v as element j of an integer buffer of type dt, truncated to
// dt's width (so int64 and uint64 store the same bits).
func PutInt(b []byte, dt arrow.DataType, j int, v int64) {
	switch w := width(dt); w {
	case 1:
		b[j] = byte(v)
	case 2:
		binary.NativeEndian.PutUint16(b[2*j:], uint16(v))
	case 4:
		binary.NativeEndian.PutUint32(b[4*j:], uint32(v))
	default:
		binary.NativeEndian.PutUint64(b[8*j:], uint64(v))
	}
}

// GetInt reads element j of an integer buffer of type dt, sign- or
// zero-extended as dt says (uint64 values above MaxInt64 wrap).
func GetInt(b []byte, dt arrow.DataType, j int64) int64 {
	switch dt.ID() {
	case arrow.INT8:
		return int64(int8(b[j]))
	case arrow.UINT8:
		return int64(b[j])
	case arrow.INT16:
		return int64(int16(binary.NativeEndian.Uint16(b[2*j:])))
	case arrow.UINT16:
		return int64(binary.NativeEndian.Uint16(b[2*j:]))
	case arrow.INT32:
		return int64(int32(binary.NativeEndian.Uint32(b[4*j:])))
	case arrow.UINT32:
		return int64(binary.NativeEndian.Uint32(b[4*j:]))
	case arrow.INT64, arrow.UINT64:
		return int64(binary.NativeEndian.Uint64(b[8*j:]))
	}
	panic(fmt.Sprintf("testutil: %v is not an integer type", dt))
}

// PutFloat stores v as element j of a value buffer of type dt: rounded to
// float16 (by arrowsparse.Float32ToHalf, right for subnormals too) or float32, or
// truncated to an integer and stored as by PutInt.
func PutFloat(b []byte, dt arrow.DataType, j int, v float64) {
	switch dt.ID() {
	case arrow.FLOAT16:
		binary.NativeEndian.PutUint16(b[2*j:], arrowsparse.Float32ToHalf(float32(v)).Uint16())
	case arrow.FLOAT32:
		binary.NativeEndian.PutUint32(b[4*j:], math.Float32bits(float32(v)))
	case arrow.FLOAT64:
		binary.NativeEndian.PutUint64(b[8*j:], math.Float64bits(v))
	default:
		PutInt(b, dt, j, int64(v))
	}
}

// GetFloat reads element j of a value buffer of type dt as a float64
// (float16 by arrowsparse.HalfToFloat32, exact for subnormals too).
func GetFloat(b []byte, dt arrow.DataType, j int64) float64 {
	switch dt.ID() {
	case arrow.FLOAT16:
		return float64(arrowsparse.HalfToFloat32(float16.FromBits(binary.NativeEndian.Uint16(b[2*j:]))))
	case arrow.FLOAT32:
		return float64(math.Float32frombits(binary.NativeEndian.Uint32(b[4*j:])))
	case arrow.FLOAT64:
		return math.Float64frombits(binary.NativeEndian.Uint64(b[8*j:]))
	case arrow.UINT64:
		return float64(binary.NativeEndian.Uint64(b[8*j:]))
	}
	return float64(GetInt(b, dt, j))
}

// DenseValues reads every element of a dense tensor, whatever its value
// type, strides and offset, into a row-major []float64.
func DenseValues(t testing.TB, d arrowsparse.Dense) []float64 {
	t.Helper()
	shape, strides := d.Shape(), d.ElemStrides()
	n, err := arrowsparse.NumElements(shape)
	require.NoError(t, err)
	out := make([]float64, 0, n)
	if n == 0 {
		return out
	}
	idx := make([]int64, len(shape))
	b := d.Buffer().Bytes()
	for {
		p := d.ElemOffset()
		for k, i := range idx {
			p += i * strides[k]
		}
		out = append(out, GetFloat(b, d.DataType(), p))
		k := len(shape) - 1
		for ; k >= 0; k-- {
			idx[k]++
			if idx[k] < shape[k] {
				break
			}
			idx[k] = 0
		}
		if k < 0 {
			return out
		}
	}
}

// BufferOf returns a new buffer from mem holding a copy of the bytes of s.
// The caller releases it.
func BufferOf[T arrowsparse.Value](mem memory.Allocator, s []T) *memory.Buffer {
	b := memory.NewResizableBuffer(mem)
	b.Resize(len(core.BytesOf(s)))
	copy(b.Bytes(), core.BytesOf(s))
	return b
}

// ViewValues returns views.Values[T](v), failing the test on an error.
func ViewValues[T arrowsparse.Value](tb testing.TB, v *views.View) []T {
	tb.Helper()
	s, err := views.Values[T](v)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}
