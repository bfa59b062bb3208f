package mtx_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"testing/iotest"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse/mtx"
)

// variant is one way to read a file.
type variant struct {
	name string
	read func(t *testing.T, data []byte, opts ...mtx.ReadOption) (*mtx.Matrix, error)
}

func gz(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, err := w.Write(data)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return b.Bytes()
}

func gunzip(t *testing.T, data []byte) []byte {
	t.Helper()
	r, err := gzip.NewReader(bytes.NewReader(data))
	require.NoError(t, err)
	out, err := io.ReadAll(r)
	require.NoError(t, err)
	return out
}

func tempFile(t *testing.T, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "m.mtx")
	require.NoError(t, os.WriteFile(p, data, 0o644))
	return p
}

// variants are the readers × compression × chunk sizes × workers.
var variants = func() []variant {
	type src struct {
		name string
		read func(t *testing.T, data []byte, opts ...mtx.ReadOption) (*mtx.Matrix, error)
	}
	srcs := []src{
		{"bytes", func(t *testing.T, data []byte, opts ...mtx.ReadOption) (*mtx.Matrix, error) {
			return mtx.ReadBytes(data, opts...)
		}},
		{"halfreader", func(t *testing.T, data []byte, opts ...mtx.ReadOption) (*mtx.Matrix, error) {
			return mtx.Read(iotest.HalfReader(bytes.NewReader(data)), opts...)
		}},
		{"file", func(t *testing.T, data []byte, opts ...mtx.ReadOption) (*mtx.Matrix, error) {
			return mtx.ReadFile(tempFile(t, data), opts...)
		}},
		{"gzbytes", func(t *testing.T, data []byte, opts ...mtx.ReadOption) (*mtx.Matrix, error) {
			return mtx.ReadBytes(gz(t, data), opts...)
		}},
		{"gzfile", func(t *testing.T, data []byte, opts ...mtx.ReadOption) (*mtx.Matrix, error) {
			return mtx.ReadFile(tempFile(t, gz(t, data)), opts...)
		}},
	}
	var out []variant
	for _, s := range srcs {
		for _, c := range []struct {
			name string
			opts []mtx.ReadOption
		}{
			{"default", nil},
			{"chunk7/w3", []mtx.ReadOption{mtx.WithChunkSize(7), mtx.WithWorkers(3)}},
			{"chunk64/w1", []mtx.ReadOption{mtx.WithChunkSize(64), mtx.WithWorkers(1)}},
		} {
			s, c := s, c
			out = append(out, variant{s.name + "/" + c.name, func(t *testing.T, data []byte, opts ...mtx.ReadOption) (*mtx.Matrix, error) {
				return s.read(t, data, append(append([]mtx.ReadOption(nil), c.opts...), opts...)...)
			}})
		}
	}
	return out
}()

// readAll reads data with every variant, requires the same result from
// each, and returns the first (to be released by the caller) or the
// error (with its line, if any, the same for each).
func readAll(t *testing.T, mem memory.Allocator, data []byte, opts ...mtx.ReadOption) (*mtx.Matrix, error) {
	t.Helper()
	opts = append([]mtx.ReadOption{mtx.WithAllocator(mem)}, opts...)
	first, firstErr := variants[0].read(t, data, opts...)
	for _, v := range variants[1:] {
		m, err := v.read(t, data, opts...)
		if firstErr != nil {
			require.Error(t, err, v.name)
			require.Equal(t, lineOf(firstErr), lineOf(err), "%s: %v vs %v", v.name, firstErr, err)
			require.Equal(t, category(firstErr), category(err), "%s: %v vs %v", v.name, firstErr, err)
			continue
		}
		require.NoError(t, err, v.name)
		sameMatrix(t, first, m, v.name)
		m.Release()
	}
	return first, firstErr
}

// lineOf returns the line error's text, or the whole message without the
// file name.
func lineOf(err error) string {
	var le *mtx.LineError
	if errors.As(err, &le) {
		return le.Error()
	}
	return "no line: " + fmt.Sprint(errors.Unwrap(err) != nil)
}

func category(err error) string {
	for _, c := range categories {
		if errors.Is(err, c) {
			return c.Error()
		}
	}
	return "none"
}

func sameMatrix(t *testing.T, a, b *mtx.Matrix, what string) {
	t.Helper()
	require.Equal(t, a.Header, b.Header, what)
	if a.COO != nil {
		require.NotNil(t, b.COO, what)
		x, y := a.COO, b.COO
		require.Equal(t, x.Shape(), y.Shape(), what)
		require.Equal(t, x.DataType(), y.DataType(), what)
		require.Equal(t, x.IndexType(), y.IndexType(), what)
		require.Equal(t, x.NNZ(), y.NNZ(), what)
		require.Equal(t, x.Layout(), y.Layout(), what)
		require.Equal(t, x.IsCanonical(), y.IsCanonical(), what)
		require.Equal(t, bytesOf(x.CoordsBuffer(), x.NNZ()*2*int64(width(x.IndexType()))), bytesOf(y.CoordsBuffer(), y.NNZ()*2*int64(width(y.IndexType()))), what)
		require.Equal(t, bytesOf(x.ValuesBuffer(), x.NNZ()*int64(width(x.DataType()))), bytesOf(y.ValuesBuffer(), y.NNZ()*int64(width(y.DataType()))), what)
		return
	}
	require.NotNil(t, b.Dense, what)
	require.Equal(t, a.Dense.Shape(), b.Dense.Shape(), what)
	require.Equal(t, a.Dense.ElemStrides(), b.Dense.ElemStrides(), what)
	require.Equal(t, a.Dense.Buffer().Bytes(), b.Dense.Buffer().Bytes(), what)
}

func bytesOf(b *memory.Buffer, n int64) []byte {
	if n == 0 {
		return nil
	}
	return b.Bytes()[:n]
}

// peakAllocator records the largest number of bytes allocated at once.
type peakAllocator struct {
	memory.Allocator
	cur, peak atomic.Int64
}

func (p *peakAllocator) add(n int64) {
	c := p.cur.Add(n)
	for {
		pk := p.peak.Load()
		if c <= pk || p.peak.CompareAndSwap(pk, c) {
			return
		}
	}
}

func (p *peakAllocator) Allocate(n int) []byte {
	p.add(int64(n))
	return p.Allocator.Allocate(n)
}

func (p *peakAllocator) Reallocate(n int, b []byte) []byte {
	p.add(int64(n - len(b)))
	return p.Allocator.Reallocate(n, b)
}

func (p *peakAllocator) Free(b []byte) {
	p.add(-int64(len(b)))
	p.Allocator.Free(b)
}
