package wire_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse/ipc/internal/wire"
)

const interop = "../../../testdata/interop"

// corpusFiles returns the .arrow files of the given interop subdirectories.
func corpusFiles(t testing.TB, dirs ...string) []string {
	t.Helper()
	var files []string
	for _, d := range dirs {
		m, err := filepath.Glob(filepath.Join(interop, d, "*.arrow"))
		require.NoError(t, err)
		require.NotEmpty(t, m, "no .arrow files in %s", d)
		files = append(files, m...)
	}
	return files
}

// sidecar is the part of an interop JSON description that the metadata
// determines (entries and dense_values need the body and are for the
// tensor layer).
type sidecar struct {
	Kind           string    `json:"kind"`
	Format         string    `json:"format"`
	ValueType      string    `json:"value_type"`
	IndexType      string    `json:"index_type"`
	IndptrType     string    `json:"indptr_type"`
	Shape          []int64   `json:"shape"`
	DimNames       *[]string `json:"dim_names"`
	NNZ            *int64    `json:"nnz"`
	IsCanonical    *bool     `json:"is_canonical"`
	IndicesStrides []int64   `json:"indices_strides"`
	AxisOrder      []int32   `json:"axis_order"`
	Strides        []int64   `json:"strides"`
}

func readSidecar(t *testing.T, arrowPath string) sidecar {
	t.Helper()
	raw, err := os.ReadFile(strings.TrimSuffix(arrowPath, ".arrow") + ".json")
	require.NoError(t, err)
	var s sidecar
	require.NoError(t, json.Unmarshal(raw, &s))
	return s
}

func shapeOf(dims []wire.Dim) ([]int64, []string) {
	sizes := make([]int64, len(dims))
	names := make([]string, len(dims))
	for i, d := range dims {
		sizes[i] = d.Size
		names[i] = d.Name
	}
	return sizes, names
}

// TestCorpusRoundTrip is the proof of byte identity: every message written
// by Arrow C++ is parsed, decoded, re-encoded and re-framed, and the result
// must equal the file byte for byte (prefix, metadata, padding and body).
func TestCorpusRoundTrip(t *testing.T) {
	files := corpusFiles(t, "golden", "cpp-corpus")
	require.Len(t, files, 212)
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			require.NoError(t, err)

			f, err := wire.Parse(data)
			require.NoError(t, err)
			assert.Equal(t, len(data), f.Size)
			assert.False(t, f.Legacy)
			require.NoError(t, f.Message.Validate())

			out, err := wire.AppendMessage(nil, f.Message, f.Body)
			require.NoError(t, err)
			require.True(t, bytes.Equal(data, out), "re-encoded message differs from the Arrow C++ file")

			// The streaming reader sees the same message.
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			sf, err := wire.ReadMessage(bytes.NewReader(data), wire.WithAllocator(mem))
			require.NoError(t, err)
			defer sf.Release()
			assert.Equal(t, f.Message, sf.Message)
			assert.Equal(t, f.Metadata, sf.Metadata)
			assert.True(t, bytes.Equal(f.Body, sf.Body.Bytes()))
			assert.Equal(t, len(f.Body), sf.Body.Len())

			// And WriteMessage writes the same bytes as AppendMessage.
			var buf bytes.Buffer
			n, err := wire.WriteMessage(&buf, f.Message, f.Body)
			require.NoError(t, err)
			assert.Equal(t, int64(len(data)), n)
			assert.True(t, bytes.Equal(data, buf.Bytes()))
		})
	}
}

// TestCorpusSidecars compares the decoded metadata of every C++-written
// message with the fields of its JSON sidecar.
func TestCorpusSidecars(t *testing.T) {
	for _, path := range corpusFiles(t, "golden", "cpp-corpus") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			want := readSidecar(t, path)
			f, err := wire.Parse(data)
			require.NoError(t, err)
			m := f.Message
			assert.Equal(t, wire.V5, m.Version)

			var typ arrow.DataType
			var dims []wire.Dim
			switch want.Kind {
			case "dense":
				require.Equal(t, wire.HeaderTensor, m.Header)
				tt := m.Tensor
				typ, dims = tt.Type, tt.Shape
				assert.True(t, tt.HasStrides, "Arrow C++ always writes strides")
				assert.Equal(t, want.Strides, nonNil(tt.Strides))
				assert.Equal(t, wire.Buffer{Offset: 0, Length: m.BodyLength}, tt.Data)
				assert.Zero(t, (8+len(f.Metadata))%wire.TensorAlignment)
			case "sparse":
				require.Equal(t, wire.HeaderSparseTensor, m.Header)
				st := m.SparseTensor
				typ, dims = st.Type, st.Shape
				require.NotNil(t, want.NNZ)
				assert.Equal(t, *want.NNZ, st.NonZeroLength)
				assert.Zero(t, (8+len(f.Metadata))%wire.SparseTensorAlignment)
				assert.Zero(t, m.BodyLength%8)
				checkIndex(t, want, st)
			default:
				t.Fatalf("unknown kind %q", want.Kind)
			}
			assert.Equal(t, want.ValueType, typ.String())
			sizes, names := shapeOf(dims)
			assert.Equal(t, want.Shape, sizes)
			for _, d := range dims {
				assert.True(t, d.HasName, "Arrow C++ writes a name string for every dimension")
			}
			if want.DimNames == nil {
				for _, n := range names {
					assert.Empty(t, n)
				}
			} else {
				assert.Equal(t, *want.DimNames, names)
			}
		})
	}
}

func nonNil(s []int64) []int64 {
	if s == nil {
		return []int64{}
	}
	return s
}

func checkIndex(t *testing.T, want sidecar, st *wire.SparseTensor) {
	t.Helper()
	switch x := st.Index.(type) {
	case *wire.COOIndex:
		assert.Equal(t, "COO", want.Format)
		assert.Equal(t, want.IndexType, x.IndicesType.String())
		require.NotNil(t, want.IsCanonical)
		assert.Equal(t, *want.IsCanonical, x.IsCanonical)
		assert.True(t, x.HasIndicesStrides)
		assert.Equal(t, want.IndicesStrides, x.IndicesStrides)
	case *wire.CSXIndex:
		if x.CompressedAxis == wire.AxisRow {
			assert.Equal(t, "CSR", want.Format)
		} else {
			assert.Equal(t, "CSC", want.Format)
		}
		assert.Equal(t, want.IndexType, x.IndicesType.String())
		assert.Equal(t, want.IndptrType, x.IndptrType.String())
	case *wire.CSFIndex:
		assert.Equal(t, "CSF", want.Format)
		assert.Equal(t, want.IndexType, x.IndicesType.String())
		assert.Equal(t, want.IndptrType, x.IndptrType.String())
		assert.Equal(t, want.AxisOrder, x.AxisOrder)
		unit, err := wire.DetectCSFLengthUnit(x)
		require.NoError(t, err)
		_, indices, err := wire.CSFCounts(x, unit)
		require.NoError(t, err)
		assert.Equal(t, *want.NNZ, indices[len(indices)-1], "nnz is the entry count of the last level")
	default:
		t.Fatalf("unexpected index %T", st.Index)
	}
}
