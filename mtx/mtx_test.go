package mtx_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
	"github.com/arrowsparse/arrowsparse/internal/tools/textcheck"
	"github.com/arrowsparse/arrowsparse/mtx"
	"github.com/arrowsparse/arrowsparse/views"
)

var categories = []error{arrowsparse.ErrSyntax, arrowsparse.ErrOutOfRange, arrowsparse.ErrStructure, arrowsparse.ErrShape, arrowsparse.ErrUnsupportedType, arrowsparse.ErrOverflow}

func width(dt arrow.DataType) int { return arrowsparse.ByteWidth(dt) }

// TestScipyGolden reads the files scipy.io.mmwrite wrote (testdata) with
// every reader and compares them with what scipy.io.mmread read back.
func TestScipyGolden(t *testing.T) {
	files, err := textcheck.Files("../testdata/mtx/scipy")
	require.NoError(t, err)
	require.Greater(t, len(files), 60)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			require.NoError(t, textcheck.CheckFile(f))
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			if strings.HasSuffix(f, ".gz") {
				data = gunzip(t, data)
			}
			mem := testutil.Checked(t)
			m, err := readAll(t, mem, data)
			require.NoError(t, err)
			m.Release()
		})
	}
}

func TestNISTExample(t *testing.T) {
	mem := testutil.Checked(t)
	m, err := mtx.ReadFile("../testdata/mtx/nist_example.mtx", mtx.WithAllocator(mem))
	require.NoError(t, err)
	defer m.Release()
	assert.Equal(t, mtx.Header{Layout: mtx.Coordinate, Field: mtx.Real, Symmetry: mtx.General, Rows: 5, Cols: 5, Entries: 8}, withoutComments(m.Header))
	assert.Len(t, m.Header.Comments, 21)
	assert.Equal(t, 250.5, coo.At[float64](m.COO, 3, 1))
	assert.Equal(t, -280.0, coo.At[float64](m.COO, 3, 3))
	assert.Equal(t, arrow.PrimitiveTypes.Int8, m.COO.IndexType())
	assert.False(t, m.COO.IsCanonical())
	h, err := mtx.ReadHeaderFile("../testdata/mtx/nist_example.mtx")
	require.NoError(t, err)
	assert.Equal(t, m.Header, h)
}

func withoutComments(h mtx.Header) mtx.Header {
	h.Comments = nil
	return h
}

func TestHeader(t *testing.T) {
	for _, c := range []struct {
		text string
		want mtx.Header
	}{
		{"%%MatrixMarket matrix coordinate real general\n3 4 0\n", mtx.Header{Rows: 3, Cols: 4}},
		{"%%MatrixMarket Matrix Coordinate Real General\n3 4 0\n", mtx.Header{Rows: 3, Cols: 4}},
		{"%%matrixmarket MATRIX COORDINATE INTEGER SYMMETRIC\r\n%c\r\n\r\n  2\t2   1  \r\n", mtx.Header{Field: mtx.Integer, Symmetry: mtx.Symmetric, Rows: 2, Cols: 2, Entries: 1, Comments: []string{"c"}}},
		{"%%MatrixMarket   matrix\tcoordinate pattern general\n%\n% two\n\n%\n0 0 0", mtx.Header{Field: mtx.Pattern, Comments: []string{"", " two", ""}}},
		{"%%MatrixMarket matrix array real skew-symmetric\n4 4\n", mtx.Header{Layout: mtx.Array, Symmetry: mtx.SkewSymmetric, Rows: 4, Cols: 4, Entries: 6}},
		{"%%MatrixMarket matrix array integer hermitian\n4 4\n", mtx.Header{Layout: mtx.Array, Field: mtx.Integer, Symmetry: mtx.Hermitian, Rows: 4, Cols: 4, Entries: 10}},
		{"%%MatrixMarket matrix array real general\n2 3\n", mtx.Header{Layout: mtx.Array, Rows: 2, Cols: 3, Entries: 6}},
		{"%%MatrixMarket matrix coordinate complex hermitian\n2 2 1\n", mtx.Header{Field: mtx.Complex, Symmetry: mtx.Hermitian, Rows: 2, Cols: 2, Entries: 1}},
		{"%%MatrixMarket matrix coordinate real general\n9223372036854775807 9223372036854775807 9223372036854775807\n", mtx.Header{Rows: math.MaxInt64, Cols: math.MaxInt64, Entries: math.MaxInt64}},
	} {
		h, err := mtx.ReadHeader(strings.NewReader(c.text))
		require.NoError(t, err, c.text)
		assert.Equal(t, c.want, h, c.text)
		h, err = mtx.ReadHeader(bytes.NewReader(gz(t, []byte(c.text))))
		require.NoError(t, err, c.text)
		assert.Equal(t, c.want, h, c.text)
	}
	assert.Equal(t, "%%MatrixMarket matrix array integer skew-symmetric", mtx.Header{Layout: mtx.Array, Field: mtx.Integer, Symmetry: mtx.SkewSymmetric}.String())
}

