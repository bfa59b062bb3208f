package textcheck_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse/internal/tools/textcheck"
)

// python returns the project venv's interpreter, or skips: interop/setup.sh
// creates it (make test and CI run it first).
func python(t *testing.T) (py, script string) {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "..")
	py = filepath.Join(root, ".venv", "bin", "python")
	if _, err := os.Stat(py); err != nil {
		t.Skip("no project venv (.venv/bin/python): run interop/setup.sh")
	}
	return py, filepath.Join(root, "interop", "textfmt_ref.py")
}

// TestScipyWritesWeRead: files written by scipy.io.mmwrite (every field,
// symmetry and layout, empty and 1×1 matrices, gzip copies) and by the
// reference FROSTT writer read with the same content as scipy.io.mmread
// (and the reference reader) gives.
func TestScipyWritesWeRead(t *testing.T) {
	py, script := python(t)
	dir := t.TempDir()
	out, err := exec.Command(py, script, "write", "12345", dir).CombinedOutput()
	require.NoError(t, err, "%s", out)
	n, fails, err := textcheck.CheckDir(dir)
	require.NoError(t, err)
	require.Empty(t, fails)
	require.Greater(t, n, 100)
	t.Logf("%d checked, %d failed", n, len(fails))
}

// TestWeWriteScipyReads: files this library writes (every value type,
// symmetry, layout, pattern, gzip, FROSTT ranks 1 to 5) are read by
// scipy.io.mmread (and the reference FROSTT reader) with the content they
// were written from.
func TestWeWriteScipyReads(t *testing.T) {
	py, script := python(t)
	dir := t.TempDir()
	n, err := textcheck.WriteCases(dir, 12345)
	require.NoError(t, err)
	require.Greater(t, n, 200)
	out, err := exec.Command(py, script, "read", dir).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Regexp(t, regexp.MustCompile(`(?m)^\d+ checked, 0 failed$`), string(out))
	// This library reads its own files back as well.
	m, fails, err := textcheck.CheckDir(dir)
	require.NoError(t, err)
	require.Empty(t, fails)
	require.Equal(t, n, m)
}
