package tns_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
	"github.com/arrowsparse/arrowsparse/internal/tools/textcheck"
	"github.com/arrowsparse/arrowsparse/tns"
)

func gz(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, err := w.Write(data)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return b.Bytes()
}

type variant struct {
	name string
	read func(t *testing.T, data []byte, opts ...tns.ReadOption) (*coo.Tensor, error)
}

var variants = func() []variant {
	srcs := []variant{
		{"bytes", func(t *testing.T, data []byte, opts ...tns.ReadOption) (*coo.Tensor, error) {
			return tns.ReadBytes(data, opts...)
		}},
		{"reader", func(t *testing.T, data []byte, opts ...tns.ReadOption) (*coo.Tensor, error) {
			return tns.Read(iotest.HalfReader(bytes.NewReader(data)), opts...)
		}},
		{"file", func(t *testing.T, data []byte, opts ...tns.ReadOption) (*coo.Tensor, error) {
			p := filepath.Join(t.TempDir(), "t.tns")
			require.NoError(t, os.WriteFile(p, data, 0o644))
			return tns.ReadFile(p, opts...)
		}},
		{"gzip", func(t *testing.T, data []byte, opts ...tns.ReadOption) (*coo.Tensor, error) {
			return tns.Read(bytes.NewReader(gz(t, data)), opts...)
		}},
	}
	var out []variant
	for _, s := range srcs {
		for _, c := range []struct {
			name string
			opts []tns.ReadOption
		}{
			{"default", nil},
			{"chunk5/w3", []tns.ReadOption{tns.WithChunkSize(5), tns.WithWorkers(3)}},
			{"chunk100/w2", []tns.ReadOption{tns.WithChunkSize(100), tns.WithWorkers(2)}},
		} {
			s, c := s, c
			out = append(out, variant{s.name + "/" + c.name, func(t *testing.T, data []byte, opts ...tns.ReadOption) (*coo.Tensor, error) {
				return s.read(t, data, append(append([]tns.ReadOption(nil), c.opts...), opts...)...)
			}})
		}
	}
	return out
}()

// readAll reads data with every variant and requires the same result.
func readAll(t *testing.T, mem memory.Allocator, data []byte, opts ...tns.ReadOption) (*coo.Tensor, error) {
	t.Helper()
	opts = append([]tns.ReadOption{tns.WithAllocator(mem)}, opts...)
	first, firstErr := variants[0].read(t, data, opts...)
	for _, v := range variants[1:] {
		x, err := v.read(t, data, opts...)
		if firstErr != nil {
			require.Error(t, err, v.name)
			require.Equal(t, lineOf(firstErr), lineOf(err), "%s: %v vs %v", v.name, firstErr, err)
			continue
		}
		require.NoError(t, err, v.name)
		same(t, first, x)
		require.Equal(t, first.IndexType(), x.IndexType(), v.name)
		require.Equal(t, first.IsCanonical(), x.IsCanonical(), v.name)
		x.Release()
	}
	return first, firstErr
}

func lineOf(err error) string {
	var le *tns.LineError
	if errors.As(err, &le) {
		return le.Error()
	}
	return "no line"
}

// same requires equal shapes, types, and entries in storage order.
func same(t *testing.T, want, got *coo.Tensor) {
	t.Helper()
	require.Equal(t, want.Shape(), got.Shape())
	require.Equal(t, want.DataType(), got.DataType())
	require.Equal(t, want.NNZ(), got.NNZ())
	require.NoError(t, got.Validate())
	w := int64(arrowsparse.ByteWidth(want.DataType()))
	for i := range want.NNZ() {
		for k := range want.NumDims() {
			require.Equal(t, want.Coord(i, k), got.Coord(i, k), "entry %d", i)
		}
		require.Equal(t, want.ValuesBuffer().Bytes()[i*w:(i+1)*w], got.ValuesBuffer().Bytes()[i*w:(i+1)*w], "entry %d", i)
	}
}

func TestReferenceGolden(t *testing.T) {
	files, err := textcheck.Files("../testdata/tns/ref")
	require.NoError(t, err)
	require.Greater(t, len(files), 10)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			require.NoError(t, textcheck.CheckFile(f))
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			mem := testutil.Checked(t)
			x, err := readAll(t, mem, data)
			require.NoError(t, err)
			x.Release()
		})
	}
}

