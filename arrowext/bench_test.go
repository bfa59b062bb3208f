package arrowext_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/arrowext"
	"github.com/arrowsparse/arrowsparse/views"
)

// benchColumn returns a fixed-shape float32 column of n rows of the given
// physical shape and permutation, its values i·0.001 for i mod 1000003
// (the data interop/bench_tables.py gives pyarrow).
func benchColumn(b *testing.B, mem memory.Allocator, n int64, shape []int64, perm []int) *arrowext.FixedShapeTensorArray {
	b.Helper()
	full := append([]int64{n}, shape...)
	v, err := views.Alloc(mem, arrow.PrimitiveTypes.Float32, full)
	if err != nil {
		b.Fatal(err)
	}
	defer v.Release()
	vals, err := views.Values[float32](v)
	if err != nil {
		b.Fatal(err)
	}
	for i := range vals {
		vals[i] = float32(i%1000003) * 0.001
	}
	src := v
	if perm != nil {
		axes := []int{0}
		for _, p := range perm {
			axes = append(axes, 1+p)
		}
		if src, err = v.Transpose(axes...); err != nil {
			b.Fatal(err)
		}
		defer src.Release()
	}
	col, err := arrowext.NewFixedShapeTensorArray(mem, src)
	if err != nil {
		b.Fatal(err)
	}
	return col
}

// BenchmarkRow reads one row as a view: O(ndim) and one allocation, the
// same for a 6-element and a 2-million-element row, permuted or not.
func BenchmarkRow(b *testing.B) {
	mem := memory.NewGoAllocator()
	for _, bc := range []struct {
		name  string
		shape []int64
		perm  []int
	}{
		{"2x3", []int64{2, 3}, nil},
		{"128x128x128", []int64{128, 128, 128}, nil},
		{"128x128x128/3-cycle", []int64{128, 128, 128}, []int{1, 2, 0}},
		{"4x4x4x4x4x4x4x4/perm", []int64{4, 4, 4, 4, 4, 4, 4, 4}, []int{7, 6, 5, 4, 3, 2, 1, 0}},
	} {
		col := benchColumn(b, mem, 4, bc.shape, bc.perm)
		b.Run("fixed/"+bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				v, err := col.Row(3)
				if err != nil {
					b.Fatal(err)
				}
				v.Release()
			}
		})
		col.Release()
	}
	for _, ndim := range []int{2, 3, 8} {
		typ := mustVariable(&testing.T{}, arrow.PrimitiveTypes.Float32, ndim, nil, identityPerm(ndim), nil)
		bld, err := arrowext.NewVariableShapeTensorBuilder(mem, typ)
		if err != nil {
			b.Fatal(err)
		}
		shape := make([]int64, ndim)
		for k := range shape {
			shape[k] = 3
		}
		for range 4 {
			v, _ := views.Alloc(mem, arrow.PrimitiveTypes.Float32, shape)
			if err := bld.Append(v); err != nil {
				b.Fatal(err)
			}
			v.Release()
		}
		col := bld.NewArray()
		bld.Release()
		b.Run(fmt.Sprintf("variable/ndim=%d", ndim), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				v, err := col.Row(3)
				if err != nil {
					b.Fatal(err)
				}
				v.Release()
			}
		})
		col.Release()
	}
}

func identityPerm(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return p
}

// BenchmarkColumnView views a whole column: O(ndim), whatever the rows.
func BenchmarkColumnView(b *testing.B) {
	mem := memory.NewGoAllocator()
	for _, n := range []int64{4, 4096} {
		col := benchColumn(b, mem, n, []int64{16, 16}, []int{1, 0})
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				v, err := col.View()
				if err != nil {
					b.Fatal(err)
				}
				v.Release()
			}
		})
		col.Release()
	}
}

// sink is an in-memory file: writes copy into a buffer allocated once.
type sink struct {
	buf []byte
	n   int
}

