package arrowext_test

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/arrowext"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/gcs"
)

// A column of COO tensors built from a slice of tensors (nil for a null
// row): the type's parameters are inferred, and rows read back without a
// copy.
func ExampleNewSparseTensorArray() {
	mem := memory.NewGoAllocator()
	a, _ := coo.FromSlices(mem, []int64{3, 4}, []int32{0, 1, 2, 3}, coo.RowMajor, []float64{1.5, -7})
	defer a.Release()
	b, _ := coo.FromSlices(mem, []int64{3, 4}, []int32{}, coo.RowMajor, []float64{})
	defer b.Release()

	col, err := arrowext.NewSparseTensorArray(mem, arrowext.SparseTensorParams{Format: arrowsparse.FormatCOO}, []arrowsparse.Tensor{a, nil, b})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer col.Release()
	fmt.Println(col.TensorType().ExtensionName())
	fmt.Println(col.TensorType().Serialize())
	fmt.Println(col)
	row, _ := col.Row(0)
	defer row.Release()
	for c, v := range coo.All[float64](row.(*coo.Tensor)) {
		fmt.Println(c, v)
	}
	// Output:
	// arrowsparse.coo
	// {"format":"COO","shape":[3,4],"canonical":true,"data_types":{"indices":"int32","values":"float64"}}
	// [COO[3 4] nnz=2 (null) COO[3 4] nnz=0]
	// [0 1] 1.5
	// [2 3] -7
}

// A builder of a CSR column of a given type converts what it is given: a
// COO tensor becomes a CSR row, its int64 coordinates int16 indices.
func ExampleSparseTensorBuilder() {
	mem := memory.NewGoAllocator()
	typ, _ := arrowext.NewSparseTensorType(arrowext.SparseTensorParams{
		Format: arrowsparse.FormatCSR, ValueType: arrow.PrimitiveTypes.Float32,
		Shape: []int64{2, arrowext.VariableDim}, IndexType: arrow.PrimitiveTypes.Int16,
	})
	b, _ := arrowext.NewSparseTensorBuilder(mem, typ)
	defer b.Release()
	x, _ := coo.FromSlices(mem, []int64{2, 5}, []int64{1, 4, 0, 2}, coo.RowMajor, []float32{3, 1})
	defer x.Release()
	if err := b.Append(x); err != nil {
		fmt.Println(err)
		return
	}
	_ = b.AppendNull()
	col, _ := b.NewArray()
	defer col.Release()
	fmt.Println(col.TensorType())
	row, _ := col.Row(0)
	defer row.Release()
	m := row.(*gcs.Matrix)
	fmt.Println(m.Format(), m.Shape(), m.NNZ())
	// Output:
	// extension<arrowsparse.csr[value_type=float32, shape=[2,null], index_type=int16, indptr_type=int16]>
	// CSR [2 5] 2
}

// A CSR matrix as a column of sparse vectors, one per matrix row, and
// back: both ways share the indices and values buffers.
func ExampleVectorsFromCSR() {
	mem := memory.NewGoAllocator()
	m, _ := gcs.FromSlices(mem, gcs.Rows, []int64{3, 4}, []int32{0, 2, 2, 3}, []int32{0, 3, 1}, []float64{1, 2, 3})
	defer m.Release()
	col, err := arrowext.VectorsFromCSR(mem, m)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer col.Release()
	fmt.Println(col)
	back, _ := col.ToCSR(mem)
	defer back.Release()
	fmt.Println(back.Shape(), back.NNZ(), &back.ValueBytes()[0] == &m.ValueBytes()[0])
	// Output:
	// [COO[4] nnz=2 COO[4] nnz=0 COO[4] nnz=1]
	// [3 4] 3 true
}
