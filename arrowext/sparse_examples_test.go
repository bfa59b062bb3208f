package arrowext_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/arrowext"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
)

var updateSparseExamples = flag.Bool("update-sparse-examples", false, "rewrite testdata/arrowext/*.arrow (the worked examples of SPARSE.md 4)")

const examplesDir = "../testdata/arrowext"

// sparseExample is one worked example of SPARSE.md 4.
type sparseExample struct {
	file     string
	meta     string
	rows     func(mem memory.Allocator) []arrowsparse.Tensor
	p        arrowext.SparseTensorParams
	validity []bool
	arrays   map[string][]int64 // each list field's child, as integers (values too)
	offsets  map[string][]int64
}

func sparseExamples(t testing.TB) []sparseExample {
	must := func(x arrowsparse.Tensor, err error) arrowsparse.Tensor {
		require.NoError(t, err)
		return x
	}
	return []sparseExample{
		{
			file: "coo.arrow",
			meta: `{"format":"COO","shape":[3,4],"canonical":true,"data_types":{"indices":"int32","values":"float64"}}`,
			rows: func(mem memory.Allocator) []arrowsparse.Tensor {
				a := must(coo.FromSlices(mem, []int64{3, 4}, []int32{0, 1, 2, 3}, coo.RowMajor, []float64{1.5, -7}))
				b := must(coo.FromSlices(mem, []int64{3, 4}, []int32{}, coo.RowMajor, []float64{}))
				return []arrowsparse.Tensor{a, nil, b}
			},
			p:        arrowext.SparseTensorParams{Format: arrowsparse.FormatCOO},
			validity: []bool{true, false, true},
			arrays:   map[string][]int64{"indices": {0, 1, 2, 3}},
			offsets:  map[string][]int64{"indices": {0, 2, 2, 2}, "values": {0, 2, 2, 2}},
		},
		{
			file: "csr.arrow",
			meta: `{"format":"CSR","shape":[4,5],"canonical":true,"data_types":{"pointers_to_1":"int32","indices_1":"int32","values":"float64"}}`,
			rows: func(mem memory.Allocator) []arrowsparse.Tensor {
				return []arrowsparse.Tensor{must(gcs.FromSlices(mem, gcs.Rows, []int64{4, 5}, []int32{0, 2, 4, 7, 9}, []int32{2, 4, 0, 3, 0, 2, 3, 3, 4}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}))}
			},
			p:        arrowext.SparseTensorParams{Format: arrowsparse.FormatCSR},
			validity: []bool{true},
			arrays: map[string][]int64{"pointers_to_1": {0, 2, 4, 7, 9}, "indices_1": {2, 4, 0, 3, 0, 2, 3, 3, 4},
				"values": {1, 2, 3, 4, 5, 6, 7, 8, 9}},
		},
		{
			// The tensor of the SparseCSFIndex documentation of Arrow's
			// format (SparseTensor.fbs).
			file: "csf.arrow",
			meta: `{"format":"CSF","shape":[2,3,4,5],"data_types":{"indices_0":"int32","pointers_to_1":"int32","indices_1":"int32","pointers_to_2":"int32","indices_2":"int32","pointers_to_3":"int32","indices_3":"int32","values":"float64"},"axis_order":[0,1,2,3]}`,
			rows: func(mem memory.Allocator) []arrowsparse.Tensor {
				c := must(coo.FromSlices(mem, []int64{2, 3, 4, 5}, []int32{
					0, 0, 0, 1, 0, 0, 0, 2, 0, 1, 0, 0, 0, 1, 0, 2,
					0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 2,
				}, coo.RowMajor, []float64{1, 2, 3, 4, 5, 6, 7, 8}))
				defer c.Release()
				return []arrowsparse.Tensor{must(csf.FromCOO(mem, c.(*coo.Tensor), csf.ConvertOptions{AxisOrder: []int{0, 1, 2, 3}, IndexType: arrow.PrimitiveTypes.Int32}))}
			},
			p:        arrowext.SparseTensorParams{Format: arrowsparse.FormatCSF, AxisOrder: []int{0, 1, 2, 3}},
			validity: []bool{true},
			arrays: map[string][]int64{
				"indices_0": {0, 1}, "pointers_to_1": {0, 2, 3}, "indices_1": {0, 1, 1},
				"pointers_to_2": {0, 1, 3, 4}, "indices_2": {0, 0, 1, 1},
				"pointers_to_3": {0, 2, 4, 5, 8}, "indices_3": {1, 2, 0, 2, 0, 0, 1, 2},
				"values": {1, 2, 3, 4, 5, 6, 7, 8},
			},
		},
		{
			file: "gcs.arrow",
			meta: `{"format":"GCS","shape":[2,3,4],"canonical":true,"data_types":{"pointers_to_1":"int32","indices_1":"int32","values":"float64"},"dimensions":[2,1,0],"partitioning":1,"compressed_axis":"row"}`,
			rows: func(mem memory.Allocator) []arrowsparse.Tensor {
				m := must(gcs.FromSlices(mem, gcs.Rows, []int64{4, 6}, []int32{0, 2, 4, 6, 9}, []int32{1, 5, 0, 4, 0, 5, 0, 1, 5}, []float64{5, 7, 1, 4, 2, 8, 3, 6, 9}))
				defer m.Release()
				return []arrowsparse.Tensor{must(gcs.NewTensor([]int64{2, 3, 4}, []int{2, 1, 0}, 1, m.(*gcs.Matrix)))}
			},
			p:        arrowext.SparseTensorParams{Format: arrowsparse.FormatGCS},
			validity: []bool{true},
			arrays: map[string][]int64{"pointers_to_1": {0, 2, 4, 6, 9}, "indices_1": {1, 5, 0, 4, 0, 5, 0, 1, 5},
				"values": {5, 7, 1, 4, 2, 8, 3, 6, 9}},
		},
	}
}

