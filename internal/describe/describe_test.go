package describe_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse/internal/describe"
	"github.com/arrowsparse/arrowsparse/ipc"
)

var (
	f16 = arrow.FixedWidthTypes.Float16
	f32 = arrow.PrimitiveTypes.Float32
	f64 = arrow.PrimitiveTypes.Float64
)

func sidecars(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, dir := range []string{"golden", "cpp-corpus"} {
		fs, err := filepath.Glob(filepath.Join("..", "..", "testdata", "interop", dir, "*.json"))
		require.NoError(t, err)
		files = append(files, fs...)
	}
	require.Len(t, files, 212)
	return files
}

// Parsing a sidecar and writing it again gives the same bytes: the writer
// lays documents out as the C++ peer does and formats values as it does.
func TestSidecarRoundTrip(t *testing.T) {
	for _, f := range sidecars(t) {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		c, err := describe.ParseJSON(data)
		require.NoError(t, err, f)
		assert.Equal(t, string(data), string(c.JSON()), f)
	}
}

// FromMessage of every corpus message that ipc reads gives its sidecar,
// note aside.
func TestFromMessage(t *testing.T) {
	for _, f := range sidecars(t) {
		m, err := ipc.ReadFile(strings.TrimSuffix(f, ".json") + ".arrow")
		require.NoError(t, err, f)
		got, err := describe.FromMessage(m)
		m.Release()
		require.NoError(t, err, f)
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		want, err := describe.ParseJSON(data)
		require.NoError(t, err)
		want.Note = ""
		assert.Equal(t, string(want.JSON()), string(got.JSON()), f)
	}
}

func TestHalf(t *testing.T) {
	for h := range 1 << 16 {
		d := describe.HalfToFloat64(uint16(h))
		if math.IsNaN(d) {
			assert.Equal(t, uint16(h)&0x8000|0x7e00, describe.Float64ToHalf(d))
			continue
		}
		require.Equal(t, uint16(h), describe.Float64ToHalf(d), "%#04x", h)
	}
	for _, c := range []struct {
		d    float64
		want uint16
	}{
		{65504, 0x7bff}, {65519.99, 0x7bff}, {65520, 0x7c00}, {1e9, 0x7c00}, {-1e9, 0xfc00},
		{math.Ldexp(1, -25), 0}, {math.Ldexp(1.5, -25), 1}, {math.Ldexp(3, -25), 2},
		{1 + math.Ldexp(1, -11), 0x3c00}, {1 + math.Ldexp(3, -11), 0x3c02}, {math.Copysign(0, -1), 0x8000},
	} {
		assert.Equal(t, c.want, describe.Float64ToHalf(c.d), "%v", c.d)
	}
}

func TestAdd(t *testing.T) {
	i8 := arrow.PrimitiveTypes.Int8
	u64 := arrow.PrimitiveTypes.Uint64
	assert.Equal(t, uint64(0x80), describe.Add(i8, 0x7f, 1)) // wraps to -128
	assert.Equal(t, "-128", describe.FormatValue(i8, describe.Add(i8, 0x7f, 1)))
	assert.Equal(t, uint64(0), describe.Add(u64, math.MaxUint64, 1))
	// float16: 2048 + 1 rounds to even (2048), 2048 + 3 to 2052.
	h := func(d float64) uint64 { return uint64(describe.Float64ToHalf(d)) }
	assert.Equal(t, h(2048), describe.Add(f16, h(2048), h(1)))
	assert.Equal(t, h(2052), describe.Add(f16, h(2048), h(3)))
	// float32 sums round to float32.
	a := uint64(math.Float32bits(1))
	b := uint64(math.Float32bits(float32(math.Ldexp(1, -30))))
	assert.Equal(t, a, describe.Add(f32, a, b))
	assert.Equal(t, math.Float64bits(1+math.Ldexp(1, -30)), describe.Add(f64, math.Float64bits(1), math.Float64bits(math.Ldexp(1, -30))))
}

