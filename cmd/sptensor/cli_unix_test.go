//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse/internal/sniff"
)

// fifo returns a named pipe that a goroutine fills with data.
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

// A named pipe or /dev/fd/N holding a message reads as a file does; its
// kind is told without losing the bytes.
func TestPipes(t *testing.T) {
	data := readFile(t, golden("coo"))
	want, _, _ := sptensor(t, "dump", "--json", golden("coo"))
	got, stderr, code := sptensor(t, "dump", "--json", fifo(t, data))
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, want, got)

	two := bytes.Repeat(data, 2)
	_, stderr, code = sptensor(t, "inspect", fifo(t, two))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "holds 2 messages")
	got, _, code = sptensor(t, "dump", "--json", "--message", "1", fifo(t, two))
	assert.Equal(t, 0, code)
	assert.Equal(t, want, got)

	path := fifo(t, data)
	in, err := openInput(path, nil)
	require.NoError(t, err)
	k, err := in.Kind()
	require.NoError(t, err)
	assert.Equal(t, sniff.TensorMessage, k)
	r, err := in.Messages()
	require.NoError(t, err)
	m, err := r.Next()
	require.NoError(t, err, "Kind consumed nothing")
	m.Release()
	r.Release()
	in.Close()

	if _, err := os.Stat("/dev/fd/0"); err == nil {
		pr, pw, err := os.Pipe()
		require.NoError(t, err)
		defer pr.Close()
		go func() {
			pw.Write(data)
			pw.Close()
		}()
		got, stderr, code := sptensor(t, "dump", "--json", fmt.Sprintf("/dev/fd/%d", pr.Fd()))
		require.Equal(t, 0, code, stderr)
		assert.Equal(t, want, got)
	}
}