// intsOf reads an integer or float array as int64s.
func intsOf(a arrow.Array) []int64 {
	out := make([]int64, a.Len())
	for i := range out {
		switch x := a.(type) {
		case *array.Int32:
			out[i] = int64(x.Value(i))
		case *array.Float64:
			out[i] = int64(x.Value(i))
		}
	}
	return out
}

// TestSparseExamples builds the worked examples of SPARSE.md 4, checks
// their metadata and arrays, and checks that testdata/arrowext holds their
// IPC files byte for byte (written with -update-sparse-examples) and reads
// back to the same rows.
func TestSparseExamples(t *testing.T) {
	mem := testutil.Checked(t)
	if *updateSparseExamples {
		require.NoError(t, os.MkdirAll(examplesDir, 0o755))
	}
	for _, ex := range sparseExamples(t) {
		rows := ex.rows(mem)
		col, err := arrowext.NewSparseTensorArray(mem, ex.p, rows)
		require.NoError(t, err, ex.file)
		assert.Equal(t, ex.meta, col.TensorType().Serialize(), ex.file)
		for i, v := range ex.validity {
			assert.Equal(t, v, col.IsValid(i), ex.file)
		}
		st := col.Storage().(*array.Struct)
		stt := st.DataType().(*arrow.StructType)
		for k := range st.NumField() {
			name := stt.Field(k).Name
			l := st.Field(k).(*array.List)
			if want, ok := ex.offsets[name]; ok {
				got := make([]int64, 0, l.Len()+1)
				for _, o := range l.Offsets() {
					got = append(got, int64(o))
				}
				assert.Equal(t, want, got, "%s %s offsets", ex.file, name)
			}
			if want, ok := ex.arrays[name]; ok {
				child := l.ListValues()
				if fsl, ok := child.(*array.FixedSizeList); ok {
					child = fsl.ListValues()
				}
				assert.Equal(t, want, intsOf(child), "%s %s", ex.file, name)
			}
		}
		if ex.file == "coo.arrow" {
			vals := st.Field(1).(*array.List).ListValues().(*array.Float64).Float64Values()
			assert.Equal(t, []float64{1.5, -7}, vals)
			// indices and values share their offsets buffer
			assert.Same(t, st.Field(0).Data().Buffers()[1], st.Field(1).Data().Buffers()[1])
		}
		schema := arrow.NewSchema([]arrow.Field{{Name: "tensor", Type: col.DataType(), Nullable: true}}, nil)
		rec := array.NewRecordBatch(schema, []arrow.Array{col}, int64(col.Len()))
		tbl := array.NewTableFromRecords(schema, []arrow.RecordBatch{rec})
		var buf bytes.Buffer
		require.NoError(t, arrowext.WriteIPCFile(&buf, tbl, arrowext.WithAllocator(mem)))
		path := filepath.Join(examplesDir, ex.file)
		if *updateSparseExamples {
			require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
		}
		stored, err := os.ReadFile(path)
		require.NoError(t, err, "%s (write it with go test -run TestSparseExamples -update-sparse-examples)", path)
		assert.Equal(t, buf.Bytes(), stored, "%s differs from what the writer writes now", path)
		got, err := arrowext.ReadIPCFileBytes(stored, arrowext.WithAllocator(mem))
		require.NoError(t, err)
		gc := got.Column(0).Data().Chunk(0).(*arrowext.SparseTensorArray)
		require.True(t, arrow.TypeEqual(col.DataType(), gc.DataType()))
		for i, x := range rows {
			y, err := gc.Row(i)
			require.NoError(t, err)
			if x == nil {
				require.Nil(t, y)
				continue
			}
			assert.Equal(t, denseBytes(t, mem, x), denseBytes(t, mem, y), "%s row %d", ex.file, i)
			y.Release()
		}
		got.Release()
		tbl.Release()
		rec.Release()
		col.Release()
		releaseTensors(rows)
	}
}
