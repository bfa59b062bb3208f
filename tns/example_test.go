package tns_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/tns"
)

func ExampleRead() {
	text := `# a 3-d tensor
1 1 2 1.5
2 3 1 -2
1 1 2 0.5
`
	t, err := tns.Read(strings.NewReader(text))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer t.Release()
	fmt.Println(t.Shape(), t.NNZ(), t.IndexType())
	c, _ := t.Canonicalize(memory.DefaultAllocator, coo.ConvertOptions{})
	defer c.Release()
	for idx, v := range coo.All[float64](c) {
		fmt.Println(idx, v)
	}
	// Output:
	// [2 3 2] 3 int8
	// [0 0 1] 2
	// [1 2 0] -2
}

func ExampleWrite() {
	mem := memory.NewGoAllocator()
	t, _ := coo.FromSlices[int16, float32](mem, []int64{4, 5, 6},
		[]int16{0, 1, 2, 3, 4, 5}, coo.RowMajor, []float32{0.1, 2.5})
	defer t.Release()
	if err := tns.Write(os.Stdout, t); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 1 2 3 0.1
	// 4 5 6 2.5
}
