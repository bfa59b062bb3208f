package ipc_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/ipc"
	"github.com/arrowsparse/arrowsparse/views"
)

// sidecar is the JSON description of a corpus message (testdata/interop/README.md).
type sidecar struct {
	Kind           string          `json:"kind"`
	Format         string          `json:"format"`
	ValueType      string          `json:"value_type"`
	IndexType      string          `json:"index_type"`
	IndptrType     string          `json:"indptr_type"`
	Shape          []int64         `json:"shape"`
	DimNames       []string        `json:"dim_names"`
	NNZ            int64           `json:"nnz"`
	IsCanonical    *bool           `json:"is_canonical"`
	IndicesStrides []int64         `json:"indices_strides"`
	AxisOrder      []int           `json:"axis_order"`
	Strides        []int64         `json:"strides"`
	Entries        [][]json.Number `json:"entries"`
	DenseValues    []json.Number   `json:"dense_values"`
}

func readSidecar(t *testing.T, path string) sidecar {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var s sidecar
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	require.NoError(t, d.Decode(&s))
	// Strings encode big integers and NaN/Infinity: decode them again.
	var raw map[string]any
	d = json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	require.NoError(t, d.Decode(&raw))
	fix := func(v any) json.Number {
		switch x := v.(type) {
		case json.Number:
			return x
		case string:
			return json.Number(x)
		}
		t.Fatalf("unexpected JSON value %v", v)
		return ""
	}
	if es, ok := raw["entries"].([]any); ok {
		s.Entries = make([][]json.Number, len(es))
		for i, e := range es {
			for _, v := range e.([]any) {
				s.Entries[i] = append(s.Entries[i], fix(v))
			}
		}
	}
	if dv, ok := raw["dense_values"].([]any); ok {
		s.DenseValues = make([]json.Number, len(dv))
		for i, v := range dv {
			s.DenseValues[i] = fix(v)
		}
	}
	return s
}

// valueString renders element j of a buffer of type dt exactly, for
// comparison with a sidecar number.
func valueString(b []byte, dt arrow.DataType, j int64) string {
	switch dt.ID() {
	case arrow.INT8:
		return fmt.Sprint(int8(b[j]))
	case arrow.UINT8:
		return fmt.Sprint(b[j])
	case arrow.INT16:
		return fmt.Sprint(core.MustSliceBytes[int16](b)[j])
	case arrow.UINT16:
		return fmt.Sprint(core.MustSliceBytes[uint16](b)[j])
	case arrow.INT32:
		return fmt.Sprint(core.MustSliceBytes[int32](b)[j])
	case arrow.UINT32:
		return fmt.Sprint(core.MustSliceBytes[uint32](b)[j])
	case arrow.INT64:
		return fmt.Sprint(core.MustSliceBytes[int64](b)[j])
	case arrow.UINT64:
		return fmt.Sprint(core.MustSliceBytes[uint64](b)[j])
	case arrow.FLOAT16:
		return fmt.Sprint(math.Float32bits(arrowsparse.HalfToFloat32(core.MustSliceBytes[float16.Num](b)[j])))
	case arrow.FLOAT32:
		return fmt.Sprint(math.Float32bits(core.MustSliceBytes[float32](b)[j]))
	default:
		return fmt.Sprint(math.Float64bits(core.MustSliceBytes[float64](b)[j]))
	}
}

// numberString renders a sidecar value the way valueString renders a
// stored one: integers in decimal, floats as the bits of the value rounded
// to the value type.
func numberString(t *testing.T, n json.Number, dt arrow.DataType) string {
	t.Helper()
	switch dt.ID() {
	case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
		var f float64
		switch n {
		case "NaN":
			f = math.NaN()
		case "Infinity":
			f = math.Inf(1)
		case "-Infinity":
			f = math.Inf(-1)
		default:
			bf, _, err := big.ParseFloat(string(n), 10, 200, big.ToNearestEven)
			require.NoError(t, err)
			f, _ = bf.Float64()
			if dt.ID() != arrow.FLOAT64 {
				f32, _ := bf.Float32()
				f = float64(f32)
			}
		}
		switch dt.ID() {
		case arrow.FLOAT16:
			return fmt.Sprint(math.Float32bits(arrowsparse.HalfToFloat32(arrowsparse.Float32ToHalf(float32(f)))))
		case arrow.FLOAT32:
			return fmt.Sprint(math.Float32bits(float32(f)))
		}
		return fmt.Sprint(math.Float64bits(f))
	}
	bi, ok := new(big.Int).SetString(string(n), 10)
	require.True(t, ok, "integer %q", n)
	return bi.String()
}

