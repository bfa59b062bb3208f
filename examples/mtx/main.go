// Command mtx reads a Matrix Market file, turns it into a CSR matrix,
// multiplies it by a vector and writes it as an Arrow IPC SparseTensor
// message that Arrow C++ and pyarrow read.
//
//	go run ./examples/mtx [FILE.mtx[.gz]] [OUT.arrow]
//
// By default it reads testdata/mtx/nist_example.mtx, the 5 × 5 example
// matrix of the NIST report that defines the format (a public-domain U.S.
// Government work), and writes nist_example.arrow in the temporary
// directory.
package main

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/ipc"
	"github.com/arrowsparse/arrowsparse/mtx"
)

func main() {
	in := defaultInput()
	out := filepath.Join(os.TempDir(), "nist_example.arrow")
	if len(os.Args) > 1 {
		in = os.Args[1]
	}
	if len(os.Args) > 2 {
		out = os.Args[2]
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	if err := run(mem, in, out); err != nil {
		log.Fatal(err)
	}
	if n := mem.CurrentAlloc(); n != 0 {
		fmt.Fprintf(os.Stderr, "leaked %d bytes\n", n)
		os.Exit(1)
	}
}

// defaultInput finds the bundled file from the repository root or from
// this example's directory.
func defaultInput() string {
	p := filepath.Join("testdata", "mtx", "nist_example.mtx")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	_, src, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(src), "..", "..", p)
}

func run(mem memory.Allocator, in, out string) error {
	// Read: the header, then the entries as COO in Arrow memory.
	m, err := mtx.ReadFile(in, mtx.WithAllocator(mem))
	if err != nil {
		return err
	}
	defer m.Release()
	h := m.Header
	fmt.Printf("%s: %s\n", filepath.Base(in), h)
	fmt.Printf("  %d × %d, %d entries in the file, %d comment lines\n", h.Rows, h.Cols, h.Entries, len(h.Comments))
	t, err := m.ToCOO(mem) // the COO itself, or the non-zeros of an array file
	if err != nil {
		return err
	}
	defer t.Release()
	fmt.Printf("  COO: %s values, %s indices, %d stored, canonical %v\n", t.DataType(), t.IndexType(), t.NNZ(), t.IsCanonical())

	// CSR (sorted, duplicates summed), then y = A·x with x all ones.
	a, err := gcs.MatrixFromCOO(mem, t, gcs.Rows, gcs.ConvertOptions{})
	if err != nil {
		return err
	}
	defer a.Release()
	x := make([]float64, a.Cols())
	for i := range x {
		x[i] = 1
	}
	y := make([]float64, a.Rows())
	if err := gcs.MulVec(y, a, x, gcs.KernelOptions{}); err != nil {
		return err
	}
	fmt.Printf("  CSR: %d × %d, %d stored\n", a.Rows(), a.Cols(), a.NNZ())
	for i, v := range y[:min(len(y), 8)] {
		fmt.Printf("  row sum %d = %g\n", i+1, v)
	}

	// An Arrow IPC SparseTensor message (SparseCSRIndex).
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	n, err := ipc.WriteTensor(f, a)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	back, err := ipc.ReadFile(out)
	if err != nil {
		return err
	}
	defer back.Release()
	fmt.Printf("wrote %s: %d bytes, read back as %s %v with %d stored\n", out, n, back.Tensor.Format(), back.Tensor.Shape(), back.Tensor.NNZ())
	return nil
}
