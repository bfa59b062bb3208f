package wire

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
)

// message builds a Message table around a header written by hdr.
func buildMessage(kind HeaderKind, hdr func(b *builder) int) []byte {
	b := newBuilder(0)
	h := hdr(b)
	b.startTable()
	b.addOffset(msgHeader, h)
	b.addI16(msgVersion, int16(V5), 0)
	b.addU8(msgHeaderType, uint8(kind), 0)
	return b.finish(b.endTable())
}

func intTable(b *builder, width int32) int {
	b.startTable()
	b.addI32(intBitWidth, width, 0)
	b.addBool(intIsSigned, true)
	return b.endTable()
}

func dimsVector(b *builder) int {
	return b.dims([]Dim{{Size: 2}, {Size: 3}})
}

// TestVerifierRequiredFields: a table missing a required field is rejected
// by the verifier, as the C++ Verifier does.
func TestVerifierRequiredFields(t *testing.T) {
	sparse := func(skip int, index func(b *builder) (IndexKind, int)) []byte {
		return buildMessage(HeaderSparseTensor, func(b *builder) int {
			b.startTable()
			b.addI16(fpPrecision, precisionSingle, 0)
			typ := b.endTable()
			shape := dimsVector(b)
			kind, idx := index(b)
			b.startTable()
			if skip != sparseData {
				b.addBuffer(sparseData, Buffer{})
			}
			if skip != sparseIndex {
				b.addOffset(sparseIndex, idx)
			}
			if skip != sparseShape {
				b.addOffset(sparseShape, shape)
			}
			if skip != sparseType {
				b.addOffset(sparseType, typ)
			}
			b.addU8(sparseIndexType, uint8(kind), 0)
			b.addU8(sparseTypeType, typeTagFloatingPoint, 0)
			return b.endTable()
		})
	}
	coo := func(skip int) func(b *builder) (IndexKind, int) {
		return func(b *builder) (IndexKind, int) {
			it := intTable(b, 64)
			b.startTable()
			if skip != cooIndicesBuffer {
				b.addBuffer(cooIndicesBuffer, Buffer{})
			}
			if skip != cooIndicesType {
				b.addOffset(cooIndicesType, it)
			}
			return IndexCOO, b.endTable()
		}
	}
	csx := func(skip int) func(b *builder) (IndexKind, int) {
		return func(b *builder) (IndexKind, int) {
			p, i := intTable(b, 32), intTable(b, 32)
			b.startTable()
			if skip != csxIndicesBuffer {
				b.addBuffer(csxIndicesBuffer, Buffer{})
			}
			if skip != csxIndicesType {
				b.addOffset(csxIndicesType, i)
			}
			if skip != csxIndptrBuffer {
				b.addBuffer(csxIndptrBuffer, Buffer{})
			}
			if skip != csxIndptrType {
				b.addOffset(csxIndptrType, p)
			}
			return IndexCSX, b.endTable()
		}
	}
	csf := func(skip int) func(b *builder) (IndexKind, int) {
		return func(b *builder) (IndexKind, int) {
			p, i := intTable(b, 32), intTable(b, 32)
			ib := b.createBufferVector([]Buffer{{}, {}})
			pb := b.createBufferVector([]Buffer{{}})
			ax := b.createInt32Vector([]int32{0, 1})
			b.startTable()
			for _, f := range []struct{ id, off int }{
				{csfAxisOrder, ax}, {csfIndicesBuffers, ib}, {csfIndicesType, i}, {csfIndptrBuffers, pb}, {csfIndptrType, p},
			} {
				if f.id != skip {
					b.addOffset(f.id, f.off)
				}
			}
			return IndexCSF, b.endTable()
		}
	}

	// The complete messages decode.
	for _, idx := range []func(*builder) (IndexKind, int){coo(-1), csx(-1), csf(-1)} {
		_, err := DecodeMetadata(sparse(-1, idx))
		require.NoError(t, err)
	}
	cases := map[string][]byte{
		"SparseTensor.type":        sparse(sparseType, coo(-1)),
		"SparseTensor.shape":       sparse(sparseShape, coo(-1)),
		"SparseTensor.sparseIndex": sparse(sparseIndex, coo(-1)),
		"SparseTensor.data":        sparse(sparseData, coo(-1)),
		"COO.indicesType":          sparse(-1, coo(cooIndicesType)),
		"COO.indicesBuffer":        sparse(-1, coo(cooIndicesBuffer)),
		"CSX.indptrType":           sparse(-1, csx(csxIndptrType)),
		"CSX.indptrBuffer":         sparse(-1, csx(csxIndptrBuffer)),
		"CSX.indicesType":          sparse(-1, csx(csxIndicesType)),
		"CSX.indicesBuffer":        sparse(-1, csx(csxIndicesBuffer)),
		"CSF.indptrType":           sparse(-1, csf(csfIndptrType)),
		"CSF.indptrBuffers":        sparse(-1, csf(csfIndptrBuffers)),
		"CSF.indicesType":          sparse(-1, csf(csfIndicesType)),
		"CSF.indicesBuffers":       sparse(-1, csf(csfIndicesBuffers)),
		"CSF.axisOrder":            sparse(-1, csf(csfAxisOrder)),
	}
	for _, skip := range []int{tensorType, tensorShape, tensorData} {
		cases["Tensor field "+string(rune('0'+skip))] = buildMessage(HeaderTensor, func(b *builder) int {
			typ := intTable(b, 8)
			shape := dimsVector(b)
			b.startTable()
			if skip != tensorData {
				b.addBuffer(tensorData, Buffer{})
			}
			if skip != tensorShape {
				b.addOffset(tensorShape, shape)
			}
			if skip != tensorType {
				b.addOffset(tensorType, typ)
			}
			b.addU8(tensorTypeType, typeTagInt, 0)
			return b.endTable()
		})
	}
	for name, meta := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := DecodeMetadata(meta)
			require.ErrorIs(t, err, arrowsparse.ErrStructure)
			assert.Contains(t, err.Error(), "required field")
		})
	}
}

