package describe_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse/internal/tools/describe"
	"github.com/arrowsparse/arrowsparse/ipc"
	"github.com/arrowsparse/arrowsparse/views"
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
		fs, err := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "interop", dir, "*.json"))
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
	m, err := ipc.ReadFile(filepath.Join("..", "..", "..", "testdata", "interop", "golden", "coo.arrow"))
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

// zeroStrideMessage returns a dense int8 message of shape (rows, cols)
// whose strides are zero: every element is the one byte of its body. It
// patches the message of a (7, 9) tensor.
func zeroStrideMessage(t *testing.T, rows, cols int64) []byte {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	v, err := views.Alloc(mem, arrow.PrimitiveTypes.Int8, []int64{7, 9})
	require.NoError(t, err)
	defer v.Release()
	v.Buffer().Bytes()[0] = 42
	msg, err := ipc.AppendTensor(nil, v)
	require.NoError(t, err)
	le := func(xs ...int64) []byte {
		var b []byte
		for _, x := range xs {
			b = binary.LittleEndian.AppendUint64(b, uint64(x))
		}
		return b
	}
	meta := msg[:len(msg)-63]
	for _, r := range [][2][]byte{{le(9, 1), le(0, 0)}, {le(7), le(rows)}, {le(9), le(cols)}} {
		require.Equal(t, 1, bytes.Count(meta, r[0]), "%x", r[0])
		copy(meta[bytes.Index(meta, r[0]):], r[1])
	}
	return msg
}

// A dense tensor is written as it is read: a message of 300 bytes
// describing 4 Mi elements dumps without materialising them, and one of
// more than MaxDenseValues is refused, as the C++ peer refuses it.
func TestDenseStreams(t *testing.T) {
	msg := zeroStrideMessage(t, 1<<11, 1<<11)
	m, err := ipc.ParseMessage(msg)
	require.NoError(t, err)
	defer m.Release()
	c, err := describe.Describe(m, 0)
	require.NoError(t, err)
	assert.Nil(t, c.DenseValues)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cw := &countingWriter{}
	require.NoError(t, c.WriteJSON(cw))
	runtime.ReadMemStats(&after)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(4<<20), "dumping allocated %d bytes", after.TotalAlloc-before.TotalAlloc)
	assert.Equal(t, int64(1<<22), int64(strings.Count(cw.head, "42"))+cw.count42)
	assert.True(t, strings.HasPrefix(cw.head, "{\n  \"kind\": \"dense\""), cw.head[:40])

	// The same through FromMessage, on a smaller one.
	small := zeroStrideMessage(t, 3, 5)
	ms, err := ipc.ParseMessage(small)
	require.NoError(t, err)
	defer ms.Release()
	full, err := describe.FromMessage(ms)
	require.NoError(t, err)
	assert.Len(t, full.DenseValues, 15)
	streamed, err := describe.Describe(ms, 0)
	require.NoError(t, err)
	assert.Equal(t, string(full.JSON()), string(streamed.JSON()))
	assert.Equal(t, full.Text(), streamed.Text())

	huge, err := ipc.ParseMessage(zeroStrideMessage(t, 1<<13, 1<<13+1))
	require.NoError(t, err)
	defer huge.Release()
	_, err = describe.Describe(huge, 0)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "too large to print")
	_, err = describe.Describe(ms, 14)
	assert.Error(t, err)
}

// countingWriter keeps the first bytes written and counts "42"s in the rest.
type countingWriter struct {
	head    string
	count42 int64
	tail    byte
}

func (w *countingWriter) Write(p []byte) (int, error) {
	if len(w.head) < 200 {
		k := min(len(p), 200-len(w.head))
		w.head += string(p[:k])
		p2 := p[k:]
		w.countIn(p2)
		return len(p), nil
	}
	w.countIn(p)
	return len(p), nil
}

func (w *countingWriter) countIn(p []byte) {
	if len(p) == 0 {
		return
	}
	if w.tail == '4' && p[0] == '2' {
		w.count42++
	}
	w.count42 += int64(bytes.Count(p, []byte("42")))
	w.tail = p[len(p)-1]
}

// Describe and FromMessage give the same documents for every corpus
// message.
func TestDescribeMatchesFromMessage(t *testing.T) {
	for _, f := range sidecars(t) {
		m, err := ipc.ReadFile(strings.TrimSuffix(f, ".json") + ".arrow")
		require.NoError(t, err, f)
		a, err := describe.FromMessage(m)
		require.NoError(t, err, f)
		b, err := describe.Describe(m, 0)
		require.NoError(t, err, f)
		var bj, bt strings.Builder
		require.NoError(t, b.WriteJSON(&bj))
		require.NoError(t, b.WriteText(&bt))
		assert.Equal(t, string(a.JSON()), bj.String(), f)
		assert.Equal(t, a.Text(), bt.String(), f)
		m.Release()
	}
}
