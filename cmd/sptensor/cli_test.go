package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	arrowipc "github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse/internal/sniff"
	"github.com/arrowsparse/arrowsparse/ipc"
	"github.com/arrowsparse/arrowsparse/views"
)

// sptensorIn runs one command line with the given standard input.
func sptensorIn(t *testing.T, stdin []byte, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	code = checkedRun(t, args, &streams{stdin: bytes.NewReader(stdin), stdout: &o, stderr: &e})
	return o.String(), e.String(), code
}

func golden(name string) string { return filepath.Join(interopDir, "golden", name+".arrow") }

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

// threeMessages writes the golden COO, CSF and dense messages one after
// another.
func threeMessages(t *testing.T) (string, [][]byte) {
	t.Helper()
	parts := [][]byte{readFile(t, golden("coo")), readFile(t, golden("csf")), readFile(t, golden("tensor"))}
	path := filepath.Join(t.TempDir(), "three.arrow")
	require.NoError(t, os.WriteFile(path, bytes.Join(parts, nil), 0o644))
	return path, parts
}

func TestSeveralMessages(t *testing.T) {
	path, parts := threeMessages(t)

	// Without --message, every command refuses the file and says why.
	for _, args := range [][]string{{"inspect", path}, {"dump", path}, {"convert", path, filepath.Join(t.TempDir(), "o")}} {
		_, stderr, code := sptensor(t, args...)
		assert.Equal(t, 1, code, "%q", args)
		for _, w := range []string{path + " holds 3 messages", "--message N (0 to 2)", "sptensor inspect --all"} {
			assert.Contains(t, stderr, w, "%q", args)
		}
	}
	stdout, _, code := sptensor(t, "dump", "--json", path)
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "holds 3 messages")
	stdout, _, code = sptensor(t, "validate", path)
	assert.Equal(t, 1, code)
	assert.True(t, strings.HasPrefix(stdout, "invalid: "), stdout)

	// --all lists them.
	stdout, stderr, code := sptensor(t, "inspect", "--all", path)
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	require.Len(t, lines, 4)
	assert.Equal(t, []string{"index", "offset", "bytes", "kind", "format", "value", "type", "shape", "nnz"}, strings.Fields(lines[0]))
	off := 0
	for i, want := range []string{"COO", "CSF", "TENSOR"} {
		f := strings.Fields(lines[i+1])
		assert.Equal(t, strconv.Itoa(i), f[0])
		assert.Equal(t, strconv.Itoa(off), f[1])
		assert.Equal(t, strconv.Itoa(len(parts[i])), f[2])
		assert.Equal(t, want, f[4])
		off += len(parts[i])
	}
	stdout, _, code = sptensor(t, "inspect", "--all", "--json", path)
	require.Equal(t, 0, code)
	var doc struct {
		Messages []map[string]any `json:"messages"`
		Error    *string          `json:"error"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc), stdout)
	require.Len(t, doc.Messages, 3)
	assert.Nil(t, doc.Error)
	assert.EqualValues(t, len(parts[0]), doc.Messages[1]["offset"])
	assert.Equal(t, "CSF", doc.Messages[1]["format"])
	assert.Equal(t, []any{2.0, 3.0, 2.0}, doc.Messages[1]["shape"])
	assert.EqualValues(t, len(parts[1]), doc.Messages[1]["message_bytes"])
	_, _, code = sptensor(t, "validate", "--all", path)
	assert.Equal(t, 0, code)

	// --message N picks one for every command.
	for i, name := range []string{"coo", "csf", "tensor"} {
		n := strconv.Itoa(i)
		want, _, _ := sptensor(t, "dump", "--json", golden(name))
		got, _, code := sptensor(t, "dump", "--json", "--message", n, path)
		require.Equal(t, 0, code)
		assert.Equal(t, want, got, name)
		want, _, _ = sptensor(t, "inspect", golden(name))
		got, _, _ = sptensor(t, "inspect", "--message="+n, path)
		assert.Contains(t, got, "format:")
		wantLines, gotLines := strings.Split(want, "\n"), strings.Split(got, "\n")
		assert.Equal(t, wantLines[:6], gotLines[:6], name)
		_, _, code = sptensor(t, "validate", "--message", n, path)
		assert.Equal(t, 0, code)
		out := filepath.Join(t.TempDir(), name+".arrow")
		_, stderr, code := sptensor(t, "convert", "--message", n, path, out)
		require.Equal(t, 0, code, stderr)
		assert.Equal(t, parts[i], readFile(t, out), name)
	}

	// An invalid message ends the list, with its error.
	bad := filepath.Join(t.TempDir(), "bad.arrow")
	require.NoError(t, os.WriteFile(bad, append(bytes.Join(parts, nil), parts[0][:40]...), 0o644))
	stdout, stderr, code = sptensor(t, "inspect", "--all", bad)
	assert.Equal(t, 1, code)
	assert.Len(t, strings.Split(strings.TrimSpace(stdout), "\n"), 4)
	assert.Contains(t, stderr, "message 3 at offset "+strconv.Itoa(len(bytes.Join(parts, nil))))
	stdout, _, code = sptensor(t, "inspect", "--all", "--json", bad)
	assert.Equal(t, 1, code)
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc), stdout)
	assert.Len(t, doc.Messages, 3)
	require.NotNil(t, doc.Error)
	assert.Contains(t, *doc.Error, "truncated")
	stdout, _, code = sptensor(t, "validate", "--all", bad)
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "message 3")
	_, _, code = sptensor(t, "dump", "--message", "2", bad) // the bad one is not read
	assert.Equal(t, 0, code)

	empty := filepath.Join(t.TempDir(), "empty.arrow")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	stdout, _, code = sptensor(t, "inspect", "--all", empty)
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, "holds no message")
	_, _, code = sptensor(t, "validate", "--all", empty)
	assert.Equal(t, 1, code)
}

// Exit status 2 always means the command line is wrong, also when that
// shows only once the input is read.
func TestUsageErrorsAfterReading(t *testing.T) {
	three, _ := threeMessages(t)
	out := filepath.Join(t.TempDir(), "out.arrow")
	for _, args := range [][]string{
		{"convert", "--to", "csf", "--axis-order", "0,0", golden("coo"), out},
		{"convert", "--to", "csf", "--axis-order", "0,1,2", golden("coo"), out},
		{"convert", "--axis-order", "1,0", golden("coo"), out},
		{"convert", "--axis-order", "1,0", golden("csf"), out},
		{"convert", "--to", "gcs", "--dimensions", "0,1,2", golden("coo"), out},
		{"convert", "--to", "gcs", "--dimensions", "1,1", golden("coo"), out},
		{"convert", "--to", "gcs", "--partitioning", "3", golden("coo"), out},
		{"convert", "--dimensions", "1,0", golden("coo"), out},
		{"convert", "--index-type", "int32", golden("tensor"), out},
		{"convert", "--indptr-type", "int32", golden("coo"), out},
		{"convert", "--message", "3", three, out},
		{"convert", "--message", "-1", golden("coo"), out},
		{"dump", "--message", "x", golden("coo")},
		{"dump", "--json", "--message", "1", golden("coo")},
		{"inspect", "--message", "3", three},
		{"inspect", "--all", "--message", "1", three},
		{"validate", "--message", "7", three},
		{"validate", "--all", "--message", "0", three},
	} {
		stdout, stderr, code := sptensor(t, args...)
		assert.Equal(t, 2, code, "%q: %s", args, stderr)
		assert.Contains(t, stderr, "usage:", "%q", args)
		assert.Empty(t, stdout, "%q", args)
	}
	_, err := os.Stat(out)
	assert.True(t, os.IsNotExist(err), "a usage error wrote OUT")
	_, stderr, _ := sptensor(t, "convert", "--to", "csf", "--axis-order", "0,1,2", golden("coo"), out)
	assert.Contains(t, stderr, "--axis-order has 3 entries, want 2")
}

// arrowTable returns an Arrow IPC file and stream written by arrow-go.
func arrowTable(t *testing.T) (file, stream []byte) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int32}}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	b.Field(0).(*array.Int32Builder).AppendValues([]int32{1, 2}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	var f, s bytes.Buffer
	fw, err := arrowipc.NewFileWriter(&f, arrowipc.WithSchema(schema), arrowipc.WithAllocator(mem))
	require.NoError(t, err)
	require.NoError(t, fw.Write(rec))
	require.NoError(t, fw.Close())
	sw := arrowipc.NewWriter(&s, arrowipc.WithSchema(schema), arrowipc.WithAllocator(mem))
	require.NoError(t, sw.Write(rec))
	require.NoError(t, sw.Close())
	return f.Bytes(), s.Bytes()
}

// A file that is not tensor messages is named for what it is, by every
// command, with what reads it.
func TestForeignFiles(t *testing.T) {
	file, stream := arrowTable(t)
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 2.5\n"))
	require.NoError(t, w.Close())
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"table.arrow", file, "holds a table (Arrow IPC file)"},
		{"table.arrows", stream, "holds a table (Arrow IPC stream)"},
		{"table.parquet", append([]byte("PAR1"), make([]byte, 40)...), "holds a table (Parquet file)"},
		{"m.mtx.gz", gz.Bytes(), "is gzip-compressed"},
		{"m.mtx", []byte("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 2.5\n"), "is a Matrix Market text file"},
		{"t.tns", []byte("1 1 1 2.5\n"), "is text that looks like a FROSTT .tns file"},
	} {
		path := filepath.Join(dir, c.name)
		require.NoError(t, os.WriteFile(path, c.data, 0o644))
		text := strings.Contains(c.name, ".mtx") || strings.HasSuffix(c.name, ".tns")
		table := c.name == "table.arrow" || c.name == "table.arrows"
		stdout, stderr, code := sptensor(t, "inspect", path)
		switch {
		case text:
			// inspect reads the header of a text file (convert reads
			// the body); dump and validate read messages only.
			assert.Equal(t, 0, code, c.name)
			assert.Regexp(t, "Matrix Market|FROSTT", stdout, c.name)
		case table:
			// inspect and dump read tables of tensor columns.
			assert.Equal(t, 0, code, c.name)
			assert.Contains(t, stdout, "container:", c.name)
		default:
			assert.Equal(t, 1, code, c.name)
			assert.NotContains(t, stderr, "metadata length", c.name)
		}
		stdout, _, code = sptensor(t, "dump", "--json", path)
		if table {
			assert.Equal(t, 0, code, c.name)
			assert.Contains(t, stdout, `"columns"`, c.name)
		} else {
			assert.Equal(t, 1, code, c.name)
			if !strings.HasSuffix(c.name, ".parquet") {
				assert.Contains(t, stdout, c.want, c.name)
			}
		}
		stdout, _, code = sptensor(t, "validate", path)
		assert.Equal(t, 1, code, c.name)
		assert.Contains(t, stdout, c.want, c.name)
		// The same through standard input.
		_, _, code = sptensorIn(t, c.data, "inspect", "-")
		if text || table {
			assert.Equal(t, 0, code, c.name)
		} else {
			assert.Equal(t, 1, code, c.name)
		}

		in, err := openInput(path, nil)
		require.NoError(t, err)
		k, err := in.Kind()
		require.NoError(t, err)
		assert.True(t, k.Foreign(), c.name)
		in.Close()
	}
	if file != nil {
		in, err := openInput("-", bytes.NewReader(file))
		require.NoError(t, err)
		k, err := in.Kind()
		require.NoError(t, err)
		assert.Equal(t, sniff.ArrowFile, k)
		r, err := in.Reader()
		require.NoError(t, err)
		var all bytes.Buffer
		_, err = all.ReadFrom(r)
		require.NoError(t, err)
		assert.Equal(t, file, all.Bytes(), "Kind consumed nothing")
	}

	// A directory is named.
	stdout, _, code := sptensor(t, "dump", "--json", dir)
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, dir+" is a directory")
	_, stderr, code := sptensor(t, "convert", golden("coo"), dir)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, dir)
}

// Standard input and pipes are read as streams.
func TestStandardInput(t *testing.T) {
	data := readFile(t, golden("csf"))
	want, _, _ := sptensor(t, "dump", "--json", golden("csf"))
	got, _, code := sptensorIn(t, data, "dump", "--json", "-")
	assert.Equal(t, 0, code)
	assert.Equal(t, want, got)
	_, _, code = sptensorIn(t, data, "validate", "-")
	assert.Equal(t, 0, code)
	got, _, code = sptensorIn(t, data, "convert", "-", "-")
	assert.Equal(t, 0, code)
	assert.Equal(t, string(data), got)
	two := append(bytes.Clone(data), data...)
	_, stderr, code := sptensorIn(t, two, "dump", "-")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "standard input holds 2 messages")
	got, _, code = sptensorIn(t, two, "dump", "--json", "--message", "1", "-")
	assert.Equal(t, 0, code)
	assert.Equal(t, want, got)
	_, stderr, code = sptensorIn(t, nil, "inspect", "-")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "no message")
}

// convert writes through ipc.WriteFile: errors name OUT, never a
// temporary file.
func TestConvertOutputErrors(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root writes anywhere")
	}
	ro := filepath.Join(t.TempDir(), "ro")
	require.NoError(t, os.Mkdir(ro, 0o555))
	out := filepath.Join(ro, "out.arrow")
	_, stderr, code := sptensor(t, "convert", golden("coo"), out)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, out)
	assert.Contains(t, stderr, "permission denied")
	assert.NotContains(t, stderr, ".tmp")
}

// zeroStrideMessage returns a dense int8 message of shape (rows, cols)
// whose strides are zero: every element is the one byte 42 of its body.
func zeroStrideMessage(t *testing.T, rows, cols int64) []byte {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	v, err := views.Alloc(mem, arrow.PrimitiveTypes.Int8, []int64{7, 9})
	require.NoError(t, err)
	defer v.Release()
	v.Buffer().Bytes()[0] = 42
	msg, err := ipc.AppendTensor(nil, v)
	require.NoError(t, err)
	le := func(xs ...int64) []byte {
		var b []byte
		for _, x := range xs {
			b = binary.LittleEndian.AppendUint64(b, uint64(x))
		}
		return b
	}
	meta := msg[:len(msg)-63]
	for _, r := range [][2][]byte{{le(9, 1), le(0, 0)}, {le(7), le(rows)}, {le(9), le(cols)}} {
		require.Equal(t, 1, bytes.Count(meta, r[0]), "%x", r[0])
		copy(meta[bytes.Index(meta, r[0]):], r[1])
	}
	return msg
}

// discard counts what is written.
type discard struct{ n int64 }

func (d *discard) Write(p []byte) (int, error) { d.n += int64(len(p)); return len(p), nil }

// A dense dump streams: a message of a few hundred bytes describing 2 Mi
// elements is dumped without materialising them; beyond 2^26 elements it
// is refused, as the C++ peer refuses it.
func TestDenseDumpStreams(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big.arrow")
	msg := zeroStrideMessage(t, 1<<10, 1<<11)
	require.Less(t, len(msg), 400)
	require.NoError(t, os.WriteFile(path, msg, 0o644))
	for _, args := range [][]string{{"dump", "--json", path}, {"dump", path}} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		out := &discard{}
		code := runWith(args, &streams{stdout: out, stderr: out})
		runtime.ReadMemStats(&after)
		require.Equal(t, 0, code)
		assert.Greater(t, out.n, int64(4<<20)) // 2 Mi values and separators
		assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(4<<20), "%q allocated %d bytes", args, after.TotalAlloc-before.TotalAlloc)
	}

	huge := filepath.Join(dir, "huge.arrow")
	require.NoError(t, os.WriteFile(huge, zeroStrideMessage(t, 1<<13, 1<<13+1), 0o644))
	stdout, _, code := sptensor(t, "dump", "--json", huge)
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "too large to print")
	stdout, _, code = sptensor(t, "inspect", "--json", huge)
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, `"elements": 67117056`)
	// convert bounds how many repeated elements it reads of a dense source.
	for _, args := range [][]string{{"--to", "coo"}, {}} {
		_, stderr, code := sptensor(t, append(append([]string{"convert"}, args...), huge, filepath.Join(dir, "out.arrow"))...)
		assert.Equal(t, 1, code)
		assert.Contains(t, stderr, "repeat elements")
	}
	small := filepath.Join(dir, "small.arrow")
	require.NoError(t, os.WriteFile(small, zeroStrideMessage(t, 1<<9, 1<<10), 0o644))
	out := filepath.Join(dir, "out.arrow")
	_, stderr, code := sptensor(t, "convert", "--to", "csr", small, out)
	require.Equal(t, 0, code, stderr)
	stdout, _, _ = sptensor(t, "inspect", "--json", out)
	assert.Contains(t, stdout, `"nnz": 524288`)
}

// A panic in a command is an internal error for users, and a failure for
// tests.
func TestPanicsAreBugs(t *testing.T) {
	commands["boom"] = func([]string, *streams) error { panic("boom") }
	defer delete(commands, "boom")
	assert.Panics(t, func() { sptensor(t, "boom") })
	recoverPanics = true
	defer func() { recoverPanics = false }()
	var o, e bytes.Buffer
	assert.Equal(t, 1, run([]string{"boom"}, &o, &e))
	assert.Contains(t, e.String(), "internal error")
}

// Giving a canonical source new index types in place gives the bytes the
// way through COO gives.
func TestRetypeInPlace(t *testing.T) {
	dir := t.TempDir()
	defer func() { retypeInPlace = true }()
	n := 0
	for _, f := range corpus(t) {
		to := ""
		for _, it := range []string{"", "int32", "int64", "uint16"} {
			args := []string{"convert"}
			if it != "" {
				args = append(args, "--index-type", it)
			}
			if it == "" {
				c := contentOf(t, f)
				if !c.Sparse() || c.Format == "COO" {
					break
				}
				to = strings.ToLower(c.Format)
				args = append(args, "--to", to)
			}
			var outs [2][]byte
			for i, fast := range []bool{true, false} {
				retypeInPlace = fast
				out := filepath.Join(dir, "out.arrow")
				_, stderr, code := sptensor(t, append(args, f, out)...)
				if code != 0 {
					outs[i] = []byte("error: " + stderr)
					continue
				}
				outs[i] = readFile(t, out)
			}
			if bytes.HasPrefix(outs[0], []byte("error: ")) != bytes.HasPrefix(outs[1], []byte("error: ")) {
				t.Errorf("%s %q: %s / %s", f, args, outs[0][:min(len(outs[0]), 200)], outs[1][:min(len(outs[1]), 200)])
				continue
			}
			if !bytes.HasPrefix(outs[0], []byte("error: ")) {
				assert.Equal(t, outs[1], outs[0], "%s %q", f, args)
				n++
			}
		}
		_ = to
	}
	assert.Greater(t, n, 100)
}
