package arrowext

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// streamWith returns an IPC stream of one fixed-shape column of 64 rows.
func streamWith(t *testing.T, opts ...WriteOption) []byte {
	t.Helper()
	typ, err := NewFixedShapeTensorType(arrow.PrimitiveTypes.Int64, []int64{2, 2}, []string{"a", "b"}, nil)
	require.NoError(t, err)
	b, err := NewFixedShapeTensorBuilder(memory.DefaultAllocator, typ)
	require.NoError(t, err)
	defer b.Release()
	for range 64 {
		require.NoError(t, b.AppendNull())
	}
	col := b.NewArray()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "t", Type: typ, Nullable: true}}, nil)
	tbl := array.NewTableFromSlice(schema, [][]arrow.Array{{col}})
	defer tbl.Release()
	var buf bytes.Buffer
	require.NoError(t, WriteIPCStream(&buf, tbl, opts...))
	return buf.Bytes()
}

// messages returns the positions of the metadata of each message of a
// stream.
func messages(data []byte) [][2]int {
	var out [][2]int
	for p := 0; p+8 <= len(data); {
		n := int(binary.LittleEndian.Uint32(data[p+4:]))
		if n == 0 {
			break
		}
		meta := data[p+8 : p+8+n]
		v := &fbVerifier{b: meta, budget: len(meta)}
		t, _ := v.root(messageFB)
		bp, _ := v.field(t, 3)
		body := 0
		if bp != 0 {
			body = int(binary.LittleEndian.Uint64(meta[bp:]))
		}
		out = append(out, [2]int{p + 8, n})
		p += 8 + n + body
	}
	return out
}

// batchVector returns, for the record batch of a stream of two messages
// (schema, batch), the position in the stream of that batch's metadata
// and the length and metadata position of the vector of 16-byte structs
// in the batch's slot s (1: field nodes, 2: buffers), and the position of
// its length field.
func batchVector(t *testing.T, stream []byte, s int) (at, n, first, lenAt int) {
	t.Helper()
	ms := messages(stream)
	require.Len(t, ms, 2)
	meta := stream[ms[1][0] : ms[1][0]+ms[1][1]]
	v := &fbVerifier{b: meta, budget: len(meta)}
	root, err := v.root(messageFB)
	require.NoError(t, err)
	p, _ := v.field(root, 2)
	rb, _ := v.deref(p)
	lenAt, _ = v.field(rb, 0)
	n, first = v.pairs(rb, s)
	return ms[1][0], n, first, lenAt
}

func TestVerifyIPCStream(t *testing.T) {
	good := streamWith(t)
	require.NoError(t, verifyIPCStream(good))
	ms := messages(good)
	require.Len(t, ms, 2) // schema, record batch

	// A body longer than the stream.
	bad := bytes.Clone(good)
	meta := bad[ms[1][0] : ms[1][0]+ms[1][1]]
	v := &fbVerifier{b: meta, budget: len(meta)}
	root, err := v.root(messageFB)
	require.NoError(t, err)
	bp, _ := v.field(root, 3)
	binary.LittleEndian.PutUint64(meta[bp:], 1<<40)
	assert.ErrorIs(t, verifyIPCStream(bad), arrow.ErrInvalid)
	_, err = ReadIPCStream(bytes.NewReader(bad))
	assert.ErrorIs(t, err, arrow.ErrInvalid)

	// A vector claiming more elements than the metadata holds: every
	// uint32 of the schema's metadata set to a huge value in turn.
	schema := good[ms[0][0] : ms[0][0]+ms[0][1]]
	caught := 0
	for i := 0; i+4 <= len(schema); i += 4 {
		bad := bytes.Clone(good)
		binary.LittleEndian.PutUint32(bad[ms[0][0]+i:], 0x7fffff00)
		if err := verifyIPCStream(bad); err != nil {
			assert.ErrorIs(t, err, arrow.ErrInvalid)
			caught++
			continue
		}
		// What the verifier lets through, arrow-go reads or refuses
		// without exhausting memory.
		if tbl, err := ReadIPCStream(bytes.NewReader(bad)); err == nil {
			tbl.Release()
		}
	}
	assert.Positive(t, caught)
}

