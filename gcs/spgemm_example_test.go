package gcs_test

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/gcs"
)

// The product of a 2×3 CSR matrix and its transpose, a 3×2 CSC read
// without a copy: C = A·Aᵀ, a canonical CSR (the first operand's axis).
func ExampleMulMatrix() {
	mem := memory.NewGoAllocator()
	a, _ := gcs.FromSlices(mem, gcs.Rows, []int64{2, 3}, []int32{0, 2, 4}, []int32{0, 2, 1, 2}, []float64{1, 2, 3, 4})
	defer a.Release()
	at := a.T()
	defer at.Release()
	c, err := gcs.MulMatrix(mem, a, at, gcs.KernelOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Release()
	fmt.Println(c.Format(), c.Shape())
	for idx, v := range gcs.All[float64](c) {
		fmt.Println(idx, v)
	}
	// Output:
	// CSR [2 2]
	// [0 0] 5
	// [0 1] 8
	// [1 0] 8
	// [1 1] 25
}
