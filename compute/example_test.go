package compute_test

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/compute"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/views"
)

// Two 2×3 CSR matrices, added element by element: the result is a
// canonical CSR, and the entry that cancels (1 + -1) is dropped.
func ExampleAdd() {
	mem := memory.NewGoAllocator()
	a, _ := gcs.FromSlices(mem, gcs.Rows, []int64{2, 3}, []int32{0, 2, 3}, []int32{0, 2, 1}, []float64{1, 2, 3})
	defer a.Release()
	b, _ := gcs.FromSlices(mem, gcs.Rows, []int64{2, 3}, []int32{0, 1, 2}, []int32{0, 2}, []float64{-1, 4})
	defer b.Release()
	c, err := compute.Add(mem, a, b, compute.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Release()
	fmt.Println(c.Format(), c.NNZ())
	for idx, v := range gcs.All[float64](c.(*gcs.Matrix)) {
		fmt.Println(idx, v)
	}
	// Output:
	// CSR 3
	// [0 2] 2
	// [1 1] 3
	// [1 2] 4
}

// A COO tensor of shape 2×3×2 summed over axes 0 and 2 (NumPy's
// x.sum(axis=(0, 2))), and its maximum over the last axis, implicit zeros
// included.
func ExampleSum() {
	mem := memory.NewGoAllocator()
	x, _ := coo.FromSlices(mem, []int64{2, 3, 2}, []int32{
		0, 0, 0,
		0, 2, 1,
		1, 0, 1,
		1, 2, 1,
	}, coo.RowMajor, []int32{5, -2, 7, 1})
	defer x.Release()
	s, _ := compute.Sum(mem, x, []int{0, 2}, compute.ReduceOptions{})
	defer s.Release()
	fmt.Println(s.DataType(), views.Formatted(s.(*views.View), "%d"))
	m, _ := compute.Max(mem, x, []int{-1}, compute.ReduceOptions{Format: compute.Dense})
	defer m.Release()
	fmt.Println(m.DataType(), views.Formatted(m.(*views.View), "%d"))
	// Output:
	// int64 [12 0 -1]
	// int32 [[5 0 0]
	//  [7 0 1]]
}

// AsType follows Arrow's casts: 2.5 does not fit an integer without
// truncation unless the options allow it.
func ExampleAsType() {
	mem := memory.NewGoAllocator()
	x, _ := coo.FromSlices(mem, []int64{3}, []int32{0, 2}, coo.RowMajor, []float64{2.5, -7})
	defer x.Release()
	_, err := compute.AsType(mem, x, arrow.PrimitiveTypes.Int8, compute.CastOptions{})
	fmt.Println(err != nil)
	y, _ := compute.AsType(mem, x, arrow.PrimitiveTypes.Int8, compute.CastOptions{AllowFloatTruncate: true})
	defer y.Release()
	v, _ := arrowsparse.AppendValues[int8](nil, y)
	fmt.Println(v)
	// Output:
	// true
	// [2 -7]
}
