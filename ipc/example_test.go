package ipc_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/ipc"
)

// Writing a CSR matrix as the SparseTensor message Arrow C++ writes, and
// reading it back without copying its buffers.
func ExampleWriteTensor() {
	mem := memory.NewGoAllocator()
	m, err := gcs.FromSlices(mem, gcs.Rows, []int64{2, 3}, []int32{0, 1, 3}, []int32{2, 0, 1}, []float64{1, 2, 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Release()
	var buf bytes.Buffer
	n, err := ipc.WriteTensor(&buf, m)
	if err != nil {
		fmt.Println(err)
		return
	}
	msg, err := ipc.ParseMessage(buf.Bytes())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer msg.Release()
	back := msg.Tensor.(*gcs.Matrix)
	fmt.Println(n, "bytes:", back.Format(), back.Shape(), back.IndexType(), gcs.At[float64](back, 1, 1))
	// Output:
	// 360 bytes: CSR [2 3] int32 3
}

// A file written with WriteFile is read by ReadFile through a memory map:
// the tensor's buffers are slices of the mapping.
func ExampleReadFile() {
	mem := memory.NewGoAllocator()
	t, err := coo.FromSlices(mem, []int64{4, 4}, []int64{0, 0, 3, 3}, coo.RowMajor, []float32{1, -1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer t.Release()
	dir, err := os.MkdirTemp("", "ipc-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "eye.arrow")
	if err := ipc.WriteFile(path, t); err != nil {
		fmt.Println(err)
		return
	}
	msg, err := ipc.ReadFile(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer msg.Release()
	x := msg.Tensor.(*coo.Tensor)
	fmt.Println(x.Format(), x.Shape(), x.NNZ(), "canonical:", x.IsCanonical(), coo.At[float32](x, 3, 3))
	// Output:
	// COO [4 4] 2 canonical: true -1
}

// Several messages in a row, as successive WriteTensor calls leave them,
// read one at a time by a Reader.
func ExampleReader() {
	mem := memory.NewGoAllocator()
	var stream bytes.Buffer
	for k := range 3 {
		t, err := coo.FromSlices(mem, []int64{5}, []int8{int8(k)}, coo.RowMajor, []float64{float64(10 * k)})
		if err != nil {
			fmt.Println(err)
			return
		}
		_, err = ipc.WriteTensor(&stream, t)
		t.Release()
		if err != nil {
			fmt.Println(err)
			return
		}
	}
	r := ipc.NewReader(&stream, ipc.WithAllocator(mem))
	defer r.Release()
	for msg, err := range r.All() {
		if err != nil {
			fmt.Println(err)
			return
		}
		x := msg.Tensor.(*coo.Tensor)
		fmt.Println(x.Shape(), x.Coord(0, 0), coo.At[float64](x, x.Coord(0, 0)))
		msg.Release()
	}
	// Output:
	// [5] 0 0
	// [5] 1 10
	// [5] 2 20
}