// newSink returns a sink of n bytes whose pages are already touched, as the
// destination of the copy benchmarks is: otherwise the first of a few
// iterations pays the page faults of the whole file and the average measures
// the kernel, not the writer.
func newSink(n int) *sink {
	s := &sink{buf: make([]byte, n)}
	for i := range s.buf {
		s.buf[i] = byte(i)
	}
	return s
}

func (s *sink) Write(p []byte) (int, error) {
	if s.n+len(p) > len(s.buf) {
		s.buf = append(s.buf[:s.n], p...)
		s.buf = s.buf[:cap(s.buf)]
	} else {
		copy(s.buf[s.n:], p)
	}
	s.n += len(p)
	return len(p), nil
}

// tenMillion is a fixed-shape float32 column of 10M elements: 1000 rows of
// 100×100.
func tenMillion(b *testing.B, mem memory.Allocator) arrow.Table {
	col := benchColumn(b, mem, 1000, []int64{100, 100}, nil)
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "tensor", Type: col.DataType(), Nullable: true}}, nil)
	return array.NewTableFromSlice(schema, [][]arrow.Array{{col}})
}

const tenMillionBytes = 10_000_000 * 4

// BenchmarkCopy10M is the baseline of BenchmarkWriteIPCFile10M: copy() of
// the column's 40 MB into a buffer allocated once, with the destination
// 64-byte aligned as the source is ("aligned"), and 40 bytes past that
// ("as-in-file"), as in the IPC file, whose body starts at byte 552:
// memmove is about a third slower when source and destination are not
// aligned alike.
func BenchmarkCopy10M(b *testing.B) {
	src := make([]byte, tenMillionBytes)
	dst := make([]byte, tenMillionBytes+64)
	for i := range src {
		src[i] = byte(i)
		dst[i] = byte(i)
	}
	for _, bc := range []struct {
		name string
		off  int
	}{{"aligned", 0}, {"as-in-file", 40}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(tenMillionBytes)
			b.ReportAllocs()
			for b.Loop() {
				copy(dst[bc.off:bc.off+tenMillionBytes], src)
			}
		})
	}
}

