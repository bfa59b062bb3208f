package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse/internal/tools/describe"
	"github.com/arrowsparse/arrowsparse/ipc"
)

const interopDir = "../../testdata/interop"

// TestMain makes a panic in a command fail the tests: run reports panics
// as internal errors only for users.
func TestMain(m *testing.M) {
	recoverPanics = false
	os.Exit(m.Run())
}

// sptensor runs one command line in process.
func sptensor(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	code = checkedRun(t, args, &streams{stdin: os.Stdin, stdout: &o, stderr: &e})
	require.NotContains(t, e.String(), "internal error", "sptensor %s panicked", strings.Join(args, " "))
	return o.String(), e.String(), code
}

// checkedRun runs one command line with a checked allocator and fails the
// test if the command leaks, on success as on error.
func checkedRun(t testing.TB, args []string, s *streams) int {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	alloc = mem
	defer func() { alloc = memory.DefaultAllocator }()
	code := runWith(args, s)
	mem.AssertSize(t, 0)
	return code
}

// corpus returns the .arrow files of the Arrow C++ corpus and the golden
// set, each with a sidecar.
func corpus(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, dir := range []string{"golden", "cpp-corpus"} {
		fs, err := filepath.Glob(filepath.Join(interopDir, dir, "*.arrow"))
		require.NoError(t, err)
		files = append(files, fs...)
	}
	require.Len(t, files, 212)
	return files
}

func sidecar(arrow string) string { return strings.TrimSuffix(arrow, ".arrow") + ".json" }

// checkCorpus runs the shared checker (Python 3, standard library only).
func checkCorpus(t *testing.T, args ...string) {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found: the sidecar comparison needs check_corpus.py")
	}
	cmd := exec.Command(py, append([]string{filepath.Join(interopDir, "check_corpus.py")}, args...)...)
	out, err := cmd.CombinedOutput()
	assert.NoError(t, err, "check_corpus.py %s:\n%s", strings.Join(args, " "), out)
}

// Every corpus file's dump equals its sidecar, layout keys included and
// as parsed JSON (check_corpus.py --strict --exact).
func TestDumpMatchesSidecars(t *testing.T) {
	out, in := t.TempDir(), t.TempDir()
	for _, f := range corpus(t) {
		stdout, _, code := sptensor(t, "dump", "--json", f)
		require.Equal(t, 0, code, "%s: %s", f, stdout)
		require.NoError(t, os.WriteFile(filepath.Join(out, filepath.Base(sidecar(f))), []byte(stdout), 0o644))
		for _, p := range []string{f, sidecar(f)} {
			abs, err := filepath.Abs(p)
			require.NoError(t, err)
			require.NoError(t, os.Symlink(abs, filepath.Join(in, filepath.Base(p))))
		}
	}
	checkCorpus(t, "--strict", "--exact", "--quiet", "--actual-dir", out, in)
}

// The dump is laid out as the sidecars are: apart from "_note", the
// same bytes.
func TestDumpLayout(t *testing.T) {
	for _, name := range []string{"coo", "coo-colmajor", "csf", "tensor-colmajor", "tensor-zero"} {
		f := filepath.Join(interopDir, "golden", name+".arrow")
		stdout, _, code := sptensor(t, "dump", "--json", f)
		require.Equal(t, 0, code)
		want, err := os.ReadFile(sidecar(f))
		require.NoError(t, err)
		var doc map[string]any
		require.NoError(t, json.Unmarshal(want, &doc))
		if note, ok := doc["_note"].(string); ok {
			want = bytes.Replace(want, []byte(",\n  \"_note\": "+describe.QuoteString(note)), nil, 1)
		}
		assert.Equal(t, string(want), stdout, name)
	}
}

func TestDumpErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.arrow")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	for _, f := range []string{empty, filepath.Join(dir, "missing.arrow"), dir,
		filepath.Join(interopDir, "crafted", "coo_neg_nnz.arrow")} {
		stdout, _, code := sptensor(t, "dump", "--json", f)
		assert.Equal(t, 1, code, f)
		var doc map[string]string
		require.NoError(t, json.Unmarshal([]byte(stdout), &doc), stdout)
		assert.NotEmpty(t, doc["error"], f)
		assert.Len(t, doc, 1)
	}
	_, stderr, code := sptensor(t, "dump", empty)
	assert.Equal(t, 1, code)
	assert.NotEmpty(t, stderr)
}

