package arrowext_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse/arrowext"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/testing/exercise"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
)

// flatTypes are the column types the flat reader covers, and one it does
// not (int16, stored as INT32), which sends a file to pqarrow.
var flatTypes = []arrow.DataType{
	arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Uint32,
	arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Uint64,
	arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64,
}

// flatTable returns a table of n rows with a column of each type in
// types, nullable or not, with about nullRate of the nullable columns'
// rows null, as record batches of batch rows.
func flatTable(t testing.TB, r *rand.Rand, mem memory.Allocator, types []arrow.DataType, nullable []bool, n, batch int, nullRate float64) arrow.Table {
	t.Helper()
	fields := make([]arrow.Field, len(types))
	for k, dt := range types {
		fields[k] = arrow.Field{Name: fmt.Sprintf("c%d", k), Type: dt, Nullable: nullable[k]}
	}
	schema := arrow.NewSchema(fields, nil)
	var recs []arrow.RecordBatch
	for off := 0; off < n || (n == 0 && off == 0); off += max(batch, 1) {
		m := min(batch, n-off)
		b := array.NewRecordBuilder(mem, schema)
		for k, dt := range types {
			fb := b.Field(k)
			for range m {
				if nullable[k] && r.Float64() < nullRate {
					fb.AppendNull()
					continue
				}
				x := r.Int64()
				switch dt.ID() {
				case arrow.INT32:
					fb.(*array.Int32Builder).Append(int32(x))
				case arrow.UINT32:
					fb.(*array.Uint32Builder).Append(uint32(x))
				case arrow.INT64:
					fb.(*array.Int64Builder).Append(x)
				case arrow.UINT64:
					fb.(*array.Uint64Builder).Append(uint64(x) * 3)
				case arrow.FLOAT32:
					fb.(*array.Float32Builder).Append(float32(r.NormFloat64()))
				case arrow.FLOAT64:
					fb.(*array.Float64Builder).Append(r.NormFloat64())
				case arrow.INT16:
					fb.(*array.Int16Builder).Append(int16(x))
				}
			}
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
		if n == 0 {
			break
		}
	}
	tbl := array.NewTableFromRecords(schema, recs)
	for _, rec := range recs {
		rec.Release()
	}
	return tbl
}

// pqWrite writes tbl with pqarrow directly, with the given page version,
// codec, page size and row-group length.
func pqWrite(t testing.TB, tbl arrow.Table, v2 bool, codec compress.Compression, pageSize int64, rowGroup int64) []byte {
	t.Helper()
	version := parquet.DataPageV1
	if v2 {
		version = parquet.DataPageV2
	}
	props := parquet.NewWriterProperties(
		parquet.WithDictionaryDefault(false),
		parquet.WithCompression(codec),
		parquet.WithDataPageVersion(version),
		parquet.WithDataPageSize(pageSize),
		parquet.WithMaxRowGroupLength(rowGroup),
	)
	var buf bytes.Buffer
	require.NoError(t, pqarrow.WriteTable(tbl, &buf, rowGroup, props, pqarrow.DefaultWriterProps()))
	return buf.Bytes()
}

// readBoth reads a Parquet file with the flat reader on and off, under
// checked allocators, and returns both results (nil on error) and errors;
// flat says whether the flat reader read it.
func readBoth(t *testing.T, data []byte) (fast, slow arrow.Table, errFast, errSlow error, flat bool) {
	t.Helper()
	before := arrowext.FlatReads()
	memFast := memory.NewCheckedAllocator(memory.NewGoAllocator())
	fast, errFast = arrowext.ReadParquet(bytes.NewReader(data), arrowext.WithAllocator(memFast))
	flat = arrowext.FlatReads() > before
	restore := arrowext.SetFlatReader(false)
	memSlow := memory.NewCheckedAllocator(memory.NewGoAllocator())
	slow, errSlow = arrowext.ReadParquet(bytes.NewReader(data), arrowext.WithAllocator(memSlow))
	restore()
	t.Cleanup(func() {
		memFast.AssertSize(t, 0)
		memSlow.AssertSize(t, 0)
	})
	return
}

// requireSameTable asserts that two tables hold the same columns (names,
// types and nullability; the field metadata too when metadata is set) and
// values, chunking aside.
func requireSameTable(t *testing.T, want, got arrow.Table, metadata bool) {
	t.Helper()
	if metadata {
		require.True(t, want.Schema().Equal(got.Schema()), "schemas:\n%s\n%s", want.Schema(), got.Schema())
	}
	require.Equal(t, want.NumCols(), got.NumCols())
	for k, f := range want.Schema().Fields() {
		g := got.Schema().Field(k)
		require.Equal(t, f.Name, g.Name)
		require.True(t, arrow.TypeEqual(f.Type, g.Type), "%s: %s, %s", f.Name, f.Type, g.Type)
		require.Equal(t, f.Nullable, g.Nullable, f.Name)
	}
	require.Equal(t, want.NumRows(), got.NumRows())
	for k := range int(want.NumCols()) {
		w, err := array.Concatenate(want.Column(k).Data().Chunks(), memory.DefaultAllocator)
		require.NoError(t, err)
		g, err := array.Concatenate(got.Column(k).Data().Chunks(), memory.DefaultAllocator)
		require.NoError(t, err)
		require.True(t, array.Equal(w, g), "column %d differs:\n%v\n%v", k, w, g)
		w.Release()
		g.Release()
	}
}

// TestFlatReader: tables of flat columns of every covered type, required
// and optional (with nulls, all null, none null), in one or many row groups
// and pages, data pages of version 1 and 2, uncompressed and compressed,
// read by the flat reader equal what pqarrow reads and what was written;
// a file with a column the flat reader does not cover is read by pqarrow.
func TestFlatReader(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	codecs := []compress.Compression{compress.Codecs.Uncompressed, compress.Codecs.Snappy, compress.Codecs.Zstd, compress.Codecs.Lz4Raw, compress.Codecs.Gzip}
	cases := 0
	for _, n := range []int{1, 7, 1000, 20000} {
		for _, nullRate := range []float64{0, 0.3, 1} {
			for _, v2 := range []bool{false, true} {
				for _, codec := range codecs {
					if v2 && codec == compress.Codecs.Zstd {
						// arrow-go's writer asserts (under -tags assert) on
						// a version-2 page without values for Zstd.
						continue
					}
					for _, other := range []bool{false, true} {
						types := append([]arrow.DataType(nil), flatTypes...)
						if other {
							types = append(types, arrow.PrimitiveTypes.Int16)
						}
						nullable := make([]bool, len(types))
						for k := range nullable {
							nullable[k] = r.IntN(2) == 0
						}
						mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
						tbl := flatTable(t, r, mem, types, nullable, n, 1+r.IntN(n), nullRate)
						pageSize := []int64{64, 4096, 1 << 20}[r.IntN(3)]
						rowGroup := int64(1 + r.IntN(n))
						data := pqWrite(t, tbl, v2, codec, pageSize, rowGroup)
						name := fmt.Sprintf("n=%d nulls=%g v2=%v codec=%s other=%v", n, nullRate, v2, codec, other)
						flat := requireReadsBack(t, data, tbl, name)
						if nullRate < 1 { // all-null columns may go to pqarrow (the allocation bound)
							require.Equal(t, !other, flat, "%s: read by the flat reader", name)
						}
						tbl.Release()
						mem.AssertSize(t, 0)
						cases++
					}
				}
			}
		}
	}
	t.Logf("%d files", cases)
}

// requireReadsBack reads a Parquet file of table want both ways and
// asserts that both readers give it back; it returns whether the flat
// reader read it.
func requireReadsBack(t *testing.T, data []byte, want arrow.Table, name string) bool {
	t.Helper()
	fast, slow, errFast, errSlow, flat := readBoth(t, data)
	require.NoError(t, errFast, name)
	require.NoError(t, errSlow, name)
	defer fast.Release()
	defer slow.Release()
	requireSameTable(t, slow, fast, true)
	requireSameTable(t, want, fast, false)
	return flat
}

// TestFlatReaderWriteParquet: the COO table of a tensor as WriteParquet
// writes it goes through the flat reader, with every codec.
func TestFlatReaderWriteParquet(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for _, c := range []arrowext.Compression{arrowext.Uncompressed, arrowext.LZ4, arrowext.Zstd, arrowext.Snappy} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		tbl := flatTable(t, r, mem, []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64},
			[]bool{false, false, true}, 5000, 1500, 0.1)
		var buf bytes.Buffer
		require.NoError(t, arrowext.WriteParquet(&buf, tbl, arrowext.WithCompression(c), arrowext.WithRowGroupLength(2000)))
		require.True(t, requireReadsBack(t, buf.Bytes(), tbl, fmt.Sprint("compression ", c)), "read by the flat reader")
		tbl.Release()
		mem.AssertSize(t, 0)
	}
}

