package ipc_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
	"github.com/arrowsparse/arrowsparse/ipc"
	"github.com/arrowsparse/arrowsparse/ipc/internal/wire"
	"github.com/arrowsparse/arrowsparse/views"
)

func checked(t *testing.T) *memory.CheckedAllocator {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}

// seedCOO is the GCS introduction's (2,3,4) array with nine elements.
func seedCOO(t *testing.T, mem memory.Allocator) *coo.Tensor {
	t.Helper()
	x, err := coo.FromSlices(mem, []int64{2, 3, 4}, []int32{
		0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 2, 1, 1, 0, 0, 1, 0, 3, 1, 2, 0, 1, 2, 2, 1, 2, 3,
	}, coo.RowMajor, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}, coo.WithDimNames("i", "j", "k"))
	require.NoError(t, err)
	return x
}

func dense(t *testing.T, mem memory.Allocator, x arrowsparse.Tensor) []float64 {
	t.Helper()
	d, err := x.ToDense(mem)
	require.NoError(t, err)
	defer d.Release()
	return append([]float64(nil), testutil.ViewValues[float64](t, d.(*views.View))...)
}

// A GCS tensor travels as the CSR message of its storage plus the mapping,
// and comes back as the same N-d tensor; the GCS introduction's third example.
func TestGCSRoundTrip(t *testing.T) {
	mem := checked(t)
	x := seedCOO(t, mem)
	defer x.Release()
	mp, err := gcs.NewMapping(x.Shape(), []int{2, 1, 0}, 1)
	require.NoError(t, err)
	g, err := gcs.FromCOO(mem, x, gcs.ConvertOptions{Mapping: mp})
	require.NoError(t, err)
	defer g.Release()

	var buf bytes.Buffer
	_, err = ipc.WriteTensor(&buf, g)
	require.NoError(t, err)
	m, err := ipc.ParseMessage(buf.Bytes())
	require.NoError(t, err)
	defer m.Release()
	require.Len(t, m.CustomMetadata, 1)
	assert.Equal(t, ipc.GCSMetadataKey, m.CustomMetadata[0].Key)
	assert.JSONEq(t, `{"version":1,"shape":[2,3,4],"dimensions":[2,1,0],"partitioning":[1],"dim_names":["i","j","k"]}`, m.CustomMetadata[0].Value)
	back, ok := m.Tensor.(*gcs.Tensor)
	require.True(t, ok, "got %T", m.Tensor)
	assert.Equal(t, []int{2, 1, 0}, back.Dims())
	assert.Equal(t, 1, back.Partitioning())
	assert.Equal(t, []string{"i", "j", "k"}, back.DimNames())
	assert.Equal(t, dense(t, mem, x), dense(t, mem, back))
	// The storage is the GCS introduction's CRS form of this mapping.
	ip, err := gcs.Indptr[int32](back.Storage())
	require.NoError(t, err)
	assert.Equal(t, []int32{0, 2, 4, 6, 9}, ip)
	ix, err := gcs.Indices[int32](back.Storage())
	require.NoError(t, err)
	assert.Equal(t, []int32{1, 5, 0, 4, 0, 5, 0, 1, 5}, ix)

	// Writing it again gives the same bytes.
	var again bytes.Buffer
	_, err = ipc.WriteTensor(&again, back)
	require.NoError(t, err)
	assert.Equal(t, buf.Bytes(), again.Bytes())

	// A broken mapping is an error, not a plain CSR.
	for _, bad := range []string{`{`, `{"version":2}`, `{"version":1,"shape":[2,3,4],"dimensions":[0,0,1],"partitioning":[1]}`, `{"version":1,"shape":[2,3],"dimensions":[0,1],"partitioning":[1]}`} {
		msg := replaceMetadataValue(t, buf.Bytes(), bad)
		_, err := ipc.ParseMessage(msg)
		require.Error(t, err, bad)
		assert.True(t, errorsIsArrow(err))
	}
}

// replaceMetadataValue rewrites a GCS message with another mapping value, by
// decoding it with a fake tensor: simplest through a fresh write.
func replaceMetadataValue(t *testing.T, msg []byte, value string) []byte {
	t.Helper()
	// The JSON value is stored as a flatbuffer string: find it and splice a
	// value of the same length when possible, else pad with spaces.
	m, err := ipc.ParseMessage(msg)
	require.NoError(t, err)
	old := m.CustomMetadata[0].Value
	m.Release()
	i := bytes.Index(msg, []byte(old))
	require.GreaterOrEqual(t, i, 0)
	if len(value) > len(old) {
		t.Fatalf("replacement %q longer than %q", value, old)
	}
	out := append([]byte(nil), msg...)
	v := []byte(value)
	for len(v) < len(old) {
		v = append(v, ' ')
	}
	copy(out[i:], v)
	return out
}

