package views_test

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/tensor"

	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/views"
)

// iota returns a rows×cols float64 matrix holding 0, 1, 2, ….
func iota(mem memory.Allocator, rows, cols int64) *views.View {
	v, err := views.Alloc(mem, arrow.PrimitiveTypes.Float64, []int64{rows, cols})
	if err != nil {
		panic(err)
	}
	data, err := views.Values[float64](v)
	if err != nil {
		panic(err)
	}
	for i := range data {
		data[i] = float64(i)
	}
	return v
}

// The NuMojo view proposal's example: b = a[1:6:2, 2:8:2] of a 6×8 array.
func ExampleView_Slice() {
	a := iota(memory.DefaultAllocator, 6, 8)
	defer a.Release()
	b, err := a.Slice(views.Range{Start: 1, Stop: 6, Step: 2}, views.Range{Start: 2, Stop: 8, Step: 2})
	if err != nil {
		panic(err)
	}
	defer b.Release()
	fmt.Println("offset", b.ElemOffset(), "shape", b.Shape(), "element strides", b.ElemStrides())
	fmt.Println(b)
	// Output:
	// offset 10 shape [3 3] element strides [16 2]
	// [[10 12 14]
	//  [26 28 30]
	//  [42 44 46]]
}

func ExampleView_Slice_negativeStep() {
	a := iota(memory.DefaultAllocator, 1, 6)
	defer a.Release()
	r, err := a.Slice(views.Full(), views.Range{Start: -2, Stop: views.None, Step: -2})
	if err != nil {
		panic(err)
	}
	defer r.Release()
	fmt.Println(r, r.ElemStrides())
	// Output:
	// [[4 2 0]] [6 -2]
}

func ExampleView_Index() {
	a := iota(memory.DefaultAllocator, 6, 8)
	defer a.Release()
	row, err := a.Index(0, 1)
	if err != nil {
		panic(err)
	}
	defer row.Release()
	fmt.Println(row.Shape(), row.ElemOffset(), row)
	// Output:
	// [8] 8 [8 9 10 11 12 13 14 15]
}

func ExampleView_T() {
	a := iota(memory.DefaultAllocator, 2, 3)
	defer a.Release()
	t := a.T()
	defer t.Release()
	fmt.Println(t.ElemStrides(), t.IsFContiguous())
	fmt.Println(t)
	// Output:
	// [1 3] true
	// [[0 3]
	//  [1 4]
	//  [2 5]]
}

func ExampleView_BroadcastTo() {
	a := iota(memory.DefaultAllocator, 1, 3)
	defer a.Release()
	b, err := a.BroadcastTo([]int64{2, 3})
	if err != nil {
		panic(err)
	}
	defer b.Release()
	fmt.Println(b.ElemStrides(), b.ReadOnly())
	fmt.Println(b)
	fmt.Println(views.Set(b, 1.0, 0, 0))
	// Output:
	// [0 1] true
	// [[0 1 2]
	//  [0 1 2]]
	// views: write through a read-only view
}

// A 3×3 matrix tiled twice along its first axis, as numpy.tile(a, (2, 1)).
func ExampleView_Tile() {
	a := iota(memory.DefaultAllocator, 3, 3)
	defer a.Release()
	b, err := a.Tile(2, 1)
	if err != nil {
		panic(err)
	}
	defer b.Release()
	fmt.Println(views.Formatted(b, "%.3f"))
	// Output:
	// [[0.000 1.000 2.000]
	//  [3.000 4.000 5.000]
	//  [6.000 7.000 8.000]
	//  [0.000 1.000 2.000]
	//  [3.000 4.000 5.000]
	//  [6.000 7.000 8.000]]
}

func ExampleView_Rotate() {
	a := iota(memory.DefaultAllocator, 3, 3)
	defer a.Release()
	r, err := a.Rotate(1, 1)
	if err != nil {
		panic(err)
	}
	defer r.Release()
	fmt.Println(views.Formatted(r, "%.3f"))
	// Output:
	// [[2.000 0.000 1.000]
	//  [5.000 3.000 4.000]
	//  [8.000 6.000 7.000]]
}