// TestFlatReaderDamaged: every truncation and many single-byte changes of
// flat files read without a panic or a leak; when both readers succeed
// they agree, and errors wrap arrow.ErrInvalid.
func TestFlatReaderDamaged(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 17))
	mem := memory.NewGoAllocator()
	tbl := flatTable(t, r, mem, []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float32}, []bool{false, true}, 300, 100, 0.2)
	defer tbl.Release()
	for _, v2 := range []bool{false, true} {
		for _, codec := range []compress.Compression{compress.Codecs.Uncompressed, compress.Codecs.Snappy} {
			data := pqWrite(t, tbl, v2, codec, 256, 120)
			var inputs [][]byte
			for cut := 0; cut < len(data); cut += 1 + len(data)/200 {
				inputs = append(inputs, data[:cut])
			}
			for range 400 {
				d := bytes.Clone(data)
				d[r.IntN(len(d))] ^= byte(1 + r.IntN(255))
				inputs = append(inputs, d)
			}
			for _, d := range inputs {
				checkFlatAgrees(t, d)
			}
		}
	}
}

// checkFlatAgrees reads data both ways: no panic, errors wrap
// arrow.ErrInvalid, and two successful reads agree.
func checkFlatAgrees(t *testing.T, data []byte) {
	t.Helper()
	fast, slow, errFast, errSlow, _ := readBoth(t, data)
	if errFast != nil {
		require.True(t, errors.Is(errFast, arrow.ErrInvalid), "%v", errFast)
	}
	if errSlow != nil {
		require.True(t, errors.Is(errSlow, arrow.ErrInvalid), "%v", errSlow)
	}
	if fast != nil && slow != nil {
		requireSameTable(t, slow, fast, true)
	}
	if fast != nil {
		// The whole path: the table as a COO tensor, then every
		// operation on it.
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		x, err := coo.FromTable(mem, fast, coo.RecordOptions{})
		if err != nil {
			require.True(t, errors.Is(err, arrow.ErrInvalid) || errors.Is(err, arrow.ErrIndex) || errors.Is(err, arrow.ErrType), "%v", err)
		} else {
			exercise.New(t, mem, int64(len(data))).Run(x)
			x.Release()
		}
		mem.AssertSize(t, 0)
		fast.Release()
	}
	if slow != nil {
		slow.Release()
	}
}

