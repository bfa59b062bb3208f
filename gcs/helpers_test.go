package gcs_test

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	as "github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
)

var (
	indexTypes = []arrow.DataType{
		arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
		arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32,
	}
	valueTypes = []arrow.DataType{
		arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
		arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64,
		arrow.FixedWidthTypes.Float16, arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64,
	}
	i32 = arrow.PrimitiveTypes.Int32
	i64 = arrow.PrimitiveTypes.Int64
	f64 = arrow.PrimitiveTypes.Float64
)

// putInt stores v as element j of an index buffer of type dt.
func putInt(b []byte, dt arrow.DataType, j int, v int64) {
	switch as.ByteWidth(dt) {
	case 1:
		b[j] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(b[2*j:], uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b[4*j:], uint32(v))
	default:
		binary.LittleEndian.PutUint64(b[8*j:], uint64(v))
	}
}

// putFloat stores v (a small integer) as element j of a value buffer.
func putFloat(b []byte, dt arrow.DataType, j int, v float64) {
	switch dt.ID() {
	case arrow.FLOAT16:
		binary.LittleEndian.PutUint16(b[2*j:], float16.New(float32(v)).Uint16())
	case arrow.FLOAT32:
		binary.LittleEndian.PutUint32(b[4*j:], math.Float32bits(float32(v)))
	case arrow.FLOAT64:
		binary.LittleEndian.PutUint64(b[8*j:], math.Float64bits(v))
	default:
		putInt(b, dt, j, int64(v))
	}
}

// getFloat reads element j of a value buffer of type dt.
func getFloat(b []byte, dt arrow.DataType, j int64) float64 {
	switch dt.ID() {
	case arrow.INT8:
		return float64(int8(b[j]))
	case arrow.INT16:
		return float64(int16(binary.LittleEndian.Uint16(b[2*j:])))
	case arrow.INT32:
		return float64(int32(binary.LittleEndian.Uint32(b[4*j:])))
	case arrow.INT64:
		return float64(int64(binary.LittleEndian.Uint64(b[8*j:])))
	case arrow.UINT8:
		return float64(b[j])
	case arrow.UINT16:
		return float64(binary.LittleEndian.Uint16(b[2*j:]))
	case arrow.UINT32:
		return float64(binary.LittleEndian.Uint32(b[4*j:]))
	case arrow.UINT64:
		return float64(binary.LittleEndian.Uint64(b[8*j:]))
	case arrow.FLOAT16:
		return float64(float16.FromBits(binary.LittleEndian.Uint16(b[2*j:])).Float32())
	case arrow.FLOAT32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*j:])))
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b[8*j:]))
}

// denseValues reads a dense tensor into a row-major []float64.
func denseValues(t *testing.T, d as.Dense) []float64 {
	t.Helper()
	shape, strides := d.Shape(), d.ElemStrides()
	n, err := as.NumElements(shape)
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
		out = append(out, getFloat(b, d.DataType(), p))
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

// ref is a dense reference: the values stored at each linear (row-major)
// index, in storage order.
type ref struct {
	shape   []int64
	entries map[int64][]float64
}

func linear(shape, c []int64) int64 {
	q := int64(0)
	for k := range shape {
		q = q*shape[k] + c[k]
	}
	return q
}

// dense returns the reference as a row-major array under policy p.
func (r ref) dense(p as.Duplicates) []float64 {
	n := int64(1)
	for _, d := range r.shape {
		n *= d
	}
	out := make([]float64, n)
	for q, vs := range r.entries {
		acc := vs[0]
		for _, v := range vs[1:] {
			switch p {
			case as.SumDuplicates:
				acc += v
			case as.KeepLast:
				acc = v
			case as.KeepMin:
				acc = math.Min(acc, v)
			case as.KeepMax:
				acc = math.Max(acc, v)
			}
		}
		out[q] = acc
	}
	return out
}

// randCOO makes a random COO tensor: about one entry in dupEvery repeats the
// coordinates of an earlier one (0: none), values are small positive
// integers, exact in every value type.
func randCOO(t *testing.T, mem memory.Allocator, r *rand.Rand, shape []int64, nnz int, layout coo.Layout, it, vt arrow.DataType, dupEvery int) (*coo.Tensor, ref) {
	t.Helper()
	nd := len(shape)
	rf := ref{shape: shape, entries: map[int64][]float64{}}
	size := int64(1)
	for _, d := range shape {
		size *= d
	}
	if size == 0 {
		nnz = 0
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
		q := linear(shape, c)
		rf.entries[q] = append(rf.entries[q], vs[i])
	}
	ib := memory.NewResizableBuffer(mem)
	ib.Resize(nnz * nd * as.ByteWidth(it))
	defer ib.Release()
	for i, c := range cs {
		for k, v := range c {
			j := i*nd + k
			if layout == coo.ColMajor {
				j = k*nnz + i
			}
			putInt(ib.Bytes(), it, j, v)
		}
	}
	vb := memory.NewResizableBuffer(mem)
	vb.Resize(nnz * as.ByteWidth(vt))
	defer vb.Release()
	for j, v := range vs {
		putFloat(vb.Bytes(), vt, j, v)
	}
	x, err := coo.New(vt, it, shape, ib, layout, vb, int64(nnz))
	require.NoError(t, err)
	return x, rf
}

// buf returns a buffer from mem holding the bytes of s.
func buf[T as.Value](mem memory.Allocator, s []T) *memory.Buffer {
	b := memory.NewResizableBuffer(mem)
	b.Resize(len(as.BytesOf(s)))
	copy(b.Bytes(), as.BytesOf(s))
	return b
}