func ExampleView_Select() {
	a := iota(memory.DefaultAllocator, 3, 4)
	defer a.Release()
	s, err := a.Select(1, []int64{3, 0, -1})
	if err != nil {
		panic(err)
	}
	defer s.Release()
	fmt.Println(s, s.ReadOnly())
	// Output:
	// [[3 0 3]
	//  [7 4 7]
	//  [11 8 11]] true
}

func ExampleView_Reshape() {
	a := iota(memory.DefaultAllocator, 4, 6)
	defer a.Release()
	r, err := a.Reshape(2, -1, 3)
	if err != nil {
		panic(err)
	}
	defer r.Release()
	fmt.Println(r.Shape(), r.ElemStrides())

	t := a.T()
	defer t.Release()
	_, err = t.Reshape(24)
	fmt.Println(err)
	// Output:
	// [2 4 3] [12 3 1]
	// views: cannot reshape a view of shape [6 4] and element strides [1 6] to [24] without copying; use ReshapeCopy
}

// The GCS introduction's example: strides (-1, -2) at offset 5, and the inverse map.
func ExampleView_Locate() {
	mem := memory.DefaultAllocator
	buf := core.NewZeroedBuffer(mem, 6*8)
	defer buf.Release()
	v, err := views.New(arrow.PrimitiveTypes.Float64, buf, 5, []int64{2, 3}, []int64{-1, -2})
	if err != nil {
		panic(err)
	}
	defer v.Release()
	for pos := range int64(6) {
		idx, _ := v.Locate(pos)
		fmt.Print(idx, " ")
	}
	fmt.Println()
	// Output:
	// [1 2] [0 2] [1 1] [0 1] [1 0] [0 0]
}

func ExampleAll() {
	a := iota(memory.DefaultAllocator, 2, 2)
	defer a.Release()
	f, err := a.Flip(0)
	if err != nil {
		panic(err)
	}
	defer f.Release()
	for idx, x := range views.All[float64](f) {
		fmt.Println(idx, x)
	}
	// Output:
	// [0 0] 2
	// [0 1] 3
	// [1 0] 0
	// [1 1] 1
}

func ExampleFromFixedSizeList() {
	mem := memory.DefaultAllocator
	b := array.NewFixedSizeListBuilder(mem, 3, arrow.PrimitiveTypes.Int32)
	defer b.Release()
	vb := b.ValueBuilder().(*array.Int32Builder)
	for i := range int32(3) {
		b.Append(true)
		vb.AppendValues([]int32{i, 10 * i, 100 * i}, nil)
	}
	arr := b.NewArray().(*array.FixedSizeList)
	defer arr.Release()
	v, err := views.FromFixedSizeList(arr)
	if err != nil {
		panic(err)
	}
	defer v.Release()
	fmt.Println(v.Shape(), v.ReadOnly())
	fmt.Println(v)
	// Output:
	// [3 3] true
	// [[0 0 0]
	//  [1 10 100]
	//  [2 20 200]]
}

func ExampleView_ToArrowTensor() {
	a := iota(memory.DefaultAllocator, 2, 3)
	defer a.Release()
	t := a.T()
	defer t.Release()
	tn, err := t.ToArrowTensor()
	if err != nil {
		panic(err)
	}
	defer tn.Release()
	fmt.Println(tn.Shape(), tn.Strides(), tn.IsColMajor())
	fmt.Println(tn.(*tensor.Float64).Value([]int64{2, 1}))
	back, err := views.FromArrowTensor(tn)
	if err != nil {
		panic(err)
	}
	defer back.Release()
	fmt.Println(back.ElemStrides(), back.Buffer() == a.Buffer())
	// Output:
	// [3 2] [8 24] true
	// 5
	// [1 3] true
}