// FuzzParquetFlat reads fuzzed bytes as Parquet with and without the flat
// reader: never a panic or a leak, errors wrap arrow.ErrInvalid, and when
// both read the file they agree; what the flat reader reads then goes
// through coo.FromTable and every operation on the tensor. Seeds are flat
// files of both page versions, with and without nulls and compression, and
// COO tables as WriteParquet writes them.
func FuzzParquetFlat(f *testing.F) {
	r := rand.New(rand.NewPCG(1, 2))
	mem := memory.NewGoAllocator()
	for _, v2 := range []bool{false, true} {
		for _, codec := range []compress.Compression{compress.Codecs.Uncompressed, compress.Codecs.Snappy} {
			for _, nullable := range []bool{false, true} {
				tbl := flatTable(f, r, mem, []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64},
					[]bool{nullable, nullable}, 40, 40, 0.25)
				f.Add(pqWrite(f, tbl, v2, codec, 128, 25))
				tbl.Release()
			}
		}
	}
	for _, shape := range [][]int64{{6}, {4, 7}, {3, 4, 5}} {
		x, _ := testutil.RandomCOO(f, mem, r, shape, 15, coo.RowMajor, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Float64, 4)
		recs, err := x.ToRecords(mem, 6)
		require.NoError(f, err)
		tbl := array.NewTableFromRecords(recs[0].Schema(), recs)
		for _, rec := range recs {
			rec.Release()
		}
		var buf bytes.Buffer
		require.NoError(f, arrowext.WriteParquet(&buf, tbl, arrowext.WithRowGroupLength(6)))
		f.Add(buf.Bytes())
		tbl.Release()
		x.Release()
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFlatAgrees(t, data)
	})
}

// FuzzPageHeader parses fuzzed bytes as a Parquet page header: never a
// panic, and a parsed header lies within the bytes.
func FuzzPageHeader(f *testing.F) {
	f.Add([]byte{0x15, 0x00, 0x15, 0x10, 0x15, 0x10, 0x2c, 0x15, 0x04, 0x15, 0x00, 0x15, 0x06, 0x15, 0x06, 0x00, 0x00})
	f.Add([]byte{0x15, 0x06, 0x15, 0x10, 0x15, 0x10, 0x5c, 0x15, 0x04, 0x15, 0x00, 0x15, 0x04, 0x15, 0x00, 0x15, 0x00, 0x15, 0x00, 0x11, 0x00, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		n, short := arrowext.ParsePageHeader(b)
		require.True(t, n >= 0 && n <= len(b))
		require.False(t, n > 0 && short)
	})
}
