package wire_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse/ipc/internal/wire"
)

// Limits for fuzzing: large enough for every seed, small enough that no
// input makes the fuzzer allocate much.
var fuzzLimits = []wire.ReadOption{wire.WithMaxMetadataSize(1 << 20), wire.WithMaxBodySize(1 << 22)}

// addSeeds adds every interop message (golden, cpp-corpus, crafted) to f,
// transformed by seed.
func addSeeds(f *testing.F, seed func([]byte) []byte) {
	f.Helper()
	for _, dir := range []string{"golden", "cpp-corpus", "crafted"} {
		files, err := filepath.Glob(filepath.Join(interop, dir, "*.arrow"))
		require.NoError(f, err)
		for _, p := range files {
			data, err := os.ReadFile(p)
			require.NoError(f, err)
			if s := seed(data); s != nil {
				f.Add(s)
			}
		}
	}
}

// checkRejection asserts that err is an error of this module's kind.
func checkRejection(t *testing.T, err error) {
	t.Helper()
	if errors.Is(err, io.EOF) {
		return
	}
	require.True(t, errors.Is(err, arrow.ErrInvalid) || errors.Is(err, arrow.ErrType),
		"error does not wrap an Arrow category: %v", err)
}

// checkRoundTrip asserts that an accepted message re-encodes to a message
// that decodes to the same model and body, and that encoding is stable.
func checkRoundTrip(t *testing.T, m *wire.Message, body []byte) {
	t.Helper()
	_ = m.Validate() // must not panic; either outcome is fine
	if m.Header != wire.HeaderTensor && m.Header != wire.HeaderSparseTensor {
		_, err := wire.EncodeMetadata(m)
		require.Error(t, err)
		return
	}
	meta, err := wire.EncodeMetadata(m)
	require.NoError(t, err)
	m2, err := wire.DecodeMetadata(meta)
	require.NoError(t, err)
	require.Equal(t, m, m2)
	meta2, err := wire.EncodeMetadata(m2)
	require.NoError(t, err)
	require.Equal(t, meta, meta2)
	assert.Equal(t, m.Validate() == nil, m2.Validate() == nil)

	out, err := wire.AppendMessage(nil, m, body)
	require.NoError(t, err)
	f, err := wire.Parse(out)
	require.NoError(t, err)
	require.Equal(t, m, f.Message)
	require.True(t, bytes.Equal(body, f.Body))
	require.Equal(t, len(out), f.Size)
}

// FuzzDecodeMessage fuzzes framing and metadata decoding: Parse, ParseNext
// and the streaming Reader must agree, never panic, and reject bad input with
// categorised errors; accepted messages must round-trip through the encoder.
func FuzzDecodeMessage(f *testing.F) {
	addSeeds(f, func(b []byte) []byte { return b })
	f.Add(wire.AppendEndOfStream(nil))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		fr, err := wire.Parse(data, fuzzLimits...)

		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		opts := append([]wire.ReadOption{wire.WithAllocator(mem)}, fuzzLimits...)
		sf, serr := wire.ReadMessage(opaqueReader{bytes.NewReader(data)}, opts...)
		if err != nil {
			checkRejection(t, err)
			require.Error(t, serr, "Parse failed with %v but ReadMessage succeeded", err)
			checkRejection(t, serr)
		} else {
			require.NoError(t, serr, "Parse succeeded but ReadMessage failed")
			defer sf.Release()
			require.Equal(t, fr.Message, sf.Message)
			require.Equal(t, fr.Metadata, sf.Metadata)
			require.True(t, bytes.Equal(fr.Body, sf.Body.Bytes()))
			require.LessOrEqual(t, fr.Size, len(data))
			checkRoundTrip(t, fr.Message, fr.Body)
		}

		// A sequence: ParseNext and Reader.Next see the same messages.
		rest := data
		r := wire.NewReader(bytes.NewReader(data), opts...)
		for i := 0; ; i++ {
			g, next, err := wire.ParseNext(rest, fuzzLimits...)
			sg, serr := r.Next()
			if err != nil {
				checkRejection(t, err)
				require.Error(t, serr)
				require.Equal(t, err == io.EOF, serr == io.EOF, "ParseNext: %v, Reader.Next: %v", err, serr)
				return
			}
			require.NoError(t, serr)
			require.Equal(t, g.Message, sg.Message)
			require.True(t, bytes.Equal(g.Body, sg.Body.Bytes()))
			sg.Release()
			rest = next
		}
	})
}

// FuzzDecodeMetadata fuzzes the flatbuffer verifier and decoder directly on
// metadata bytes (seeded with the metadata of every interop message).
func FuzzDecodeMetadata(f *testing.F) {
	addSeeds(f, func(b []byte) []byte {
		fr, err := wire.Parse(b)
		if err != nil {
			return nil
		}
		return fr.Metadata
	})
	f.Fuzz(func(t *testing.T, meta []byte) {
		m, err := wire.DecodeMetadata(meta)
		if err != nil {
			checkRejection(t, err)
			return
		}
		body := make([]byte, min(max(m.BodyLength, 0), 1<<16))
		if int64(len(body)) != m.BodyLength {
			m.BodyLength = int64(len(body)) // keep the test's allocation small
		}
		checkRoundTrip(t, m, body)
	})
}
