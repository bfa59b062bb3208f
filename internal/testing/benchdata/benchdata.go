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
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

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

// Dir returns the workload directory of name, or skips tb if it is absent,
// or if it is one of the Big workloads and BENCH_BIG is not 1.
func Dir(tb testing.TB, name string) string {
	tb.Helper()
	root := os.Getenv("BENCH_DATA")
	if root == "" {
		tb.Skip("BENCH_DATA is not set: run bench/run.sh, which generates the shared workloads")
	}
	if slices.Contains(Big, name) && os.Getenv("BENCH_BIG") != "1" {
		tb.Skipf("workload %s runs only with BENCH_BIG=1", name)
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
// (no reference counting: the garbage collector frees it) or, with
// BENCH_ALLOC=hugepages, into a buffer of Allocator() (released by the
// Release of its last holder), so that a benchmark's operands are in huge
// pages as NumPy's arrays read by np.fromfile are.
func readAligned(path string, want int64) (*memory.Buffer, error) {
	if os.Getenv("BENCH_ALLOC") == "hugepages" && want > 0 {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if st, err := f.Stat(); err != nil || st.Size() != want {
			return nil, fmt.Errorf("%s: want %d bytes", path, want)
		}
		b := hugeMem.Allocate(int(want))
		if _, err := io.ReadFull(f, b); err != nil {
			hugeMem.Free(b)
			return nil, err
		}
		return memory.NewBufferWithAllocator(b, hugeMem), nil
	}
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

// LoadCOO loads a COO workload (int64 or int32 coordinates, float64
// values) as a column-major coo.Tensor over the file bytes, without copying
// them: the files are mode-major, which is the column-major coordinate
// matrix. It skips tb if the workload is absent and fails it on a read
// error.
func LoadCOO(tb testing.TB, name string) *coo.Tensor {
	tb.Helper()
	dir := Dir(tb, name)
	h, err := ReadHeader(dir)
	if err != nil {
		tb.Fatal(err)
	}
	it, iw := arrow.DataType(arrow.PrimitiveTypes.Int64), int64(8)
	if h.IndexDtype == "<i4" {
		it, iw = arrow.PrimitiveTypes.Int32, 4
	}
	if h.Layout != "coo" || (h.IndexDtype != "<i8" && h.IndexDtype != "<i4") || h.ValueDtype != "<f8" {
		tb.Fatalf("%s: want a coo/<i8 or <i4/<f8 workload, got %s/%s/%s", dir, h.Layout, h.IndexDtype, h.ValueDtype)
	}
	nd := int64(len(h.Shape))
	cb, err := readAligned(filepath.Join(dir, h.CoordsFile), iw*nd*h.Nnz)
	if err != nil {
		tb.Fatal(err)
	}
	vb, err := readAligned(filepath.Join(dir, h.ValuesFile), 8*h.Nnz)
	if err != nil {
		tb.Fatal(err)
	}
	defer cb.Release()
	defer vb.Release()
	t, err := coo.New(arrow.PrimitiveTypes.Float64, it, h.Shape, cb, coo.ColMajor, vb, h.Nnz)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// Workload names: the shared anchor workloads (bench/README.md of the
// anchor harness) and the scaling workloads that bench/run.sh generates
// with bench/harness/gen. Benchmarks skip the ones that are absent.
var (
	// Sizes2D are the 1M × 1M power-law matrices (workload a) at 100K
	// (hypersparse: ten times more rows than entries), 1M, 10M, 40M and
	// 100M entries; the largest has int32 coordinates and is
	// generated only with BENCH_BIG=1.
	Sizes2D = []string{"a_powerlaw2d_100k", "a_powerlaw2d_1m", "a_powerlaw2d", "a_powerlaw2d_40m", "a_powerlaw2d_100m"}
	// Tensors are the 10M-entry tensors: workload b (10^4 and 10^6 per
	// mode), the dimensions of FROSTT's delicious-4d (about 2^75 elements,
	// beyond 64-bit linear indices) and of FROSTT's nell-2.
	Tensors = []string{"b_tensor3d", "b_tensor3d_1e6", "d_delicious4d", "e_nell2"}
	// Big are the workloads that need BENCH_BIG=1 (time and memory).
	Big = []string{"a_powerlaw2d_100m"}
)

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

// CPU measures the CPU time of a benchmark loop, all threads of the process
// together (workers and garbage collector), as the Python anchors' time
// per call (time.process_time) does. On a machine shared with other work
// it is the figure that load does not inflate, where wall time does.
type CPU struct{ start time.Duration }

// StartCPU starts measuring; call it right before the loop.
func StartCPU() CPU { return CPU{processCPU()} }

// Report adds the metric cpu-ms/op to b (nothing where CPU time is not
// measured); call it right after the loop.
func (c CPU) Report(b *testing.B) {
	if d := processCPU() - c.start; d > 0 && b.N > 0 {
		b.ReportMetric(float64(d.Nanoseconds())/1e6/float64(b.N), "cpu-ms/op")
	}
}

// LoadCOO32 is LoadCOO with int32 coordinates, as scipy stores the
// workloads whose coordinates fit (the anchors' coo_matrix converts them):
// int64 files are converted once, outside any timing.
func LoadCOO32(tb testing.TB, name string) *coo.Tensor {
	tb.Helper()
	x := LoadCOO(tb, name)
	if x.IndexType().ID() == arrow.INT32 {
		return x
	}
	defer x.Release()
	n := x.NNZ() * int64(x.NumDims())
	src := core.MustSlice[int64](x.CoordsBuffer(), n)
	dst := make([]int32, n)
	for i, v := range src {
		if v != int64(int32(v)) {
			tb.Fatalf("%s: coordinate %d does not fit int32", name, v)
		}
		dst[i] = int32(v)
	}
	cb := memory.NewBufferBytes(core.BytesOf(dst))
	t, err := coo.New(x.DataType(), arrow.PrimitiveTypes.Int32, x.Shape(), cb, x.Layout(), x.ValuesBuffer(), x.NNZ())
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// Form is a 2-d workload in one index type: as stored, or converted to
// int32 (as scipy stores it).
type Form struct {
	Workload string
	Int32    bool // convert int64 coordinates to int32 (LoadCOO32)
}

// Forms2D returns the forms of Sizes2D that the benchmarks run: each
// workload as stored (int64, but int32 for the 100M-entry version) and,
// when stored as int64, in int32.
func Forms2D() []Form {
	var fs []Form
	for _, w := range Sizes2D {
		fs = append(fs, Form{Workload: w})
		if w != "a_powerlaw2d_100m" {
			fs = append(fs, Form{Workload: w, Int32: true})
		}
	}
	return fs
}

// Name returns the benchmark name of the form run on a number of workers:
// "<workload>/workers=N" or "<workload>/int32/workers=N".
func (f Form) Name(workers int) string {
	if f.Int32 {
		return fmt.Sprintf("%s/int32/workers=%d", f.Workload, workers)
	}
	return fmt.Sprintf("%s/workers=%d", f.Workload, workers)
}

// Load loads the form's tensor (see LoadCOO and LoadCOO32).
func (f Form) Load(tb testing.TB) *coo.Tensor {
	tb.Helper()
	if f.Int32 {
		return LoadCOO32(tb, f.Workload)
	}
	return LoadCOO(tb, f.Workload)
}

// Allocator is the allocator of a benchmark's operands and results: the Go
// heap, or with BENCH_ALLOC=hugepages an arrowsparse.HugePageAllocator
// (transparent huge pages, as NumPy gives scipy's arrays), one for the
// process.
func Allocator() memory.Allocator {
	if os.Getenv("BENCH_ALLOC") == "hugepages" {
		return hugeMem
	}
	return memory.NewGoAllocator()
}

var hugeMem = arrowsparse.NewHugePageAllocator()
