package wire_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/ipc/internal/wire"
)

// opaqueReader hides every method but Read, so the reader cannot tell how
// many bytes are left.
type opaqueReader struct{ r io.Reader }

func (o opaqueReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// peakAllocator records the largest number of bytes outstanding at once.
type peakAllocator struct {
	*memory.CheckedAllocator
	peak int
}

func (p *peakAllocator) update() {
	if n := p.CurrentAlloc(); n > p.peak {
		p.peak = n
	}
}

func (p *peakAllocator) Allocate(n int) []byte {
	b := p.CheckedAllocator.Allocate(n)
	p.update()
	return b
}

func (p *peakAllocator) Reallocate(n int, b []byte) []byte {
	b = p.CheckedAllocator.Reallocate(n, b)
	p.update()
	return b
}

func goldenBytes(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(interop, "golden", name+".arrow"))
	require.NoError(t, err)
	return data
}

func requireInvalid(t *testing.T, err error, kind error) {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, kind, "error: %v", err)
	require.ErrorIs(t, err, arrow.ErrInvalid, "error: %v", err)
}

// reframe returns data's message with a different Message, keeping the
// body: for building variants of golden messages.
func reframe(t *testing.T, data []byte, edit func(m *wire.Message)) []byte {
	t.Helper()
	f, err := wire.Parse(data)
	require.NoError(t, err)
	m := *f.Message
	edit(&m)
	meta, err := wire.EncodeMetadata(&m)
	require.NoError(t, err)
	out, err := wire.AppendFrame(nil, meta, wire.MetadataAlignment(m.Header))
	require.NoError(t, err)
	return append(out, f.Body...)
}

func TestLegacyPrefix(t *testing.T) {
	data := goldenBytes(t, "coo")
	legacy := append([]byte{}, data[4:]...) // drop the continuation marker
	f, err := wire.Parse(legacy)
	require.NoError(t, err)
	assert.True(t, f.Legacy)
	assert.Equal(t, len(legacy), f.Size)
	g, err := wire.Parse(data)
	require.NoError(t, err)
	assert.Equal(t, g.Message, f.Message)
	assert.Equal(t, g.Body, f.Body)

	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sf, err := wire.ReadMessage(opaqueReader{bytes.NewReader(legacy)}, wire.WithAllocator(mem))
	require.NoError(t, err)
	defer sf.Release()
	assert.True(t, sf.Legacy)
	assert.Equal(t, g.Message, sf.Message)
}

func TestEndOfStream(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for name, input := range map[string][]byte{
		"empty":                     {},
		"marker":                    wire.AppendEndOfStream(nil),
		"zero":                      {0, 0, 0, 0},
		"marker and trailing bytes": append(wire.AppendEndOfStream(nil), 1, 2, 3),
	} {
		t.Run(name, func(t *testing.T) {
			f, rest, err := wire.ParseNext(input)
			assert.Nil(t, f)
			assert.Nil(t, rest)
			assert.Equal(t, io.EOF, err)
			_, err = wire.Parse(input)
			requireInvalid(t, err, arrowsparse.ErrStructure)

			r := wire.NewReader(bytes.NewReader(input), wire.WithAllocator(mem))
			_, err = r.Next()
			assert.Equal(t, io.EOF, err)
			_, err = wire.ReadMessage(opaqueReader{bytes.NewReader(input)}, wire.WithAllocator(mem))
			requireInvalid(t, err, arrowsparse.ErrStructure)
		})
	}
}

func TestSequence(t *testing.T) {
	names := []string{"coo", "csf", "tensor", "csc", "tensor-zero", "coo-zero"}
	var seq []byte
	for _, n := range names {
		seq = append(seq, goldenBytes(t, n)...)
	}
	for _, withEOS := range []bool{false, true} {
		input := seq
		if withEOS {
			input = append(wire.AppendEndOfStream(append([]byte{}, seq...)), "ignored after the marker"...)
		}

		// Zero-copy.
		rest := input
		var got []*wire.Message
		for {
			f, r, err := wire.ParseNext(rest)
			if err == io.EOF {
				break
			}
			require.NoError(t, err)
			got = append(got, f.Message)
			rest = r
		}
		require.Len(t, got, len(names))

		// Streaming, from a reader that cannot tell its length.
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		src := bytes.NewReader(input)
		r := wire.NewReader(opaqueReader{src}, wire.WithAllocator(mem))
		for i := range names {
			sf, err := r.Next()
			require.NoError(t, err)
			assert.Equal(t, got[i], sf.Message)
			sf.Release()
			sf.Release() // idempotent
		}
		_, err := r.Next()
		assert.Equal(t, io.EOF, err)
		_, err = r.Next()
		assert.Equal(t, io.EOF, err, "errors are sticky")
		if withEOS {
			assert.Equal(t, len("ignored after the marker"), src.Len(), "nothing is read past the marker")
		}
		mem.AssertSize(t, 0)
	}
}