// validate gives the verdicts of crafted/expected.json, one line of
// reason for each invalid message, and accepts every corpus file.
func TestValidate(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(interopDir, "crafted", "expected.json"))
	require.NoError(t, err)
	var verdicts map[string]string
	require.NoError(t, json.Unmarshal(data, &verdicts))
	require.NotEmpty(t, verdicts)
	for name, verdict := range verdicts {
		f := filepath.Join(interopDir, "crafted", name+".arrow")
		stdout, _, code := sptensor(t, "validate", f)
		if verdict == "valid" {
			assert.Equal(t, 0, code, "%s: %s", name, stdout)
			assert.Empty(t, stdout, name)
		} else {
			assert.Equal(t, 1, code, name)
			assert.Equal(t, 1, strings.Count(stdout, "\n"), "%s: %q", name, stdout)
			assert.True(t, strings.HasPrefix(stdout, "invalid: "), stdout)
		}
	}
	for _, f := range corpus(t) {
		stdout, _, code := sptensor(t, "validate", f)
		assert.Equal(t, 0, code, "%s: %s", f, stdout)
	}
}

func TestInspect(t *testing.T) {
	for _, f := range corpus(t) {
		want := loadDoc(t, sidecar(f))
		stdout, _, code := sptensor(t, "inspect", "--json", f)
		require.Equal(t, 0, code, f)
		var got map[string]any
		require.NoError(t, json.Unmarshal([]byte(stdout), &got), stdout)
		for _, k := range []string{"kind", "format", "value_type", "shape", "index_type", "indptr_type", "axis_order", "indices_strides", "strides"} {
			if v, ok := want[k]; ok {
				assert.Equal(t, v, got[k], "%s: %s", f, k)
			}
		}
		// The sidecars' is_canonical is the flag as written.
		if v, ok := want["is_canonical"]; ok {
			assert.Equal(t, v, got["canonical_claim"], f)
			assert.Contains(t, got, "canonical", f)
			assert.NotContains(t, got, "is_canonical", f)
		}
		if n, ok := want["nnz"]; ok {
			assert.Equal(t, n, got["nnz"], f)
		}
		fi, err := os.Stat(f)
		require.NoError(t, err)
		assert.EqualValues(t, fi.Size(), got["message_bytes"], f)

		stdout, _, code = sptensor(t, "inspect", f)
		require.Equal(t, 0, code)
		assert.Contains(t, stdout, "format:")
		assert.Contains(t, stdout, "density:")
	}
}

func loadDoc(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(data, &doc))
	return doc
}

func TestUsageErrors(t *testing.T) {
	f := filepath.Join(interopDir, "golden", "coo.arrow")
	out := filepath.Join(t.TempDir(), "out.arrow")
	for _, args := range [][]string{
		{},
		{"frobnicate"},
		{"inspect"},
		{"inspect", f, f},
		{"inspect", "--bogus", f},
		{"inspect", "--json=maybe", f},
		{"dump", "--json"},
		{"dump", "--json", "--json", f},
		{"validate"},
		{"validate", "--json", f},
		{"convert", f},
		{"convert", f, out, out},
		{"convert", "--to", "dok", f, out},
		{"convert", "--to"},
		{"convert", "--index-type", "uint64", f, out},
		{"convert", "--index-type", "float32", f, out},
		{"convert", "--to", "coo", "--axis-order", "1,0", f, out},
		{"convert", "--to", "csf", "--axis-order", "1,x", f, out},
		{"convert", "--to", "csf", "--dimensions", "1,0", f, out},
		{"convert", "--to", "gcs", "--partitioning", "1,1", f, out},
		{"convert", "--to", "tensor", "--index-type", "int32", f, out},
		{"convert", "--to", "coo", "--indptr-type", "int32", f, out},
	} {
		_, stderr, code := sptensor(t, args...)
		assert.Equal(t, 2, code, "%q", args)
		assert.Contains(t, stderr, "usage:", "%q", args)
	}
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}, {"dump", "--help"}, {"convert", "-h"}} {
		stdout, _, code := sptensor(t, args...)
		assert.Equal(t, 0, code, "%q", args)
		assert.Contains(t, stdout, "usage:")
	}
	_, err := os.Stat(out)
	assert.True(t, os.IsNotExist(err), "a usage error wrote OUT")
}

