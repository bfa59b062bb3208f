// Command quickstart builds a small sparse tensor from built-in data and
// shows what it holds: the ratings table of a tiny film club, read as a
// users × films COO tensor, canonicalised, and densified.
package main

import (
	"fmt"
	"log"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/views"
)

// ratings is the built-in data: (user, film, stars). User 2 rated film 1
// twice; the two ratings are summed, as scipy would.
var ratings = []struct {
	user, film int64
	stars      float32
}{
	{0, 0, 5}, {0, 3, 3}, {1, 1, 4}, {2, 1, 2}, {2, 4, 5},
	{3, 2, 1}, {3, 3, 4}, {2, 1, 1}, {4, 0, 2}, {4, 4, 3},
}

func main() {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	if err := run(mem); err != nil {
		log.Fatal(err)
	}
	if n := mem.CurrentAlloc(); n != 0 {
		fmt.Fprintf(os.Stderr, "leaked %d bytes\n", n)
		os.Exit(1)
	}
}

func run(mem memory.Allocator) error {
	// The table as an Arrow record batch: one column per dimension.
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "user", Type: arrow.PrimitiveTypes.Int64},
		{Name: "film", Type: arrow.PrimitiveTypes.Int64},
		{Name: "stars", Type: arrow.PrimitiveTypes.Float32},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for _, r := range ratings {
		b.Field(0).(*array.Int64Builder).Append(r.user)
		b.Field(1).(*array.Int64Builder).Append(r.film)
		b.Field(2).(*array.Float32Builder).Append(r.stars)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()

	t, err := coo.FromRecord(mem, rec, coo.RecordOptions{DimColumns: []string{"user", "film"}, ValueColumn: "stars", IndexType: arrow.PrimitiveTypes.Int32})
	if err != nil {
		return err
	}
	defer t.Release()
	fmt.Printf("COO %v %v, %s values, %s coordinates (%s), %d stored, canonical %v\n",
		t.Shape(), t.DimNames(), t.DataType(), t.IndexType(), t.Layout(), t.NNZ(), t.IsCanonical())

	c, err := t.Canonicalize(mem, coo.ConvertOptions{})
	if err != nil {
		return err
	}
	defer c.Release()
	fmt.Printf("canonical: %d stored, canonical %v\n", c.NNZ(), c.IsCanonical())
	for idx, v := range coo.All[float32](c) {
		fmt.Printf("  %v = %g\n", idx, v)
	}

	d, err := c.ToDense(mem)
	if err != nil {
		return err
	}
	defer d.Release()
	dv := d.(*views.View)
	fmt.Println("dense:")
	sh := dv.Shape()
	for i := range sh[0] {
		fmt.Print(" ")
		for j := range sh[1] {
			fmt.Printf(" %3g", views.At[float32](dv, i, j))
		}
		fmt.Println()
	}
	return nil
}
