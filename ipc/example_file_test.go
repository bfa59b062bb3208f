package ipc_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/ipc"
)

// A file of one message, written atomically and read back memory-mapped.
func ExampleWriteFile() {
	mem := memory.NewGoAllocator()
	x, _ := coo.FromSlices(mem, []int64{2, 3}, []int32{0, 1, 1, 2}, coo.RowMajor, []float64{1.5, 2.5})
	defer x.Release()

	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "x.arrow")
	if err := ipc.WriteFile(path, x); err != nil {
		fmt.Println(err)
		return
	}
	m, err := ipc.ReadFile(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Release()
	fmt.Println(m.Tensor.Format(), m.Tensor.Shape(), m.Tensor.NNZ())
	// Output: COO [2 3] 2
}

// A file of several messages is read as a sequence; ReadFile refuses it
// and says how many it holds.
func ExampleOpenFile() {
	mem := memory.NewGoAllocator()
	x, _ := coo.FromSlices(mem, []int64{4}, []int8{1, 3}, coo.RowMajor, []int32{7, 9})
	defer x.Release()

	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "seq.arrow")
	if err := ipc.WriteFileSeq(path, []arrowsparse.Tensor{x, x, x}); err != nil {
		fmt.Println(err)
		return
	}
	r, err := ipc.OpenFile(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Release()
	for m, err := range r.All() {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(m.Tensor.Format(), m.Tensor.NNZ())
		m.Release()
	}
	_, err = ipc.ReadFile(path)
	fmt.Println(err != nil)
	// Output:
	// COO 2
	// COO 2
	// COO 2
	// true
}