// Flags may come before, between or after the positional arguments.
func TestFlagPositions(t *testing.T) {
	f := filepath.Join(interopDir, "golden", "coo.arrow")
	dir := t.TempDir()
	var outs [][]byte
	for i, args := range [][]string{
		{"convert", "--to", "csf", "--axis-order", "1,0", f, "OUT"},
		{"convert", f, "--to=csf", "OUT", "--axis-order=1,0"},
		{"convert", "-to", "csf", f, "OUT", "-axis-order", "1,0"},
		{"convert", "--to", "csf", "--axis-order", "1,0", "--", f, "OUT"},
	} {
		out := filepath.Join(dir, string(rune('a'+i))+".arrow")
		args[slices.Index(args, "OUT")] = out
		_, stderr, code := sptensor(t, args...)
		require.Equal(t, 0, code, "%q: %s", args, stderr)
		b, err := os.ReadFile(out)
		require.NoError(t, err)
		outs = append(outs, b)
	}
	for _, b := range outs[1:] {
		assert.Equal(t, outs[0], b)
	}
	a, _, _ := sptensor(t, "dump", "--json", f)
	b, _, _ := sptensor(t, "dump", f, "--json")
	assert.Equal(t, a, b)
}

// convert with no --to writes every corpus message back byte for byte,
// also when OUT is IN.
func TestConvertIdentity(t *testing.T) {
	dir := t.TempDir()
	for _, f := range corpus(t) {
		out := filepath.Join(dir, filepath.Base(f))
		_, stderr, code := sptensor(t, "convert", f, out)
		require.Equal(t, 0, code, "%s: %s", f, stderr)
		want, err := os.ReadFile(f)
		require.NoError(t, err)
		got, err := os.ReadFile(out)
		require.NoError(t, err)
		if !assert.Equal(t, want, got, f) {
			continue
		}
		_, stderr, code = sptensor(t, "convert", out, out)
		require.Equal(t, 0, code, "%s: %s", f, stderr)
		got, err = os.ReadFile(out)
		require.NoError(t, err)
		require.Equal(t, want, got, f)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, len(corpus(t)), "temporary files left behind")
}