// checkSidecar compares a decoded message with its sidecar.
func checkSidecar(t *testing.T, mem memory.Allocator, m *ipc.Message, s sidecar) {
	t.Helper()
	x := m.Tensor
	assert.Equal(t, s.ValueType, typeName(x.DataType()))
	assert.Equal(t, s.Shape, nonNil(x.Shape()))
	assert.Equal(t, core.CloneDimNames(s.DimNames), x.DimNames())
	if s.Kind == "dense" {
		assert.Equal(t, "TENSOR", s.Format)
		assert.Equal(t, s.Strides, nonNil(m.Strides))
		d, err := x.ToDense(mem)
		require.NoError(t, err)
		defer d.Release()
		v := d.(*views.View)
		require.EqualValues(t, len(s.DenseValues), v.Len())
		b := v.Buffer().Bytes()
		for j, want := range s.DenseValues {
			require.Equal(t, numberString(t, want, v.DataType()), valueString(b, v.DataType(), int64(j)), "element %d", j)
		}
		return
	}
	assert.Equal(t, s.NNZ, x.NNZ())
	if y, ok := x.(*coo.Tensor); ok {
		assert.Equal(t, *s.IsCanonical, m.CanonicalClaim)
		assert.Equal(t, *s.IsCanonical, y.CanonicalFlag())
		assert.Equal(t, s.IndicesStrides, m.IndicesStrides)
	}
	c := sparseToCOO(t, mem, x, s)
	defer c.Release()
	canon, err := c.Canonicalize(mem, coo.ConvertOptions{})
	require.NoError(t, err)
	defer canon.Release()
	require.EqualValues(t, len(s.Entries), canon.NNZ())
	nd := canon.NumDims()
	vb := canon.ValuesBuffer()
	for i, e := range s.Entries {
		for k := range nd {
			require.Equal(t, string(e[k]), fmt.Sprint(canon.Coord(int64(i), k)), "entry %d coordinate %d", i, k)
		}
		require.Equal(t, numberString(t, e[nd], canon.DataType()), valueString(vb.Bytes(), canon.DataType(), int64(i)), "entry %d value", i)
	}
}

func nonNil(s []int64) []int64 {
	if s == nil {
		return []int64{}
	}
	return s
}

func typeName(dt arrow.DataType) string {
	if dt.ID() == arrow.FLOAT16 {
		return "float16"
	}
	return dt.String()
}

// TestCorpusMatchesSidecars checks every decoded corpus message against the
// description Arrow C++'s writer recorded.
func TestCorpusMatchesSidecars(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, f := range corpusFiles(t) {
		name := strings.TrimSuffix(filepath.Base(f), ".arrow")
		t.Run(name, func(t *testing.T) {
			s := readSidecar(t, strings.TrimSuffix(f, ".arrow")+".json")
			m, err := ipc.ReadFile(f)
			require.NoError(t, err)
			defer m.Release()
			checkSidecar(t, mem, m, s)
		})
	}
}

// TestCrafted gives every crafted message the verdict of expected.json.
func TestCrafted(t *testing.T) {
	dir := filepath.Join("..", "testdata", "interop", "crafted")
	b, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	require.NoError(t, err)
	var want map[string]string
	require.NoError(t, json.Unmarshal(b, &want))
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			data, err := os.ReadFile(filepath.Join(dir, name+".arrow"))
			require.NoError(t, err)
			m, err := ipc.ParseMessage(data, ipc.WithAllocator(mem))
			if want[name] == "valid" {
				require.NoError(t, err)
				m.Release()
				return
			}
			require.Error(t, err)
			assert.True(t, errorsIsArrow(err), "error %q wraps no Arrow category", err)
			t.Log(err)
		})
	}
}