func TestVerifyCompressedClaims(t *testing.T) {
	good := streamWith(t, WithCompression(Zstd))
	require.NoError(t, verifyIPCStream(good))
	tbl, err := ReadIPCStream(bytes.NewReader(good))
	require.NoError(t, err)
	tbl.Release()
	ms := messages(good)
	_, n, first, _ := batchVector(t, good, 2)
	meta := good[ms[1][0] : ms[1][0]+ms[1][1]]
	body := ms[1][0] + ms[1][1]
	lied := 0
	for i := range n {
		off := int(binary.LittleEndian.Uint64(meta[first+16*i:]))
		length := int(binary.LittleEndian.Uint64(meta[first+16*i+8:]))
		if length < 8 {
			continue
		}
		bad := bytes.Clone(good)
		binary.LittleEndian.PutUint64(bad[body+off:], 1<<45) // 32 TiB
		assert.ErrorIs(t, verifyIPCStream(bad), arrow.ErrInvalid)
		_, err := ReadIPCStream(bytes.NewReader(bad))
		assert.ErrorIs(t, err, arrow.ErrInvalid)
		lied++
	}
	assert.Positive(t, lied)
}

// plainStream returns an IPC stream of one int64 column of 37 rows, 3 of
// them null.
func plainStream(t *testing.T) []byte {
	t.Helper()
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	for i := range 37 {
		if i%12 == 5 {
			b.AppendNull()
		} else {
			b.Append(int64(i))
		}
	}
	col := b.NewArray()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	tbl := array.NewTableFromSlice(schema, [][]arrow.Array{{col}})
	defer tbl.Release()
	var buf bytes.Buffer
	require.NoError(t, WriteIPCStream(&buf, tbl))
	return buf.Bytes()
}

// TestVerifyFieldNodes checks that null counts below 0 or above the
// slots, and negative lengths, are refused before arrow-go builds arrays
// from them (it counts a negative null count from the validity bitmap
// when first asked, which panics on a short one).
func TestVerifyFieldNodes(t *testing.T) {
	good := plainStream(t)
	tbl, err := ReadIPCStream(bytes.NewReader(good))
	require.NoError(t, err)
	assert.Equal(t, 3, tbl.Column(0).Data().Chunk(0).NullN())
	tbl.Release()

	at, n, first, lp := batchVector(t, good, 1)
	meta := good[at:]
	require.Equal(t, 1, n)
	require.Equal(t, uint64(37), binary.LittleEndian.Uint64(meta[lp:]))
	require.Equal(t, uint64(37), binary.LittleEndian.Uint64(meta[first:]))
	require.Equal(t, uint64(3), binary.LittleEndian.Uint64(meta[first+8:]))

	for _, c := range []struct {
		name string
		at   int
		v    int64
		want string
	}{
		{"negative null count", first + 8, -1, "claims -1 nulls among 37 slots"},
		{"more nulls than slots", first + 8, 38, "claims 38 nulls among 37 slots"},
		{"negative node length", first, -5, "claims 3 nulls among -5 slots"},
		{"negative batch length", lp, -1, "claims -1 rows"},
	} {
		t.Run(c.name, func(t *testing.T) {
			bad := bytes.Clone(good)
			binary.LittleEndian.PutUint64(bad[at+c.at:], uint64(c.v))
			err := verifyIPCStream(bad)
			require.ErrorIs(t, err, arrow.ErrInvalid)
			assert.Contains(t, err.Error(), c.want)
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			_, err = ReadIPCStream(bytes.NewReader(bad), WithAllocator(mem))
			assert.ErrorIs(t, err, arrow.ErrInvalid)
		})
	}
}

// assertRefusal asserts that err is nil when want is empty, and otherwise
// an error wrapping arrow.ErrInvalid whose message contains want.
func assertRefusal(t *testing.T, err error, want, name string) {
	t.Helper()
	if want == "" {
		assert.NoError(t, err, name)
	} else if assert.ErrorIs(t, err, arrow.ErrInvalid, name) {
		assert.Contains(t, err.Error(), want, name)
	}
}