// BenchmarkWriteIPCFile10M writes the 10M-element column as an IPC file
// into memory allocated once.
func BenchmarkWriteIPCFile10M(b *testing.B) {
	mem := memory.NewGoAllocator()
	tbl := tenMillion(b, mem)
	defer tbl.Release()
	s := newSink(tenMillionBytes + 1<<16)
	b.SetBytes(tenMillionBytes)
	b.ReportAllocs()
	for b.Loop() {
		s.n = 0
		if err := arrowext.WriteIPCFile(s, tbl, arrowext.WithAllocator(mem)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadIPCFileBytes10M reads it back without a copy.
func BenchmarkReadIPCFileBytes10M(b *testing.B) {
	mem := memory.NewGoAllocator()
	tbl := tenMillion(b, mem)
	b.SetBytes(tenMillionBytes)
	benchReadRows(b, mem, tbl, int(tbl.NumRows()))
}

// BenchmarkParquet10M writes and reads the 10M-element column as Parquet,
// uncompressed and without dictionaries (interop/bench_tables.py times
// pyarrow with the same settings).
func BenchmarkParquet10M(b *testing.B) {
	mem := memory.NewGoAllocator()
	tbl := tenMillion(b, mem)
	defer tbl.Release()
	var file bytes.Buffer
	if err := arrowext.WriteParquet(&file, tbl); err != nil {
		b.Fatal(err)
	}
	b.Run("write", func(b *testing.B) {
		s := newSink(file.Len() + 1<<20)
		b.SetBytes(tenMillionBytes)
		b.ReportAllocs()
		for b.Loop() {
			s.n = 0
			if err := arrowext.WriteParquet(s, tbl, arrowext.WithAllocator(mem)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("read", func(b *testing.B) {
		b.SetBytes(tenMillionBytes)
		b.ReportAllocs()
		for b.Loop() {
			got, err := arrowext.ReadParquet(bytes.NewReader(file.Bytes()), arrowext.WithAllocator(mem))
			if err != nil {
				b.Fatal(err)
			}
			got.Release()
		}
	})
}

// BenchmarkReadIPCFileBytesLists reads, zero-copy, an IPC file of one
// list<int64> column (two values a row) and one string column at 1M and
// 4M rows: the readers check every offset of both columns, so the cost
// per row (ns/row) must stay flat as the rows grow.
func BenchmarkReadIPCFileBytesLists(b *testing.B) {
	for _, rows := range []int{1 << 20, 1 << 22} {
		b.Run(fmt.Sprintf("rows=%dMi", rows>>20), func(b *testing.B) {
			mem := memory.NewGoAllocator()
			lb := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int64)
			vb := lb.ValueBuilder().(*array.Int64Builder)
			sb := array.NewStringBuilder(mem)
			for i := range rows {
				lb.Append(true)
				vb.Append(int64(i))
				vb.Append(int64(-i))
				sb.Append("ab")
			}
			lc, sc := lb.NewArray(), sb.NewArray()
			lb.Release()
			sb.Release()
			schema := arrow.NewSchema([]arrow.Field{{Name: "l", Type: lc.DataType()}, {Name: "s", Type: sc.DataType()}}, nil)
			tbl := array.NewTableFromSlice(schema, [][]arrow.Array{{lc}, {sc}})
			lc.Release()
			sc.Release()
			benchReadRows(b, mem, tbl, rows)
		})
	}
}

// benchReadRows writes tbl (released) as an IPC file and reads it back
// zero-copy in the benchmark loop, reporting ns/row for its rows.
func benchReadRows(b *testing.B, mem memory.Allocator, tbl arrow.Table, rows int) {
	var file bytes.Buffer
	if err := arrowext.WriteIPCFile(&file, tbl); err != nil {
		b.Fatal(err)
	}
	tbl.Release()
	b.ReportAllocs()
	for b.Loop() {
		got, err := arrowext.ReadIPCFileBytes(file.Bytes(), arrowext.WithAllocator(mem))
		if err != nil {
			b.Fatal(err)
		}
		got.Release()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows), "ns/row")
}

// BenchmarkReadIPCFileBytesNested reads, zero-copy, an IPC file of a dense
// union, a string_view and a list_view column at 1M and 4M rows: the
// readers check every type id, union offset and view, so the cost per row
// (ns/row) must stay flat as the rows grow.
func BenchmarkReadIPCFileBytesNested(b *testing.B) {
	for _, rows := range []int{1 << 20, 1 << 22} {
		b.Run(fmt.Sprintf("rows=%dMi", rows>>20), func(b *testing.B) {
			mem := memory.NewGoAllocator()
			du := array.NewDenseUnionBuilder(mem, arrow.DenseUnionOf([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int64}, {Name: "s", Type: arrow.BinaryTypes.String}}, []arrow.UnionTypeCode{2, 5}))
			sv := array.NewStringViewBuilder(mem)
			lv := array.NewListViewBuilder(mem, arrow.PrimitiveTypes.Int64)
			for i := range rows {
				if i%2 == 0 {
					du.Append(2)
					du.Child(0).(*array.Int64Builder).Append(int64(i))
				} else {
					du.Append(5)
					du.Child(1).(*array.StringBuilder).Append("ab")
				}
				if i%3 == 0 {
					sv.Append("a string longer than twelve bytes")
				} else {
					sv.Append("short")
				}
				lv.AppendWithSize(true, 1)
				lv.ValueBuilder().(*array.Int64Builder).Append(int64(i))
			}
			cols := []arrow.Array{du.NewArray(), sv.NewArray(), lv.NewArray()}
			du.Release()
			sv.Release()
			lv.Release()
			fields := make([]arrow.Field, len(cols))
			chunks := make([][]arrow.Array, len(cols))
			for i, c := range cols {
				fields[i] = arrow.Field{Name: fmt.Sprint(i), Type: c.DataType()}
				chunks[i] = []arrow.Array{c}
			}
			tbl := array.NewTableFromSlice(arrow.NewSchema(fields, nil), chunks)
			for _, c := range cols {
				c.Release()
			}
			benchReadRows(b, mem, tbl, rows)
		})
	}
}
