package main

import (
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Matrix Market and FROSTT files convert to messages and back, gzipped or
// not, chosen by content on input and by name on output; inspect reads a
// Matrix Market header without the body.
func TestConvertTextFormats(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("..", "..", "testdata", "mtx", "nist_example.mtx")
	msg := filepath.Join(dir, "m.arrow")
	_, stderr, code := sptensor(t, "convert", "--to", "csr", src, msg)
	require.Equal(t, 0, code, stderr)
	want := contentOf(t, msg)
	assert.Equal(t, "CSR", want.Format)
	assert.Equal(t, []int64{5, 5}, want.Shape)

	for _, out := range []string{"m.mtx", "m.mtx.gz", "m.tns", "m.tns.gz"} {
		p := filepath.Join(dir, out)
		_, stderr, code := sptensor(t, "convert", msg, p)
		require.Equal(t, 0, code, "%s: %s", out, stderr)
		if strings.HasSuffix(out, ".gz") {
			f, err := os.Open(p)
			require.NoError(t, err)
			_, err = gzip.NewReader(f)
			require.NoError(t, err, "%s is gzipped", out)
			f.Close()
		}
		// Back to a message, with the content of the original (a FROSTT
		// file keeps no shape: the largest coordinates give it).
		back := filepath.Join(dir, out+".arrow")
		_, stderr, code = sptensor(t, "convert", "--to", "csr", p, back)
		require.Equal(t, 0, code, "%s: %s", out, stderr)
		got := contentOf(t, back)
		assert.Equal(t, want.Entries, got.Entries, out)
		if !strings.HasPrefix(out, "m.tns") {
			assert.Equal(t, want.Shape, got.Shape, out)
		}
	}

	stdout, _, code := sptensor(t, "inspect", "--json", src)
	require.Equal(t, 0, code)
	var h map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &h))
	assert.Equal(t, "MatrixMarket", h["format"])
	assert.Equal(t, "coordinate", h["layout"])
	assert.Equal(t, []any{5.0, 5.0}, h["shape"])
	assert.Equal(t, 8.0, h["entries"])
	stdout, _, code = sptensor(t, "inspect", filepath.Join(dir, "m.tns"))
	require.Equal(t, 0, code)
	assert.Contains(t, stdout, "no header")

	// --progress draws on standard error; --quiet and a non-terminal do not.
	_, stderr, code = sptensor(t, "convert", "--progress", src, filepath.Join(dir, "p.arrow"))
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "entries")
	_, stderr, code = sptensor(t, "convert", "--quiet", src, filepath.Join(dir, "q.arrow"))
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stderr)
	_, _, code = sptensor(t, "convert", "--quiet", "--progress", src, filepath.Join(dir, "q.arrow"))
	assert.Equal(t, 2, code, "contradictory flags are a usage error")

	// A body error names its line.
	bad := filepath.Join(dir, "bad.mtx")
	require.NoError(t, os.WriteFile(bad, []byte("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 x 1.5\n"), 0o644))
	_, stderr, code = sptensor(t, "convert", bad, filepath.Join(dir, "bad.arrow"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "line 3")
}
