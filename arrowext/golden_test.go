package arrowext_test

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

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/arrowext"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
	"github.com/arrowsparse/arrowsparse/internal/tools/describe"
	"github.com/arrowsparse/arrowsparse/views"
)

// goldenDoc is a sidecar of testdata/pyarrow: the dump document.
type goldenDoc struct {
	Error   string `json:"error"`
	Columns []struct {
		Name string `json:"name"`
		Type string `json:"type"`
		Rows []*struct {
			ValueType   string            `json:"value_type"`
			Shape       []int64           `json:"shape"`
			DimNames    []string          `json:"dim_names"`
			DenseValues []json.RawMessage `json:"dense_values"`
		} `json:"rows"`
	} `json:"columns"`
}

// readContainer reads a table file by its extension.
func readContainer(path string, mem memory.Allocator) (arrow.Table, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	switch filepath.Ext(path) {
	case ".arrow":
		return arrowext.ReadIPCFile(bytes.NewReader(data), arrowext.WithAllocator(mem))
	case ".arrows":
		return arrowext.ReadIPCStream(bytes.NewReader(data), arrowext.WithAllocator(mem))
	}
	return arrowext.ReadParquet(bytes.NewReader(data), arrowext.WithAllocator(mem))
}

// TestPyarrowGolden reads the tables pyarrow 25.0.1 wrote (IPC file, IPC
// stream, Parquet; 3-cycles, null rows, variable shapes) with the types
// registered and not, and compares every row with the specification's
// reading that the sidecar holds.
func TestPyarrowGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/pyarrow/*")
	require.NoError(t, err)
	n := 0
	for _, path := range files {
		ext := filepath.Ext(path)
		if ext == ".json" || ext == ".md" {
			continue
		}
		n++
		var doc goldenDoc
		side, err := os.ReadFile(strings.TrimSuffix(path, ext) + ".json")
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(side, &doc))
		for _, registered := range []bool{false, true} {
			t.Run(filepath.Base(path)+map[bool]string{false: "", true: "/registered"}[registered], func(t *testing.T) {
				if registered {
					require.NoError(t, arrowext.Register())
					t.Cleanup(arrowext.Unregister)
				}
				mem := testutil.Checked(t)
				tbl, err := readContainer(path, mem)
				if doc.Error != "" {
					require.Error(t, err)
					assert.ErrorIs(t, err, arrow.ErrInvalid)
					assert.ErrorContains(t, err, "FixedSizeList of size 0")
					return
				}
				require.NoError(t, err)
				defer tbl.Release()
				for _, want := range doc.Columns {
					idx := tbl.Schema().FieldIndices(want.Name)
					require.Len(t, idx, 1)
					col := tbl.Column(idx[0]).Data()
					assert.Equal(t, want.Type, col.DataType().(arrow.ExtensionType).ExtensionName())
					row := 0
					for _, ch := range col.Chunks() {
						for i := range ch.Len() {
							v, err := arrowext.Row(ch, i)
							require.NoError(t, err)
							checkGoldenRow(t, mem, v, want.Rows[row])
							row++
						}
					}
					assert.Equal(t, len(want.Rows), row)
				}
			})
		}
	}
	assert.Equal(t, 15, n)
}

func checkGoldenRow(t *testing.T, mem memory.Allocator, v *views.View, want *struct {
	ValueType   string            `json:"value_type"`
	Shape       []int64           `json:"shape"`
	DimNames    []string          `json:"dim_names"`
	DenseValues []json.RawMessage `json:"dense_values"`
}) {
	t.Helper()
	if want == nil {
		assert.Nil(t, v)
		return
	}
	require.NotNil(t, v)
	defer v.Release()
	dt := describe.TypeByName(want.ValueType)
	require.True(t, arrow.TypeEqual(dt, v.DataType()))
	assert.Equal(t, want.Shape, v.Shape())
	assert.Equal(t, want.DimNames, v.DimNames())
	got := viewBytes(t, mem, v)
	w := arrowsparse.ByteWidth(dt)
	require.Len(t, got, len(want.DenseValues)*w)
	for i, raw := range want.DenseValues {
		x, err := describe.ParseValue(dt, raw)
		require.NoError(t, err)
		var b uint64
		for k := w - 1; k >= 0; k-- {
			b = b<<8 | uint64(got[i*w+k])
		}
		assert.Equalf(t, x, b, "element %d", i)
	}
}
