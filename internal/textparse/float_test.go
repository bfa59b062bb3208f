package textparse

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
)

// checkFloat compares ParseFloat64 and ParseFloat32 with strconv on s.
func checkFloat(t *testing.T, s string) {
	t.Helper()
	want, err := strconv.ParseFloat(s, 64)
	wantOK := err == nil || err.(*strconv.NumError).Err == strconv.ErrRange
	got, ok := ParseFloat64([]byte(s))
	require.Equal(t, wantOK, ok, "%q: ok", s)
	if ok {
		require.Equal(t, math.Float64bits(want), math.Float64bits(got), "%q: got %v want %v", s, got, want)
	}
	want32, err := strconv.ParseFloat(s, 32)
	got32, ok := ParseFloat32([]byte(s))
	wantOK = err == nil || err.(*strconv.NumError).Err == strconv.ErrRange
	require.Equal(t, wantOK, ok, "%q: ok32", s)
	if ok {
		require.Equal(t, math.Float32bits(float32(want32)), math.Float32bits(got32), "%q: got %v want %v (float32)", s, got32, want32)
	}
}

func TestFloatSpecial(t *testing.T) {
	for _, s := range []string{
		"0", "-0", "+0", "0.0", "00", "1", "-1", "+1", ".5", "5.", "+.5e3", "1e5", "1E5", "1e+5", "1e-5",
		"1e", "1e+", "e5", ".", "-", "+", "", "-.", "1.2.3", "1e5e5", "--1", "1-", "0x1p-3", "0x1.8p1", "1_000",
		"inf", "-Inf", "+INF", "infinity", "nan", "NaN", "infinit", "na",
		"1e308", "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308", "1e309", "-1e400",
		"2.2250738585072014e-308", "2.2250738585072011e-308", "4.9e-324", "5e-324", "2e-324", "3e-324", "1e-400",
		"9007199254740993", "9007199254740992", "9007199254740991", "18014398509481985",
		"1234567890123456789", "12345678901234567890", "123456789012345678901234567890",
		"0.1", "0.2", "0.3", "0.30000000000000004", "-0.5488135039273248", "7.933472745064996E-1",
		"0.000000000000000000000000000000000000000000001", "100000000000000000000000000000000000000000",
		"1.00000000000000011102230246251565404236316680908203125",  // halfway 1 and 1+2^-52
		"1.00000000000000011102230246251565404236316680908203124",  // just below
		"1.000000000000000111022302462515654042363166809082031251", // just above
		"1.000000059604644775390625",                               // float32 midpoint 1 + 2^-24
		"1.0000000596046447753906250000001",
		"1.0000000596046447753906249999999",
		"3.4028235677973366e38", "3.4028235677973367e38", "3.402823567797336616e38", "3.4028234663852886e38",
		"1.401298464324817e-45", "7.006492321624085e-46", "7.006492321624086e-46", "7.0064923216240854e-46",
		"000000000000000000000000000001", "0.0000000000000000000000000000001e31", "1e-0", "1e000000000000000005",
		"1e99999999999999999999", "1e-99999999999999999999", "0e99999999999",
	} {
		checkFloat(t, s)
	}
}

func TestFloatRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 300000
	if testing.Short() {
		n = 30000
	}
	for i := range n {
		var s string
		switch i % 6 {
		case 0: // shortest round-trip of random bits
			f := math.Float64frombits(r.Uint64())
			s = strconv.FormatFloat(f, 'g', -1, 64)
		case 1: // uniform in [-1, 1), as benchmark files hold
			s = strconv.FormatFloat(r.Float64()*2-1, 'g', -1, 64)
		case 2: // 17 digits, exponent form
			s = strconv.FormatFloat(math.Float64frombits(r.Uint64()), 'e', 16, 64)
		case 3: // random digit strings with random exponents
			nd := 1 + r.IntN(25)
			b := make([]byte, 0, 40)
			if r.IntN(2) == 0 {
				b = append(b, '-')
			}
			for range nd {
				b = append(b, byte('0'+r.IntN(10)))
			}
			if p := r.IntN(nd + 1); p < nd {
				b = append(b[:p+len(b)-nd], append([]byte{'.'}, b[p+len(b)-nd:]...)...)
			}
			b = append(b, 'e')
			b = strconv.AppendInt(b, int64(r.IntN(700)-350), 10)
			s = string(b)
		case 4: // float32 shortest
			f := math.Float32frombits(r.Uint32())
			s = strconv.FormatFloat(float64(f), 'g', -1, 32)
		case 5: // float32 midpoints, exact and perturbed
			f := math.Float32frombits(r.Uint32() &^ (1 << 31))
			if math.IsInf(float64(f), 0) || f != f {
				continue
			}
			g := math.Float32frombits(math.Float32bits(f) + 1)
			mid := float64(f) + (float64(g)-float64(f))/2
			s = strconv.FormatFloat(mid, 'e', -1, 64)
			switch r.IntN(3) {
			case 1:
				s = strconv.FormatFloat(mid, 'e', 40, 64) + "1"
				s = s[:len(s)-1]
			case 2:
				s = strconv.FormatFloat(math.Nextafter(mid, 0), 'g', -1, 64)
			}
		}
		checkFloat(t, s)
	}
}

func TestFloat32Midpoints(t *testing.T) {
	// Exact float32 midpoints written with all their digits, then nudged
	// past the float64 precision in both directions.
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		f := math.Float32frombits(r.Uint32() & 0x7f7fffff)
		g := math.Float32frombits(math.Float32bits(f) + 1)
		mid := float64(f) + (float64(g)-float64(f))/2
		exact := exactDecimal(mid)
		for _, s := range []string{exact, exact + "0000000000000000000001", nudgeDown(exact)} {
			checkFloat(t, s)
		}
	}
}

