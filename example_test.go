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
	defer func() { fmt.Println("leaked bytes:", mem.CurrentAlloc()) }()

	// A 3×4 COO matrix, entry by entry; (2, 1) is stored twice.
	b := coo.NewBuilder[int32, float64](mem, 3, 4)
	defer b.Release()
	b.Append(5, 2, 1) // value 5 at (2, 1)
	b.Append(3, 0, 3)
	b.Append(1, 2, 1)
	t, _ := b.NewTensor()
	defer t.Release()

	c, _ := t.Canonicalize(mem, coo.ConvertOptions{}) // sorted, duplicates summed
	defer c.Release()
	fmt.Println(coo.At[float64](c, 2, 1)) // 6

	// CSR, then y = A·x on every core.
	m, _ := gcs.MatrixFromCOO(mem, c, gcs.Rows, gcs.ConvertOptions{})
	defer m.Release()
	y := make([]float64, 3)
	gcs.MulVec(y, m, []float64{1, 1, 1, 1}, gcs.KernelOptions{})
	fmt.Println(y)

	// An Arrow IPC message that Arrow C++ reads as a SparseCSRIndex tensor.
	var buf bytes.Buffer
	ipc.WriteTensor(&buf, m)
	back, _ := ipc.ParseMessage(buf.Bytes()) // zero-copy, fully validated
	defer back.Release()
	fmt.Println(back.Tensor.Format(), back.Tensor.Shape(), back.Tensor.NNZ(), buf.Len(), "bytes")
	// Output:
	// 6
	// [3 0 6]
	// CSR [3 4] 2 344 bytes
	// leaked bytes: 0
}