// TestReadHeaderReadsLittle: ReadHeader stops after the size line.
func TestReadHeaderReadsLittle(t *testing.T) {
	body := strings.Repeat("1 1 1\n", 1<<20)
	r := &countingReader{r: strings.NewReader("%%MatrixMarket matrix coordinate real general\n1 1 1048576\n" + body)}
	h, err := mtx.ReadHeader(r)
	require.NoError(t, err)
	assert.Equal(t, int64(1<<20), h.Entries)
	assert.Less(t, r.n, int64(200<<10))
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

const realGeneral = "%%MatrixMarket matrix coordinate real general\n"

// TestBadInput: every kind of bad input is an error of the right category
// naming its line, from every reader, and allocates nothing it keeps.
func TestBadInput(t *testing.T) {
	long := strings.Repeat("1", 10<<20)
	for _, c := range []struct {
		name, text string
		kind       error
		want       string // in the message
		opts       []mtx.ReadOption
	}{
		{"empty", "", arrowsparse.ErrSyntax, "empty input", nil},
		{"not mm", "hello\n", arrowsparse.ErrSyntax, "line 1: not a Matrix Market file", nil},
		{"short banner", "%%MatrixMarket matrix coordinate real\n", arrowsparse.ErrSyntax, "line 1: the banner needs 4 words", nil},
		{"vector", "%%MatrixMarket vector coordinate real general\n", arrowsparse.ErrSyntax, "line 1: object \"vector\"", nil},
		{"format", "%%MatrixMarket matrix sparse real general\n", arrowsparse.ErrSyntax, "line 1: unknown format", nil},
		{"field", "%%MatrixMarket matrix coordinate quaternion general\n", arrowsparse.ErrSyntax, "line 1: unknown field", nil},
		{"symmetry", "%%MatrixMarket matrix coordinate real upper\n", arrowsparse.ErrSyntax, "line 1: unknown symmetry", nil},
		{"pattern array", "%%MatrixMarket matrix array pattern general\n", arrowsparse.ErrSyntax, "line 1: an array file cannot have the pattern field", nil},
		{"pattern skew", "%%MatrixMarket matrix coordinate pattern skew-symmetric\n", arrowsparse.ErrSyntax, "line 1: a pattern matrix cannot be skew-symmetric", nil},
		{"no size line", realGeneral + "% c\n", arrowsparse.ErrSyntax, "without a size line", nil},
		{"size fields", realGeneral + "3 3\n", arrowsparse.ErrSyntax, "line 2: the size line of a coordinate file needs 3 numbers", nil},
		{"size negative", realGeneral + "3 -3 1\n", arrowsparse.ErrSyntax, "line 2: size \"-3\"", nil},
		{"size overflow", realGeneral + "3 99999999999999999999 1\n", arrowsparse.ErrShape, "line 2: size 99999999999999999999 does not fit int64", nil},
		{"duplicates allowed, but not missing", realGeneral + "2 2 5\n1 1 1\n1 1 1\n1 1 1\n1 1 1\n", arrowsparse.ErrStructure, "line 6: the input ends after 4 entries", nil},
		{"not square", "%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n", arrowsparse.ErrShape, "line 2: a symmetric matrix must be square", nil},
		{"complex", "%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 1 2\n", arrowsparse.ErrUnsupportedType, "no complex type", nil},
		{"truncated", realGeneral + "3 3 3\n1 1 1\n2 2 2\n", arrowsparse.ErrStructure, "line 4: the input ends after 2 entries, but the size line announces 3", nil},
		{"truncated mid-line", realGeneral + "3 3 3\n1 1 1\n2 2", arrowsparse.ErrSyntax, "line 4: the line has 2 fields", nil},
		{"too many", realGeneral + "3 3 2\n1 1 1\n% c\n2 2 2\n3 3 3\n", arrowsparse.ErrStructure, "line 6: more entries than the 2", nil},
		{"zero row", realGeneral + "3 3 2\n1 1 1\n0 2 2\n", arrowsparse.ErrOutOfRange, "line 4: row index \"0\" is outside 1..3", nil},
		{"big row", realGeneral + "3 3 2\n1 1 1\n4 2 2\n", arrowsparse.ErrOutOfRange, "line 4: row index \"4\" is outside 1..3", nil},
		{"huge col", realGeneral + "3 3 2\n1 1 1\n3 99999999999999999999 2\n", arrowsparse.ErrOutOfRange, "line 4: column index \"99999999999999999999\" is outside", nil},
		{"negative col", realGeneral + "3 3 1\n1 -1 1\n", arrowsparse.ErrSyntax, "line 3: column index \"-1\" is not a positive integer", nil},
		{"float row", realGeneral + "3 3 1\n1.0 1 1\n", arrowsparse.ErrSyntax, "line 3: row index \"1.0\" is not a positive integer", nil},
		{"bad value", realGeneral + "3 3 2\n1 1 1\n2 2 x2\n", arrowsparse.ErrSyntax, "line 4: value \"x2\" is not a number", nil},
		{"value suffix", realGeneral + "3 3 1\n2 2 1.5x\n", arrowsparse.ErrSyntax, "line 3: value \"1.5x\" is not a number", nil},
		{"missing value", realGeneral + "3 3 1\n2 2\n", arrowsparse.ErrSyntax, "line 3: the line has 2 fields", nil},
		{"one field", realGeneral + "3 3 1\n2\n", arrowsparse.ErrSyntax, "line 3: the line has 1 field", nil},
		{"extra field", realGeneral + "3 3 1\n2 2 1 4\n", arrowsparse.ErrSyntax, "line 3: the line has more than 3", nil},
		{"pattern extra", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n2 2 1\n", arrowsparse.ErrSyntax, "line 3: the line has more than 2", nil},
		{"int value real", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n2 2 1.5\n", arrowsparse.ErrSyntax, "line 3: value \"1.5\" is not an integer", nil},
		{"int overflow", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n2 2 300\n", arrowsparse.ErrSyntax, "line 3: value \"300\" does not fit int8", []mtx.ReadOption{mtx.WithValueType(arrow.PrimitiveTypes.Int8)}},
		{"int64 overflow", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n2 2 9223372036854775808\n", arrowsparse.ErrSyntax, "does not fit int64", nil},
		{"negative uint", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n2 2 -1\n", arrowsparse.ErrSyntax, "line 3: value \"-1\" does not fit uint16", []mtx.ReadOption{mtx.WithValueType(arrow.PrimitiveTypes.Uint16)}},
		{"real into int", realGeneral + "3 3 1\n2 2 1\n", arrowsparse.ErrUnsupportedType, "cannot be read into int32", []mtx.ReadOption{mtx.WithValueType(arrow.PrimitiveTypes.Int32)}},
		{"narrow index", realGeneral + "300 3 1\n2 2 1\n", arrowsparse.ErrUnsupportedType, "index type", []mtx.ReadOption{mtx.WithIndexType(arrow.PrimitiveTypes.Int8)}},
		{"uint64 index", realGeneral + "3 3 1\n2 2 1\n", arrowsparse.ErrUnsupportedType, "uint64", []mtx.ReadOption{mtx.WithIndexType(arrow.PrimitiveTypes.Uint64)}},
		{"skew diagonal", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 2 1\n", arrowsparse.ErrStructure, "line 4: a skew-symmetric matrix has a zero diagonal", nil},
		{"skew unsigned", "%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 1\n2 1 1\n", arrowsparse.ErrUnsupportedType, "signed type", []mtx.ReadOption{mtx.WithValueType(arrow.PrimitiveTypes.Uint8)}},
		{"stray cr", realGeneral + "3 3 1\n\r2 2 1\n", arrowsparse.ErrSyntax, "line 3: stray carriage return", nil},
		{"long line", realGeneral + "3 3 1\n2 2 " + long + "\n", arrowsparse.ErrSyntax, "line 3: line is longer than 1048576 bytes", nil},
		{"long last line", realGeneral + "3 3 1\n2 2 " + long, arrowsparse.ErrSyntax, "line 3: line is longer than 1048576 bytes", nil},
		{"long comment", realGeneral + "3 3 1\n%" + long + "\n2 2 1\n", arrowsparse.ErrSyntax, "line 3: line is longer", nil},
		{"long header", "%%MatrixMarket matrix coordinate real general " + long + "\n", arrowsparse.ErrSyntax, "line 1: line is longer", nil},
		{"array short", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", arrowsparse.ErrStructure, "line 5: the input ends after 3 values, but a 2 × 2 general array has 4", nil},
		{"array long", "%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n4\n", arrowsparse.ErrStructure, "line 6: more values than the 3", nil},
		{"array two per line", "%%MatrixMarket matrix array real general\n2 2\n1 2\n3\n4\n", arrowsparse.ErrSyntax, "line 3: an array file has one value per line", nil},
		{"array bad value", "%%MatrixMarket matrix array integer general\n1 2\n1\nnan\n", arrowsparse.ErrSyntax, "line 4: value \"nan\" is not an integer", nil},
		{"array overflow", "%%MatrixMarket matrix array real general\n99999999999 99999999999\n1\n", arrowsparse.ErrShape, "too many values", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			mem := testutil.Checked(t)
			m, err := readAll(t, mem, []byte(c.text), c.opts...)
			if err == nil {
				m.Release()
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, c.kind)
			assert.Contains(t, err.Error(), c.want)
			assert.True(t, strings.HasPrefix(err.Error(), "mtx: "), err.Error())
		})
	}
}

// TestHugeHeader: a header that claims far more than the input holds
// allocates in proportion to the input, not to the claim.
func TestHugeHeader(t *testing.T) {
	for _, text := range []string{
		realGeneral + "1000000000000 1000000000000 1000000000000\n1 1 1\n",
		"%%MatrixMarket matrix coordinate pattern symmetric\n1000000000000 1000000000000 1000000000000\n1 1\n",
		"%%MatrixMarket matrix array real general\n1000000 1000000\n1\n",
		"%%MatrixMarket matrix array real symmetric\n1000000 1000000\n1\n",
	} {
		for _, v := range variants {
			p := &peakAllocator{Allocator: memory.NewGoAllocator()}
			m, err := v.read(t, []byte(text), mtx.WithAllocator(p))
			if err == nil {
				m.Release()
			}
			require.ErrorIs(t, err, arrowsparse.ErrStructure, v.name)
			assert.Less(t, p.peak.Load(), int64(8<<20), "%s: %s", v.name, text)
			assert.Zero(t, p.cur.Load())
		}
	}
}

func TestSymmetricExpansion(t *testing.T) {
	mem := testutil.Checked(t)
	text := "%%MatrixMarket matrix coordinate integer skew-symmetric\n4 4 3\n2 1 5\n4 2 -7\n3 3 0\n"
	m, err := readAll(t, mem, []byte(text))
	require.NoError(t, err)
	defer m.Release()
	c, err := coo.Coords[int8](m.COO)
	require.NoError(t, err)
	v, err := coo.Values[int64](m.COO)
	require.NoError(t, err)
	// Stored entries first, in file order, then the mirrors.
	assert.Equal(t, []int8{1, 0, 3, 1, 2, 2, 0, 1, 1, 3}, c)
	assert.Equal(t, []int64{5, -7, 0, -5, 7}, v)
	assert.False(t, m.COO.IsCanonical())

	k, err := readAll(t, mem, []byte(text), mtx.WithKeepTriangle())
	require.NoError(t, err)
	defer k.Release()
	assert.Equal(t, int64(3), k.COO.NNZ())

	// Array files: the stored triangle, column by column.
	a, err := readAll(t, mem, []byte("%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n"))
	require.NoError(t, err)
	defer a.Release()
	d, err := a.Dense.Copy(mem, views.CopyOptions{})
	require.NoError(t, err)
	defer d.Release()
	assert.Equal(t, []float64{0, -1, -2, 1, 0, -3, 2, 3, 0}, testutil.ViewValues[float64](t, d))
	assert.True(t, a.Dense.IsFContiguous())

	h, err := readAll(t, mem, []byte("%%MatrixMarket matrix array real hermitian\n2 2\n1\n2\n3\n"), mtx.WithKeepTriangle())
	require.NoError(t, err)
	defer h.Release()
	assert.Equal(t, []float64{1, 2, 0, 3}, testutil.ViewValues[float64](t, h.Dense))
}

func TestCanonicalFlag(t *testing.T) {
	mem := testutil.Checked(t)
	for text, want := range map[string]bool{
		realGeneral + "3 3 3\n1 1 1\n1 3 1\n3 1 1\n":                                            true,
		realGeneral + "3 3 3\n1 1 1\n3 1 1\n1 3 1\n":                                            false,
		realGeneral + "3 3 3\n1 1 1\n1 1 1\n3 1 1\n":                                            false, // duplicate
		"%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 1\n3 3 1\n":                true,
		"%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 1\n3 1 1\n":                false, // mirror appended
		"%%MatrixMarket matrix coordinate pattern general\n3 3 0\n":                             true,
		realGeneral + "300 3 4\n1 1 1\n100 1 1\n200 1 1\n300 1 1\n":                             true,
		realGeneral + "300 3 4\n1 1 1\n100 1 1\n% a comment between chunks\n200 1 1\n150 1 1\n": false,
	} {
		m, err := readAll(t, mem, []byte(text))
		require.NoError(t, err)
		assert.Equal(t, want, m.COO.IsCanonical(), text)
		require.NoError(t, m.COO.Validate(), text)
		m.Release()
	}
}

// TestValueTypes: real values read into float16, float32 and float64 are
// the correctly rounded values of their decimal text (strconv's for
// float32 and float64); integers into every integer type and the floats.
func TestValueTypes(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(5, 6))
	var b strings.Builder
	b.WriteString("%%MatrixMarket matrix array real general\n500 1\n")
	toks := make([]string, 500)
	for i := range toks {
		switch i % 4 {
		case 0:
			toks[i] = strconv.FormatFloat(r.Float64()*2-1, 'g', -1, 64)
		case 1:
			toks[i] = strconv.FormatFloat(math.Float64frombits(r.Uint64()>>2), 'e', 20, 64)
		case 2:
			// A float32 midpoint written exactly.
			f := math.Float32frombits(r.Uint32() & 0x3fffffff)
			g := math.Float32frombits(math.Float32bits(f) + 1)
			toks[i] = strconv.FormatFloat(float64(f)+(float64(g)-float64(f))/2, 'e', -1, 64)
		case 3:
			toks[i] = []string{"inf", "-Infinity", "NaN", "1e400", "-0", "5e-324", "0x1p-3", "65520", "6.103515625e-05"}[r.IntN(9)]
		}
		b.WriteString(toks[i] + "\n")
	}
	for _, dt := range []arrow.DataType{arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Float32, arrow.FixedWidthTypes.Float16} {
		m, err := readAll(t, mem, []byte(b.String()), mtx.WithValueType(dt))
		require.NoError(t, err, dt)
		for i, tok := range toks {
			f64, err := strconv.ParseFloat(tok, 64)
			if err != nil {
				require.ErrorIs(t, err, strconv.ErrRange)
			}
			switch dt.ID() {
			case arrow.FLOAT64:
				assert.Equal(t, math.Float64bits(f64), math.Float64bits(views.At[float64](m.Dense, int64(i), 0)), tok)
			case arrow.FLOAT32:
				f32, _ := strconv.ParseFloat(tok, 32)
				assert.Equal(t, math.Float32bits(float32(f32)), math.Float32bits(views.At[float32](m.Dense, int64(i), 0)), tok)
			}
		}
		m.Release()
	}
	ints := "%%MatrixMarket matrix coordinate integer general\n1 4 4\n1 1 -128\n1 2 127\n1 3 0\n1 4 +5\n"
	for _, dt := range testutil.ValueTypes {
		m, err := readAll(t, mem, []byte(ints), mtx.WithValueType(dt))
		if strings.HasPrefix(dt.String(), "uint") {
			require.ErrorIs(t, err, arrowsparse.ErrSyntax, dt)
			continue
		}
		require.NoError(t, err, dt)
		d, err := m.COO.ToView(mem, coo.ConvertOptions{})
		require.NoError(t, err)
		assert.Equal(t, []float64{-128, 127, 0, 5}, testutil.DenseValues(t, d), dt)
		d.Release()
		m.Release()
	}
	pat := "%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n1 1\n2 1\n"
	for _, dt := range testutil.ValueTypes {
		m, err := readAll(t, mem, []byte(pat), mtx.WithValueType(dt))
		require.NoError(t, err, dt)
		assert.Equal(t, int64(3), m.COO.NNZ())
		d, err := m.COO.ToView(mem, coo.ConvertOptions{})
		require.NoError(t, err)
		assert.Equal(t, []float64{1, 1, 1, 0}, testutil.DenseValues(t, d), dt)
		d.Release()
		m.Release()
	}
}

// TestRoundTrip: what Write writes, Read reads back bit for bit, for every
// value and index type, both coordinate layouts, and dense matrices in
// any memory order.
func TestRoundTrip(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(7, 8))
	for _, vt := range testutil.ValueTypes {
		for _, it := range testutil.IndexTypes {
			for _, layout := range []coo.Layout{coo.RowMajor, coo.ColMajor} {
				shape := []int64{int64(1 + r.IntN(100)), int64(1 + r.IntN(100))}
				if arrowsparse.IndexMax(it) < 100 {
					shape = []int64{int64(1 + r.IntN(100)), 3}
				}
				src := randomCOO(t, mem, r, vt, it, shape, layout)
				var buf bytes.Buffer
				require.NoError(t, mtx.Write(&buf, src, mtx.WithAllocator(mem), mtx.WithComments("a", "b\nc")))
				m, err := mtx.ReadBytes(buf.Bytes(), mtx.WithAllocator(mem), mtx.WithValueType(vt), mtx.WithIndexType(it))
				require.NoError(t, err, "%s %s\n%s", vt, it, buf.String())
				assert.Equal(t, []string{"a", "b", "c"}, m.Header.Comments)
				want, err := src.WithLayout(mem, coo.RowMajor)
				require.NoError(t, err)
				sameTensor(t, want, m.COO)
				want.Release()
				m.Release()
				src.Release()
			}
		}
		// Dense, column-major or row-major.
		d := randomDense(t, mem, r, vt, int64(r.IntN(20)), int64(r.IntN(20)), r.IntN(2) == 0)
		var buf bytes.Buffer
		require.NoError(t, mtx.Write(&buf, d, mtx.WithAllocator(mem)))
		m, err := mtx.ReadBytes(buf.Bytes(), mtx.WithAllocator(mem), mtx.WithValueType(vt))
		require.NoError(t, err)
		sameDense(t, d, m.Dense)
		m.Release()
		d.Release()
	}
}

// TestWriteSymmetry: a declared symmetry is checked, one triangle is
// written, and reading expands it back.
func TestWriteSymmetry(t *testing.T) {
	mem := testutil.Checked(t)
	text := "%%MatrixMarket matrix coordinate real general\n3 3 6\n1 1 1\n2 1 2\n1 2 2\n3 2 -4\n2 3 -4\n3 1 0\n"
	m, err := mtx.ReadBytes([]byte(text), mtx.WithAllocator(mem))
	require.NoError(t, err)
	defer m.Release()
	var buf bytes.Buffer
	require.NoError(t, mtx.Write(&buf, m.COO, mtx.WithSymmetry(mtx.Symmetric), mtx.WithAllocator(mem)))
	assert.Equal(t, "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 1\n2 1 2\n3 1 0\n3 2 -4\n", buf.String())
	back, err := mtx.ReadBytes(buf.Bytes(), mtx.WithAllocator(mem))
	require.NoError(t, err)
	defer back.Release()
	a, err := m.COO.ToDense(mem)
	require.NoError(t, err)
	defer a.Release()
	b, err := back.COO.ToDense(mem)
	require.NoError(t, err)
	defer b.Release()
	assert.Equal(t, testutil.ViewValues[float64](t, a.(*views.View)), testutil.ViewValues[float64](t, b.(*views.View)))

	for _, s := range []mtx.Symmetry{mtx.SkewSymmetric} {
		err := mtx.Write(io.Discard, m.COO, mtx.WithSymmetry(s), mtx.WithAllocator(mem))
		require.ErrorIs(t, err, arrowsparse.ErrStructure)
		assert.Contains(t, err.Error(), "not skew-symmetric")
	}
	// Not symmetric: (1, 2) has no mirror.
	bad, err := mtx.ReadBytes([]byte(realGeneral+"2 2 1\n1 2 3\n"), mtx.WithAllocator(mem))
	require.NoError(t, err)
	defer bad.Release()
	err = mtx.Write(io.Discard, bad.COO, mtx.WithSymmetry(mtx.Symmetric), mtx.WithAllocator(mem))
	require.ErrorIs(t, err, arrowsparse.ErrStructure)
	assert.Contains(t, err.Error(), "(1, 2)")
	err = mtx.Write(io.Discard, bad.COO, mtx.WithSymmetry(mtx.Hermitian), mtx.WithAllocator(mem))
	require.ErrorIs(t, err, arrowsparse.ErrStructure)
	wide, err := mtx.ReadBytes([]byte(realGeneral+"2 3 0\n"), mtx.WithAllocator(mem))
	require.NoError(t, err)
	defer wide.Release()
	require.ErrorIs(t, mtx.Write(io.Discard, wide.COO, mtx.WithSymmetry(mtx.Symmetric)), arrowsparse.ErrShape)

	// Dense: skew-symmetric with a zero diagonal.
	sk, err := mtx.ReadBytes([]byte("%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n"), mtx.WithAllocator(mem))
	require.NoError(t, err)
	defer sk.Release()
	buf.Reset()
	require.NoError(t, mtx.Write(&buf, sk.Dense, mtx.WithSymmetry(mtx.SkewSymmetric)))
	assert.Equal(t, "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n", buf.String())
	err = mtx.Write(io.Discard, sk.Dense, mtx.WithSymmetry(mtx.Symmetric))
	require.ErrorIs(t, err, arrowsparse.ErrStructure)
	assert.Contains(t, err.Error(), "does not mirror")
	require.ErrorIs(t, mtx.Write(io.Discard, sk.Dense, mtx.WithPattern()), arrowsparse.ErrUnsupportedType)

	// Pattern.
	buf.Reset()
	require.NoError(t, mtx.Write(&buf, m.COO, mtx.WithPattern(), mtx.WithSymmetry(mtx.Symmetric), mtx.WithAllocator(mem)))
	assert.Equal(t, "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 4\n1 1\n2 1\n3 1\n3 2\n", buf.String())
}

func TestWriteErrors(t *testing.T) {
	mem := testutil.Checked(t)
	three, err := coo.FromSlices[int32, float64](mem, []int64{2, 2, 2}, []int32{0, 0, 0}, coo.RowMajor, []float64{1})
	require.NoError(t, err)
	defer three.Release()
	require.ErrorIs(t, mtx.Write(io.Discard, three), arrowsparse.ErrShape)
	m, err := mtx.ReadBytes([]byte(realGeneral+"2 2 1\n1 2 3\n"), mtx.WithAllocator(mem))
	require.NoError(t, err)
	defer m.Release()
	require.Error(t, mtx.Write(failingWriter{}, m.COO))
	require.ErrorIs(t, mtx.Write(io.Discard, m.COO, mtx.WithSymmetry(mtx.Symmetry(9))), arrowsparse.ErrStructure)
	require.Error(t, mtx.WriteFile(filepath.Join(t.TempDir(), "no", "such", "dir.mtx"), m.COO))
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestWriteFileGzip: WriteFile compresses by the name, ReadFile detects it
// by the bytes.
func TestWriteFileGzip(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(9, 9))
	src := randomCOO(t, mem, r, arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Int32, []int64{1000, 2000}, coo.RowMajor)
	defer src.Release()
	dir := t.TempDir()
	for _, name := range []string{"a.mtx", "a.mtx.gz"} {
		p := filepath.Join(dir, name)
		require.NoError(t, mtx.WriteFile(p, src, mtx.WithWorkers(3)))
		raw, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Equal(t, strings.HasSuffix(name, ".gz"), raw[0] == 0x1f, name)
		var last mtx.Progress
		calls := 0
		m, err := mtx.ReadFile(p, mtx.WithAllocator(mem), mtx.WithValueType(arrow.PrimitiveTypes.Float32), mtx.WithChunkSize(4096),
			mtx.WithProgress(func(p mtx.Progress) {
				assert.GreaterOrEqual(t, p.Bytes, last.Bytes)
				assert.GreaterOrEqual(t, p.Entries, last.Entries)
				last = p
				calls++
			}))
		require.NoError(t, err)
		sameTensor(t, src, m.COO)
		m.Release()
		assert.Equal(t, src.NNZ(), last.Entries)
		assert.Equal(t, int64(len(raw)), last.Total)
		assert.Greater(t, calls, 3)
		if !strings.HasSuffix(name, ".gz") {
			assert.Equal(t, int64(len(raw)), last.Bytes)
		}
	}
}

// TestBodyOddities: comments and blank lines in the body, CRLF, tabs,
// leading and trailing blanks, no final newline.
func TestBodyOddities(t *testing.T) {
	mem := testutil.Checked(t)
	text := "%%MatrixMarket matrix coordinate real general\r\n% c\r\n\r\n 3\t3 3 \r\n  1 1\t1.5 \r\n\r\n% mid\r\n\t2  2 -2e0\r\n3 3 .5"
	m, err := readAll(t, mem, []byte(text))
	require.NoError(t, err)
	defer m.Release()
	assert.Equal(t, []float64{1.5, -2, 0.5}, mustValues(t, m.COO))
}

func mustValues(t *testing.T, c *coo.Tensor) []float64 {
	t.Helper()
	v, err := coo.Values[float64](c)
	require.NoError(t, err)
	return v
}

// TestStreamLarge reads a file larger than many chunks from a plain
// reader, through gzip, with every worker count, and compares.
func TestStreamLarge(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(10, 10))
	src := randomCOO(t, mem, r, arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Int32, []int64{100000, 3000}, coo.RowMajor)
	defer src.Release()
	var buf bytes.Buffer
	require.NoError(t, mtx.Write(&buf, src))
	for _, w := range []int{1, 2, 4} {
		for _, data := range [][]byte{buf.Bytes(), gz(t, buf.Bytes())} {
			m, err := mtx.Read(bytes.NewReader(data), mtx.WithAllocator(mem), mtx.WithWorkers(w), mtx.WithChunkSize(1<<14))
			require.NoError(t, err)
			sameTensor(t, src, m.COO)
			m.Release()
		}
	}
}

// TestSmallChunksLongHeaderRead: the bytes read with the header (a
// buffer's worth) are more than a chunk buffer when chunks and lines are
// small; none may be lost.
func TestSmallChunksLongHeaderRead(t *testing.T) {
	mem := testutil.Checked(t)
	var b strings.Builder
	b.WriteString(realGeneral + "1000 1000 20000\n")
	for i := range 20000 {
		fmt.Fprintf(&b, "%d %d %d\n", i%1000+1, i%997+1, i)
	}
	want, err := mtx.ReadBytes([]byte(b.String()), mtx.WithAllocator(mem))
	require.NoError(t, err)
	defer want.Release()
	for _, w := range []int{1, 3} {
		got, err := mtx.Read(strings.NewReader(b.String()), mtx.WithAllocator(mem), mtx.WithChunkSize(7), mtx.WithMaxLineLength(64), mtx.WithWorkers(w))
		require.NoError(t, err)
		sameMatrix(t, want, got, "stream")
		got.Release()
	}
}

func TestToCOO(t *testing.T) {
	mem := testutil.Checked(t)
	a, err := mtx.ReadBytes([]byte("%%MatrixMarket matrix array real general\n2 2\n1\n0\n0\n4\n"), mtx.WithAllocator(mem))
	require.NoError(t, err)
	defer a.Release()
	c, err := a.ToCOO(mem)
	require.NoError(t, err)
	defer c.Release()
	assert.Equal(t, int64(2), c.NNZ())
	assert.Equal(t, 4.0, coo.At[float64](c, 1, 1))
	assert.Same(t, a.Dense, a.Tensor())
	m, err := mtx.ReadBytes([]byte(realGeneral+"2 2 1\n1 2 3\n"), mtx.WithAllocator(mem))
	require.NoError(t, err)
	defer m.Release()
	c2, err := m.ToCOO(mem)
	require.NoError(t, err)
	assert.Same(t, m.COO, c2)
	c2.Release()
}

// randomCOO returns a random tensor with duplicates, special values and
// every coordinate inside the shape.
func randomCOO(t *testing.T, mem memory.Allocator, r *rand.Rand, vt, it arrow.DataType, shape []int64, layout coo.Layout) *coo.Tensor {
	t.Helper()
	n := int64(r.IntN(300))
	if shape[0]*shape[1] > 100000 {
		n = 50000
	}
	rows := make([]int64, n)
	cols := make([]int64, n)
	vals := make([]float64, n)
	for i := range n {
		rows[i], cols[i] = r.Int64N(shape[0]), r.Int64N(shape[1])
		if i > 0 && r.IntN(10) == 0 {
			rows[i], cols[i] = rows[i-1], cols[i-1]
		}
		vals[i] = randomValue(r, vt)
	}
	return buildCOO(t, mem, vt, it, shape, rows, cols, vals, layout)
}

func randomValue(r *rand.Rand, vt arrow.DataType) float64 {
	switch vt.ID() {
	case arrow.FLOAT64, arrow.FLOAT32, arrow.FLOAT16:
		if r.IntN(5) == 0 {
			return []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 5e-324, 1e300, 65504, 1e-7}[r.IntN(8)]
		}
		return (r.Float64()*2 - 1) * math.Pow(10, float64(r.IntN(20)-10))
	case arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return float64(r.IntN(256))
	}
	return float64(r.IntN(256) - 128)
}

