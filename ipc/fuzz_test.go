package ipc_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowsparse/arrowsparse/internal/testing/exercise"
	"github.com/arrowsparse/arrowsparse/ipc"
)

// interopFiles returns every message file of testdata/interop.
func interopFiles(tb testing.TB) []string {
	tb.Helper()
	var files []string
	for _, dir := range []string{"golden", "cpp-corpus", "crafted"} {
		fs, err := filepath.Glob(filepath.Join("..", "testdata", "interop", dir, "*.arrow"))
		if err != nil {
			tb.Fatal(err)
		}
		files = append(files, fs...)
	}
	return files
}

// checkRoundTrip is the property every fuzz target checks: reading never
// panics; whatever reads writes back to bytes that read again and write to
// the same bytes; and every operation a user would run next on the tensor
// (internal/testing/exercise) neither panics nor allocates beyond a bound
// tied to the message's size.
func checkRoundTrip(t *testing.T, data []byte) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	m, err := ipc.ParseMessage(data, ipc.WithAllocator(mem))
	if err != nil {
		if !errorsIsArrow(err) {
			t.Fatalf("error wraps no Arrow category: %v", err)
		}
		// The streaming reader, which cannot see the length of its input
		// and reads on to tell what a failed input holds, fails with a
		// category too (or reads the first message of a longer input).
		if m, err := ipc.ReadMessage(io.MultiReader(bytes.NewReader(data))); err == nil {
			m.Release()
		} else if !errorsIsArrow(err) {
			t.Fatalf("stream error wraps no Arrow category: %v", err)
		}
		return
	}
	defer m.Release()
	exercise.New(t, mem, int64(len(data))).Run(m.Tensor)
	var first bytes.Buffer
	if _, err := ipc.WriteTensor(&first, m.Tensor); err != nil {
		// A message can be readable and still not writable as Arrow C++
		// would (an index type too narrow for the counts): that must be
		// an error, never a panic.
		if !errorsIsArrow(err) {
			t.Fatalf("write error wraps no Arrow category: %v", err)
		}
		return
	}
	m2, err := ipc.ParseMessage(first.Bytes())
	if err != nil {
		t.Fatalf("written message does not read back: %v", err)
	}
	defer m2.Release()
	var second bytes.Buffer
	if _, err := ipc.WriteTensor(&second, m2.Tensor); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.Bytes(), second.Bytes()) {
		t.Fatal("writing is not stable under a read-write round trip")
	}
	// The streaming and sequence readers agree with the zero-copy one.
	m3, err := ipc.ReadMessage(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("ReadMessage fails where ParseMessage succeeds: %v", err)
	}
	m3.Release()
}

// FuzzReadMessage feeds whole messages, seeded with every interop file.
func FuzzReadMessage(f *testing.F) {
	for _, p := range interopFiles(f) {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(checkRoundTrip)
}

// template is a corpus message split into its framed metadata and body.
type template struct{ head, body []byte }

func templates(tb testing.TB, kinds ...string) []template {
	tb.Helper()
	var out []template
	for _, p := range interopFiles(tb) {
		name := filepath.Base(p)
		match := false
		for _, kind := range kinds {
			match = match || strings.Contains(name, "-"+kind+"-") || strings.HasPrefix(name, kind)
		}
		if !match {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		if len(b) < 8 || binary.LittleEndian.Uint32(b) != 0xFFFFFFFF {
			continue
		}
		m, err := ipc.ParseMessage(b)
		if err != nil {
			continue
		}
		head := int64(len(b)) - m.BodySize
		m.Release()
		out = append(out, template{head: b[:head], body: b[head:]})
	}
	if len(out) == 0 {
		tb.Fatalf("no %v templates", kinds)
	}
	return out
}

// fuzzBody fuzzes the body of valid messages of one kind: the metadata is
// kept, so the fuzzer works on the index decoder (coordinates, indptr,
// indices, values) rather than on the framing.
func fuzzBody(f *testing.F, kinds ...string) {
	ts := templates(f, kinds...)
	for i, t := range ts {
		f.Add(uint16(i), t.body)
	}
	f.Fuzz(func(t *testing.T, which uint16, body []byte) {
		tm := ts[int(which)%len(ts)]
		fitted := make([]byte, len(tm.body))
		copy(fitted, body)
		checkRoundTrip(t, append(append([]byte(nil), tm.head...), fitted...))
	})
}

// FuzzCOOIndex fuzzes the bodies of COO messages.
func FuzzCOOIndex(f *testing.F) { fuzzBody(f, "coo") }

// FuzzCSXIndex fuzzes the bodies of CSR and CSC messages.
func FuzzCSXIndex(f *testing.F) { fuzzBody(f, "csr", "csc") }

// FuzzCSFIndex fuzzes the bodies of CSF messages.
func FuzzCSFIndex(f *testing.F) { fuzzBody(f, "csf") }

// FuzzDenseTensor fuzzes the bodies of dense Tensor messages.
func FuzzDenseTensor(f *testing.F) { fuzzBody(f, "tensor") }
