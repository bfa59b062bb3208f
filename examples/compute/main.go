// Command compute walks through a first hour with the compute operations:
// it loads two weeks of purchases (customer, product, quantity) from Arrow
// record batches, canonicalises them (a customer buying a product twice
// in a week is one element, summed), adds the weeks, reduces the total
// along each axis, and multiplies the matrix by its transpose to count how
// often two products were bought by the same customers.
package main

import (
	"fmt"
	"log"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/compute"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/views"
)

var products = []string{"tea", "milk", "bread", "jam"}

// Each week's purchases: (customer, product, quantity); customer 1 bought
// bread twice in week 1.
var weeks = [][][3]int64{
	{{0, 0, 2}, {0, 1, 1}, {1, 2, 1}, {1, 3, 1}, {1, 2, 2}, {2, 1, 3}},
	{{0, 0, 1}, {2, 1, 1}, {2, 2, 1}, {3, 0, 4}, {3, 3, 1}},
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

// load reads one week's record batch as a canonical 4×4 CSR matrix.
func load(mem memory.Allocator, rows [][3]int64) (*gcs.Matrix, error) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "customer", Type: arrow.PrimitiveTypes.Int32},
		{Name: "product", Type: arrow.PrimitiveTypes.Int32},
		{Name: "quantity", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for _, r := range rows {
		b.Field(0).(*array.Int32Builder).Append(int32(r[0]))
		b.Field(1).(*array.Int32Builder).Append(int32(r[1]))
		b.Field(2).(*array.Float64Builder).Append(float64(r[2]))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	t, err := coo.FromRecord(mem, rec, coo.RecordOptions{
		DimColumns: []string{"customer", "product"}, ValueColumn: "quantity", Shape: []int64{4, 4},
	})
	if err != nil {
		return nil, err
	}
	defer t.Release()
	// Canonicalise: sort, and sum the two bread purchases of customer 1.
	return gcs.MatrixFromCOO(mem, t, gcs.Rows, gcs.ConvertOptions{})
}

func run(mem memory.Allocator) error {
	w1, err := load(mem, weeks[0])
	if err != nil {
		return err
	}
	defer w1.Release()
	w2, err := load(mem, weeks[1])
	if err != nil {
		return err
	}
	defer w2.Release()

	// Combine the weeks, element by element: the result is a CSR too.
	total, err := compute.Add(mem, w1, w2, compute.Options{})
	if err != nil {
		return err
	}
	defer total.Release()
	fmt.Printf("purchases of both weeks: %s, %d entries\n", total.Format(), total.NNZ())

	// Reduce along each axis: units per product, and the mean basket.
	perProduct, err := compute.Sum(mem, total, []int{0}, compute.ReduceOptions{Format: compute.Dense})
	if err != nil {
		return err
	}
	defer perProduct.Release()
	units, err := views.Values[float64](perProduct.(*views.View))
	if err != nil {
		return err
	}
	for j, p := range products {
		fmt.Printf("  %-5s %2.0f units\n", p, units[j])
	}
	meanBasket, err := compute.Mean(mem, total, []int{1}, compute.ReduceOptions{Format: compute.Dense})
	if err != nil {
		return err
	}
	defer meanBasket.Release()
	fmt.Printf("mean units per product, by customer: %v\n", views.Formatted(meanBasket.(*views.View), "%.2f"))

	// Which products go together: Bᵀ·B over the bought-or-not pattern
	// (Map keeps the structure, the values become 1).
	bought, err := compute.Map(mem, total, func(float64) float64 { return 1 }, compute.Options{})
	if err != nil {
		return err
	}
	defer bought.Release()
	m := bought.(*gcs.Matrix)
	mt := m.T()
	defer mt.Release()
	// The product keeps its first operand's axis: mt is a CSC (a CSR read
	// transposed, without a copy), so together is a CSC, walked by columns.
	together, err := gcs.MulMatrix(mem, mt, m, gcs.KernelOptions{})
	if err != nil {
		return err
	}
	defer together.Release()
	fmt.Println("customers who bought both:")
	for c, n := range gcs.All[float64](together) {
		if c[0] < c[1] {
			fmt.Printf("  %s and %s: %.0f\n", products[c[0]], products[c[1]], n)
		}
	}
	return nil
}
