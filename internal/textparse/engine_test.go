package textparse

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/klauspost/compress/gzip"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
)

// sumScratch and sumBody: a minimal format, one integer per line ('#'
// lines skipped), to test the engine on its own.
type sumScratch struct {
	vals []uint64
	off  int64
}

type sumBody struct {
	out     *Column
	maxLine int
}

func (b *sumBody) body() Body[sumScratch] {
	return Body[sumScratch]{
		New: func() *sumScratch { return &sumScratch{} },
		Parse: func(data []byte, s *sumScratch) (lines, entries int64, err *LineError) {
			s.vals = s.vals[:0]
			for _, l := range bytes.SplitAfter(data, []byte{'\n'}) {
				if len(l) == 0 {
					continue
				}
				if len(l) > b.maxLine+1 {
					return lines, int64(len(s.vals)), NewLineError(arrowsparse.ErrSyntax, lines, "line is longer than %d bytes", b.maxLine)
				}
				t := bytes.TrimSpace(l)
				if len(t) > 0 && t[0] != '#' {
					v, e := strconv.ParseUint(string(t), 10, 64)
					if e != nil {
						return lines, int64(len(s.vals)), NewLineError(arrowsparse.ErrSyntax, lines, "bad %q", t)
					}
					s.vals = append(s.vals, v)
				}
				lines++
			}
			return lines, int64(len(s.vals)), nil
		},
		Place: func(_ []byte, s *sumScratch, before int64, grow func(func())) error {
			s.off = before
			if need := before + int64(len(s.vals)); need > b.out.Cap() {
				grow(func() { b.out.Reserve(max(need, 2*b.out.Cap())) })
			}
			return nil
		},
		Copy: func(s *sumScratch) { Narrow(b.out.Bytes(s.off, int64(len(s.vals))), 8, s.vals) },
	}
}

// runSum parses input with one header line and returns the values.
func runSum(t *testing.T, open func(*Config) (*Input, error), cfg Config) ([]uint64, error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cfg.Mem, cfg.Name = mem, "sum"
	cfg.Fill()
	in, err := open(&cfg)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	var out []uint64
	err = in.Protect(func() error {
		if _, _, err := in.Line(); err != nil {
			return err
		}
		b := &sumBody{out: NewColumn(mem, 8, 1), maxLine: cfg.MaxLine}
		defer b.out.Release()
		n, _, err := Run(in, b.body())
		if err != nil {
			return err
		}
		for i := range n {
			out = append(out, uint64(Index(b.out.Bytes(0, n), 8, i)))
		}
		return nil
	})
	return out, err
}

// TestSources: memory, a mapped file, a file read with ReadAt, a stream
// and gzip give the same values and the same first error, for any chunk
// size and worker count.
func TestSources(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("header\n")
	var want []uint64
	for i := range 3000 {
		if i%97 == 0 {
			sb.WriteString("# comment\n\n")
		}
		fmt.Fprintf(&sb, "%d\n", i*7)
		want = append(want, uint64(i*7))
	}
	good := sb.String()
	bad := good[:len(good)/2] + "x\n" + good[len(good)/2:]
	long := good[:len(good)/3] + strings.Repeat("1", 5000) + "\n" + good[len(good)/3:]
	dir := t.TempDir()
	for _, text := range []string{good, bad, long} {
		path := filepath.Join(dir, "in.txt")
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		var zb bytes.Buffer
		zw := gzip.NewWriter(&zb)
		zw.Write([]byte(text))
		zw.Close()
		opens := map[string]func(*Config) (*Input, error){
			"bytes":  func(c *Config) (*Input, error) { return OpenBytes(c, []byte(text)) },
			"stream": func(c *Config) (*Input, error) { return OpenReader(c, strings.NewReader(text), -1) },
			"gzip":   func(c *Config) (*Input, error) { return OpenReader(c, bytes.NewReader(zb.Bytes()), -1) },
			"mapped": func(c *Config) (*Input, error) { return openPath(t, c, path) },
			"readat": func(c *Config) (*Input, error) {
				mapFile = func(*os.File, int64) ([]byte, func() error, error) { return nil, nil, errors.ErrUnsupported }
				defer func() { mapFile = mapFileOS }()
				return openPath(t, c, path)
			},
		}
		firstErr := map[bool]string{}
		for name, open := range opens {
			for _, cfg := range []Config{{}, {ChunkSize: 10, Workers: 3, MaxLine: 4096}, {ChunkSize: 1000, Workers: 2, MaxLine: 4096}} {
				got, err := runSum(t, open, cfg)
				what := fmt.Sprintf("%s %+v", name, cfg)
				if text == good {
					require.NoError(t, err, what)
					require.Equal(t, want, got, what)
					continue
				}
				require.Error(t, err, what)
				var le *LineError
				require.True(t, errors.As(err, &le), what)
				// The default limit lets the long line through (then it
				// is not a number), a small one does not.
				key := text == long && cfg.MaxLine != 0
				if firstErr[key] == "" {
					firstErr[key] = le.Error()
				}
				assert.Equal(t, firstErr[key], le.Error(), what)
			}
		}
	}
}

func openPath(t *testing.T, c *Config, path string) (*Input, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { f.Close() })
	return OpenFile(c, f)
}

// TestMappedFileShrinks: a mapped file cut short while it is parsed gives
// an error, not a crash.
func TestMappedFileShrinks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in.txt")
	text := "header\n" + strings.Repeat("12345\n", 1<<20)
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	_, err := runSum(t, func(c *Config) (*Input, error) {
		in, err := openPath(t, c, path)
		if err == nil && in.unmap != nil {
			require.NoError(t, os.Truncate(path, 0))
		}
		return in, err
	}, Config{Workers: 2})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the file changed while it was being read")
}