func TestSequences(t *testing.T) {
	mem := checked(t)
	x := seedCOO(t, mem)
	defer x.Release()
	c, err := csf.FromCOO(mem, x, csf.ConvertOptions{})
	require.NoError(t, err)
	defer c.Release()
	d, err := x.ToDense(mem)
	require.NoError(t, err)
	defer d.Release()

	var buf bytes.Buffer
	for _, tt := range []arrowsparse.Tensor{x, c, d} {
		_, err := ipc.WriteTensor(&buf, tt)
		require.NoError(t, err)
	}
	withEOS := append(append([]byte(nil), buf.Bytes()...), 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0)
	for _, input := range [][]byte{buf.Bytes(), withEOS} {
		for _, r := range []*ipc.Reader{ipc.NewBytesReader(input), ipc.NewReader(bytes.NewReader(input), ipc.WithAllocator(mem))} {
			var formats []arrowsparse.Format
			for m, err := range r.All() {
				require.NoError(t, err)
				formats = append(formats, m.Tensor.Format())
				assert.Equal(t, dense(t, mem, x), dense(t, mem, m.Tensor))
				m.Release()
			}
			assert.Equal(t, []arrowsparse.Format{arrowsparse.FormatCOO, arrowsparse.FormatCSF, arrowsparse.FormatDense}, formats)
			_, err := r.Next()
			assert.Equal(t, io.EOF, err)
			r.Release()
		}
	}
	// One message only: a sequence is an error for ParseMessage.
	_, err = ipc.ParseMessage(buf.Bytes())
	require.ErrorIs(t, err, arrow.ErrInvalid)
	// An end-of-stream marker alone is not a message.
	_, err = ipc.ParseMessage(withEOS[buf.Len():])
	require.ErrorIs(t, err, arrow.ErrInvalid)
	_, err = ipc.ReadMessage(bytes.NewReader(nil))
	require.Error(t, err)
}

func TestReadFileMapped(t *testing.T) {
	mem := checked(t)
	dir := t.TempDir()
	x := seedCOO(t, mem)
	defer x.Release()
	path := filepath.Join(dir, "seed.arrow")
	f, err := os.Create(path)
	require.NoError(t, err)
	_, err = ipc.WriteTensor(f, x)
	require.NoError(t, err)
	_, err = ipc.WriteTensor(f, x)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	r, err := ipc.OpenFile(path)
	require.NoError(t, err)
	m1, err := r.Next()
	require.NoError(t, err)
	m2, err := r.Next()
	require.NoError(t, err)
	r.Release() // the mapping lives on in the tensors
	assert.Equal(t, dense(t, mem, x), dense(t, mem, m1.Tensor))
	assert.Equal(t, dense(t, mem, x), dense(t, mem, m2.Tensor))
	m1.Release()
	m2.Release()

	_, err = ipc.ReadFile(path) // two messages
	require.Error(t, err)
	_, err = ipc.ReadFile(filepath.Join(dir, "missing"))
	require.Error(t, err)
}

// A message claiming a huge body fails before anything is allocated.
func TestHugeClaims(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "interop", "golden", "coo.arrow"))
	require.NoError(t, err)
	m, err := ipc.ParseMessage(data)
	require.NoError(t, err)
	m.Release()
	short := data[:len(data)-1]
	_, err = ipc.ParseMessage(short)
	require.ErrorIs(t, err, arrow.ErrInvalid)

	// 16 bytes: a prefix claiming 1 TB of metadata.
	huge := make([]byte, 16)
	binary.LittleEndian.PutUint32(huge, 0xFFFFFFFF)
	binary.LittleEndian.PutUint32(huge[4:], 0x7FFFFFFF)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	_, err = ipc.ReadMessage(bytes.NewReader(huge), ipc.WithAllocator(mem))
	require.Error(t, err)
	_, err = ipc.ReadMessage(io.MultiReader(bytes.NewReader(huge)), ipc.WithAllocator(mem))
	require.Error(t, err)
	assert.Less(t, mem.CurrentAlloc(), 1<<20)
	_, err = ipc.ParseMessage(huge)
	require.Error(t, err)
	// Limits are options.
	_, err = ipc.ParseMessage(data, ipc.WithMaxBodySize(8))
	require.ErrorIs(t, err, arrow.ErrInvalid)
	_, err = ipc.ParseMessage(data, ipc.WithMaxMetadataSize(16))
	require.ErrorIs(t, err, arrow.ErrInvalid)
}

