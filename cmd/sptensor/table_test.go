package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tableDoc is the dump --json document of a table.
type tableDoc struct {
	Error   string `json:"error"`
	Columns []struct {
		Name string            `json:"name"`
		Type string            `json:"type"`
		Rows []json.RawMessage `json:"rows"`
	} `json:"columns"`
}

// denseDoc is a dense message's sidecar or a table row, with the keys the
// two share.
type denseDoc struct {
	Kind        string            `json:"kind"`
	Format      string            `json:"format"`
	ValueType   string            `json:"value_type"`
	Shape       []int64           `json:"shape"`
	DimNames    []string          `json:"dim_names"`
	DenseValues []json.RawMessage `json:"dense_values"`
}

func readDense(t *testing.T, raw []byte) denseDoc {
	t.Helper()
	var d denseDoc
	require.NoError(t, json.Unmarshal(raw, &d))
	return d
}

// sameDense compares two dense documents' content (not their names).
func sameDense(t *testing.T, want, got denseDoc, msg string) {
	t.Helper()
	assert.Equal(t, want.ValueType, got.ValueType, msg)
	assert.Equal(t, want.Shape, got.Shape, msg)
	require.Len(t, got.DenseValues, len(want.DenseValues), msg)
	for i := range want.DenseValues {
		assert.JSONEq(t, string(want.DenseValues[i]), string(got.DenseValues[i]), "%s element %d", msg, i)
	}
}

// TestPackUnpack packs dense messages of the Arrow C++ corpus into each
// container, dumps and inspects the tables, and unpacks them: the messages
// come back with their content.
func TestPackUnpack(t *testing.T) {
	dir := t.TempDir()
	c := filepath.Join(interopDir, "cpp-corpus")
	// Same shape and type: a fixed-shape column; then a variable-shape one.
	groups := map[string][]string{
		"arrow.fixed_shape_tensor":    {"060-tensor-uint16-colmajor.arrow", "060-tensor-uint16-colmajor.arrow"},
		"arrow.variable_shape_tensor": {"060-tensor-uint16-colmajor.arrow", "091-tensor-uint16-colmajor.arrow"},
	}
	for typ, names := range groups {
		var ins []string
		for _, n := range names {
			ins = append(ins, filepath.Join(c, n))
		}
		for _, container := range []string{"ipc-file", "ipc-stream", "parquet"} {
			out := filepath.Join(dir, container+"-"+filepath.Base(typ))
			_, stderr, code := sptensor(t, append([]string{"pack", "--container", container, "--column", "images", out}, ins...)...)
			require.Equal(t, 0, code, stderr)

			stdout, _, code := sptensor(t, "dump", "--json", out)
			require.Equal(t, 0, code, stdout)
			var doc tableDoc
			require.NoError(t, json.Unmarshal([]byte(stdout), &doc), stdout)
			require.Len(t, doc.Columns, 1)
			assert.Equal(t, "images", doc.Columns[0].Name)
			assert.Equal(t, typ, doc.Columns[0].Type)
			require.Len(t, doc.Columns[0].Rows, len(ins))

			stdout, _, code = sptensor(t, "inspect", out)
			require.Equal(t, 0, code)
			assert.Contains(t, stdout, "container: "+container)
			assert.Contains(t, stdout, typ)
			stdout, _, code = sptensor(t, "inspect", "--json", out)
			require.Equal(t, 0, code)
			var summary map[string]any
			require.NoError(t, json.Unmarshal([]byte(stdout), &summary), stdout)
			assert.Equal(t, container, summary["container"])
			assert.EqualValues(t, len(ins), summary["num_rows"])

			outdir := filepath.Join(dir, container+"-"+filepath.Base(typ)+".out")
			_, stderr, code = sptensor(t, "unpack", out, outdir)
			require.Equal(t, 0, code, stderr)
			for i, in := range ins {
				side, err := os.ReadFile(sidecar(in))
				require.NoError(t, err)
				want := readDense(t, side)
				got := readDense(t, doc.Columns[0].Rows[i])
				sameDense(t, want, got, container+" row")
				msg, _, code := sptensor(t, "dump", "--json", filepath.Join(outdir, strconv.Itoa(i)+".arrow"))
				require.Equal(t, 0, code, msg)
				sameDense(t, want, readDense(t, []byte(msg)), container+" unpacked")
			}
		}
	}
}

// TestTableDetection reads table files whatever their names, from standard
// input too, and still reads messages.
func TestTableDetection(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(interopDir, "golden", "tensor.arrow")
	for _, container := range []string{"ipc-file", "ipc-stream", "parquet"} {
		out := filepath.Join(dir, container+".bin") // the name says nothing
		_, stderr, code := sptensor(t, "pack", "--container", container, out, in)
		require.Equal(t, 0, code, stderr)
		stdout, _, code := sptensor(t, "dump", "--json", out)
		require.Equal(t, 0, code)
		assert.True(t, strings.HasPrefix(stdout, `{"columns": [`), stdout)
		stdout, _, code = sptensor(t, "dump", out)
		require.Equal(t, 0, code)
		assert.Contains(t, stdout, `column "tensor"`)
	}
	// A message is still a message.
	stdout, _, code := sptensor(t, "dump", "--json", in)
	require.Equal(t, 0, code)
	assert.Contains(t, stdout, `"kind": "dense"`)
}

// TestTableErrors covers bad table files and bad command lines.
func TestTableErrors(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(interopDir, "golden", "tensor.arrow")
	good := filepath.Join(dir, "good.arrow")
	_, _, code := sptensor(t, "pack", good, in)
	require.Equal(t, 0, code)
	data, err := os.ReadFile(good)
	require.NoError(t, err)
	bad := filepath.Join(dir, "bad.arrow")
	require.NoError(t, os.WriteFile(bad, data[:len(data)/2], 0o666))

	stdout, _, code := sptensor(t, "dump", "--json", bad)
	assert.Equal(t, exitFail, code)
	var doc tableDoc
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc), stdout)
	assert.NotEmpty(t, doc.Error)
	assert.NotContains(t, doc.Error, ".tmp")

	// a sparse message packs (into a sparse column), but not with a dense one
	_, stderr, code := sptensor(t, "pack", filepath.Join(dir, "x"), filepath.Join(interopDir, "golden", "coo.arrow"))
	assert.Equal(t, 0, code, stderr)
	_, stderr, code = sptensor(t, "pack", filepath.Join(dir, "x"), in, filepath.Join(interopDir, "golden", "coo.arrow"))
	assert.Equal(t, exitFail, code)
	assert.Contains(t, stderr, "one format")
	_, stderr, code = sptensor(t, "pack", "--container", "csv", filepath.Join(dir, "x"), in)
	assert.Equal(t, exitUsage, code, stderr)
	_, _, code = sptensor(t, "pack", filepath.Join(dir, "x"))
	assert.Equal(t, exitUsage, code)
	_, stderr, code = sptensor(t, "pack", filepath.Join(dir, "no-such-dir", "x"), in)
	assert.Equal(t, exitFail, code)
	assert.NotContains(t, stderr, ".tmp")

	_, stderr, code = sptensor(t, "unpack", in, filepath.Join(dir, "out"))
	assert.Equal(t, exitFail, code)
	assert.Contains(t, stderr, "not a table file")
	_, stderr, code = sptensor(t, "unpack", "--column", "nope", good, filepath.Join(dir, "out"))
	assert.Equal(t, exitFail, code)
	assert.Contains(t, stderr, `no tensor column "nope"`)
	_, _, code = sptensor(t, "unpack", good)
	assert.Equal(t, exitUsage, code)
}