func goldenMeta(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../../../testdata/interop/golden", name+".arrow"))
	require.NoError(t, err)
	m := binary.LittleEndian.Uint32(data[4:])
	return data[8 : 8+m]
}

// TestVerifierMutations: every truncation and every single-byte change of
// real metadata is either decoded or rejected with an ErrStructure-class
// error, never a panic or an uncategorised error.
func TestVerifierMutations(t *testing.T) {
	for _, name := range []string{"coo", "csf", "csc", "tensor"} {
		meta := goldenMeta(t, name)
		m, err := DecodeMetadata(meta)
		require.NoError(t, err)
		fb, err := EncodeMetadata(m)
		require.NoError(t, err)
		for n := 0; n < len(meta); n++ {
			_, err := DecodeMetadata(meta[:n])
			if n < len(fb) { // the flatbuffer reaches past every shorter prefix
				require.Error(t, err, "%s truncated to %d bytes", name, n)
			}
			if err != nil {
				require.ErrorIs(t, err, arrow.ErrInvalid)
			}
		}
		buf := make([]byte, len(meta))
		for i := range meta {
			for _, v := range []byte{0x00, 0x01, 0x7f, 0x80, 0xff} {
				copy(buf, meta)
				buf[i] = v
				_, err := DecodeMetadata(buf)
				if err != nil && !errors.Is(err, arrow.ErrInvalid) && !errors.Is(err, arrow.ErrType) {
					t.Fatalf("%s byte %d = %#x: uncategorised error %v", name, i, v, err)
				}
			}
		}
	}
}

// TestVerifierChecks covers the individual verifier rules on hand-made
// buffers.
func TestVerifierChecks(t *testing.T) {
	coo := goldenMeta(t, "coo")
	root := int(binary.LittleEndian.Uint32(coo))
	for _, tc := range []struct {
		name string
		edit func(b []byte)
		msg  string
	}{
		{"root offset zero", func(b []byte) { binary.LittleEndian.PutUint32(b, 0) }, "zero or negative"},
		{"root offset negative", func(b []byte) { binary.LittleEndian.PutUint32(b, 0x80000000) }, "zero or negative"},
		{"root offset outside", func(b []byte) { binary.LittleEndian.PutUint32(b, 1000) }, "outside"},
		{"root misaligned", func(b []byte) { binary.LittleEndian.PutUint32(b, uint32(root+2)) }, "aligned"},
		{"vtable outside", func(b []byte) { binary.LittleEndian.PutUint32(b[root:], 0x7fff0000) }, "outside"},
		{"odd vtable size", func(b []byte) {
			vt := root - int(int32(binary.LittleEndian.Uint32(b[root:])))
			binary.LittleEndian.PutUint16(b[vt:], 13)
		}, "odd"},
		{"vtable too large", func(b []byte) {
			vt := root - int(int32(binary.LittleEndian.Uint32(b[root:])))
			binary.LittleEndian.PutUint16(b[vt:], 0xfffe)
		}, "outside"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := append([]byte{}, coo...)
			tc.edit(b)
			_, err := DecodeMetadata(b)
			require.ErrorIs(t, err, arrowsparse.ErrStructure)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}

	// A dimension name without its NUL terminator.
	b := append([]byte{}, coo...)
	i := lastIndex(b, "col")
	require.Positive(t, i)
	b[i+3] = 'x'
	_, err := DecodeMetadata(b)
	require.ErrorIs(t, err, arrowsparse.ErrStructure)
	assert.Contains(t, err.Error(), "NUL")

	// A vector whose length runs past the buffer.
	tensor := buildMessage(HeaderTensor, func(b *builder) int {
		typ := intTable(b, 8)
		shape := dimsVector(b)
		strides := b.createInt64Vector([]int64{3, 1})
		b.startTable()
		b.addBuffer(tensorData, Buffer{})
		b.addOffset(tensorStrides, strides)
		b.addOffset(tensorShape, shape)
		b.addOffset(tensorType, typ)
		b.addU8(tensorTypeType, typeTagInt, 0)
		return b.endTable()
	})
	m, err := DecodeMetadata(tensor)
	require.NoError(t, err)
	require.Equal(t, []int64{3, 1}, m.Tensor.Strides)
	j := indexOfInt64s(tensor, 3, 1)
	require.Positive(t, j)
	binary.LittleEndian.PutUint32(tensor[j-4:], 1<<20)
	_, err = DecodeMetadata(tensor)
	require.ErrorIs(t, err, arrowsparse.ErrStructure)
	assert.Contains(t, err.Error(), "Tensor.strides")
}

func lastIndex(b []byte, s string) int {
	for i := len(b) - len(s); i >= 0; i-- {
		if string(b[i:i+len(s)]) == s {
			return i
		}
	}
	return -1
}

func indexOfInt64s(b []byte, x, y int64) int {
	for i := 0; i+16 <= len(b); i += 4 {
		if int64(binary.LittleEndian.Uint64(b[i:])) == x && int64(binary.LittleEndian.Uint64(b[i+8:])) == y {
			return i
		}
	}
	return -1
}

func TestBufferEnd(t *testing.T) {
	e, ok := Buffer{Offset: 8, Length: 16}.End()
	assert.True(t, ok)
	assert.Equal(t, int64(24), e)
	_, ok = Buffer{Offset: 1 << 62, Length: 1 << 62}.End()
	assert.False(t, ok)
	_, ok = Buffer{Offset: -1, Length: 1}.End()
	assert.False(t, ok)
}
