package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/tools/describe"
	"github.com/arrowsparse/arrowsparse/ipc"
)

// contentOf reads a file and describes it.
func contentOf(t *testing.T, path string) *describe.Content {
	t.Helper()
	m, err := ipc.ReadFile(path)
	require.NoError(t, err, path)
	defer m.Release()
	c, err := describe.FromMessage(m)
	require.NoError(t, err, path)
	return c
}

// sameValue compares two values of type dt: bits, except that any NaN
// equals any NaN.
func sameValue(dt arrow.DataType, a, b uint64) bool {
	switch dt.ID() {
	case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
		if math.IsNaN(describe.Float64(dt, a)) {
			return math.IsNaN(describe.Float64(dt, b))
		}
	}
	return a == b
}

// sparseEntries returns a content's entries; a dense content's are its
// non-zero elements (either zero sign counts as zero).
func sparseEntries(c *describe.Content) *describe.Entries {
	if c.Sparse() {
		return c.Entries
	}
	e := describe.NewEntries(len(c.Shape), 0)
	idx := make([]int64, len(c.Shape))
	for _, x := range c.DenseValues {
		if !describe.IsZero(c.ValueType, x) {
			e.Append(x, idx...)
		}
		for k := len(idx) - 1; k >= 0; k-- {
			idx[k]++
			if idx[k] < c.Shape[k] {
				break
			}
			idx[k] = 0
		}
	}
	return e
}

// denseValues returns a content's elements in row-major order.
func denseValues(c *describe.Content) []uint64 {
	if !c.Sparse() {
		return c.DenseValues
	}
	n, err := arrowsparse.NumElements(c.Shape)
	if err != nil {
		panic(err)
	}
	out := make([]uint64, n)
	strides, _ := arrowsparse.RowMajorStrides(c.Shape)
	for i := range c.Entries.Len() {
		p := int64(0)
		for k, x := range c.Entries.At(i) {
			p += x * strides[k]
		}
		out[p] = c.Entries.Values[i]
	}
	return out
}

// sameContent reports the first difference between the contents of two
// tensors, or "".
func sameContent(a, b *describe.Content) string {
	if !arrow.TypeEqual(a.ValueType, b.ValueType) {
		return fmt.Sprintf("value type %s != %s", a.ValueType, b.ValueType)
	}
	if !slices.Equal(a.Shape, b.Shape) {
		return fmt.Sprintf("shape %v != %v", a.Shape, b.Shape)
	}
	if !slices.Equal(a.DimNames, b.DimNames) {
		return fmt.Sprintf("dim names %q != %q", a.DimNames, b.DimNames)
	}
	if !a.Sparse() || !b.Sparse() {
		if a.Sparse() || b.Sparse() {
			va, vb := denseValues(a), denseValues(b)
			for i := range va {
				if !sameValue(a.ValueType, va[i], vb[i]) {
					return fmt.Sprintf("element %d: %s != %s", i, describe.FormatValue(a.ValueType, va[i]), describe.FormatValue(a.ValueType, vb[i]))
				}
			}
			return ""
		}
	}
	ea, eb := sparseEntries(a), sparseEntries(b)
	if ea.Len() != eb.Len() {
		return fmt.Sprintf("%d entries != %d", ea.Len(), eb.Len())
	}
	for i := range ea.Len() {
		if !slices.Equal(ea.At(i), eb.At(i)) || !sameValue(a.ValueType, ea.Values[i], eb.Values[i]) {
			return fmt.Sprintf("entry %d: %v %s != %v %s", i, ea.At(i), describe.FormatValue(a.ValueType, ea.Values[i]), eb.At(i), describe.FormatValue(a.ValueType, eb.Values[i]))
		}
	}
	return ""
}

// convertible reports whether a tensor of this content converts to the
// target, and whether the test should try (dense results are kept small).
func convertible(c *describe.Content, to string) (ok, try bool) {
	nd := len(c.Shape)
	n, err := arrowsparse.NumElements(c.Shape)
	switch to {
	case "csr", "csc":
		return nd == 2, true
	case "csf":
		return nd >= 2, true
	case "tensor":
		return err == nil, err == nil && n <= 1<<20
	}
	return true, true
}

