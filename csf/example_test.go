package csf_test

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/views"
)

// printLevels prints the levels of a tensor with int64 index buffers.
func printLevels(x *csf.Tensor) {
	for l := range x.NumDims() {
		ix, _ := csf.Indices[int64](x, l)
		if l < x.NumDims()-1 {
			ip, _ := csf.Indptr[int64](x, l)
			fmt.Printf("level %d (dim %d): indices %v indptr %v\n", l, x.AxisOrder()[l], ix, ip)
		} else {
			fmt.Printf("level %d (dim %d): indices %v\n", l, x.AxisOrder()[l], ix)
		}
	}
}

// Converting the 2×3×2 tensor of the IPC spec (§7.2) from dense, with
// Arrow C++'s default axis order.
func ExampleFromDense() {
	mem := memory.NewGoAllocator()
	d, _ := views.Alloc(mem, arrow.PrimitiveTypes.Int32, []int64{2, 3, 2})
	defer d.Release()
	_ = views.Set[int32](d, 10, 0, 0, 1)
	_ = views.Set[int32](d, 20, 0, 2, 0)
	_ = views.Set[int32](d, 30, 0, 2, 1)
	_ = views.Set[int32](d, 40, 1, 1, 0)

	x, err := csf.FromDense(mem, d, csf.ConvertOptions{IndexType: arrow.PrimitiveTypes.Int64})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer x.Release()
	printLevels(x)
	vs, _ := csf.Values[int32](x)
	fmt.Println("values", vs)
	// Output:
	// level 0 (dim 0): indices [0 1] indptr [0 2 3]
	// level 1 (dim 2): indices [0 1 0] indptr [0 1 3 4]
	// level 2 (dim 1): indices [2 0 2 1]
	// values [20 10 30 40]
}

// Building a CSF tensor from unsorted COO entries with a duplicate, in a
// chosen axis order, and reading it back in tree order.
func ExampleFromCOO() {
	mem := memory.NewGoAllocator()
	x, _ := coo.FromSlices(mem, []int64{2, 3, 4}, []int64{
		1, 2, 3,
		0, 1, 1,
		1, 0, 3,
		0, 1, 1, // a duplicate: summed
	}, coo.RowMajor, []float64{1, 2, 3, 4})
	defer x.Release()

	c, err := csf.FromCOO(mem, x, csf.ConvertOptions{AxisOrder: []int{2, 0, 1}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Release()
	printLevels(c)
	for idx, v := range csf.All[float64](c) {
		fmt.Println(idx, v)
	}
	fmt.Println(csf.At[float64](c, 0, 1, 1), csf.At[float64](c, 0, 0, 0))
	// Output:
	// level 0 (dim 2): indices [1 3] indptr [0 1 2]
	// level 1 (dim 0): indices [0 1] indptr [0 1 3]
	// level 2 (dim 1): indices [1 0 2]
	// [0 1 1] 6
	// [1 0 3] 3
	// [1 2 3] 1
	// 6 0
}

// Adopting buffers without copying, as an IPC reader does: one indptr type
// and one indices type for every level.
func ExampleNew() {
	mem := memory.NewGoAllocator()
	buf := func(v ...int64) *memory.Buffer { return memory.NewBufferBytes(core.BytesOf(v)) }
	levels := []csf.Level{
		{Indices: buf(0, 1), IndexType: arrow.PrimitiveTypes.Int64, Indptr: buf(0, 2, 3), IndptrType: arrow.PrimitiveTypes.Int64, Len: 2},
		{Indices: buf(0, 1, 0), IndexType: arrow.PrimitiveTypes.Int64, Indptr: buf(0, 1, 3, 4), IndptrType: arrow.PrimitiveTypes.Int64, Len: 3},
		{Indices: buf(2, 0, 2, 1), IndexType: arrow.PrimitiveTypes.Int64, Len: 4},
	}
	values := memory.NewBufferBytes(core.BytesOf([]float64{20, 10, 30, 40}))
	x, err := csf.New(arrow.PrimitiveTypes.Float64, []int64{2, 3, 2}, []int{0, 2, 1}, levels, values, 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer x.Release()
	fmt.Println(csf.At[float64](x, 0, 2, 1), x.IndexBytes(), "index bytes")
	d, err := x.ToView(mem, csf.ConvertOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Release()
	vals, err := views.Values[float64](d) // row-major
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(vals)
	// Output:
	// 30 128 index bytes
	// [0 10 0 0 20 30 0 0 40 0 0 0]
}

// The sub-tensor below a root node shares the parent's buffers.
func ExampleTensor_Sub() {
	mem := memory.NewGoAllocator()
	x, _ := coo.FromSlices(mem, []int64{3, 2, 2}, []int64{
		0, 0, 1,
		2, 0, 0,
		2, 1, 1,
	}, coo.RowMajor, []float64{1, 2, 3})
	defer x.Release()
	c, _ := csf.FromCOO(mem, x, csf.ConvertOptions{AxisOrder: []int{0, 1, 2}})
	defer c.Release()

	s := c.Sub(2) // the 2×2 matrix at dimension 0 = 2
	defer s.Release()
	fmt.Println(s.Shape(), s.NNZ(), s.IsCompact())
	d, err := s.ToView(mem, csf.ConvertOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Release()
	vals, err := views.Values[float64](d)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(vals)
	// Output:
	// [2 2] 2 false
	// [2 0 0 3]
}

// MTTKRP along dimension 0 with rank-2 factors.
func ExampleMTTKRP() {
	mem := memory.NewGoAllocator()
	x, _ := coo.FromSlices(mem, []int64{2, 2, 2}, []int64{
		0, 0, 1,
		0, 1, 0,
		1, 1, 1,
	}, coo.RowMajor, []float64{1, 2, 3})
	defer x.Release()
	c, _ := csf.FromCOO(mem, x, csf.ConvertOptions{})
	defer c.Release()

	b := []float64{1, 2, 3, 4}   // 2×2, row-major
	d := []float64{10, 20, 1, 2} // 2×2
	out := make([]float64, 2*2)
	if err := csf.MTTKRP(out, c, 0, [][]float64{nil, b, d}, 2, csf.KernelOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	// out[0] = 1·b[0]∘d[1] + 2·b[1]∘d[0] = [1 4] + [60 160]
	// out[1] = 3·b[1]∘d[1] = [9 24]
	fmt.Println(out)
	// Output:
	// [61 164 9 24]
}

// TTV along the last level keeps the upper levels.
func ExampleTTV() {
	mem := memory.NewGoAllocator()
	x, _ := coo.FromSlices(mem, []int64{2, 2, 3}, []int64{
		0, 0, 1,
		0, 0, 2,
		1, 1, 0,
	}, coo.RowMajor, []float64{1, 2, 3})
	defer x.Release()
	c, _ := csf.FromCOO(mem, x, csf.ConvertOptions{AxisOrder: []int{0, 1, 2}})
	defer c.Release()

	y, _ := csf.TTV(mem, c, 2, []float64{1, 10, 100}, csf.KernelOptions{})
	defer y.Release()
	for idx, v := range csf.All[float64](y) {
		fmt.Println(idx, v)
	}
	// Output:
	// [0 0] 210
	// [1 1] 3
}
