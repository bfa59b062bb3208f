package arrowext

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse/internal/testing/layouts"
)

// le32 and le64 return a buffer of little-endian integers.
func le32(v ...int32) *memory.Buffer {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return memory.NewBufferBytes(b)
}

func le64(v ...int64) *memory.Buffer {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
	return memory.NewBufferBytes(b)
}

// view returns a 16-byte string view of n bytes at offset off of data
// buffer b (inline when n ≤ 12).
func view(n, b, off int32) []byte {
	v := make([]byte, 16)
	binary.LittleEndian.PutUint32(v, uint32(n))
	if n > 12 {
		binary.LittleEndian.PutUint32(v[8:], uint32(b))
		binary.LittleEndian.PutUint32(v[12:], uint32(off))
	}
	return v
}

// TestCheckNested checks the layouts whose slots reach their children or
// buffers through data of their own: each lie is refused with a message
// naming the slot, and data that tells the truth, at an offset too,
// passes.
func TestCheckNested(t *testing.T) {
	i64 := func(n int) arrow.ArrayData {
		return array.NewData(arrow.PrimitiveTypes.Int64, n, []*memory.Buffer{nil, memory.NewBufferBytes(make([]byte, 8*n))}, nil, 0, 0)
	}
	four, two := i64(4), i64(2)
	defer four.Release()
	defer two.Release()
	text := memory.NewBufferBytes(bytes.Repeat([]byte("x"), 40))

	sparse := arrow.SparseUnionOf([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}, {Name: "b", Type: arrow.PrimitiveTypes.Int64}}, []arrow.UnionTypeCode{3, 7})
	dense := arrow.DenseUnionOf(sparse.Fields(), sparse.TypeCodes())
	ree := arrow.RunEndEncodedOf(arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64)
	lv := arrow.ListViewOf(arrow.PrimitiveTypes.Int64)
	llv := arrow.LargeListViewOf(arrow.PrimitiveTypes.Int64)
	st := arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64}, arrow.Field{Name: "b", Type: arrow.PrimitiveTypes.Int64})
	views := func(vs ...[]byte) *memory.Buffer { return memory.NewBufferBytes(bytes.Join(vs, nil)) }

	for _, c := range []struct {
		name     string
		typ      arrow.DataType
		n, off   int
		bufs     []*memory.Buffer
		children []arrow.ArrayData
		nulls    int
		want     string // "" for no error
	}{
		{"struct ok", st, 4, 0, []*memory.Buffer{nil}, []arrow.ArrayData{four, four}, 0, ""},
		{"struct short field", st, 4, 0, []*memory.Buffer{nil}, []arrow.ArrayData{four, two}, 0, "field 1 has 2 values for 4 slots"},
		{"struct offset past field", st, 2, 1, []*memory.Buffer{nil}, []arrow.ArrayData{two, two}, 0, "field 0 has 2 values for 3 slots"},

		{"sparse union ok", sparse, 4, 0, []*memory.Buffer{nil, memory.NewBufferBytes([]byte{3, 7, 7, 3})}, []arrow.ArrayData{four, four}, 0, ""},
		{"sparse union bad code", sparse, 4, 0, []*memory.Buffer{nil, memory.NewBufferBytes([]byte{3, 7, 5, 3})}, []arrow.ArrayData{four, four}, 0, "slot 2 has type id 5, not one of the type's"},
		{"sparse union negative code", sparse, 4, 0, []*memory.Buffer{nil, memory.NewBufferBytes([]byte{3, 0x80, 7, 3})}, []arrow.ArrayData{four, four}, 0, "slot 1 has type id -128"},
		{"sparse union short ids", sparse, 4, 0, []*memory.Buffer{nil, memory.NewBufferBytes([]byte{3, 7})}, []arrow.ArrayData{four, four}, 0, "4 slots need 4 type ids, the buffer holds 2"},
		{"sparse union short child", sparse, 4, 0, []*memory.Buffer{nil, memory.NewBufferBytes([]byte{3, 7, 7, 3})}, []arrow.ArrayData{four, two}, 0, "field 1 has 2 values for 4 slots"},
		{"sparse union missing child", sparse, 4, 0, []*memory.Buffer{nil, memory.NewBufferBytes([]byte{3, 7, 7, 3})}, []arrow.ArrayData{four}, 0, "has 1 children, want 2"},

		{"dense union ok", dense, 4, 0, []*memory.Buffer{nil, memory.NewBufferBytes([]byte{3, 7, 7, 3}), le32(0, 0, 1, 3)}, []arrow.ArrayData{four, two}, 0, ""},
		{"dense union offset past child", dense, 4, 0, []*memory.Buffer{nil, memory.NewBufferBytes([]byte{3, 7, 7, 3}), le32(0, 0, 2, 3)}, []arrow.ArrayData{four, two}, 0, "slot 2 has offset 2 into field 1 of 2 values"},
		{"dense union negative offset", dense, 4, 0, []*memory.Buffer{nil, memory.NewBufferBytes([]byte{3, 7, 7, 3}), le32(-1, 0, 1, 3)}, []arrow.ArrayData{four, two}, 0, "slot 0 has offset -1"},
		{"dense union short offsets", dense, 4, 0, []*memory.Buffer{nil, memory.NewBufferBytes([]byte{3, 7, 7, 3}), le32(0, 0)}, []arrow.ArrayData{four, two}, 0, "4 slots need 4 offsets, the buffer holds 2"},
		{"dense union sliced", dense, 2, 2, []*memory.Buffer{nil, memory.NewBufferBytes([]byte{9, 9, 7, 3}), le32(99, 99, 1, 3)}, []arrow.ArrayData{four, two}, 0, ""},

		{"string view ok", arrow.BinaryTypes.StringView, 3, 0, []*memory.Buffer{nil, views(view(5, 0, 0), view(20, 0, 20), view(13, 1, 27)), text, text}, nil, 0, ""},
		{"string view past data", arrow.BinaryTypes.StringView, 3, 0, []*memory.Buffer{nil, views(view(5, 0, 0), view(20, 0, 21), view(13, 1, 27)), text, text}, nil, 0, "slot 1 has bytes [21, 41) of a 40-byte data buffer"},
		{"string view no such buffer", arrow.BinaryTypes.StringView, 3, 0, []*memory.Buffer{nil, views(view(5, 0, 0), view(20, 0, 20), view(13, 2, 27)), text, text}, nil, 0, "slot 2 names data buffer 2 of 2"},
		{"binary view negative length", arrow.BinaryTypes.BinaryView, 2, 0, []*memory.Buffer{nil, views(view(-3, 0, 0), view(1, 0, 0))}, nil, 0, "slot 0 has length -3"},
		{"binary view negative offset", arrow.BinaryTypes.BinaryView, 1, 0, []*memory.Buffer{nil, views(view(13, 0, -1)), text}, nil, 0, "slot 0 has bytes [-1, 12)"},
		{"binary view short views", arrow.BinaryTypes.BinaryView, 3, 0, []*memory.Buffer{nil, views(view(1, 0, 0), view(1, 0, 0))}, nil, 0, "3 slots need 3 views, the buffer holds 2"},
		{"string view null slot not read", arrow.BinaryTypes.StringView, 2, 0, []*memory.Buffer{memory.NewBufferBytes([]byte{0b10}), views(view(99, 7, 7), view(4, 0, 0))}, nil, 1, ""},

		{"list view ok", lv, 3, 0, []*memory.Buffer{nil, le32(2, 0, 4), le32(2, 4, 0)}, []arrow.ArrayData{four}, 0, ""},
		{"list view past child", lv, 3, 0, []*memory.Buffer{nil, le32(2, 1, 4), le32(2, 4, 0)}, []arrow.ArrayData{four}, 0, "slot 1 has offset 1 and size 4, the child has 4 values"},
		{"list view negative size", lv, 3, 0, []*memory.Buffer{nil, le32(2, 0, 4), le32(2, -1, 0)}, []arrow.ArrayData{four}, 0, "slot 1 has offset 0 and size -1"},
		{"list view short sizes", lv, 3, 0, []*memory.Buffer{nil, le32(2, 0, 4), le32(2, 4)}, []arrow.ArrayData{four}, 0, "3 slots need 3 offsets and sizes, the buffers hold 3 and 2"},
		{"large list view overflow", llv, 1, 0, []*memory.Buffer{nil, le64(2), le64(1<<63 - 1)}, []arrow.ArrayData{four}, 0, "slot 0 has offset 2 and size 9223372036854775807"},
		{"large list view null slot not read", llv, 2, 0, []*memory.Buffer{memory.NewBufferBytes([]byte{0b01}), le64(0, -5), le64(4, 99)}, []arrow.ArrayData{four}, 1, ""},

		{"run ends ok", ree, 10, 0, []*memory.Buffer{nil}, []arrow.ArrayData{i32Data(3, 4, 10), four}, 0, ""},
		{"run ends sliced", ree, 3, 7, []*memory.Buffer{nil}, []arrow.ArrayData{i32Data(3, 4, 10), four}, 0, ""},
		{"run ends short of the slots", ree, 10, 0, []*memory.Buffer{nil}, []arrow.ArrayData{i32Data(3, 4, 9), four}, 0, "the runs end at 9, before the 10 slots"},
		{"run ends descending", ree, 10, 0, []*memory.Buffer{nil}, []arrow.ArrayData{i32Data(3, 3, 10), four}, 0, "run 1 ends at 3, after a run ending at 3"},
		{"run ends not positive", ree, 10, 0, []*memory.Buffer{nil}, []arrow.ArrayData{i32Data(0, 4, 10), four}, 0, "run 0 ends at 0"},
		{"run ends without values", ree, 10, 0, []*memory.Buffer{nil}, []arrow.ArrayData{i32Data(3, 4, 10), two}, 0, "3 runs and 2 values"},
		{"no runs", ree, 10, 0, []*memory.Buffer{nil}, []arrow.ArrayData{i32Data(), two}, 0, "10 slots has no runs"},
	} {
		d := array.NewData(c.typ, c.n, c.bufs, c.children, c.nulls, c.off)
		assertRefusal(t, checkColumnBuffers(d, 0), c.want, c.name)
		d.Release()
	}
}