func buildCOO(t *testing.T, mem memory.Allocator, vt, it arrow.DataType, shape, rows, cols []int64, vals []float64, layout coo.Layout) *coo.Tensor {
	t.Helper()
	n := int64(len(vals))
	iw, vw := int64(width(it)), int64(width(vt))
	cb := memory.NewResizableBuffer(mem)
	cb.Resize(int(2 * n * iw))
	vb := memory.NewResizableBuffer(mem)
	vb.Resize(int(n * vw))
	defer cb.Release()
	defer vb.Release()
	for i := range n {
		pr, pc := 2*i, 2*i+1
		if layout == coo.ColMajor {
			pr, pc = i, n+i
		}
		testutil.PutInt(cb.Bytes(), it, int(pr), rows[i])
		testutil.PutInt(cb.Bytes(), it, int(pc), cols[i])
		testutil.PutFloat(vb.Bytes(), vt, int(i), vals[i])
	}
	c, err := coo.New(vt, it, shape, cb, layout, vb, n)
	require.NoError(t, err)
	return c
}

func randomDense(t *testing.T, mem memory.Allocator, r *rand.Rand, vt arrow.DataType, rows, cols int64, colMajor bool) *views.View {
	t.Helper()
	v, err := views.Alloc(mem, vt, []int64{rows, cols})
	require.NoError(t, err)
	for i := range rows * cols {
		testutil.PutFloat(v.Buffer().Bytes(), vt, int(i), randomValue(r, vt))
	}
	if !colMajor {
		return v
	}
	defer v.Release()
	w, err := views.New(vt, v.Buffer(), 0, []int64{rows, cols}, []int64{1, max(rows, 1)})
	require.NoError(t, err)
	return w
}

