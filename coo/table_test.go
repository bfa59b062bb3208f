package coo_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/arrowext"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
)

// tableOf returns the batches as one table, which owns its own references.
func tableOf(t *testing.T, recs []arrow.RecordBatch) arrow.Table {
	t.Helper()
	require.NotEmpty(t, recs)
	return array.NewTableFromRecords(recs[0].Schema(), recs)
}

func releaseAll(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}

// A tensor larger than one batch goes out as bounded batches and comes
// back, through an in-memory table, an IPC file and a Parquet file, with
// its entries, shape and names.
func TestRecordsRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for _, tc := range []struct {
		name   string
		shape  []int64
		nnz    int
		layout coo.Layout
		it, vt arrow.DataType
		batch  int64
	}{
		{"3d-rowmajor-int16", []int64{30, 40, 50}, 1000, coo.RowMajor, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Float64, 97},
		{"3d-colmajor-int32", []int64{30, 40, 50}, 1000, coo.ColMajor, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Float32, 100},
		{"2d-int64-exact", []int64{1 << 40, 3}, 512, coo.ColMajor, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, 128},
		{"1d-uint8", []int64{200}, 300, coo.RowMajor, arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Int64, 1},
		{"empty", []int64{4, 0}, 0, coo.RowMajor, arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Float64, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := testutil.Checked(t)
			x, ref := testutil.RandomCOO(t, mem, r, tc.shape, tc.nnz, tc.layout, tc.it, tc.vt, 5)
			defer x.Release()
			names := []string{"i", "j", "k"}[:len(tc.shape)]
			if len(tc.shape) == 1 {
				names = nil
			}
			named, err := coo.New(tc.vt, tc.it, tc.shape, x.CoordsBuffer(), tc.layout, x.ValuesBuffer(), x.NNZ(), coo.WithDimNames(names...))
			require.NoError(t, err)
			defer named.Release()

			recs, err := named.ToRecords(mem, tc.batch)
			require.NoError(t, err)
			defer releaseAll(recs)
			var total int64
			for _, rec := range recs {
				assert.LessOrEqual(t, rec.NumRows(), tc.batch)
				assert.True(t, rec.Schema().Equal(recs[0].Schema()))
				total += rec.NumRows()
			}
			assert.Equal(t, x.NNZ(), total)
			if x.NNZ() > 0 {
				assert.Len(t, recs, int((x.NNZ()+tc.batch-1)/tc.batch))
			}

			tbl := tableOf(t, recs)
			defer tbl.Release()
			check := func(t *testing.T, back *coo.Tensor) {
				t.Helper()
				assert.Equal(t, tc.shape, back.Shape())
				assert.Equal(t, named.DimNames(), back.DimNames())
				assert.Equal(t, tc.vt, back.DataType())
				assert.Equal(t, x.NNZ(), back.NNZ())
				// Entries come back in storage order, coordinates and bits.
				for i := range x.NNZ() {
					for k := range len(tc.shape) {
						if back.Coord(i, k) != x.Coord(i, k) {
							t.Fatalf("entry %d dimension %d: got %d, want %d", i, k, back.Coord(i, k), x.Coord(i, k))
						}
					}
				}
				assert.Equal(t, x.ValueBytes(), back.ValueBytes())
				assert.Equal(t, x.IsCanonical(), back.IsCanonical())
				assert.Equal(t, len(ref.Combined(arrowsparse.SumDuplicates)) < int(x.NNZ()), !back.IsCanonical() && x.NNZ() > 0)
			}
			t.Run("table", func(t *testing.T) {
				back, err := coo.FromTable(mem, tbl, coo.RecordOptions{})
				require.NoError(t, err)
				defer back.Release()
				want := coo.ColMajor // the size is known: one column after the other
				if len(tc.shape) < 2 {
					want = coo.RowMajor
				}
				assert.Equal(t, want, back.Layout())
				check(t, back)
				// A reader of unknown length gives a row-major tensor.
				tr := array.NewTableReader(tbl, 50)
				defer tr.Release()
				rm, err := coo.FromRecordReader(mem, tr, coo.RecordOptions{})
				require.NoError(t, err)
				defer rm.Release()
				assert.Equal(t, coo.RowMajor, rm.Layout())
				check(t, rm)
			})
			t.Run("ipc-file", func(t *testing.T) {
				var buf bytes.Buffer
				require.NoError(t, arrowext.WriteIPCFile(&buf, tbl, arrowext.WithAllocator(mem)))
				in, err := arrowext.ReadIPCFileBytes(buf.Bytes(), arrowext.WithAllocator(mem))
				require.NoError(t, err)
				defer in.Release()
				back, err := coo.FromTable(mem, in, coo.RecordOptions{})
				require.NoError(t, err)
				defer back.Release()
				check(t, back)
			})
			t.Run("parquet", func(t *testing.T) {
				var buf bytes.Buffer
				require.NoError(t, arrowext.WriteParquet(&buf, tbl, arrowext.WithAllocator(mem)))
				in, err := arrowext.ReadParquet(bytes.NewReader(buf.Bytes()), arrowext.WithAllocator(mem))
				require.NoError(t, err)
				defer in.Release()
				back, err := coo.FromTable(mem, in, coo.RecordOptions{})
				require.NoError(t, err)
				defer back.Release()
				check(t, back)
			})
		})
	}
}