// i32Data returns an int32 array of the values v.
func i32Data(v ...int32) arrow.ArrayData {
	return array.NewData(arrow.PrimitiveTypes.Int32, len(v), []*memory.Buffer{nil, le32(v...)}, nil, 0, 0)
}

// TestNestedLayoutsRoundTrip writes nestedTable through an IPC file and
// reads it back: no column is refused and every value survives.
func TestNestedLayoutsRoundTrip(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tbl, cols := layouts.Table(mem)
	defer tbl.Release()
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	var buf bytes.Buffer
	require.NoError(t, WriteIPCFile(&buf, tbl))
	got, err := ReadIPCFileBytes(buf.Bytes(), WithAllocator(mem))
	require.NoError(t, err)
	defer got.Release()
	for i, c := range cols {
		chunks := got.Column(i).Data().Chunks()
		require.Len(t, chunks, 1)
		assert.True(t, array.Equal(c, chunks[0]), "column %s: wrote %v, read %v", c.DataType(), c, chunks[0])
	}
}

// TestWriteSlicedNested writes sliced columns that hold dense unions and
// list views at every depth arrow-go's writer slices (layouts.NestedTypes)
// and reads them back: arrow-go's writer alone panics on each.
func TestWriteSlicedNested(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, typ := range layouts.NestedTypes() {
		for _, cut := range layouts.Cuts {
			s := layouts.Sliced(mem, typ, cut[0], cut[1])
			tbl := layouts.OneColumn(s)
			for _, stream := range []bool{false, true} {
				var buf bytes.Buffer
				var got arrow.Table
				var err error
				if stream {
					require.NoError(t, WriteIPCStream(&buf, tbl, WithAllocator(mem)), "%s %v", typ, cut)
					got, err = ReadIPCStream(&buf, WithAllocator(mem))
				} else {
					require.NoError(t, WriteIPCFile(&buf, tbl, WithAllocator(mem)), "%s %v", typ, cut)
					got, err = ReadIPCFileBytes(buf.Bytes(), WithAllocator(mem))
				}
				require.NoError(t, err, "%s %v", typ, cut)
				if s.Len() > 0 {
					assert.True(t, array.Equal(s, got.Column(0).Data().Chunk(0)), "%s %v: wrote %v, read %v", typ, cut, s, got.Column(0).Data().Chunk(0))
				}
				got.Release()
			}
			tbl.Release()
			s.Release()
		}
	}
}

