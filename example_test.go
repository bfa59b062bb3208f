package arrowsparse_test

import (
	"bytes"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/ipc"
)

// The README's taste of the library: build, canonicalise, convert, multiply
// and exchange a sparse matrix.
func Example() {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	if err := taste(mem); err != nil {
		fmt.Println("error:", err)
	}
	fmt.Println("leaked bytes:", mem.CurrentAlloc())
	// Output:
	// 6
	// [3 0 6]
	// CSR [3 4] 2 344 bytes
	// leaked bytes: 0
}

func taste(mem memory.Allocator) error {
	// A 3×4 COO matrix, entry by entry; (2, 1) is stored twice.
	b := coo.NewBuilder[int32, float64](mem, 3, 4)
	defer b.Release()
	for _, e := range []struct {
		v    float64
		i, j int64
	}{{5, 2, 1}, {3, 0, 3}, {1, 2, 1}} {
		if err := b.Append(e.v, e.i, e.j); err != nil {
			return err
		}
	}
	t, err := b.NewTensor()
	if err != nil {
		return err
	}
	defer t.Release()

	c, err := t.Canonicalize(mem, coo.ConvertOptions{}) // sorted, duplicates summed
	if err != nil {
		return err
	}
	defer c.Release()
	fmt.Println(coo.At[float64](c, 2, 1)) // 6

	// CSR, then y = A·x on every core.
	m, err := gcs.MatrixFromCOO(mem, c, gcs.Rows, gcs.ConvertOptions{})
	if err != nil {
		return err
	}
	defer m.Release()
	y := make([]float64, 3)
	if err := gcs.MulVec(y, m, []float64{1, 1, 1, 1}, gcs.KernelOptions{}); err != nil {
		return err
	}
	fmt.Println(y)

	// An Arrow IPC message that Arrow C++ reads as a SparseCSRIndex tensor.
	var buf bytes.Buffer
	if _, err := ipc.WriteTensor(&buf, m); err != nil {
		return err
	}
	back, err := ipc.ParseMessage(buf.Bytes()) // zero-copy, fully validated
	if err != nil {
		return err
	}
	defer back.Release()
	fmt.Println(back.Tensor.Format(), back.Tensor.Shape(), back.Tensor.NNZ(), buf.Len(), "bytes")
	return nil
}