func TestFramingErrors(t *testing.T) {
	coo := goldenBytes(t, "coo")
	le := func(words ...uint32) []byte {
		var b []byte
		for _, w := range words {
			b = binary.LittleEndian.AppendUint32(b, w)
		}
		return b
	}
	negBody := reframe(t, coo, func(m *wire.Message) { m.BodyLength = -8 })
	for _, tc := range []struct {
		name  string
		input []byte
		kind  error
	}{
		{"one byte", []byte{0xff}, arrowsparse.ErrBufferSize},
		{"three bytes", []byte{0xff, 0xff, 0xff}, arrowsparse.ErrBufferSize},
		{"marker without length", append(le(0xFFFFFFFF), 1, 0), arrowsparse.ErrBufferSize},
		{"negative continuation token", le(0xFFFFFFFE, 8), arrowsparse.ErrStructure},
		{"negative metadata length", le(0xFFFFFFFF, 0x80000000), arrowsparse.ErrBufferSize},
		{"metadata past the end", coo[:100], arrowsparse.ErrBufferSize},
		{"body past the end", coo[:len(coo)-1], arrowsparse.ErrBufferSize},
		{"legacy metadata past the end", le(1000, 0), arrowsparse.ErrBufferSize},
		{"garbage metadata", append(le(0xFFFFFFFF, 8), 1, 2, 3, 4, 5, 6, 7, 8), arrowsparse.ErrStructure},
		{"negative bodyLength", negBody, arrowsparse.ErrBufferSize},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := wire.Parse(tc.input)
			requireInvalid(t, err, tc.kind)
			_, _, err = wire.ParseNext(tc.input)
			requireInvalid(t, err, tc.kind)

			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			for _, src := range []io.Reader{bytes.NewReader(tc.input), opaqueReader{bytes.NewReader(tc.input)}} {
				_, err = wire.ReadMessage(src, wire.WithAllocator(mem))
				requireInvalid(t, err, tc.kind)
			}
		})
	}
}

func TestShortReadWrapsUnexpectedEOF(t *testing.T) {
	coo := goldenBytes(t, "coo")
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	_, err := wire.ReadMessage(opaqueReader{bytes.NewReader(coo[:len(coo)-5])}, wire.WithAllocator(mem))
	requireInvalid(t, err, arrowsparse.ErrBufferSize)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
}

type failingReader struct{ err error }

func (f failingReader) Read([]byte) (int, error) { return 0, f.err }

func TestReaderPassesIOErrors(t *testing.T) {
	boom := errors.New("disk on fire")
	_, err := wire.ReadMessage(failingReader{boom})
	require.ErrorIs(t, err, boom)
	r := wire.NewReader(io.MultiReader(bytes.NewReader(goldenBytes(t, "coo")[:100]), failingReader{boom}))
	_, err = r.Next()
	require.ErrorIs(t, err, boom)
	_, err = r.Next()
	require.ErrorIs(t, err, boom, "errors are sticky")
}

func TestMetadataVersions(t *testing.T) {
	coo := goldenBytes(t, "coo")
	for _, tc := range []struct {
		v  wire.MetadataVersion
		ok bool
	}{
		{wire.V1, false}, {wire.V3, false}, {wire.V4, true}, {wire.V5, true}, {wire.V5 + 1, false},
	} {
		t.Run(tc.v.String(), func(t *testing.T) {
			data := reframe(t, coo, func(m *wire.Message) { m.Version = tc.v })
			f, err := wire.Parse(data)
			if !tc.ok {
				requireInvalid(t, err, arrowsparse.ErrStructure)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.v, f.Message.Version)
		})
	}
}

