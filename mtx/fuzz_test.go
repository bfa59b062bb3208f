package mtx_test

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
	"github.com/arrowsparse/arrowsparse/mtx"
)

// FuzzRead reads arbitrary bytes with the in-memory reader and the
// streaming reader (any chunk size and worker count), which must agree,
// and then does with the matrix what a user would: validate it, densify
// it (under a size cap), canonicalise it, write it back (with its
// symmetry, when it has no duplicates) and read that again.
func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob("../testdata/mtx/*.mtx")
	more, _ := filepath.Glob("../testdata/mtx/scipy/*_[0-3].mtx")
	for _, p := range append(files, more...) {
		if b, err := os.ReadFile(p); err == nil && len(b) < 4096 {
			f.Add(b, uint16(0), uint8(0))
			f.Add(b, uint16(13), uint8(2))
		}
	}
	for _, s := range []string{
		"%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 2\n",
		"%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 3\n",
		"%%MatrixMarket matrix array integer skew-symmetric\n3 3\n1\n-2\n3\n",
		"%%MatrixMarket matrix coordinate integer hermitian\r\n% c\r\n2 2 1\r\n2 1 -7\r\n",
	} {
		f.Add([]byte(s), uint16(5), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, chunk uint16, workers uint8) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		opts := []mtx.ReadOption{
			mtx.WithAllocator(mem), mtx.WithChunkSize(int(chunk) % 2048), mtx.WithWorkers(int(workers)%4 + 1),
			mtx.WithMaxLineLength(1 << 12),
		}
		_, herr := mtx.ReadHeader(bytes.NewReader(data))
		m, err := mtx.ReadBytes(data, opts...)
		s, serr := mtx.Read(bytes.NewReader(data), opts...)
		if err != nil {
			require.Error(t, serr)
			require.Equal(t, lineOf(err), lineOf(serr))
			var e *arrowsparse.Error
			require.True(t, errors.As(err, &e), "%T %v", err, err)
			if herr == nil {
				// The header was fine, so the body was not.
				require.NotContains(t, err.Error(), "line 1:")
			}
			return
		}
		require.NoError(t, herr)
		require.NoError(t, serr)
		defer m.Release()
		sameMatrix(t, m, s, "stream")
		s.Release()
		useMatrix(t, mem, m)
	})
}

// useMatrix does what a user would with a matrix just read.
func useMatrix(t *testing.T, mem memory.Allocator, m *mtx.Matrix) {
	h := m.Header
	if m.Dense != nil {
		var buf bytes.Buffer
		require.NoError(t, mtx.Write(&buf, m.Dense, mtx.WithSymmetry(h.Symmetry), mtx.WithAllocator(mem)))
		back, err := mtx.ReadBytes(buf.Bytes(), mtx.WithAllocator(mem), mtx.WithValueType(m.Dense.DataType()))
		require.NoError(t, err, buf.String())
		sameDense(t, m.Dense, back.Dense)
		back.Release()
		c, err := m.ToCOO(mem)
		require.NoError(t, err)
		c.Release()
		return
	}
	c := m.COO
	require.NoError(t, c.Validate())
	if h.Rows*h.Cols <= 1<<16 && h.Rows < 1<<16 && h.Cols < 1<<16 {
		d, err := c.ToDense(mem)
		require.NoError(t, err)
		d.Release()
	}
	canon, err := c.Canonicalize(mem, coo.ConvertOptions{})
	require.NoError(t, err)
	defer canon.Release()
	require.True(t, canon.IsCanonical())
	// Write back as general: every entry, in order.
	var buf bytes.Buffer
	require.NoError(t, mtx.Write(&buf, c, mtx.WithAllocator(mem)))
	back, err := mtx.ReadBytes(buf.Bytes(), mtx.WithAllocator(mem), mtx.WithValueType(c.DataType()), mtx.WithIndexType(c.IndexType()))
	require.NoError(t, err, buf.String())
	sameTensor(t, c, back.COO)
	back.Release()
	// With the file's symmetry, when summing cannot break it.
	if h.Symmetry != mtx.General && canon.NNZ() == c.NNZ() {
		buf.Reset()
		err := mtx.Write(&buf, c, mtx.WithSymmetry(h.Symmetry), mtx.WithAllocator(mem))
		require.NoError(t, err)
		back, err := mtx.ReadBytes(buf.Bytes(), mtx.WithAllocator(mem), mtx.WithValueType(c.DataType()))
		require.NoError(t, err, buf.String())
		bc, err := back.COO.Canonicalize(mem, coo.ConvertOptions{})
		require.NoError(t, err)
		sameTensor(t, canon, bc)
		bc.Release()
		back.Release()
	}
}
