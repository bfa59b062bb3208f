package ipc_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	arrowipc "github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/ipc"
)

// arrowTable returns an Arrow IPC file and an Arrow IPC stream of one small
// record batch, written by arrow-go.
func arrowTable(t *testing.T) (file, stream []byte) {
	t.Helper()
	mem := checked(t)
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Float64}}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	b.Field(0).(*array.Float64Builder).AppendValues([]float64{1, 2, 3}, nil)
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

func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, err := w.Write([]byte(s))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return b.Bytes()
}

// seedMessage returns the message of seedCOO.
func seedMessage(t *testing.T) []byte {
	t.Helper()
	mem := checked(t)
	x := seedCOO(t, mem)
	defer x.Release()
	b, err := ipc.AppendTensor(nil, x)
	require.NoError(t, err)
	return b
}

// What is not a file of tensor messages is named, with what reads it, by
// every reader: ReadFile and OpenFile (mapped), ReadMessage and NewReader
// (streamed), ParseMessage.
func TestForeignInputs(t *testing.T) {
	mem := checked(t)
	file, stream := arrowTable(t)
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		data []byte
		want []string
	}{
		{"table.arrow", file, []string{"holds a table (Arrow IPC file)", "arrowext", "sptensor dump"}},
		{"table.arrows", stream, []string{"holds a table (Arrow IPC stream)", "arrowext", "sptensor dump"}},
		{"table.parquet", append([]byte("PAR1\x15\x04\x15\x10"), make([]byte, 64)...), []string{"Parquet", "arrowext"}},
		{"m.mtx.gz", gzipped(t, "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n"), []string{"gzip-compressed", "decompress"}},
		{"m.mtx", []byte("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n"), []string{"Matrix Market", "package mtx"}},
		{"t.tns", []byte("1 1 1 1.5\n2 2 2 -3\n"), []string{"FROSTT", "package tns"}},
		{"notes.txt", []byte("hello\n"), []string{"is text"}},
	} {
		path := filepath.Join(dir, c.name)
		require.NoError(t, os.WriteFile(path, c.data, 0o644))
		check := func(how string, err error, named bool) {
			t.Helper()
			require.Error(t, err, "%s %s", how, c.name)
			assert.ErrorIs(t, err, arrow.ErrInvalid, "%s %s", how, c.name)
			for _, w := range c.want {
				assert.Contains(t, err.Error(), w, "%s %s", how, c.name)
			}
			assert.NotContains(t, err.Error(), "metadata length", "%s %s", how, c.name)
			assert.NotContains(t, err.Error(), "wire", "%s %s", how, c.name)
			if named {
				assert.Contains(t, err.Error(), path, "%s %s", how, c.name)
			}
		}
		_, err := ipc.ReadFile(path)
		check("ReadFile", err, true)
		r, err := ipc.OpenFile(path)
		require.NoError(t, err)
		_, err = r.Next()
		r.Release()
		check("OpenFile", err, true)
		_, err = ipc.ReadMessage(bytes.NewReader(c.data), ipc.WithAllocator(mem))
		check("ReadMessage", err, false)
		// A reader that cannot tell its length reads on to see what it has.
		_, err = ipc.NewReader(io.MultiReader(bytes.NewReader(c.data)), ipc.WithAllocator(mem)).Next()
		check("NewReader", err, false)
		_, err = ipc.ParseMessage(c.data)
		check("ParseMessage", err, false)
	}
}

func TestReadFileErrorsNameThePath(t *testing.T) {
	dir := t.TempDir()
	_, err := ipc.ReadFile(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), dir)
	assert.Contains(t, err.Error(), "is a directory")
	assert.ErrorIs(t, err, syscall.EISDIR)
	_, err = ipc.OpenFile(dir)
	assert.ErrorIs(t, err, syscall.EISDIR)

	missing := filepath.Join(dir, "missing.arrow")
	_, err = ipc.ReadFile(missing)
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.Contains(t, err.Error(), missing)

	empty := filepath.Join(dir, "empty.arrow")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	_, err = ipc.ReadFile(empty)
	assert.ErrorIs(t, err, arrow.ErrInvalid)
	assert.Contains(t, err.Error(), empty)
	assert.Contains(t, err.Error(), "no message")

	msg := seedMessage(t)
	truncated := filepath.Join(dir, "truncated.arrow")
	require.NoError(t, os.WriteFile(truncated, msg[:len(msg)-8], 0o644))
	_, err = ipc.ReadFile(truncated)
	assert.ErrorIs(t, err, arrow.ErrInvalid)
	assert.Contains(t, err.Error(), truncated)
	assert.True(t, strings.HasPrefix(err.Error(), "ipc: "), err.Error())
}

