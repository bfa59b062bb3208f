// Package benchdata loads the shared benchmark workloads written by the
// anchor harness's generator (bench/README.md), so that this module's
// benchmarks read the same bytes as the scipy, pydata/sparse and plain-Go
// anchors they are compared with.
//
// The workloads live in $BENCH_DATA (bench/run.sh sets it). Benchmarks that
// need a workload skip, saying how to generate it, when it is absent.
package benchdata

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// Header is the part of a workload's header.json this package uses.
type Header struct {
	Format     string  `json:"format"`
	Layout     string  `json:"layout"`
	Shape      []int64 `json:"shape"`
	Nnz        int64   `json:"nnz"`
	UniqueNnz  int64   `json:"unique_nnz"`
	IndexDtype string  `json:"index_dtype"`
	ValueDtype string  `json:"value_dtype"`
	CoordsFile string  `json:"coords_file"`
	ValuesFile string  `json:"values_file"`
	DenseFile  string  `json:"dense_file"`
}

// Dir returns the workload directory of name, or skips tb if it is absent.
func Dir(tb testing.TB, name string) string {
	tb.Helper()
	root := os.Getenv("BENCH_DATA")
	if root == "" {
		tb.Skip("BENCH_DATA is not set: run bench/run.sh, which generates the shared workloads")
	}
	dir := filepath.Join(root, name)
	if _, err := os.Stat(filepath.Join(dir, "header.json")); err != nil {
		tb.Skipf("workload %s not found in %s: run bench/run.sh", name, root)
	}
	return dir
}

// ReadHeader reads dir/header.json.
func ReadHeader(dir string) (Header, error) {
	var h Header
	b, err := os.ReadFile(filepath.Join(dir, "header.json"))
	if err != nil {
		return h, err
	}
	if err := json.Unmarshal(b, &h); err != nil {
		return h, fmt.Errorf("%s: %w", dir, err)
	}
	if h.Format != "anchor-bench-v1" {
		return h, fmt.Errorf("%s: unknown workload format %q", dir, h.Format)
	}
	return h, nil
}

// readAligned reads a whole file into an 8-aligned Go-allocated buffer
// (no reference counting: the garbage collector frees it).
func readAligned(path string, want int64) (*memory.Buffer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if int64(len(b)) != want {
		return nil, fmt.Errorf("%s: %d bytes, want %d", path, len(b), want)
	}
	buf := memory.NewBufferBytes(b)
	if !core.Aligned(buf, 8) {
		c := make([]uint64, (len(b)+7)/8)
		copy(core.BytesOf(c), b)
		buf = memory.NewBufferBytes(core.BytesOf(c)[:len(b)])
	}
	return buf, nil
}

// LoadCOO loads a COO workload (int64 coordinates, float64 values) as a
// column-major coo.Tensor over the file bytes, without copying them: the
// files are mode-major, which is the column-major coordinate matrix. It
// skips tb if the workload is absent and fails it on a read error.
func LoadCOO(tb testing.TB, name string) *coo.Tensor {
	tb.Helper()
	dir := Dir(tb, name)
	h, err := ReadHeader(dir)
	if err != nil {
		tb.Fatal(err)
	}
	if h.Layout != "coo" || h.IndexDtype != "<i8" || h.ValueDtype != "<f8" {
		tb.Fatalf("%s: want a coo/<i8/<f8 workload, got %s/%s/%s", dir, h.Layout, h.IndexDtype, h.ValueDtype)
	}
	nd := int64(len(h.Shape))
	cb, err := readAligned(filepath.Join(dir, h.CoordsFile), 8*nd*h.Nnz)
	if err != nil {
		tb.Fatal(err)
	}
	vb, err := readAligned(filepath.Join(dir, h.ValuesFile), 8*h.Nnz)
	if err != nil {
		tb.Fatal(err)
	}
	t, err := coo.New(arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Int64, h.Shape, cb, coo.ColMajor, vb, h.Nnz)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// LoadDense loads a dense workload as a row-major float64 slice and its
// shape.
func LoadDense(tb testing.TB, name string) ([]float64, []int64) {
	tb.Helper()
	dir := Dir(tb, name)
	h, err := ReadHeader(dir)
	if err != nil {
		tb.Fatal(err)
	}
	n, err := arrowsparse.NumElements(h.Shape)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := readAligned(filepath.Join(dir, h.DenseFile), 8*n)
	if err != nil {
		tb.Fatal(err)
	}
	return core.MustSlice[float64](b, n), h.Shape
}