func TestCSFByteLengths(t *testing.T) {
	mem := checked(t)
	x := seedCOO(t, mem)
	defer x.Release()
	c, err := csf.FromCOO(mem, x, csf.ConvertOptions{})
	require.NoError(t, err)
	defer c.Release()
	var counts, bytesLen bytes.Buffer
	_, err = ipc.WriteTensor(&counts, c)
	require.NoError(t, err)
	_, err = ipc.WriteTensor(&bytesLen, c, ipc.WithCSFLengths(ipc.ByteLengths))
	require.NoError(t, err)
	assert.NotEqual(t, counts.Bytes(), bytesLen.Bytes())
	for _, b := range [][]byte{counts.Bytes(), bytesLen.Bytes()} {
		m, err := ipc.ParseMessage(b)
		require.NoError(t, err)
		assert.Equal(t, dense(t, mem, x), dense(t, mem, m.Tensor))
		m.Release()
	}
	m, err := ipc.ParseMessage(bytesLen.Bytes())
	require.NoError(t, err)
	assert.Equal(t, ipc.ByteLengths, m.CSFLengths)
	m.Release()
}

// The writer refuses what Arrow C++ rejects or aborts on.
func TestWriterRefusesNarrowIndexTypes(t *testing.T) {
	mem := checked(t)
	n := 200
	coords := make([]int8, n)
	vals := make([]float32, n)
	for i := range n {
		coords[i] = int8(i % 100)
	}
	x, err := coo.FromSlices(mem, []int64{100}, coords, coo.RowMajor, vals)
	require.NoError(t, err)
	defer x.Release()
	_, err = ipc.WriteTensor(io.Discard, x) // int8 cannot count 200 entries
	require.ErrorIs(t, err, arrow.ErrType)

	// A CSR whose int8 indices are fine as values but cannot count nnz.
	indptr := []int16{0, 100, 200}
	indices := make([]int8, 200)
	for i := range indices {
		indices[i] = int8(i % 100)
	}
	m, err := gcs.FromSlices(mem, gcs.Rows, []int64{2, 100}, indptr, indices, make([]float64, 200))
	require.NoError(t, err)
	defer m.Release()
	_, err = ipc.WriteTensor(io.Discard, m)
	require.ErrorIs(t, err, arrow.ErrType)
}

// A CSF with a different index type per level is widened to one indptr and
// one indices type, as the message needs.
func TestCSFMixedLevelTypes(t *testing.T) {
	mem := checked(t)
	x := seedCOO(t, mem)
	defer x.Release()
	i8, i16, i32 := arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32
	c, err := csf.FromCOO(mem, x, csf.ConvertOptions{
		LevelIndexTypes:  []arrow.DataType{i8, i16, i8},
		LevelIndptrTypes: []arrow.DataType{i32, i8},
	})
	require.NoError(t, err)
	defer c.Release()
	var buf bytes.Buffer
	_, err = ipc.WriteTensor(&buf, c)
	require.NoError(t, err)
	m, err := ipc.ParseMessage(buf.Bytes())
	require.NoError(t, err)
	defer m.Release()
	back := m.Tensor.(*csf.Tensor)
	for l := range 3 {
		assert.Equal(t, i16, back.IndexType(l))
		if l < 2 {
			assert.Equal(t, i32, back.IndptrType(l))
		}
	}
	assert.Equal(t, dense(t, mem, x), dense(t, mem, back))
}

// GCS dim names travel as JSON: names that are not UTF-8 are refused rather
// than silently replaced.
func TestGCSNamesMustBeUTF8(t *testing.T) {
	mem := checked(t)
	x := seedCOO(t, mem)
	defer x.Release()
	g, err := gcs.FromCOO(mem, x, gcs.ConvertOptions{})
	require.NoError(t, err)
	defer g.Release()
	bad, err := g.WithDimNames("i", "j\xff", "k")
	require.NoError(t, err)
	defer bad.Release()
	_, err = ipc.WriteTensor(io.Discard, bad)
	require.ErrorIs(t, err, arrow.ErrInvalid)
	// The same names are fine in a plain sparse message.
	c, err := csf.FromCOO(mem, x, csf.ConvertOptions{})
	require.NoError(t, err)
	defer c.Release()
	_, err = ipc.WriteTensor(io.Discard, c)
	require.NoError(t, err)
}