// Garbage, truncated and mutated messages never make a command panic
// (sptensor fails the test when run recovers a panic), and give status 0
// or 1. SPTENSOR_GARBAGE=N mutates N times more.
func TestGarbage(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(6, 6))
	rounds := 2
	if n, err := strconv.Atoi(os.Getenv("SPTENSOR_GARBAGE")); err == nil && n > 0 {
		rounds *= n
	}
	files := corpus(t)
	var seeds []string
	for i, f := range files {
		if i%5 == 0 {
			seeds = append(seeds, f)
		}
	}
	crafted, err := filepath.Glob(filepath.Join(interopDir, "crafted", "*.arrow"))
	require.NoError(t, err)
	seeds = append(seeds, crafted...)
	// GCS messages, whose mapping travels in JSON custom metadata.
	for i, args := range [][]string{
		{"--to", "gcs", filepath.Join(interopDir, "golden", "csf.arrow")},
		{"--to", "gcs", "--dimensions", "2,0,1", "--partitioning", "2", filepath.Join(interopDir, "golden", "csf.arrow")},
		{"--to", "gcs", "--dimensions", "1,0", "--partitioning", "0", filepath.Join(interopDir, "golden", "coo.arrow")},
	} {
		out := filepath.Join(dir, fmt.Sprintf("gcs%d.arrow", i))
		_, stderr, code := sptensor(t, append(append([]string{"convert"}, args...), out)...)
		require.Equal(t, 0, code, stderr)
		seeds = append(seeds, out)
	}
	var inputs [][]byte
	for _, f := range seeds {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		inputs = append(inputs, data)
		for range rounds {
			inputs = append(inputs, data[:rng.IntN(len(data)+1)])
			m := bytes.Clone(data)
			for range 1 + rng.IntN(4) {
				m[rng.IntN(len(m))] ^= byte(1 + rng.IntN(255))
			}
			inputs = append(inputs, m)
			if k := bytes.Index(m, []byte(`"dimensions"`)); k >= 0 {
				// Mutate the GCS metadata's JSON text.
				j := bytes.Clone(data)
				p := k + rng.IntN(min(60, len(j)-k))
				j[p] = "0123456789[],-\"{}:"[rng.IntN(18)]
				inputs = append(inputs, j)
			}
		}
	}
	for range 15 * rounds {
		g := make([]byte, rng.IntN(300))
		for i := range g {
			g[i] = byte(rng.Uint32())
		}
		if len(g) >= 8 && rng.IntN(2) == 0 {
			copy(g, []byte{0xff, 0xff, 0xff, 0xff})
		}
		inputs = append(inputs, g)
	}
	in := filepath.Join(dir, "in.arrow")
	out := filepath.Join(dir, "out.arrow")
	for i, data := range inputs {
		require.NoError(t, os.WriteFile(in, data, 0o644))
		for _, args := range [][]string{
			{"dump", in}, {"inspect", in}, {"inspect", "--json", in},
			{"convert", in, out}, {"convert", "--to", "coo", in, out}, {"convert", "--to", "csr", in, out},
			{"convert", "--to", "csc", "--index-type", "int8", in, out}, {"convert", "--to", "csf", in, out},
			{"convert", "--to", "gcs", in, out}, {"convert", "--to", "tensor", in, out},
		} {
			_, _, code := sptensor(t, args...)
			assert.Contains(t, []int{0, 1}, code, "input %d: %q", i, args)
		}
		_, _, vcode := sptensor(t, "validate", in)
		stdout, _, dcode := sptensor(t, "dump", "--json", in)
		var doc map[string]any
		require.NoError(t, json.Unmarshal([]byte(stdout), &doc), "input %d: %s", i, stdout)
		assert.Equal(t, vcode, dcode, "input %d: validate and dump disagree: %s", i, stdout)
	}
}

// The ipc reader and the dump agree on what a valid message is.
func TestDumpOfValidMessages(t *testing.T) {
	for _, f := range corpus(t) {
		m, err := ipc.ReadFile(f)
		require.NoError(t, err)
		c, err := describe.FromMessage(m)
		m.Release()
		require.NoError(t, err, f)
		want := loadDoc(t, sidecar(f))
		assert.Equal(t, want["format"], c.Format, f)
	}
}

// A buffer length beyond what the message needs is valid (Arrow C++ pads
// lengths, and reads any length at least as large as needed), also when it
// is not a whole number of index elements: the golden COO message with an
// indicesBuffer length of 52 instead of 48 (the body is 64 bytes).
func TestLongerBufferLengths(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(interopDir, "golden", "coo.arrow"))
	require.NoError(t, err)
	var want [16]byte
	binary.LittleEndian.PutUint64(want[8:], 48) // Buffer{offset 0, length 48}
	k := bytes.Index(data[8:8+280], want[:])
	require.GreaterOrEqual(t, k, 0)
	binary.LittleEndian.PutUint64(data[8+k+8:], 52)
	f := filepath.Join(t.TempDir(), "coo-len52.arrow")
	require.NoError(t, os.WriteFile(f, data, 0o644))

	stdout, _, code := sptensor(t, "validate", f)
	assert.Equal(t, 0, code, stdout)
	got, _, code := sptensor(t, "dump", "--json", f)
	assert.Equal(t, 0, code, got)
	golden, _, _ := sptensor(t, "dump", "--json", filepath.Join(interopDir, "golden", "coo.arrow"))
	assert.Equal(t, golden, got)
}