// A file of several messages is refused by ReadFile with the count and
// what to use instead; OpenFile reads them, and names a bad one by index and
// offset.
func TestReadFileSeveralMessages(t *testing.T) {
	dir := t.TempDir()
	msg := seedMessage(t)
	three := filepath.Join(dir, "three.arrow")
	require.NoError(t, os.WriteFile(three, bytes.Repeat(msg, 3), 0o644))
	_, err := ipc.ReadFile(three)
	require.Error(t, err)
	assert.ErrorIs(t, err, arrow.ErrInvalid)
	for _, w := range []string{three + " holds 3 messages", "OpenFile", "NewReader", "sptensor inspect --all", "--message N"} {
		assert.Contains(t, err.Error(), w)
	}

	junk := filepath.Join(dir, "junk.arrow")
	require.NoError(t, os.WriteFile(junk, append(bytes.Clone(msg), "trailing notes\n"...), 0o644))
	_, err = ipc.ReadFile(junk)
	require.Error(t, err)
	assert.Contains(t, err.Error(), junk)
	assert.Contains(t, err.Error(), "is text")

	partial := filepath.Join(dir, "partial.arrow")
	require.NoError(t, os.WriteFile(partial, append(bytes.Repeat(msg, 2), msg[:20]...), 0o644))
	_, err = ipc.ReadFile(partial)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "more than one message")

	r, err := ipc.OpenFile(partial)
	require.NoError(t, err)
	defer r.Release()
	for i := range 2 {
		m, err := r.Next()
		require.NoError(t, err, i)
		m.Release()
	}
	assert.Equal(t, 2*int64(len(msg)), r.Offset())
	_, err = r.Next()
	require.Error(t, err)
	assert.ErrorIs(t, err, arrow.ErrInvalid)
	assert.Contains(t, err.Error(), partial+": message 2 at offset "+strconv.Itoa(2*len(msg)))
}

func TestWriteFile(t *testing.T) {
	mem := checked(t)
	dir := t.TempDir()
	x := seedCOO(t, mem)
	defer x.Release()
	path := filepath.Join(dir, "x.arrow")
	require.NoError(t, ipc.WriteFile(path, x))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, seedMessage(t), got)

	// Overwriting keeps the permissions of the file it replaces.
	require.NoError(t, os.Chmod(path, 0o640))
	require.NoError(t, ipc.WriteFileSeq(path, []arrowsparse.Tensor{x, x}))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o640), fi.Mode().Perm())
	r, err := ipc.OpenFile(path, ipc.WithAllocator(mem))
	require.NoError(t, err)
	n := 0
	for m, err := range r.All() {
		require.NoError(t, err)
		assert.Equal(t, dense(t, mem, x), dense(t, mem, m.Tensor))
		m.Release()
		n++
	}
	r.Release()
	assert.Equal(t, 2, n)

	// Through a symbolic link, the target is replaced.
	link := filepath.Join(dir, "link.arrow")
	require.NoError(t, os.Symlink(path, link))
	require.NoError(t, ipc.WriteFile(link, x))
	fi, err = os.Lstat(link)
	require.NoError(t, err)
	assert.True(t, fi.Mode()&fs.ModeSymlink != 0)
	got, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, seedMessage(t), got)

	// A device is written in place.
	require.NoError(t, ipc.WriteFile(os.DevNull, x))

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 2, "temporary files left behind")
}

// Errors of WriteFile name the path, never the temporary file, and leave
// nothing behind.
func TestWriteFileErrors(t *testing.T) {
	mem := checked(t)
	dir := t.TempDir()
	x := seedCOO(t, mem)
	defer x.Release()

	err := ipc.WriteFile(dir, x)
	require.Error(t, err)
	assert.ErrorIs(t, err, syscall.EISDIR)
	assert.Contains(t, err.Error(), dir)

	nodir := filepath.Join(dir, "no", "such", "dir", "x.arrow")
	err = ipc.WriteFile(nodir, x)
	require.Error(t, err)
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.Contains(t, err.Error(), nodir)
	assert.NotContains(t, err.Error(), ".tmp")

	if os.Getuid() != 0 {
		ro := filepath.Join(dir, "ro")
		require.NoError(t, os.Mkdir(ro, 0o555))
		path := filepath.Join(ro, "x.arrow")
		err = ipc.WriteFile(path, x)
		require.Error(t, err)
		assert.ErrorIs(t, err, fs.ErrPermission)
		assert.Equal(t, "ipc: open "+path+": permission denied", err.Error())
	}

	// A tensor the writer refuses: the old file stays, no temporary file.
	path := filepath.Join(dir, "keep.arrow")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))
	err = ipc.WriteFile(path, unwritable{x})
	require.Error(t, err)
	assert.ErrorIs(t, err, arrow.ErrType)
	assert.NotContains(t, err.Error(), ".tmp")
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "old", string(got))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.False(t, strings.Contains(e.Name(), ".tmp"), e.Name())
	}
}

// unwritable is a tensor of a format the writer does not know.
type unwritable struct{ arrowsparse.Tensor }

func (unwritable) Format() arrowsparse.Format { return arrowsparse.FormatDM }

// Reading through a stream, allocations go through the allocator and are
// released, errors included.
func TestForeignStreamReleases(t *testing.T) {
	mem := checked(t)
	_, stream := arrowTable(t)
	r := ipc.NewReader(bytes.NewReader(append(seedMessage(t), stream...)), ipc.WithAllocator(mem))
	defer r.Release()
	m, err := r.Next()
	require.NoError(t, err)
	m.Release()
	_, err = r.Next()
	require.Error(t, err)
	assert.True(t, errors.Is(err, arrow.ErrInvalid))
	assert.Contains(t, err.Error(), "at offset "+strconv.Itoa(len(seedMessage(t))))
	assert.Contains(t, err.Error(), "Arrow IPC stream")
}
