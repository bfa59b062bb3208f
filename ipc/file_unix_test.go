//go:build unix

package ipc_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse/ipc"
)

// fifo returns a named pipe that a goroutine fills with data (and closes).
func fifo(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "pipe")
	require.NoError(t, syscall.Mkfifo(path, 0o600))
	go func() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		f.Write(data)
	}()
	return path
}

// A pipe cannot be mapped: ReadFile and OpenFile read it as a stream, with
// the allocator and limits of the options.
func TestReadFilePipe(t *testing.T) {
	mem := checked(t)
	msg := seedMessage(t)
	x := seedCOO(t, mem)
	defer x.Release()

	m, err := ipc.ReadFile(fifo(t, msg), ipc.WithAllocator(mem))
	require.NoError(t, err)
	assert.Equal(t, dense(t, mem, x), dense(t, mem, m.Tensor))
	assert.Greater(t, mem.CurrentAlloc(), 0, "the body comes from the allocator")
	m.Release()

	path := fifo(t, bytes.Repeat(msg, 2))
	_, err = ipc.ReadFile(path, ipc.WithAllocator(mem))
	require.Error(t, err)
	assert.Contains(t, err.Error(), path+" holds more than one message")
	assert.Contains(t, err.Error(), "OpenFile")

	r, err := ipc.OpenFile(fifo(t, bytes.Repeat(msg, 2)), ipc.WithAllocator(mem))
	require.NoError(t, err)
	n := 0
	for m, err := range r.All() {
		require.NoError(t, err)
		m.Release()
		n++
	}
	r.Release()
	assert.Equal(t, 2, n)

	path = fifo(t, msg)
	_, err = ipc.ReadFile(path, ipc.WithMaxBodySize(8), ipc.WithAllocator(mem))
	require.Error(t, err)
	assert.Contains(t, err.Error(), path)
	assert.Contains(t, err.Error(), "WithMaxBodySize")

	path = fifo(t, []byte("PAR1 and then some bytes of a Parquet file"))
	_, err = ipc.ReadFile(path, ipc.WithAllocator(mem))
	require.Error(t, err)
	assert.ErrorIs(t, err, arrow.ErrInvalid)
	assert.Contains(t, err.Error(), path+" holds a table (Parquet file)")

	path = fifo(t, nil)
	_, err = ipc.ReadFile(path, ipc.WithAllocator(mem))
	require.Error(t, err)
	assert.Contains(t, err.Error(), path+": no message")
}

// /dev/fd/N (and so /dev/stdin) names a pipe the process holds.
func TestReadFileDevFD(t *testing.T) {
	if _, err := os.Stat("/dev/fd/0"); err != nil {
		t.Skip("no /dev/fd")
	}
	mem := checked(t)
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	defer pr.Close()
	msg := seedMessage(t)
	go func() {
		pw.Write(msg)
		pw.Close()
	}()
	m, err := ipc.ReadFile(fmt.Sprintf("/dev/fd/%d", pr.Fd()), ipc.WithAllocator(mem))
	require.NoError(t, err)
	assert.Equal(t, []int64{2, 3, 4}, m.Tensor.Shape())
	m.Release()
}
