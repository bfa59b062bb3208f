package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse/internal/tools/describe"
	"github.com/arrowsparse/arrowsparse/ipc"
)

// Every seventh case reads back as its expected description (the Go side
// of check 2; run.sh checks every case, and the peer's side).
func TestWriteReadBack(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, writeSample(3, dir, 7))
	files, err := filepath.Glob(filepath.Join(dir, "go", "*.json"))
	require.NoError(t, err)
	require.Greater(t, len(files), 600)
	formats := map[string]int{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		want, err := describe.ParseJSON(data)
		require.NoError(t, err, f)
		want.Note = ""
		formats[want.Format]++
		m, err := ipc.ReadFile(strings.TrimSuffix(f, ".json") + ".arrow")
		require.NoError(t, err, f)
		got, err := describe.FromMessage(m)
		m.Release()
		require.NoError(t, err, f)
		// As parsed JSON: a name that is not UTF-8 is written as \u00XX
		// escapes, which read back as other text.
		var a, b any
		require.NoError(t, json.Unmarshal(want.JSON(), &a))
		require.NoError(t, json.Unmarshal(got.JSON(), &b))
		assert.Equal(t, a, b, f)
	}
	for _, f := range []string{"COO", "CSR", "CSC", "CSF", "GCS", "TENSOR"} {
		assert.Positive(t, formats[f], f)
	}
}

// Corpus messages whose sidecars fix the storage order are rebuilt from the
// sidecars byte for byte.
func TestRebuildCorpus(t *testing.T) {
	var out bytes.Buffer
	checked, failed, err := rebuild(&out, filepath.Join("..", "..", "testdata", "interop", "cpp-corpus"), t.TempDir())
	require.NoError(t, err)
	assert.Greater(t, checked, 150)
	assert.Zero(t, failed, out.String())
}

func TestPermutations(t *testing.T) {
	for n, want := range map[int]int{1: 1, 2: 2, 3: 6, 4: 24} {
		ps := permutations(n)
		assert.Len(t, ps, want)
		for i, p := range ps {
			q := slices.Clone(p)
			slices.Sort(q)
			for k := range q {
				assert.Equal(t, k, q[k])
			}
			if i > 0 {
				assert.Negative(t, slices.Compare(ps[i-1], p))
			}
		}
	}
}