// TestCheckColumnBuffers checks that a column of any type claiming nulls with a
// validity bitmap too short for its slots is refused, at any depth.
func TestCheckColumnBuffers(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	vals := memory.NewBufferBytes(make([]byte, 8*37))
	short := memory.NewBufferBytes([]byte{0xff, 0xff}) // 16 bits for 37 slots
	full := memory.NewBufferBytes([]byte{0xff, 0xff, 0xff, 0xff, 0xdf})

	good := array.NewData(arrow.PrimitiveTypes.Int64, 37, []*memory.Buffer{full, vals}, nil, 1, 0)
	defer good.Release()
	require.NoError(t, checkColumnBuffers(good, 0))
	noNulls := array.NewData(arrow.PrimitiveTypes.Int64, 37, []*memory.Buffer{short, vals}, nil, 0, 0)
	defer noNulls.Release()
	require.NoError(t, checkColumnBuffers(noNulls, 0), "without nulls the bitmap is not read")

	bad := array.NewData(arrow.PrimitiveTypes.Int64, 37, []*memory.Buffer{short, vals}, nil, 1, 0)
	defer bad.Release()
	err := checkColumnBuffers(bad, 0)
	require.ErrorIs(t, err, arrow.ErrInvalid)
	assert.Contains(t, err.Error(), "a validity bitmap of 2 bytes does not cover its 37 slots")

	// Values buffers too short for their slots.
	shortVals := array.NewData(arrow.PrimitiveTypes.Int64, 37, []*memory.Buffer{nil, memory.NewBufferBytes(make([]byte, 8*36))}, nil, 0, 0)
	defer shortVals.Release()
	err = checkColumnBuffers(shortVals, 0)
	require.ErrorIs(t, err, arrow.ErrInvalid)
	assert.Contains(t, err.Error(), "int64: 37 values need 296 bytes, the buffer has 288")
	bools := array.NewData(arrow.FixedWidthTypes.Boolean, 37, []*memory.Buffer{nil, memory.NewBufferBytes(make([]byte, 4))}, nil, 0, 0)
	defer bools.Release()
	assert.ErrorIs(t, checkColumnBuffers(bools, 0), arrow.ErrInvalid)
	bools5 := array.NewData(arrow.FixedWidthTypes.Boolean, 37, []*memory.Buffer{nil, memory.NewBufferBytes(make([]byte, 5))}, nil, 0, 0)
	defer bools5.Release()
	assert.NoError(t, checkColumnBuffers(bools5, 0))

	// Offsets: too few, descending, past the values; and good ones.
	i32 := le32
	child := array.NewData(arrow.PrimitiveTypes.Int64, 4, []*memory.Buffer{nil, memory.NewBufferBytes(make([]byte, 32))}, nil, 0, 0)
	defer child.Release()
	text := memory.NewBufferBytes([]byte("abcd"))
	for _, c := range []struct {
		name string
		typ  arrow.DataType
		n    int
		offs *memory.Buffer
		want string // "" for no error
	}{
		{"list ok", arrow.ListOf(arrow.PrimitiveTypes.Int64), 3, i32(0, 1, 1, 4), ""},
		{"list too few", arrow.ListOf(arrow.PrimitiveTypes.Int64), 3, i32(0, 1), "need 4 offsets, the buffer holds 2"},
		{"list descending", arrow.ListOf(arrow.PrimitiveTypes.Int64), 3, i32(0, 3, 1, 4), "offsets descend at slot 1 (1 after 3)"},
		{"list past child", arrow.ListOf(arrow.PrimitiveTypes.Int64), 3, i32(0, 1, 2, 5), "the last offset, 5, is past the 4 values"},
		{"list negative", arrow.ListOf(arrow.PrimitiveTypes.Int64), 3, i32(-1, 1, 2, 4), "offset 0 is -1"},
		{"string ok", arrow.BinaryTypes.String, 2, i32(0, 2, 4), ""},
		{"string past data", arrow.BinaryTypes.String, 2, i32(0, 2, 9), "the last offset, 9, is past the 4 values"},
	} {
		var d *array.Data
		if c.typ.ID() == arrow.LIST {
			d = array.NewData(c.typ, c.n, []*memory.Buffer{nil, c.offs}, []arrow.ArrayData{child}, 0, 0)
		} else {
			d = array.NewData(c.typ, c.n, []*memory.Buffer{nil, c.offs, text}, nil, 0, 0)
		}
		assertRefusal(t, checkColumnBuffers(d, 0), c.want, c.name)
		d.Release()
	}
	fsl := array.NewData(arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int64), 3, []*memory.Buffer{nil}, []arrow.ArrayData{child}, 0, 0)
	defer fsl.Release()
	err = checkColumnBuffers(fsl, 0)
	require.ErrorIs(t, err, arrow.ErrInvalid)
	assert.Contains(t, err.Error(), "3 lists of 2 values need 6 values, the child has 4")

	// The same child inside a list column.
	offsets := make([]byte, 4*2)
	binary.LittleEndian.PutUint32(offsets[4:], 37)
	list := array.NewData(arrow.ListOf(arrow.PrimitiveTypes.Int64), 1, []*memory.Buffer{nil, memory.NewBufferBytes(offsets)}, []arrow.ArrayData{bad}, 0, 0)
	defer list.Release()
	assert.ErrorIs(t, checkColumnBuffers(list, 0), arrow.ErrInvalid)

	// And as a dictionary.
	idx := array.NewData(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.PrimitiveTypes.Int64}, 1, []*memory.Buffer{nil, memory.NewBufferBytes([]byte{0})}, nil, 0, 0)
	defer idx.Release()
	idx.SetDictionary(bad)
	assert.ErrorIs(t, checkColumnBuffers(idx, 0), arrow.ErrInvalid)

	// Dictionary indices: within the dictionary (signed and unsigned, null
	// slots ignored), and present.
	for _, c := range []struct {
		name  string
		it    arrow.DataType
		idx   []byte
		valid []byte
		want  string
	}{
		{"int8 in range", arrow.PrimitiveTypes.Int8, []byte{0, 3, 1}, nil, ""},
		{"int8 negative", arrow.PrimitiveTypes.Int8, []byte{0, 0xff, 1}, nil, "slot 1 indexes value -1 of a 4-value dictionary"},
		{"uint8 past the end", arrow.PrimitiveTypes.Uint8, []byte{0, 4, 1}, nil, "slot 1 indexes value 4 of a 4-value dictionary"},
		{"null slot not read", arrow.PrimitiveTypes.Uint8, []byte{0, 200, 1}, []byte{0b101}, ""},
		{"uint16 past the end", arrow.PrimitiveTypes.Uint16, []byte{0, 0, 1, 1, 2, 0}, nil, "slot 1 indexes value 257"},
		{"index buffer short", arrow.PrimitiveTypes.Int32, []byte{0, 0, 0, 0}, nil, "dictionary<values=int64, indices=int32, ordered=false>: 3 values need 12 bytes"},
	} {
		nulls := 0
		var vb *memory.Buffer
		if c.valid != nil {
			nulls, vb = 1, memory.NewBufferBytes(c.valid)
		}
		dt := &arrow.DictionaryType{IndexType: c.it, ValueType: arrow.PrimitiveTypes.Int64}
		d := array.NewData(dt, 3, []*memory.Buffer{vb, memory.NewBufferBytes(c.idx)}, nil, nulls, 0)
		d.SetDictionary(child)
		assertRefusal(t, checkColumnBuffers(d, 0), c.want, c.name)
		d.Release()
	}
	// A null-typed column has no bitmap and every slot null: it passes.
	nulls := array.NewData(arrow.Null, 5, []*memory.Buffer{nil}, nil, 5, 0)
	defer nulls.Release()
	assert.NoError(t, checkColumnBuffers(nulls, 0))
	noDict := array.NewData(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.PrimitiveTypes.Int64}, 1, []*memory.Buffer{nil, memory.NewBufferBytes([]byte{0})}, nil, 0, 0)
	defer noDict.Release()
	assert.ErrorIs(t, checkColumnBuffers(noDict, 0), arrow.ErrInvalid)

	// Through ReadIPCStream's table check.
	col := array.MakeFromData(bad)
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	tbl := array.NewTableFromSlice(schema, [][]arrow.Array{{col}})
	defer tbl.Release()
	err = checkTableLayout(tbl)
	require.ErrorIs(t, err, arrow.ErrInvalid)
	assert.Contains(t, err.Error(), `column "x"`)
}