// TestWriteEncoderPanic checks that the IPC writers turn a panic in the
// encoder into an error.
func TestWriteEncoderPanic(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.AppendValues([]int64{1, 2, 3}, nil)
	a := b.NewArray()
	defer a.Release()
	tbl := array.NewTableFromSlice(arrow.NewSchema([]arrow.Field{{Name: "x", Type: a.DataType()}}, nil), [][]arrow.Array{{a}})
	defer tbl.Release()
	c := newWriteConfig([]WriteOption{WithAllocator(mem)})
	err := c.recordBatches(tbl, func(arrow.RecordBatch) error { panic("index out of range [3]") })
	require.ErrorIs(t, err, arrow.ErrType)
	assert.Contains(t, err.Error(), "arrow-go's encoder failed on this table (index out of range [3])")
}

// TestWriteUnrebasedUnion writes a run-end-encoded column of dense union
// values, sliced: arrow-go's writer cuts the values to the runs itself and
// panics on the sliced union, which the writers do not rebase there. Both
// return an error, and what arrow-go's encoder allocated before it
// panicked goes back to the allocator.
func TestWriteUnrebasedUnion(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	du := arrow.DenseUnionOf([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int64}, {Name: "s", Type: arrow.BinaryTypes.String}}, []arrow.UnionTypeCode{2, 5})
	rb := array.NewRunEndEncodedBuilder(mem, arrow.PrimitiveTypes.Int32, du)
	for i := range 6 {
		rb.Append(uint64(i%2 + 1))
		layouts.Fill(rb.ValueBuilder(), 1)
	}
	a := rb.NewArray()
	rb.Release()
	defer a.Release()
	s := array.NewSlice(a, 2, 7)
	defer s.Release()
	tbl := layouts.OneColumn(s)
	defer tbl.Release()
	for _, write := range []func(*bytes.Buffer) error{
		func(b *bytes.Buffer) error { return WriteIPCFile(b, tbl, WithAllocator(mem)) },
		func(b *bytes.Buffer) error { return WriteIPCStream(b, tbl, WithAllocator(mem)) },
	} {
		var buf bytes.Buffer
		err := write(&buf)
		require.Error(t, err)
		if !errors.Is(err, arrow.ErrType) {
			// The stream writer recovers the panic itself.
			assert.Contains(t, err.Error(), "index out of range")
		}
	}
}
