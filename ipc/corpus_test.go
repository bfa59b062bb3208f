package ipc_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse/ipc"
)

func corpusFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, dir := range []string{"golden", "cpp-corpus"} {
		fs, err := filepath.Glob(filepath.Join("..", "testdata", "interop", dir, "*.arrow"))
		require.NoError(t, err)
		files = append(files, fs...)
	}
	require.Len(t, files, 212)
	return files
}

// Every message Arrow C++ wrote reads back and writes out byte for byte.
func TestCorpusRoundTripBytes(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, f := range corpusFiles(t) {
		name := filepath.Base(f)
		t.Run(strings.TrimSuffix(name, ".arrow"), func(t *testing.T) {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			for _, path := range []string{"bytes", "reader"} {
				var m *ipc.Message
				if path == "bytes" {
					m, err = ipc.ParseMessage(data)
				} else {
					m, err = ipc.ReadMessage(bytes.NewReader(data), ipc.WithAllocator(mem))
				}
				require.NoError(t, err)
				var out bytes.Buffer
				n, err := ipc.WriteTensor(&out, m.Tensor)
				require.NoError(t, err)
				assert.EqualValues(t, len(data), n)
				assert.Equal(t, data, out.Bytes(), "%s via %s", name, path)
				m.Release()
			}
		})
	}
}
