package arrowext_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/arrowext"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
	"github.com/arrowsparse/arrowsparse/views"
)

// sparseTable returns a table of one sparse column per format (fixed and
// varying shapes, null rows, rows without entries) in two record batches,
// and the dense reference of every row of every column.
func sparseTable(t testing.TB, mem memory.Allocator, r *rand.Rand, large bool) (arrow.Table, map[string][]*views.View) {
	t.Helper()
	ref := map[string][]*views.View{}
	var fields []arrow.Field
	cols := map[string][]arrow.Array{}
	var names []string
	for _, f := range sparseFormatList {
		nd := 3
		if f == arrowsparse.FormatCSR || f == arrowsparse.FormatCSC {
			nd = 2
		}
		base := []int64{4, 5, 3}[:nd]
		grown := []int64{5, 2, 6}[:nd]
		empty := append([]int64{0}, base[1:]...)
		order, dims, part := formatParams(f, nd)
		for _, mode := range []string{"fixed", "varying"} {
			name := fmt.Sprintf("%s_%s", f, mode)
			names = append(names, name)
			var typ *arrowext.SparseTensorType
			for batch := range 2 {
				shapes := [][]int64{base, nil, base}
				if mode == "varying" {
					shapes = [][][]int64{{grown, empty, nil}, {base, nil, grown}}[batch]
				}
				c := makeCase(t, r, mem, f, arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Int16, shapes, order, dims, part)
				p := arrowext.SparseTensorParams{Format: f, AxisOrder: order, Dimensions: dims, Partitioning: part, ValueType: arrow.PrimitiveTypes.Float32, IndexType: arrow.PrimitiveTypes.Int16, LargeLists: large}
				if mode == "fixed" {
					p.Shape = base
				} else {
					p.NDim = nd
					p.DimNames = []string{"a", "b", "c"}[:nd]
				}
				var err error
				if typ == nil {
					typ, err = arrowext.NewSparseTensorType(p)
					require.NoError(t, err)
				}
				b, err := arrowext.NewSparseTensorBuilder(mem, typ)
				require.NoError(t, err)
				for _, x := range c.rows {
					require.NoError(t, b.Append(x))
				}
				col, err := b.NewArray()
				require.NoError(t, err)
				b.Release()
				cols[name] = append(cols[name], col)
				ref[name] = append(ref[name], c.dense...)
				c.dense = nil
				c.release()
			}
			fields = append(fields, arrow.Field{Name: name, Type: typ, Nullable: true})
		}
	}
	schema := arrow.NewSchema(fields, nil)
	var recs []arrow.RecordBatch
	for batch := range 2 {
		var arrs []arrow.Array
		for _, n := range names {
			arrs = append(arrs, cols[n][batch])
		}
		recs = append(recs, array.NewRecordBatch(schema, arrs, -1))
	}
	for _, cs := range cols {
		for _, c := range cs {
			c.Release()
		}
	}
	tbl := array.NewTableFromRecords(schema, recs)
	for _, rec := range recs {
		rec.Release()
	}
	return tbl, ref
}

// checkSparseTable compares every row of every column of tbl with ref.
func checkSparseTable(t *testing.T, mem memory.Allocator, tbl arrow.Table, ref map[string][]*views.View) {
	t.Helper()
	for i, f := range tbl.Schema().Fields() {
		want := ref[f.Name]
		k := 0
		for _, ch := range tbl.Column(i).Data().Chunks() {
			col, ok := ch.(*arrowext.SparseTensorArray)
			require.True(t, ok, "column %s is %T", f.Name, ch)
			checkColumn(t, mem, col, want[k:k+col.Len()])
			k += col.Len()
		}
		require.Equal(t, len(want), k, f.Name)
	}
}

// TestSparseContainers writes sparse columns of every format to IPC files,
// IPC streams and Parquet and reads them back, registered and not.
func TestSparseContainers(t *testing.T) {
	for _, large := range []bool{false, true} {
		for _, registered := range []bool{false, true} {
			t.Run(fmt.Sprintf("large=%v/registered=%v", large, registered), func(t *testing.T) {
				if registered {
					require.NoError(t, arrowext.Register())
					t.Cleanup(arrowext.Unregister)
				}
				mem := testutil.Checked(t)
				r := rand.New(rand.NewPCG(31, 32))
				tbl, ref := sparseTable(t, mem, r, large)
				defer tbl.Release()
				defer func() {
					for _, vs := range ref {
						for _, v := range vs {
							if v != nil {
								v.Release()
							}
						}
					}
				}()
				checkSparseTable(t, mem, tbl, ref)
				for _, container := range []string{"file", "stream", "parquet"} {
					var buf bytes.Buffer
					var err error
					switch container {
					case "file":
						err = arrowext.WriteIPCFile(&buf, tbl, arrowext.WithAllocator(mem))
					case "stream":
						err = arrowext.WriteIPCStream(&buf, tbl, arrowext.WithAllocator(mem))
					default:
						err = arrowext.WriteParquet(&buf, tbl, arrowext.WithAllocator(mem))
					}
					require.NoError(t, err, container)
					var got arrow.Table
					switch container {
					case "file":
						got, err = arrowext.ReadIPCFileBytes(buf.Bytes(), arrowext.WithAllocator(mem))
					case "stream":
						got, err = arrowext.ReadIPCStream(bytes.NewReader(buf.Bytes()), arrowext.WithAllocator(mem))
					default:
						got, err = arrowext.ReadParquet(bytes.NewReader(buf.Bytes()), arrowext.WithAllocator(mem))
					}
					require.NoError(t, err, container)
					for i, f := range got.Schema().Fields() {
						want := tbl.Schema().Field(i).Type.(*arrowext.SparseTensorType)
						if container == "parquet" && large {
							// Parquet stores LargeLists as Lists.
							p := want.Params()
							p.LargeLists = false
							small, err := arrowext.NewSparseTensorType(p)
							require.NoError(t, err)
							want = small
						}
						require.True(t, arrow.TypeEqual(want, f.Type), "%s %s: %s vs %s", container, f.Name, f.Type, want)
					}
					checkSparseTable(t, mem, got, ref)
					got.Release()
				}
			})
		}
	}
}