func TestShapeAndIndexType(t *testing.T) {
	mem := testutil.Checked(t)
	for _, c := range []struct {
		text  string
		shape []int64
		it    arrow.DataType
		canon bool
		opts  []tns.ReadOption
	}{
		{"# c\n1 2 3 1.5\n2 1 1 2\n", []int64{2, 2, 3}, arrow.PrimitiveTypes.Int8, true, nil},
		{"1 1 1\n2 2 2\n1 1 1\n", []int64{2, 2}, arrow.PrimitiveTypes.Int8, false, nil},
		{"128 1 1\n", []int64{128, 1}, arrow.PrimitiveTypes.Int8, true, nil},
		{"129 1 1\n", []int64{129, 1}, arrow.PrimitiveTypes.Int16, true, nil},
		{"1 1 1\n" + strings.Repeat("5 5 5\n", 50) + "70000 3 1\n" + strings.Repeat("1 1 1\n", 50), []int64{70000, 5}, arrow.PrimitiveTypes.Int32, false, nil},
		{strings.Repeat("5 5 5\n", 30) + "4000000000 3 1\n", []int64{4000000000, 5}, arrow.PrimitiveTypes.Int64, false, nil},
		{"1 1 1\n", []int64{10, 20}, arrow.PrimitiveTypes.Int8, true, []tns.ReadOption{tns.WithShape(10, 20)}},
		{"1 1 1\n", []int64{1000, 20}, arrow.PrimitiveTypes.Int16, true, []tns.ReadOption{tns.WithShape(1000, 20)}},
		{"1 1 1\n", []int64{1, 1}, arrow.PrimitiveTypes.Uint32, true, []tns.ReadOption{tns.WithIndexType(arrow.PrimitiveTypes.Uint32)}},
		{"", []int64{3, 4, 5}, arrow.PrimitiveTypes.Int8, true, []tns.ReadOption{tns.WithShape(3, 4, 5)}},
		{"2.5\n# scalar\n", nil, arrow.PrimitiveTypes.Int8, true, nil},
		{"2.5\n3\n", nil, arrow.PrimitiveTypes.Int8, false, nil},
		{"3\t1.5\r\n\r\n  1 -2e3  \r\n", []int64{3}, arrow.PrimitiveTypes.Int8, false, nil},
	} {
		x, err := readAll(t, mem, []byte(c.text), c.opts...)
		require.NoError(t, err, c.text)
		assert.Equal(t, c.shape, x.Shape(), c.text)
		assert.Equal(t, c.it, x.IndexType(), c.text)
		assert.Equal(t, c.canon, x.IsCanonical(), c.text)
		x.Release()
	}
}

func TestBadInput(t *testing.T) {
	for _, c := range []struct {
		name, text string
		kind       error
		want       string
		opts       []tns.ReadOption
	}{
		{"empty", "", arrowsparse.ErrShape, "no entries", nil},
		{"comments only", "# a\n\n# b\n", arrowsparse.ErrShape, "WithShape", nil},
		{"fewer fields", "1 1 1\n2 2\n", arrowsparse.ErrSyntax, "line 2: the line has 2 fields, want 3", nil},
		{"more fields", "1 1 1\n2 2 2 2\n", arrowsparse.ErrSyntax, "line 2: the line has more than 3 fields", nil},
		{"one field", "1 1 1\n2\n", arrowsparse.ErrSyntax, "line 2: the line has 1 fields, want 3", nil},
		{"zero", "1 1 1\n0 2 2\n", arrowsparse.ErrOutOfRange, "line 2: coordinate 1, \"0\", is outside", nil},
		{"negative", "1 1 1\n1 -2 2\n", arrowsparse.ErrSyntax, "line 2: coordinate 2, \"-2\", is not a positive integer", nil},
		{"float coordinate", "1 1 1\n1.5 2 2\n", arrowsparse.ErrSyntax, "line 2: coordinate 1, \"1.5\", is not a positive integer", nil},
		{"huge", "1 1 1\n99999999999999999999 2 2\n", arrowsparse.ErrOutOfRange, "line 2: coordinate 1", nil},
		{"outside shape", "1 1 1\n3 2 2\n", arrowsparse.ErrOutOfRange, "line 2: coordinate 1, \"3\", is outside 1..2 of dimension 1", []tns.ReadOption{tns.WithShape(2, 2)}},
		{"rank vs shape", "1 1 1\n", arrowsparse.ErrSyntax, "line 1: the line has more than 2 fields", []tns.ReadOption{tns.WithShape(2)}},
		{"outside index type", "1 1 1\n300 2 2\n", arrowsparse.ErrOutOfRange, "line 2: coordinate 1, \"300\", is outside 1..128, what index type int8 holds", []tns.ReadOption{tns.WithIndexType(arrow.PrimitiveTypes.Int8)}},
		{"bad value", "1 1 1\n1 1 one\n", arrowsparse.ErrSyntax, "line 2: value \"one\" is not a number", nil},
		{"int value", "1 1 1\n1 1 1.5\n", arrowsparse.ErrSyntax, "line 2: value \"1.5\" is not an integer", []tns.ReadOption{tns.WithValueType(arrow.PrimitiveTypes.Int32)}},
		{"int overflow", "1 1 1\n1 1 200\n", arrowsparse.ErrSyntax, "line 2: value \"200\" does not fit int8", []tns.ReadOption{tns.WithValueType(arrow.PrimitiveTypes.Int8)}},
		{"long line", "1 1 1\n1 1 " + strings.Repeat("9", 10<<20) + "\n", arrowsparse.ErrSyntax, "line 2: line is longer than 1048576 bytes", nil},
		{"long first line", strings.Repeat("1 ", 5<<20) + "\n", arrowsparse.ErrSyntax, "line 1: line is longer", nil},
		{"bad shape", "1 1\n", arrowsparse.ErrShape, "shape", []tns.ReadOption{tns.WithShape(-1)}},
		{"bad value type", "1 1\n", arrowsparse.ErrUnsupportedType, "value type", []tns.ReadOption{tns.WithValueType(arrow.BinaryTypes.String)}},
		{"bad index type", "1 1\n", arrowsparse.ErrUnsupportedType, "index type", []tns.ReadOption{tns.WithIndexType(arrow.PrimitiveTypes.Uint64)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			mem := testutil.Checked(t)
			x, err := readAll(t, mem, []byte(c.text), c.opts...)
			if err == nil {
				x.Release()
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, c.kind)
			assert.Contains(t, err.Error(), c.want)
			assert.True(t, strings.HasPrefix(err.Error(), "tns: "), err.Error())
		})
	}
}

