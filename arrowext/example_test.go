package arrowext_test

import (
	"bytes"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/arrowext"
	"github.com/arrowsparse/arrowsparse/views"
)

// A column made from a transposed view, without a copy: the transposition
// becomes the permutation, and rows read back as the logical tensors.
func ExampleNewFixedShapeTensorArray() {
	mem := memory.NewGoAllocator()
	v, _ := views.Alloc(mem, arrow.PrimitiveTypes.Int32, []int64{2, 2, 3}) // 2 rows of 2×3
	defer v.Release()
	vals, _ := views.Values[int32](v)
	for i := range vals {
		vals[i] = int32(i)
	}
	t, _ := v.Transpose(0, 2, 1) // rows of 3×2
	defer t.Release()

	col, err := arrowext.NewFixedShapeTensorArray(mem, t)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer col.Release()
	fmt.Println(col.TensorType().Serialize())
	row, _ := col.Row(1)
	defer row.Release()
	fmt.Println(row)
	// Output:
	// {"shape":[2,3],"permutation":[1,0]}
	// [[6 9]
	//  [7 10]
	//  [8 11]]
}

// A column written to a Parquet file and read back, with the types not
// registered: the reader restores them from the stored schema.
func ExampleReadParquet() {
	mem := memory.NewGoAllocator()
	typ, _ := arrowext.NewVariableShapeTensorType(arrow.PrimitiveTypes.Float64, 2, []string{"h", "w"}, nil, nil)
	b, _ := arrowext.NewVariableShapeTensorBuilder(mem, typ)
	defer b.Release()
	for _, shape := range [][]int64{{1, 2}, {2, 1}} {
		v, _ := views.Alloc(mem, arrow.PrimitiveTypes.Float64, shape)
		_ = b.Append(v)
		v.Release()
	}
	col := b.NewArray()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "t", Type: col.DataType(), Nullable: true}}, nil)
	tbl := array.NewTableFromSlice(schema, [][]arrow.Array{{col}})
	defer tbl.Release()

	var file bytes.Buffer
	if err := arrowext.WriteParquet(&file, tbl); err != nil {
		fmt.Println(err)
		return
	}
	back, err := arrowext.ReadParquet(bytes.NewReader(file.Bytes()))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer back.Release()
	fmt.Println(back.Schema().Field(0).Type)
	for i := range int(back.NumRows()) {
		row, _ := arrowext.Row(back.Column(0).Data().Chunk(0), i)
		fmt.Println(row.Shape(), row.DimNames())
		row.Release()
	}
	// Output:
	// extension<arrow.variable_shape_tensor[value_type=float64, ndim=2, dim_names=[h,w]]>
	// [1 2] [h w]
	// [2 1] [h w]
}