func TestLimits(t *testing.T) {
	coo := goldenBytes(t, "coo") // M = 280, body 64
	_, err := wire.Parse(coo, wire.WithMaxMetadataSize(279))
	requireInvalid(t, err, arrowsparse.ErrBufferSize)
	_, err = wire.Parse(coo, wire.WithMaxMetadataSize(280), wire.WithMaxBodySize(64))
	require.NoError(t, err)
	_, err = wire.Parse(coo, wire.WithMaxBodySize(63))
	requireInvalid(t, err, arrowsparse.ErrBufferSize)
	_, err = wire.Parse(coo, wire.WithMaxMetadataSize(0), wire.WithMaxBodySize(-1))
	require.NoError(t, err, "non-positive limits disable the check")
	_, err = wire.ReadMessage(bytes.NewReader(coo), wire.WithMaxBodySize(63))
	requireInvalid(t, err, arrowsparse.ErrBufferSize)
}

// TestMisalignedMetadataIsCopied: Frame.Metadata is always 8-aligned in
// memory, and the body still aliases the input.
func TestMisalignedMetadataIsCopied(t *testing.T) {
	coo := goldenBytes(t, "coo")
	backing := make([]byte, len(coo)+8)
	for shift := 0; shift < 8; shift++ {
		data := backing[shift : shift+len(coo)]
		copy(data, coo)
		f, err := wire.Parse(data)
		require.NoError(t, err)
		assert.Zero(t, uintptr(unsafe.Pointer(&f.Metadata[0]))%8)
		assert.Equal(t, coo[8:288], f.Metadata)
		assert.Equal(t, (shift+8)%8 == 0, &f.Metadata[0] == &data[8], "copied only when misaligned")
		assert.Same(t, &data[288], &f.Body[0])
	}
}

// TestHugeClaims: short inputs claiming huge metadata or bodies fail at once,
// without allocating anything near the claimed size.
func TestHugeClaims(t *testing.T) {
	hugeMeta := binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, 0xFFFFFFFF), 0x7FFFFFF0)
	hugeMeta = append(hugeMeta, make([]byte, 8)...) // 16 bytes in all
	hugeLegacy := binary.LittleEndian.AppendUint32(nil, 0x7FFFFFF0)
	hugeLegacy = append(hugeLegacy, make([]byte, 12)...)
	// A real metadata claiming a 1 TB body, followed by 8 body bytes.
	hugeBody := reframe(t, goldenBytes(t, "coo"), func(m *wire.Message) { m.BodyLength = 1 << 40 })
	hugeBody = append(hugeBody[:288], make([]byte, 8)...)

	noLimits := []wire.ReadOption{wire.WithMaxMetadataSize(0), wire.WithMaxBodySize(0)}
	for name, input := range map[string][]byte{"metadata": hugeMeta, "legacy metadata": hugeLegacy, "body": hugeBody} {
		t.Run(name, func(t *testing.T) {
			for _, opts := range [][]wire.ReadOption{nil, noLimits} {
				allocated := goAllocated(func() {
					_, err := wire.Parse(input, opts...)
					requireInvalid(t, err, arrowsparse.ErrBufferSize)
				})
				assert.Less(t, allocated, uint64(64<<10), "Parse allocated %d bytes", allocated)

				for _, src := range []func() io.Reader{
					func() io.Reader { return bytes.NewReader(input) },
					func() io.Reader { return opaqueReader{bytes.NewReader(input)} },
				} {
					mem := &peakAllocator{CheckedAllocator: memory.NewCheckedAllocator(memory.NewGoAllocator())}
					opts := append([]wire.ReadOption{wire.WithAllocator(mem)}, opts...)
					allocated := goAllocated(func() {
						_, err := wire.ReadMessage(src(), opts...)
						requireInvalid(t, err, arrowsparse.ErrBufferSize)
					})
					assert.Less(t, allocated, uint64(1<<20), "ReadMessage allocated %d bytes", allocated)
					assert.LessOrEqual(t, mem.peak, 256<<10, "body allocation peaked at %d bytes", mem.peak)
					mem.AssertSize(t, 0)
				}
			}
		})
	}
}

// goAllocated returns the bytes the Go heap allocated while f ran.
func goAllocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestSeekableSources: a file and a section reader tell the remaining size.
func TestSeekableSources(t *testing.T) {
	coo := goldenBytes(t, "coo")
	path := filepath.Join(t.TempDir(), "coo.arrow")
	require.NoError(t, os.WriteFile(path, coo[:len(coo)-1], 0o600))
	file, err := os.Open(path)
	require.NoError(t, err)
	defer file.Close()
	mem := &peakAllocator{CheckedAllocator: memory.NewCheckedAllocator(memory.NewGoAllocator())}
	defer mem.AssertSize(t, 0)
	_, err = wire.ReadMessage(file, wire.WithAllocator(mem))
	requireInvalid(t, err, arrowsparse.ErrBufferSize)
	assert.Zero(t, mem.peak, "the truncated body was detected before allocating")

	sec := io.NewSectionReader(bytes.NewReader(coo), 0, int64(len(coo)))
	sf, err := wire.ReadMessage(sec, wire.WithAllocator(mem))
	require.NoError(t, err)
	assert.Equal(t, coo[288:], sf.Body.Bytes())
	sf.Release()
}