// TestRoundTrip: Write, then Read with the shape and types, gives the
// tensor back bit for bit, for ranks 1 to 5, every value and index type
// and both layouts.
func TestRoundTrip(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(1, 2))
	for _, vt := range testutil.ValueTypes {
		for _, it := range testutil.IndexTypes {
			for rank := 1; rank <= 5; rank++ {
				shape := make([]int64, rank)
				for k := range shape {
					shape[k] = 1 + r.Int64N(min(50, arrowsparse.IndexMax(it)))
				}
				src, _ := testutil.RandomCOO(t, mem, r, shape, r.IntN(200), coo.Layout(r.IntN(2)), it, vt, 5)
				var buf bytes.Buffer
				require.NoError(t, tns.Write(&buf, src, tns.WithAllocator(mem), tns.WithComments("x")))
				x, err := tns.ReadBytes(buf.Bytes(), tns.WithAllocator(mem), tns.WithShape(shape...), tns.WithValueType(vt), tns.WithIndexType(it))
				require.NoError(t, err, "%s %s %v\n%s", vt, it, shape, buf.String())
				same(t, src, x)
				x.Release()
				src.Release()
			}
		}
	}
}

func TestValuesExact(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	var want []float64
	for i := range 2000 {
		f := math.Float64frombits(r.Uint64())
		if f != f {
			continue
		}
		b.WriteString("1 ")
		b.WriteString(string(rune('1' + i%9)))
		b.WriteString(" ")
		b.WriteString(strings.ToUpper(formatG(f)))
		b.WriteString("\n")
		want = append(want, f)
	}
	x, err := readAll(t, mem, []byte(b.String()))
	require.NoError(t, err)
	defer x.Release()
	got, err := coo.Values[float64](x)
	require.NoError(t, err)
	require.Len(t, got, len(want))
	for i := range want {
		require.Equal(t, math.Float64bits(want[i]), math.Float64bits(got[i]))
	}
}

func formatG(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func TestWriteFileGzip(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(5, 6))
	src, _ := testutil.RandomCOO(t, mem, r, []int64{100, 200, 300}, 20000, coo.RowMajor, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Float64, 10)
	defer src.Release()
	dir := t.TempDir()
	for _, name := range []string{"t.tns", "t.tns.gz"} {
		p := filepath.Join(dir, name)
		require.NoError(t, tns.WriteFile(p, src, tns.WithWorkers(2)))
		calls := 0
		x, err := tns.ReadFile(p, tns.WithAllocator(mem), tns.WithShape(src.Shape()...), tns.WithChunkSize(8192),
			tns.WithProgress(func(tns.Progress) { calls++ }))
		require.NoError(t, err)
		same(t, src, x)
		x.Release()
		assert.Greater(t, calls, 1)
	}
	require.Error(t, tns.Write(failingWriter{}, src))
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, io.ErrShortWrite }
