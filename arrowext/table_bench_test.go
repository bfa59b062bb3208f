package arrowext_test

import (
	"bytes"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/arrowext"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/testing/benchdata"
)

// tableRows is the batch size and Parquet row-group length of the table
// benchmarks; bench/table_anchors.py gives pyarrow the same.
const tableRows = 1 << 20

// cooTable returns workload a_powerlaw2d (1M × 1M, 10M entries) as a COO
// table of 1Mi-entry batches (columns dim0, dim1 int64 and value float64,
// 240 MB), and its byte size. The batches are slices of the workload's
// buffers.
func cooTable(b *testing.B, mem memory.Allocator) (arrow.Table, int64) {
	b.Helper()
	x := benchdata.LoadCOO(b, "a_powerlaw2d")
	defer x.Release()
	recs, err := x.ToRecords(mem, tableRows)
	if err != nil {
		b.Fatal(err)
	}
	tbl := array.NewTableFromRecords(recs[0].Schema(), recs)
	for _, r := range recs {
		r.Release()
	}
	return tbl, x.NNZ() * 24
}

// benchTable times writing and reading tbl (of n bytes of data) as an IPC
// file and as Parquet (uncompressed, no dictionaries, row groups of
// tableRows), into and from memory, next to a copy of the same number of
// bytes. After reading, tensor (if not nil) turns the table back into the
// library's form, timed separately.
func benchTable(b *testing.B, tbl arrow.Table, n int64, tensor func(arrow.Table) error) {
	mem := memory.NewGoAllocator()
	b.Run("copy", func(b *testing.B) {
		src, dst := make([]byte, n), make([]byte, n)
		for i := range src {
			src[i] = byte(i)
			dst[i] = byte(i)
		}
		b.SetBytes(n)
		b.ReportAllocs()
		for b.Loop() {
			copy(dst, src)
		}
	})
	var ipcFile, pqFile bytes.Buffer
	if err := arrowext.WriteIPCFile(&ipcFile, tbl); err != nil {
		b.Fatal(err)
	}
	if err := arrowext.WriteParquet(&pqFile, tbl, arrowext.WithRowGroupLength(tableRows)); err != nil {
		b.Fatal(err)
	}
	// Collect the garbage of loading the workload and return it to the
	// system now, or the first benchmark pays the collector and the
	// scavenger for it.
	runtime.GC()
	debug.FreeOSMemory()
	ipcSink, pqSink := newSink(ipcFile.Len()+1<<20), newSink(pqFile.Len()+1<<20)
	ops := []struct {
		name string
		run  func() error
	}{
		{"ipc/write", func() error {
			ipcSink.n = 0
			return arrowext.WriteIPCFile(ipcSink, tbl, arrowext.WithAllocator(mem))
		}},
		{"ipc/read", func() error {
			got, err := arrowext.ReadIPCFileBytes(ipcFile.Bytes(), arrowext.WithAllocator(mem))
			if err == nil {
				got.Release()
			}
			return err
		}},
		{"parquet/write", func() error {
			pqSink.n = 0
			return arrowext.WriteParquet(pqSink, tbl, arrowext.WithAllocator(mem), arrowext.WithRowGroupLength(tableRows))
		}},
		{"parquet/read", func() error {
			got, err := arrowext.ReadParquet(bytes.NewReader(pqFile.Bytes()), arrowext.WithAllocator(mem))
			if err == nil {
				got.Release()
			}
			return err
		}},
	}
	for _, op := range ops {
		b.Run(op.name, func(b *testing.B) {
			// Untimed runs first, as bench/table_anchors.py does for
			// pyarrow: the first runs grow the heap back after the
			// previous benchmark (the runtime returns freed memory to the
			// system, and taking it again costs page faults). It takes
			// about ten: a Parquet read of the COO table averaged 63 ms
			// over its first ten runs after three, 39 ms over forty.
			for range 10 {
				if err := op.run(); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(n)
			b.ReportAllocs()
			for b.Loop() {
				if err := op.run(); err != nil {
					b.Fatal(err)
				}
				// pyarrow's releases give memory back to its allocator
				// at once, for the next run to reuse; Go's give it to the
				// collector, which with the large live heap here runs
				// seldom, so that every run would take fresh memory from
				// the system and pay its page faults (a 240 MB read: 50
				// ms became 190). Collect between runs, untimed.
				b.StopTimer()
				runtime.GC()
				b.StartTimer()
			}
		})
	}
	if tensor == nil {
		return
	}
	b.Run("to-tensor", func(b *testing.B) {
		got, err := arrowext.ReadIPCFileBytes(ipcFile.Bytes(), arrowext.WithAllocator(mem))
		if err != nil {
			b.Fatal(err)
		}
		defer got.Release()
		b.SetBytes(n)
		b.ReportAllocs()
		for b.Loop() {
			if err := tensor(got); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkCOOTable10M: workload a as a COO table (one row per entry);
// to-tensor is coo.FromTable of the table read from the IPC file.
func BenchmarkCOOTable10M(b *testing.B) {
	mem := memory.NewGoAllocator()
	tbl, n := cooTable(b, mem)
	defer tbl.Release()
	benchTable(b, tbl, n, func(t arrow.Table) error {
		x, err := coo.FromTable(mem, t, coo.RecordOptions{})
		if err == nil {
			x.Release()
		}
		return err
	})
}

// BenchmarkVectorsTable10M: workload a as one sparse vector per matrix row
// (1M rows of an arrowsparse.coo column of shape [1M], int64 indices,
// float64 values, 10M entries), made from the canonical CSR matrix by
// VectorsFromCSR; to-tensor is ToCSR of the column read from the IPC file
// (no copy of the indices or values).
func BenchmarkVectorsTable10M(b *testing.B) {
	mem := memory.NewGoAllocator()
	x := benchdata.LoadCOO(b, "a_powerlaw2d")
	m, err := gcs.MatrixFromCOO(mem, x, gcs.Rows, gcs.ConvertOptions{IndptrType: arrow.PrimitiveTypes.Int64})
	x.Release()
	if err != nil {
		b.Fatal(err)
	}
	col, err := arrowext.VectorsFromCSR(mem, m)
	m.Release()
	if err != nil {
		b.Fatal(err)
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "vector", Type: col.DataType(), Nullable: true}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, int64(col.Len()))
	col.Release()
	tbl := array.NewTableFromRecords(schema, []arrow.RecordBatch{rec})
	rec.Release()
	defer tbl.Release()
	benchTable(b, tbl, m.NNZ()*16, func(t arrow.Table) error {
		c, ok := t.Column(0).Data().Chunk(0).(*arrowext.SparseTensorArray)
		if !ok {
			b.Fatalf("column read back as %s", t.Column(0).DataType())
		}
		r, err := c.ToCSR(mem)
		if err == nil {
			r.Release()
		}
		return err
	})
}

// BenchmarkParquetScale writes and reads COO tables of random entries
// (two int64 coordinate columns, float64 values, row groups of 1Mi rows)
// at 2.5M, 10M and 40M entries, with dimensions of 2^20 and of 2^40, so
// that the cost per entry (write-ns/entry, read-ns/entry: five runs after
// five untimed ones, each followed by a collection, counted) can be
// compared across sizes. Run it with -benchtime 1x.
func BenchmarkParquetScale(b *testing.B) {
	for _, dim := range []int64{1 << 20, 1 << 40} {
		for _, n := range []int{2_500_000, 10_000_000, 40_000_000} {
			b.Run(fmt.Sprintf("dim=2^%d/entries=%.1fM", bits.Len64(uint64(dim))-1, float64(n)/1e6), func(b *testing.B) {
				mem := memory.NewGoAllocator()
				r := rand.New(rand.NewPCG(uint64(n), uint64(dim)))
				cols := make([]arrow.Array, 3)
				for k := range 2 {
					ib := array.NewInt64Builder(mem)
					ib.Reserve(n)
					for range n {
						ib.UnsafeAppend(r.Int64N(dim))
					}
					cols[k] = ib.NewArray()
					ib.Release()
				}
				vb := array.NewFloat64Builder(mem)
				vb.Reserve(n)
				for range n {
					vb.UnsafeAppend(r.NormFloat64())
				}
				cols[2] = vb.NewArray()
				vb.Release()
				schema := arrow.NewSchema([]arrow.Field{{Name: "dim0", Type: arrow.PrimitiveTypes.Int64}, {Name: "dim1", Type: arrow.PrimitiveTypes.Int64}, {Name: "value", Type: arrow.PrimitiveTypes.Float64}}, nil)
				tbl := array.NewTableFromSlice(schema, [][]arrow.Array{{cols[0]}, {cols[1]}, {cols[2]}})
				for _, c := range cols {
					c.Release()
				}
				defer tbl.Release()
				var file bytes.Buffer
				if err := arrowext.WriteParquet(&file, tbl, arrowext.WithRowGroupLength(tableRows)); err != nil {
					b.Fatal(err)
				}
				sink := newSink(file.Len() + 1<<20)
				runtime.GC()
				debug.FreeOSMemory()
				perEntry := map[string]float64{}
				for _, op := range []string{"write", "read"} {
					run := func() {
						if op == "write" {
							sink.n = 0
							if err := arrowext.WriteParquet(sink, tbl, arrowext.WithRowGroupLength(tableRows)); err != nil {
								b.Fatal(err)
							}
							return
						}
						got, err := arrowext.ReadParquet(bytes.NewReader(file.Bytes()), arrowext.WithAllocator(mem))
						if err != nil {
							b.Fatal(err)
						}
						got.Release()
					}
					for range 5 {
						run()
					}
					const reps = 5
					start := time.Now()
					for range reps {
						run()
						runtime.GC()
					}
					perEntry[op] = float64(time.Since(start).Nanoseconds()) / reps / float64(n)
				}
				for b.Loop() {
				}
				// After the loop, which resets the reported metrics.
				for op, v := range perEntry {
					b.ReportMetric(v, op+"-ns/entry")
				}
			})
		}
	}
}