func TestAppendFrame(t *testing.T) {
	for _, tc := range []struct {
		meta, align, m int
	}{
		{280, 8, 280}, {281, 8, 288}, {176, 64, 184}, {184, 64, 184}, {0, 8, 0},
	} {
		out, err := wire.AppendFrame([]byte{9}, make([]byte, tc.meta), tc.align)
		require.NoError(t, err)
		assert.Equal(t, byte(9), out[0])
		assert.Equal(t, uint32(0xFFFFFFFF), binary.LittleEndian.Uint32(out[1:]))
		assert.Equal(t, uint32(tc.m), binary.LittleEndian.Uint32(out[5:]))
		assert.Len(t, out, 9+tc.m)
	}
	assert.Panics(t, func() { _, _ = wire.AppendFrame(nil, nil, 12) })
	assert.Panics(t, func() { _, _ = wire.AppendFrame(nil, nil, 4) })
	assert.Equal(t, int64(16), wire.PaddedLen(9, 8))
	assert.Equal(t, int64(-1), wire.PaddedLen(1<<63-1, 8))
	assert.Equal(t, wire.TensorAlignment, wire.MetadataAlignment(wire.HeaderTensor))
	assert.Equal(t, wire.SparseTensorAlignment, wire.MetadataAlignment(wire.HeaderSparseTensor))
}

func TestWriteMessageChecksBody(t *testing.T) {
	_, f := readGolden(t, "coo")
	var buf bytes.Buffer
	_, err := wire.WriteMessage(&buf, f.Message, f.Body[:10])
	requireInvalid(t, err, arrowsparse.ErrBufferSize)
	assert.Zero(t, buf.Len(), "nothing is written for a bad body")
	_, err = wire.AppendMessage(nil, f.Message, f.Body[:10])
	requireInvalid(t, err, arrowsparse.ErrBufferSize)

	n, err := wire.WriteMessage(&buf, f.Message, f.Body[:48], f.Body[48:])
	require.NoError(t, err)
	assert.Equal(t, int64(352), n)
	assert.Equal(t, goldenBytes(t, "coo"), buf.Bytes())
}

func TestSparseBodyLayout(t *testing.T) {
	// The COO of spec §7.1: 48 bytes of indices, 12 bytes of float32 values.
	bufs, n, err := wire.SparseBodyLayout(48, 12)
	require.NoError(t, err)
	assert.Equal(t, []wire.Buffer{{Offset: 0, Length: 48}, {Offset: 48, Length: 16}}, bufs)
	assert.Equal(t, int64(64), n)
	_, f := readGolden(t, "coo")
	assert.Equal(t, f.Message.SparseTensor.Data, bufs[1])

	// The CSF of spec §7.2 (int32 indices): offsets match, C++ then writes
	// element counts as the index lengths.
	bufs, n, err = wire.SparseBodyLayout(12, 16, 8, 12, 16, 16)
	require.NoError(t, err)
	assert.Equal(t, int64(88), n)
	_, f = readGolden(t, "csf32")
	x := f.Message.SparseTensor.Index.(*wire.CSFIndex)
	for i, b := range append(append([]wire.Buffer{}, x.IndptrBuffers...), x.IndicesBuffers...) {
		assert.Equal(t, b.Offset, bufs[i].Offset)
	}
	assert.Equal(t, f.Message.SparseTensor.Data, bufs[5])

	_, _, err = wire.SparseBodyLayout(-1)
	requireInvalid(t, err, arrowsparse.ErrBufferSize)
	_, _, err = wire.SparseBodyLayout(1<<62, 1<<62)
	requireInvalid(t, err, arrowsparse.ErrBufferSize)

	for n, want := range []int{0, 7, 6, 5, 4, 3, 2, 1, 0} {
		assert.Len(t, wire.Padding(int64(n)), want)
	}
	assert.Equal(t, []byte{0, 0, 0, 0}, wire.Padding(12))
}