func TestFormatValue(t *testing.T) {
	i64 := arrow.PrimitiveTypes.Int64
	u64 := arrow.PrimitiveTypes.Uint64
	for _, c := range []struct {
		dt   arrow.DataType
		x    uint64
		want string
	}{
		{i64, 1 << 53, "9007199254740992"},
		{i64, 1<<53 + 1, `"9007199254740993"`},
		{i64, uint64(1<<64 - (1<<53 + 1)), `"-9007199254740993"`},
		{i64, uint64(1<<64 - (1 << 53)), "-9007199254740992"},
		{u64, math.MaxUint64, `"18446744073709551615"`},
		{arrow.PrimitiveTypes.Int16, 0xffff, "-1"},
		{f64, math.Float64bits(math.NaN()), `"NaN"`},
		{f64, math.Float64bits(math.Inf(-1)), `"-Infinity"`},
		{f64, math.Float64bits(math.Copysign(0, -1)), "-0.0"},
		{f64, 0, "0"},
		{f64, math.Float64bits(20), "20"},
		{f64, math.Float64bits(0.001), "0.001"},
		{f64, math.Float64bits(1e-6), "1e-06"},
		{f64, math.Float64bits(1e17), "1e+17"},
		{f64, math.Float64bits(43884378102693888), "43884378102693888"},
		{f32, uint64(math.Float32bits(0.1)), "0.10000000149011612"},
		{f16, 1, "5.9604644775390625e-08"}, // 2^-24: 17 digits, as printf finds them
		{f16, 0x7c00, `"Infinity"`},
	} {
		assert.Equal(t, c.want, describe.FormatValue(c.dt, c.x), "%s %#x", c.dt, c.x)
		v, err := describe.ParseValue(c.dt, json.RawMessage(c.want))
		require.NoError(t, err)
		if c.want != `"NaN"` {
			assert.Equal(t, c.x, v, "%s %s", c.dt, c.want)
		}
	}
}

func TestQuoteString(t *testing.T) {
	for in, want := range map[string]string{
		"plain":       `"plain"`,
		"a\"b\\c":     `"a\"b\\c"`,
		"tab\there\n": `"tab\there\n"`,
		"\x01\x7f":    "\"\\u0001\x7f\"",
		"Größe 日本":    `"Größe 日本"`,
		"bad\xff\xc3": `"bad\u00ff\u00c3"`,
		"\uFFFD kept": "\"\uFFFD kept\"",
	} {
		assert.Equal(t, want, describe.QuoteString(in), "%q", in)
		if !strings.Contains(in, "\xff") {
			var back string
			require.NoError(t, json.Unmarshal([]byte(describe.QuoteString(in)), &back))
			assert.Equal(t, in, back)
		}
	}
}

func TestCanonical(t *testing.T) {
	i8 := arrow.PrimitiveTypes.Int8
	e := describe.NewEntries(2, 4)
	e.Append(100, 1, 0)
	e.Append(5, 0, 2)
	e.Append(100, 1, 0) // sums to 200, which wraps to -56
	e.Append(0, 0, 1)   // explicit zero kept
	c := e.Canonical(i8)
	require.Equal(t, 3, c.Len())
	assert.Equal(t, []int64{0, 1, 0, 2, 1, 0}, c.Coords)
	assert.Equal(t, []uint64{0, 5, 200}, c.Values)
	assert.Equal(t, "-56", describe.FormatValue(i8, c.Values[2]))

	// A 0-d tensor: every entry has the same (empty) coordinates.
	s := describe.NewEntries(0, 2)
	s.Append(1)
	s.Append(2)
	assert.Equal(t, []uint64{3}, s.Canonical(i8).Values)
}

func TestSummary(t *testing.T) {
	m, err := ipc.ReadFile(filepath.Join("..", "..", "testdata", "interop", "golden", "coo.arrow"))
	require.NoError(t, err)
	defer m.Release()
	s := describe.Summarize(m)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(s.JSON(), &doc))
	assert.Equal(t, "COO", doc["format"])
	assert.Equal(t, 0.5, doc["density"])
	assert.Equal(t, []any{"row", "col"}, doc["dim_names"])
	assert.EqualValues(t, 352, doc["message_bytes"])
	assert.Contains(t, s.Text(), "density:")
	assert.Equal(t, len(s), strings.Count(s.Text(), "\n"))
}