// An index type needs to hold only the indices a message stores: int8
// coordinates, all in range, are legal in a dimension longer than 127
// (Arrow C++ reads such a message), for COO, CSR and CSF alike.
func TestNarrowIndexTypesAreLegal(t *testing.T) {
	mem := testutil.Checked(t)
	x, err := coo.FromSlices(mem, []int64{2, 300}, []int8{0, 5, 1, 100}, coo.RowMajor, []float64{1, 2})
	require.NoError(t, err)
	defer x.Release()
	wide, err := gcs.MatrixFromCOO(mem, x, gcs.Rows, gcs.ConvertOptions{})
	require.NoError(t, err)
	defer wide.Release()
	m, err := wide.WithIndexTypes(mem, arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int8)
	require.NoError(t, err)
	defer m.Release()
	require.Equal(t, arrow.PrimitiveTypes.Int8, m.IndexType())
	x3, err := coo.FromSlices(mem, []int64{2, 300, 400}, []int8{0, 5, 7, 1, 100, 3}, coo.RowMajor, []float64{1, 2})
	require.NoError(t, err)
	defer x3.Release()
	wc, err := csf.FromCOO(mem, x3, csf.ConvertOptions{AxisOrder: []int{0, 1, 2}})
	require.NoError(t, err)
	defer wc.Release()
	c, err := wc.WithIndexTypes(mem, arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int8)
	require.NoError(t, err)
	defer c.Release()
	for _, tt := range []arrowsparse.Tensor{x, m, c} {
		var buf bytes.Buffer
		_, err := ipc.WriteTensor(&buf, tt)
		require.NoError(t, err, "%s", tt.Format())
		back, err := ipc.ParseMessage(buf.Bytes())
		require.NoError(t, err, "%s", tt.Format())
		want, err := arrowsparse.AppendValues[float64](nil, tt)
		require.NoError(t, err)
		got, err := arrowsparse.AppendValues[float64](nil, back.Tensor)
		require.NoError(t, err)
		assert.Equal(t, want, got)
		back.Release()
	}
}

// A C++-written message whose data buffer length is not a whole number of
// values (159 where 19 float64 values need 152 and the padding makes 160)
// is legal, since the buffer still holds every value; the tensor it gives
// must be safe in every later operation.
func TestOddBufferLengthMessage(t *testing.T) {
	mem := testutil.Checked(t)
	files, err := filepath.Glob(filepath.Join("..", "testdata", "interop", "cpp-corpus", "*-csf-*.arrow"))
	require.NoError(t, err)
	tried := 0
	for _, p := range files {
		raw, err := os.ReadFile(p)
		require.NoError(t, err)
		f, err := wire.Parse(raw)
		require.NoError(t, err)
		st := f.Message.SparseTensor
		w := int64(arrowsparse.ByteWidth(st.Type))
		last := st.Index.(*wire.CSFIndex)
		_ = last
		want, err := ipc.ParseMessage(raw)
		require.NoError(t, err)
		need := want.Tensor.NNZ() * w
		if st.Data.Length <= need || w == 1 {
			want.Release()
			continue
		}
		st.Data.Length = need + w - 1 // not a whole number of values
		meta, err := wire.EncodeMetadata(f.Message)
		require.NoError(t, err)
		msg, err := wire.AppendFrame(nil, meta, 8)
		require.NoError(t, err)
		msg = append(msg, f.Body...)
		m, err := ipc.ParseMessage(msg, ipc.WithAllocator(mem))
		require.NoError(t, err, p)
		c := m.Tensor.(*csf.Tensor)
		gotD, err := c.ToDense(mem)
		require.NoError(t, err)
		wantD, err := want.Tensor.ToDense(mem)
		require.NoError(t, err)
		g, err := arrowsparse.AppendValues[float64](nil, gotD)
		require.NoError(t, err)
		wv, err := arrowsparse.AppendValues[float64](nil, wantD)
		require.NoError(t, err)
		assert.Equal(t, wv, g, p)
		gotD.Release()
		wantD.Release()
		order := c.AxisOrder()
		slices.Reverse(order)
		r, err := c.WithAxisOrder(mem, order...)
		require.NoError(t, err)
		r.Release()
		x, err := c.ToCOO(mem, csf.ConvertOptions{})
		require.NoError(t, err)
		x.Release()
		m.Release()
		want.Release()
		tried++
	}
	require.Greater(t, tried, 0, "the corpus has CSF messages with padded values")
}