// nudgeDown returns a decimal just below the positive decimal s (s has a
// non-zero last digit).
func nudgeDown(s string) string {
	b := []byte(s)
	if !containsDot(b) {
		b = append(b, '.')
	}
	i := len(b) - 1
	for b[i] == '.' {
		i--
	}
	if b[i] == '0' {
		return s
	}
	b[i]--
	return string(b) + "9999999999999999999999"
}

// exactDecimal writes a dyadic float64 with all its decimal digits.
func exactDecimal(f float64) string {
	s := strconv.FormatFloat(f, 'f', 1100, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

func containsDot(b []byte) bool {
	for _, c := range b {
		if c == '.' {
			return true
		}
	}
	return false
}

func TestFloat16(t *testing.T) {
	// Every float16 midpoint and its neighbours must round like the exact
	// rule: compare with the rounding of the exact value through big
	// rationals done by hand here.
	for h := uint16(0); h < 0x7c00; h++ {
		lo := halfValue(h)
		hi := 65536.0
		if h+1 < 0x7c00 {
			hi = halfValue(h + 1)
		}
		mid := lo + (hi-lo)/2
		s := exactDecimal(mid)
		f, _ := strconv.ParseFloat(s, 64)
		want := h
		if h&1 == 1 {
			want = h + 1
		}
		got := Float16Of(f, []byte(s)).Uint16()
		require.Equal(t, want, got, "midpoint %s", s)
		up := s + "000000000000000000000001"
		if !containsDot([]byte(s)) {
			up = s + ".000000000000000000000001"
		}
		f, _ = strconv.ParseFloat(up, 64)
		require.Equal(t, h+1, Float16Of(f, []byte(up)).Uint16(), "above %s", up)
		exact := strconv.FormatFloat(lo, 'g', -1, 64)
		f, _ = strconv.ParseFloat(exact, 64)
		require.Equal(t, h, Float16Of(f, []byte(exact)).Uint16(), "exact %s", exact)
		assert.Equal(t, h, arrowsparse.Float32ToHalf(float32(lo)).Uint16())
	}
	for _, c := range []struct {
		s    string
		want uint16
	}{{"65504", 0x7bff}, {"65519.99", 0x7bff}, {"65520", 0x7c00}, {"65520.0000000000000000001", 0x7c00}, {"1e10", 0x7c00}, {"-1e10", 0xfc00}, {"-0", 0x8000}, {"1e-10", 0}} {
		f, _ := strconv.ParseFloat(c.s, 64)
		assert.Equal(t, c.want, Float16Of(f, []byte(c.s)).Uint16(), c.s)
	}
	assert.True(t, Float16Of(math.NaN(), []byte("nan")).IsNaN())
}

func TestScanInts(t *testing.T) {
	for _, c := range []struct {
		s     string
		v     int64
		n     int
		over  bool
		uv    uint64
		un    int
		uover bool
	}{
		{"0", 0, 1, false, 0, 1, false},
		{"12 ", 12, 2, false, 12, 2, false},
		{"-12", -12, 3, false, 0, 0, false},
		{"+7x", 7, 2, false, 7, 2, false},
		{"9223372036854775807", math.MaxInt64, 19, false, math.MaxInt64, 19, false},
		{"9223372036854775808", math.MinInt64, 19, true, 1 << 63, 19, false},
		{"-9223372036854775808", math.MinInt64, 20, false, 0, 0, false},
		{"-9223372036854775809", 0, 20, true, 0, 0, false},
		{"18446744073709551615", 0, 20, true, math.MaxUint64, 20, false},
		{"18446744073709551616", 0, 20, true, 0, 20, true},
		{"x", 0, 0, false, 0, 0, false},
		{"-", 0, 0, false, 0, 0, false},
	} {
		v, n, over := ScanInt([]byte(c.s))
		assert.Equal(t, c.n, n, c.s)
		assert.Equal(t, c.over, over, c.s)
		if !over {
			assert.Equal(t, c.v, v, c.s)
		}
		uv, un, uover := ScanUint64([]byte(c.s))
		assert.Equal(t, c.un, un, c.s)
		assert.Equal(t, c.uover, uover, c.s)
		if !uover && un > 0 {
			assert.Equal(t, c.uv, uv, c.s)
		}
	}
	v, n, over := ScanUint([]byte("9223372036854775807"))
	assert.Equal(t, uint64(math.MaxInt64), v)
	assert.Equal(t, 19, n)
	assert.False(t, over)
	_, _, over = ScanUint([]byte("9223372036854775808"))
	assert.True(t, over)
}

func FuzzParseFloat(f *testing.F) {
	for _, s := range []string{"1", "-0.5488135039273248", "1e308", "0x1p-3", "inf", "1.000000059604644775390625", "12345678901234567890e-30"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkFloat(t, s)
	})
}

func BenchmarkParseFloat(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	toks := make([][]byte, 4096)
	n := 0
	for i := range toks {
		toks[i] = strconv.AppendFloat(nil, r.Float64()*2-1, 'g', -1, 64)
		n += len(toks[i])
	}
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(n))
		for b.Loop() {
			for _, tok := range toks {
				if _, ok := ParseFloat64(tok); !ok {
					b.Fatal("parse")
				}
			}
		}
	})
	b.Run("strconv", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(n))
		for b.Loop() {
			for _, tok := range toks {
				if _, err := strconv.ParseFloat(stringOf(tok), 64); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
