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
	meta := good[ms[1][0] : ms[1][0]+ms[1][1]]
	v := &fbVerifier{b: meta, budget: len(meta)}
	root, _ := v.root(messageFB)
	p, _ := v.field(root, 2)
	rb, _ := v.deref(p)
	q, _ := v.field(rb, 2)
	bufs, _ := v.deref(q)
	n, first, _ := v.vector(bufs, 16)
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
