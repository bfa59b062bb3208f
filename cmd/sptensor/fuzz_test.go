package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// fuzzCommands are the command lines FuzzCLI runs on every input, IN
// standing for the input file. convert writes to standard output: writing
// files syncs them, which would slow fuzzing down a hundredfold.
var fuzzCommands = [][]string{
	{"inspect", "IN"}, {"inspect", "--json", "IN"}, {"inspect", "--all", "--json", "IN"},
	{"dump", "--json", "IN"}, {"dump", "IN"}, {"dump", "--json", "--message", "1", "IN"},
	{"validate", "IN"}, {"validate", "--all", "IN"},
	{"convert", "IN", "-"}, {"convert", "--to", "coo", "--index-type", "int16", "IN", "-"},
	{"convert", "--to", "coo", "IN", "-"}, {"convert", "--to", "csr", "IN", "-"},
	{"convert", "--to", "csc", "--index-type", "int8", "IN", "-"}, {"convert", "--to", "csf", "IN", "-"},
	{"convert", "--to", "gcs", "IN", "-"}, {"convert", "--to", "tensor", "IN", "-"},
}

// FuzzCLI feeds arbitrary bytes to every command through runWith: no
// command panics (TestMain turns recovery off, so a panic is a crasher),
// every exit status is 0 or 1, dump --json always prints a JSON document,
// and no command allocates more than 64 bytes per input byte plus 64 MiB.
// The limits on what convert and dump materialise from a shape are
// lowered to keep that bound meaningful (they would allow gigabytes).
func FuzzCLI(f *testing.F) {
	var seeds []string
	for _, dir := range []string{"golden", "cpp-corpus", "crafted"} {
		fs, err := filepath.Glob(filepath.Join(interopDir, dir, "*.arrow"))
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, fs...)
	}
	if len(seeds) < 200 {
		f.Fatalf("found %d seed files", len(seeds))
	}
	// tables of sparse tensor columns (SPARSE.md's examples)
	tables, err := filepath.Glob(filepath.Join(interopDir, "..", "arrowext", "*.arrow"))
	if err != nil || len(tables) == 0 {
		f.Fatalf("found no sparse table seeds (%v)", err)
	}
	seeds = append(seeds, tables...)
	var all [][]byte
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		all = append(all, data)
	}
	f.Add(bytes.Join(all[:3], nil))
	f.Add([]byte("ARROW1\x00\x00"))
	f.Add([]byte("%%MatrixMarket matrix coordinate real general\n"))

	saved := [3]int64{maxDenseBytes, maxDumpElements, maxRepeats}
	maxDenseBytes, maxDumpElements, maxRepeats = 1<<20, 1<<16, 1<<12
	f.Cleanup(func() { maxDenseBytes, maxDumpElements, maxRepeats = saved[0], saved[1], saved[2] })

	// One input file per process: inputs run one at a time in a process.
	dir, err := os.MkdirTemp("", "sptensor-fuzz")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { os.RemoveAll(dir) })
	in := filepath.Join(dir, "in.arrow")

	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(in, data, 0o644); err != nil {
			t.Fatal(err)
		}
		bound := 64*uint64(len(data)) + 64<<20
		for _, cmd := range fuzzCommands {
			args := make([]string, len(cmd))
			for i, a := range cmd {
				if a == "IN" {
					a = in
				}
				args[i] = a
			}
			var stdout, stderr bytes.Buffer
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			code := checkedRun(t, args, &streams{stdin: bytes.NewReader(nil), stdout: &stdout, stderr: &stderr})
			runtime.ReadMemStats(&after)
			// --message 1 of a file of one message is a usage error.
			beyond := code == exitUsage && slices.Contains(cmd, "--message") && bytes.Contains(stderr.Bytes(), []byte("--message 1: "))
			if code != exitOK && code != exitFail && !beyond {
				t.Fatalf("%q: exit status %d: %s", cmd, code, stderr.String())
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > bound {
				t.Fatalf("%q allocated %d bytes for %d input bytes", cmd, n, len(data))
			}
			if cmd[0] == "dump" && cmd[1] == "--json" && !beyond && !json.Valid(stdout.Bytes()) {
				t.Fatalf("%q printed no JSON document: %q", cmd, stdout.String())
			}
		}
	})
}