// sameTensor requires equal shape, types and, in storage order, equal
// coordinates and value bits.
func sameTensor(t *testing.T, want, got *coo.Tensor) {
	t.Helper()
	require.Equal(t, want.Shape(), got.Shape())
	require.Equal(t, want.DataType(), got.DataType())
	require.Equal(t, want.NNZ(), got.NNZ())
	require.NoError(t, got.Validate())
	vw := int64(width(want.DataType()))
	for i := range want.NNZ() {
		for k := range want.NumDims() {
			require.Equal(t, want.Coord(i, k), got.Coord(i, k), "entry %d", i)
		}
		a := want.ValuesBuffer().Bytes()[i*vw : (i+1)*vw]
		b := got.ValuesBuffer().Bytes()[i*vw : (i+1)*vw]
		require.Equal(t, a, b, "entry %d", i)
	}
}

func sameDense(t *testing.T, want, got *views.View) {
	t.Helper()
	require.Equal(t, want.Shape(), got.Shape())
	shape := want.Shape()
	w := int64(width(want.DataType()))
	for i := range shape[0] {
		for j := range shape[1] {
			a := want.Buffer().Bytes()[want.Offset(i, j)*w:][:w]
			b := got.Buffer().Bytes()[got.Offset(i, j)*w:][:w]
			require.Equal(t, a, b, fmt.Sprintf("(%d, %d)", i, j))
		}
	}
}