// TestFailedReadReleases checks that a read arrow-go fails on gives back
// everything it allocated: a values buffer moved to the end of the body,
// too short for its 37 slots, passes the metadata checks, and arrow-go's
// reader then fails without releasing the message body it read.
func TestFailedReadReleases(t *testing.T) {
	good := plainStream(t)
	at, n, first, _ := batchVector(t, good, 2)
	require.Equal(t, 2, n)
	require.Equal(t, uint64(296), binary.LittleEndian.Uint64(good[at+first+24:]), "the values buffer")
	bad := bytes.Clone(good)
	binary.LittleEndian.PutUint64(bad[at+first+16:], 296) // offset: the body's last 8 bytes
	binary.LittleEndian.PutUint64(bad[at+first+24:], 8)
	require.NoError(t, verifyIPCStream(bad))

	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	_, err := ReadIPCStream(bytes.NewReader(bad), WithAllocator(mem))
	require.ErrorIs(t, err, arrow.ErrInvalid)

	// Shortened where it is: arrow-go would build the column over the
	// bytes that follow the buffer.
	bad = bytes.Clone(good)
	binary.LittleEndian.PutUint64(bad[at+first+24:], 8)
	_, err = ReadIPCStream(bytes.NewReader(bad), WithAllocator(mem))
	require.ErrorIs(t, err, arrow.ErrInvalid)
	assert.Contains(t, err.Error(), "int64: 37 values need 296 bytes, the buffer has 8")

	// trackingAllocator itself: what is still out when releaseAll runs goes
	// back, what was freed before is not freed twice, and a reallocated
	// buffer is tracked at its new address.
	ra := newTrackingAllocator(mem)
	a := ra.Allocate(100)
	b := ra.Allocate(200)
	c := ra.Allocate(0)
	b = ra.Reallocate(5000, b)
	assert.Len(t, b, 5000)
	ra.Free(a)
	assert.Equal(t, 5000+len(c), mem.CurrentAlloc())
	ra.releaseAll()
	assert.Zero(t, mem.CurrentAlloc())
	ra.releaseAll()
	assert.Zero(t, mem.CurrentAlloc())
}
