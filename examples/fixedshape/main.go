// Command fixedshape writes a column of Arrow's canonical fixed-shape
// tensor type to an Arrow IPC file and to a Parquet file, for pyarrow (or
// any Arrow implementation) to read; read.py in this directory reads them.
//
//	go run ./examples/fixedshape [DIR]
//
// The column holds three small RGB images of 2×4 pixels. They live in
// memory channel-last, as (image, row, column, channel), but the column
// presents them channel-first, (channel, row, column), without copying: the
// transposed view becomes the type's permutation.
package main

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/arrowext"
	"github.com/arrowsparse/arrowsparse/views"
)

func main() {
	dir := "."
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	if err := run(mem, dir); err != nil {
		log.Fatal(err)
	}
	if n := mem.CurrentAlloc(); n != 0 {
		log.Fatalf("leaked %d bytes", n)
	}
}

func run(mem memory.Allocator, dir string) error {
	// Three images, channel-last: pixel (r, c) of image i has channels
	// 100·i + 10·r + c + {0.0, 0.1, 0.2}.
	hwc, err := views.Alloc(mem, arrow.PrimitiveTypes.Float32, []int64{3, 2, 4, 3})
	if err != nil {
		return err
	}
	defer hwc.Release()
	for i := range int64(3) {
		for r := range int64(2) {
			for c := range int64(4) {
				for ch := range int64(3) {
					x := float32(100*i+10*r+c) + float32(ch)/10
					if err := views.Set(hwc, x, i, r, c, ch); err != nil {
						return err
					}
				}
			}
		}
	}
	// The same memory seen channel-first, with names: no copy.
	chw, err := hwc.Transpose(0, 3, 1, 2)
	if err != nil {
		return err
	}
	defer chw.Release()
	named, err := chw.WithDimNames("image", "channel", "row", "column")
	if err != nil {
		return err
	}
	defer named.Release()

	col, err := arrowext.NewFixedShapeTensorArray(mem, named)
	if err != nil {
		return err
	}
	defer col.Release()
	fmt.Println(col.DataType())
	fmt.Println("metadata:", col.TensorType().Serialize())

	row, err := col.Row(1)
	if err != nil {
		return err
	}
	fmt.Printf("row 1, shape %v, names %v:\n%s\n", row.Shape(), row.DimNames(), views.Formatted(row, "%5.1f"))
	row.Release()

	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "images", Type: col.DataType(), Nullable: true}}, nil)
	tbl := array.NewTableFromSlice(schema, [][]arrow.Array{{col}})
	defer tbl.Release()
	for _, out := range []struct {
		name  string
		write func(*os.File) error
	}{
		{"images.arrow", func(f *os.File) error { return arrowext.WriteIPCFile(f, tbl, arrowext.WithAllocator(mem)) }},
		{"images.parquet", func(f *os.File) error { return arrowext.WriteParquet(f, tbl, arrowext.WithAllocator(mem)) }},
	} {
		path := filepath.Join(dir, out.name)
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		err = out.write(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		fmt.Println("wrote", path)
	}
	return nil
}
