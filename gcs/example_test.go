package gcs_test

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/views"
)

// Adopting SciPy-style int32 buffers as a CSR matrix, without copying.
func ExampleNewCSR() {
	mem := memory.NewGoAllocator()
	indptr := memory.NewBufferBytes(arrow.Int32Traits.CastToBytes([]int32{0, 2, 4, 7, 9}))
	indices := memory.NewBufferBytes(arrow.Int32Traits.CastToBytes([]int32{2, 4, 0, 3, 0, 2, 3, 3, 4}))
	values := memory.NewBufferBytes(arrow.Float64Traits.CastToBytes([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9}))
	m, err := gcs.NewCSR(arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int32, []int64{4, 5}, indptr, indices, values, 9)
	if err != nil {
		panic(err)
	}
	defer m.Release()
	cols, vals := gcs.Lane[int32, float64](m, 2)
	fmt.Println(m.Format(), m.Shape(), m.IndptrType(), m.IsCanonical())
	fmt.Println("row 2:", cols, vals)
	fmt.Println("A[3,4] =", gcs.At[float64](m, 3, 4))
	y := make([]float64, 4)
	if err := gcs.MulVec(y, m, []float64{1, 1, 1, 1, 1}, gcs.KernelOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("A·1 =", y)
	d, err := m.ToDense(mem)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Release()
	fmt.Print(views.Formatted(d.(*views.View), "%g"))
	// Output:
	// CSR [4 5] int32 true
	// row 2: [0 2 3] [5 6 7]
	// A[3,4] = 9
	// A·1 = [3 7 18 17]
	// [[0 0 1 0 2]
	//  [3 0 0 4 0]
	//  [5 0 6 7 0]
	//  [0 0 0 8 9]]
}

// Converting an unsorted COO with a duplicate at (2, 0) to canonical CSR
// and CSC: the duplicate is summed, the indices sorted.
func ExampleMatrixFromCOO() {
	mem := memory.NewGoAllocator()
	x, err := coo.FromSlices(mem, []int64{3, 3},
		[]int64{2, 0, 0, 1, 2, 0, 1, 2}, coo.RowMajor, []float64{1, 2, 3, 4})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer x.Release()
	for _, axis := range []gcs.Axis{gcs.Rows, gcs.Cols} {
		m, err := gcs.MatrixFromCOO(mem, x, axis, gcs.ConvertOptions{IndexType: arrow.PrimitiveTypes.Int32, IndptrType: arrow.PrimitiveTypes.Int32})
		if err != nil {
			fmt.Println(err)
			return
		}
		ptr, _ := gcs.Indptr[int32](m)
		idx, _ := gcs.Indices[int32](m)
		vs, _ := gcs.Values[float64](m)
		fmt.Println(m.Format(), ptr, idx, vs)
		m.Release()
	}
	// Output:
	// CSR [0 1 2 3] [1 2 0] [2 4 4]
	// CSC [0 1 2 3] [2 0 1] [4 2 4]
}

// The third example of Peterson's "Gentle introduction to GCS": the
// (2, 3, 4) array with dims (2, 1, 0) and partitioning 1 is a 4×6 CSR.
func ExampleFromCOO() {
	mem := memory.NewGoAllocator()
	x, err := coo.FromSlices(mem, []int64{2, 3, 4}, []int32{
		0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 2, 1, 1, 0, 0, 1, 0, 3, 1, 2, 0, 1, 2, 2, 1, 2, 3,
	}, coo.RowMajor, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer x.Release()
	mp, err := gcs.NewMapping(x.Shape(), []int{2, 1, 0}, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	g, err := gcs.FromCOO(mem, x, gcs.ConvertOptions{Mapping: mp})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Release()
	s := g.Storage()
	ptr, _ := gcs.Indptr[int32](s)
	idx, _ := gcs.Indices[int32](s)
	vs, _ := gcs.Values[float64](s)
	fmt.Println("reduced shape:", s.Shape())
	fmt.Println("crow_indices:", ptr)
	fmt.Println("col_indices:", idx)
	fmt.Println("values:", vs)
	r, c := g.Mapping().ToRowCol(1, 2, 0)
	fmt.Println("(1, 2, 0) ->", r, c, "->", g.Mapping().FromRowCol(r, c, nil))
	// Output:
	// reduced shape: [4 6]
	// crow_indices: [0 2 4 6 9]
	// col_indices: [1 5 0 4 0 5 0 1 5]
	// values: [5 7 1 4 2 8 3 6 9]
	// (1, 2, 0) -> 0 5 -> [1 2 0]
}

// pydata/sparse's GCXS compressed_axes as a GCS mapping.
func ExampleFromCompressedAxes() {
	mp, _ := gcs.FromCompressedAxes([]int64{2, 3, 4}, []int{2, 0})
	rows, cols := mp.ReducedShape()
	fmt.Println(mp.Dims(), mp.Partitioning(), rows, cols)
	// Output:
	// [2 0 1] 2 8 3
}

// Slicing and transposing a DM over a CSR matrix never copies it: the
// iteration visits only the rows of the slice.
func ExampleDM_Slice() {
	mem := memory.NewGoAllocator()
	m, _ := gcs.FromSlices(mem, gcs.Rows, []int64{4, 5},
		[]int64{0, 2, 4, 7, 9}, []int64{2, 4, 0, 3, 0, 2, 3, 3, 4}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9})
	defer m.Release()
	d, _ := gcs.NewDM([]int64{4, 5}, []int{0, 1}, []int{1}, m)
	defer d.Release()
	s, _ := d.Slice(views.Range{Start: 3, Stop: 0, Step: -2}, views.Span(2, 5))
	defer s.Release()
	tr, _ := s.Transpose()
	defer tr.Release()
	fmt.Println(tr.Shape(), tr.NNZ(), tr.Storage() == m)
	for idx, v := range gcs.All[float64](tr) {
		fmt.Println(idx, v)
	}
	// Output:
	// [3 2] 3 true
	// [1 0] 8
	// [2 0] 9
	// [1 1] 4
}
