package tns_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/tns"
)

// FuzzRead reads arbitrary bytes with the in-memory reader and the
// streaming reader (any chunk size and worker count), which must agree,
// and then does with the tensor what a user would: validate it, densify
// it (under a size cap), canonicalise it, write it back and read that
// again with the same shape and types.
func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob("../testdata/tns/ref/*.tns")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil && len(b) < 4096 {
			f.Add(b, uint16(0), uint8(0))
			f.Add(b, uint16(11), uint8(2))
		}
	}
	for _, s := range []string{
		"1 2 3 1.5\n2 1 1 -2\n# c\n",
		"3\t1e300\r\n\r\n1 -0\n",
		"4.5\n",
		"1 1 1 1 1 1 1 1 1 1 1 7\n",
	} {
		f.Add([]byte(s), uint16(3), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, chunk uint16, workers uint8) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		opts := []tns.ReadOption{
			tns.WithAllocator(mem), tns.WithChunkSize(int(chunk) % 2048), tns.WithWorkers(int(workers)%4 + 1),
			tns.WithMaxLineLength(1 << 12),
		}
		x, err := tns.ReadBytes(data, opts...)
		s, serr := tns.Read(bytes.NewReader(data), opts...)
		if err != nil {
			require.Error(t, serr)
			require.Equal(t, lineOf(err), lineOf(serr))
			var e *arrowsparse.Error
			require.True(t, errors.As(err, &e), "%T %v", err, err)
			return
		}
		require.NoError(t, serr)
		defer x.Release()
		same(t, x, s)
		require.Equal(t, x.IndexType(), s.IndexType())
		require.Equal(t, x.IsCanonical(), s.IsCanonical())
		s.Release()
		require.NoError(t, x.Validate())
		if n, err := arrowsparse.NumElements(x.Shape()); err == nil && n <= 1<<16 {
			d, err := x.ToDense(mem)
			require.NoError(t, err)
			d.Release()
		}
		c, err := x.Canonicalize(mem, coo.ConvertOptions{})
		require.NoError(t, err)
		require.True(t, c.IsCanonical())
		c.Release()
		var buf bytes.Buffer
		require.NoError(t, tns.Write(&buf, x, tns.WithAllocator(mem)))
		back, err := tns.ReadBytes(buf.Bytes(), tns.WithAllocator(mem), tns.WithShape(x.Shape()...),
			tns.WithValueType(x.DataType()), tns.WithIndexType(x.IndexType()))
		require.NoError(t, err, buf.String())
		same(t, x, back)
		back.Release()
	})
}