// The batches of a column-major tensor are slices of its buffers.
func TestRecordsZeroCopy(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(1, 2))
	x, _ := testutil.RandomCOO(t, mem, r, []int64{100, 100}, 1000, coo.ColMajor, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Float64, 0)
	defer x.Release()
	recs, err := x.ToRecords(mem, 300)
	require.NoError(t, err)
	defer releaseAll(recs)
	require.Len(t, recs, 4)
	vals, err := coo.Values[float64](x)
	require.NoError(t, err)
	last := recs[3].Column(2).(*array.Float64).Float64Values()
	require.Len(t, last, 100)
	assert.Same(t, &vals[900], &last[0])
}

// Errors name the row counted over the whole table, and nothing leaks.
func TestFromRecordReaderErrors(t *testing.T) {
	mem := testutil.Checked(t)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64},
		{Name: "value", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
	batch := func(is []int64, valid []bool) arrow.RecordBatch {
		b := array.NewRecordBuilder(mem, schema)
		defer b.Release()
		b.Field(0).(*array.Int64Builder).AppendValues(is, valid)
		b.Field(1).(*array.Float64Builder).AppendValues(make([]float64, len(is)), nil)
		return b.NewRecordBatch()
	}
	read := func(o coo.RecordOptions, recs ...arrow.RecordBatch) error {
		defer releaseAll(recs)
		rr, err := array.NewRecordReader(schema, recs)
		require.NoError(t, err)
		defer rr.Release()
		x, err := coo.FromRecordReader(mem, rr, o)
		if x != nil {
			x.Release()
		}
		return err
	}
	err := read(coo.RecordOptions{Shape: []int64{10}}, batch([]int64{1, 2, 3}, nil), batch([]int64{4, 10}, nil))
	require.ErrorIs(t, err, arrow.ErrIndex)
	assert.Contains(t, err.Error(), "row 4 of column \"i\" is 10, outside [0, 10)")

	err = read(coo.RecordOptions{}, batch([]int64{1, 2}, nil), batch([]int64{3, -1}, nil))
	require.ErrorIs(t, err, arrow.ErrIndex)
	assert.Contains(t, err.Error(), "row 3 of column \"i\"")

	err = read(coo.RecordOptions{}, batch([]int64{1}, nil), batch([]int64{3, 4}, []bool{true, false}))
	require.ErrorIs(t, err, arrow.ErrInvalid)
	assert.Contains(t, err.Error(), "nulls")

	err = read(coo.RecordOptions{IndexType: arrow.PrimitiveTypes.Int8}, batch([]int64{1, 300}, nil))
	require.ErrorIs(t, err, arrow.ErrType)
	assert.Contains(t, err.Error(), "cannot hold")

	err = read(coo.RecordOptions{ValueColumn: "v"}, batch([]int64{1}, nil))
	require.ErrorIs(t, err, arrow.ErrInvalid)
	assert.Contains(t, err.Error(), `no column "v"`)

	// Empty batches and no batches at all give an empty tensor.
	require.NoError(t, read(coo.RecordOptions{}, batch(nil, nil)))
	require.NoError(t, read(coo.RecordOptions{}))

	_, err = (&coo.Tensor{}).ToRecords(memory.DefaultAllocator, -1)
	require.ErrorIs(t, err, arrow.ErrInvalid)
}

// The shape comes from the largest coordinates when nothing gives it, and
// the narrowest index type holds it.
func TestFromRecordReaderInfersShape(t *testing.T) {
	mem := testutil.Checked(t)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Uint16},
		{Name: "b", Type: arrow.PrimitiveTypes.Int64},
		{Name: "value", Type: arrow.PrimitiveTypes.Int32},
	}, nil)
	var recs []arrow.RecordBatch
	for k := range 3 {
		b := array.NewRecordBuilder(mem, schema)
		b.Field(0).(*array.Uint16Builder).AppendValues([]uint16{uint16(k), 7}, nil)
		b.Field(1).(*array.Int64Builder).AppendValues([]int64{int64(100 * k), 1}, nil)
		b.Field(2).(*array.Int32Builder).AppendValues([]int32{int32(k + 1), 10}, nil)
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	defer releaseAll(recs)
	rr, err := array.NewRecordReader(schema, recs)
	require.NoError(t, err)
	defer rr.Release()
	x, err := coo.FromRecordReader(mem, rr, coo.RecordOptions{})
	require.NoError(t, err)
	defer x.Release()
	assert.Equal(t, []int64{8, 201}, x.Shape())
	assert.Equal(t, []string{"a", "b"}, x.DimNames())
	assert.Equal(t, arrow.PrimitiveTypes.Int16, x.IndexType())
	assert.Equal(t, int32(30), coo.At[int32](x, 7, 1)) // three duplicates, summed by At
	assert.Equal(t, int32(3), coo.At[int32](x, 2, 200))
}
