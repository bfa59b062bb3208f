package sniff_test

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	arrowipc "github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse/internal/sniff"
)

// table returns an Arrow IPC file and an Arrow IPC stream of one small
// record batch, written by arrow-go.
func table(t *testing.T) (file, stream []byte) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
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

func gz(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, err := w.Write([]byte(s))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return b.Bytes()
}

func TestDetect(t *testing.T) {
	file, stream := table(t)
	coo, err := os.ReadFile(filepath.Join("..", "..", "testdata", "interop", "golden", "coo.arrow"))
	require.NoError(t, err)
	dense, err := os.ReadFile(filepath.Join("..", "..", "testdata", "interop", "golden", "tensor-colmajor.arrow"))
	require.NoError(t, err)
	legacy := coo[4:] // the same message with the pre-0.15 4-byte prefix
	for _, c := range []struct {
		name string
		data []byte
		want sniff.Kind
	}{
		{"empty", nil, sniff.Empty},
		{"sparse tensor", coo, sniff.TensorMessage},
		{"dense tensor", dense, sniff.TensorMessage},
		{"legacy framing", legacy, sniff.TensorMessage},
		{"end-of-stream marker", []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}, sniff.TensorMessage},
		{"Arrow IPC file", file, sniff.ArrowFile},
		{"Arrow IPC stream", stream, sniff.ArrowStream},
		{"legacy Arrow IPC stream", stream[4:], sniff.ArrowStream},
		{"Parquet", append([]byte("PAR1"), make([]byte, 100)...), sniff.Parquet},
		{"gzip", gz(t, "%%MatrixMarket matrix coordinate real general\n"), sniff.Gzip},
		{"Matrix Market", []byte("%%MatrixMarket matrix coordinate real general\n% comment\n2 2 1\n1 1 1.5\n"), sniff.MatrixMarket},
		{"FROSTT", []byte("# a comment\n1 1 1 1.0\n2 3 1 -4.5e3\n"), sniff.FROSTT},
		{"FROSTT, CRLF", []byte("1 2 3\r\n"), sniff.FROSTT},
		{"text", []byte("hello, world\n"), sniff.Text},
		{"UTF-8 text", []byte("\xef\xbb\xbfgrüße\n"), sniff.Text},
		{"binary", []byte{0x00, 0x01, 0x02, 0x80, 0x81, 0xfe}, sniff.Unknown},
		{"negative word", []byte{0x00, 0x00, 0x00, 0x80, 1, 2, 3, 4}, sniff.Unknown},
	} {
		assert.Equal(t, c.want, sniff.Detect(c.data), c.name)
	}
	// A prefix of PrefixLen bytes is enough.
	assert.Equal(t, sniff.ArrowStream, sniff.Detect(stream[:min(len(stream), sniff.PrefixLen)]))
	// A UTF-8 character cut by the end of the prefix is still text.
	assert.Equal(t, sniff.Text, sniff.Detect([]byte("grü")[:3]))
}

func TestKindNames(t *testing.T) {
	for k := sniff.Unknown; k <= sniff.Text; k++ {
		assert.NotEmpty(t, k.String())
		assert.Equal(t, k > sniff.TensorMessage, k.Foreign(), k.String())
		assert.Equal(t, k.Foreign(), k.Explain() != "", k.String())
	}
	assert.Equal(t, "Kind(42)", sniff.Kind(42).String())
	assert.Contains(t, sniff.ArrowFile.Explain(), "arrowext")
	assert.Contains(t, sniff.ArrowFile.Explain(), "sptensor dump")
	assert.Contains(t, sniff.MatrixMarket.Explain(), "mtx")
	assert.Contains(t, sniff.FROSTT.Explain(), "tns")
	assert.True(t, sniff.Parquet.IsTable())
	assert.False(t, sniff.Gzip.IsTable())
}

// Every prefix of every kind is classified without panicking.
func FuzzDetect(f *testing.F) {
	coo, err := os.ReadFile(filepath.Join("..", "..", "testdata", "interop", "golden", "coo.arrow"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(coo)
	f.Add([]byte("ARROW1\x00\x00"))
	f.Add([]byte("%%MatrixMarket matrix array real general\n"))
	f.Add([]byte("1 2 3.5\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for n := range min(len(data), 64) + 1 {
			_ = sniff.Detect(data[:n]).String()
		}
		_ = sniff.Detect(data)
	})
}