// availableTargets are the formats convert produces.
var availableTargets = []string{"coo", "csr", "csc", "csf", "gcs", "tensor"}

// Conversions between kinds keep the content: the entries (sparse to
// sparse), the elements (to or from dense), the shape, names and value
// type; the index type is kept when it fits.
func TestConvertContent(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, f := range corpus(t) {
		src := contentOf(t, f)
		for _, to := range availableTargets {
			ok, try := convertible(src, to)
			if !try {
				continue
			}
			args := []string{"convert", "--to", to}
			if to == "csf" && ok && rng.IntN(2) == 0 {
				perm := rng.Perm(len(src.Shape))
				args = append(args, "--axis-order", strings.Trim(strings.Join(strings.Fields(fmt.Sprint(perm)), ","), "[]"))
			}
			out := filepath.Join(dir, to+".arrow")
			args = append(args, f, out)
			_, stderr, code := sptensor(t, args...)
			if !ok {
				assert.Equal(t, 1, code, "%q should fail", args)
				continue
			}
			require.Equal(t, 0, code, "%q: %s", args, stderr)
			got := contentOf(t, out)
			assert.Equal(t, to, strings.ToLower(strings.Replace(got.Format, "TENSOR", "tensor", 1)), "%q", args)
			if d := sameContent(src, got); d != "" {
				t.Errorf("%q: %s", args, d)
			}
			if src.Sparse() && got.Sparse() {
				assert.Equal(t, describe.TypeName(src.IndexType), describe.TypeName(got.IndexType), "%q: index type", args)
			}
		}
	}
}

// --index-type retypes the indices; a type too narrow is an error.
func TestConvertIndexType(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(interopDir, "golden", "coo.arrow")
	src := contentOf(t, f)
	for _, to := range availableTargets {
		if to == "tensor" {
			continue
		}
		for _, it := range []string{"int8", "uint8", "int16", "uint16", "int32", "uint32", "int64"} {
			out := filepath.Join(dir, to+it+".arrow")
			_, stderr, code := sptensor(t, "convert", "--to", to, "--index-type", it, f, out)
			require.Equal(t, 0, code, "%s %s: %s", to, it, stderr)
			got := contentOf(t, out)
			assert.Equal(t, it, describe.TypeName(got.IndexType))
			assert.Empty(t, sameContent(src, got))
		}
	}
	// Without --to, the format is kept and only the index type changes.
	out := filepath.Join(dir, "keep.arrow")
	_, _, code := sptensor(t, "convert", "--index-type", "int16", f, out)
	require.Equal(t, 0, code)
	got := contentOf(t, out)
	assert.Equal(t, "COO", got.Format)
	assert.Equal(t, "int16", describe.TypeName(got.IndexType))
	assert.Empty(t, sameContent(src, got))

	// A coordinate of 2999 does not fit int8.
	big := filepath.Join(interopDir, "cpp-corpus", "018-coo-uint8-idx_int64-2500x3000.arrow")
	_, stderr, code := sptensor(t, "convert", "--index-type", "int8", big, out)
	assert.Equal(t, 1, code)
	assert.NotEmpty(t, stderr)
}

// Conversions that cannot be made fail with status 1.
func TestConvertFailures(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.arrow")
	for _, args := range [][]string{
		{"--to", "csf", filepath.Join(interopDir, "golden", "tensor.arrow")},  // 1-d
		{"--to", "csr", filepath.Join(interopDir, "golden", "csf.arrow")},     // 3-d
		{filepath.Join(interopDir, "golden", "missing.arrow")},                // no file
		{filepath.Join(interopDir, "crafted", "coo_neg_nnz.arrow")},           // invalid
		{"--to", "coo", filepath.Join(interopDir, "crafted", "t_date.arrow")}, // invalid
	} {
		_, stderr, code := sptensor(t, append(append([]string{"convert"}, args...), out)...)
		assert.Equal(t, 1, code, "%q", args)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "%q: %s", args, stderr)
	}
}
