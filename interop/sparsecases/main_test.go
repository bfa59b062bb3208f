package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWriteThenCheck: what write writes, check reads back with every row
// agreeing with its sidecar; a wrong sidecar fails; an empty directory
// fails.
func TestWriteThenCheck(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, write(7, dir))
	sides, err := filepath.Glob(filepath.Join(dir, "*.json"))
	require.NoError(t, err)
	assert.Greater(t, len(sides), 1000)
	kinds := map[string]bool{}
	for _, s := range sides {
		var doc sidecar
		data, err := os.ReadFile(s)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, &doc))
		kinds[doc.Container] = true
	}
	assert.Equal(t, map[string]bool{"ipc-file": true, "ipc-stream": true, "parquet": true}, kinds)
	failed, err := check(dir)
	require.NoError(t, err)
	assert.Equal(t, 0, failed)

	// a wrong value in a sidecar is found
	bad := t.TempDir()
	for _, name := range []string{"csr-float64-int32-fixed.arrow", "csr-float64-int32-fixed.arrow.json"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		if strings.HasSuffix(name, ".json") {
			var doc map[string]any
			require.NoError(t, json.Unmarshal(data, &doc))
			row := doc["columns"].([]any)[0].(map[string]any)["rows"].([]any)[0].(map[string]any)
			e := row["entries"].([]any)[0].([]any)
			e[len(e)-1] = e[len(e)-1].(float64) + 1
			data, err = json.Marshal(doc)
			require.NoError(t, err)
		}
		require.NoError(t, os.WriteFile(filepath.Join(bad, name), data, 0o666))
	}
	failed, err = check(bad)
	require.NoError(t, err)
	assert.Equal(t, 1, failed)

	failed, err = check(t.TempDir())
	require.NoError(t, err)
	assert.Equal(t, 1, failed, "an empty directory fails")
}
