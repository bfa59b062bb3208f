package mtx_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/mtx"
)

func ExampleReadFile() {
	mem := memory.NewGoAllocator()
	m, err := mtx.ReadFile("../testdata/mtx/nist_example.mtx", mtx.WithAllocator(mem))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Release()
	fmt.Println(m.Header)
	fmt.Println(m.COO.Shape(), m.COO.NNZ(), m.COO.IndexType(), m.COO.DataType())
	fmt.Println(coo.At[float64](m.COO, 3, 1))
	// Output:
	// %%MatrixMarket matrix coordinate real general
	// [5 5] 8 int8 float64
	// 250.5
}

func ExampleRead_symmetric() {
	text := `%%MatrixMarket matrix coordinate integer symmetric
3 3 3
1 1 4
3 1 -2
2 2 5
`
	m, err := mtx.Read(strings.NewReader(text), mtx.WithValueType(arrow.PrimitiveTypes.Int32))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Release()
	for c, v := range coo.All[int32](m.COO) {
		fmt.Println(c, v)
	}
	// Output:
	// [0 0] 4
	// [2 0] -2
	// [1 1] 5
	// [0 2] -2
}

func ExampleWrite() {
	mem := memory.NewGoAllocator()
	t, _ := coo.FromSlices[int32, float64](mem, []int64{3, 3},
		[]int32{0, 0, 1, 0, 0, 1, 2, 2}, coo.RowMajor, []float64{2, 0.1, 0.1, -1e-9})
	defer t.Release()
	if err := mtx.Write(os.Stdout, t, mtx.WithSymmetry(mtx.Symmetric), mtx.WithComments("a small example")); err != nil {
		fmt.Println(err)
	}
	// Output:
	// %%MatrixMarket matrix coordinate real symmetric
	// %a small example
	// 3 3 3
	// 1 1 2
	// 2 1 0.1
	// 3 3 -1e-09
}

func ExampleReadBytes_errors() {
	_, err := mtx.ReadBytes([]byte("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.0\n"))
	fmt.Println(err)
	// Output:
	// mtx: line 3: row index "3" is outside 1..2 (indices count from 1)
}
