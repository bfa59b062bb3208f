package coo_test

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
)

// Building a COO tensor entry by entry, in any order and with repeated
// coordinates, as arrow-go's array builders build arrays.
func ExampleNewBuilder() {
	mem := memory.NewGoAllocator()
	b := coo.NewBuilder[int16, float32](mem, 2, 3, 4)
	defer b.Release()
	b.SetDimNames("batch", "row", "col")
	for _, e := range [][4]float32{{1, 2, 3, 1.5}, {0, 0, 1, 2}, {1, 2, 3, 0.5}} {
		if err := b.Append(e[3], int64(e[0]), int64(e[1]), int64(e[2])); err != nil {
			fmt.Println(err)
			return
		}
	}
	t, err := b.NewTensor()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer t.Release()
	fmt.Println(t.Shape(), t.DimNames(), t.NNZ(), "stored, canonical:", t.IsCanonical())
	for idx, v := range coo.All[float32](t) {
		fmt.Println(idx, v)
	}
	// Output:
	// [2 3 4] [batch row col] 3 stored, canonical: false
	// [1 2 3] 1.5
	// [0 0 1] 2
	// [1 2 3] 0.5
}

// Canonicalising sorts the entries and combines duplicates: summed by
// default, as scipy does, or under another named policy.
func ExampleTensor_Canonicalize() {
	mem := memory.NewGoAllocator()
	t, err := coo.FromSlices(mem, []int64{3, 3}, []int32{2, 2, 0, 1, 2, 2}, coo.RowMajor, []float64{1, 4, 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer t.Release()
	for _, p := range []arrowsparse.Duplicates{arrowsparse.SumDuplicates, arrowsparse.KeepLast, arrowsparse.RejectDuplicates} {
		c, err := t.Canonicalize(mem, coo.ConvertOptions{Duplicates: p})
		if err != nil {
			fmt.Println(p, "->", err)
			continue
		}
		vs, _ := coo.Values[float64](c)
		fmt.Println(p, "->", c.NNZ(), "entries", vs)
		c.Release()
	}
	// Output:
	// sum -> 2 entries [4 11]
	// last -> 2 entries [4 10]
	// reject -> coo: duplicate coordinates, and the duplicate policy rejects them
}

// A tensor is a table of entries: one column per dimension and a value
// column. The schema metadata keeps the shape and the names, so the tensor
// comes back whole.
func ExampleTensor_ToRecord() {
	mem := memory.NewGoAllocator()
	t, err := coo.FromSlices(mem, []int64{10, 10}, []int32{0, 1, 9, 7}, coo.RowMajor, []float64{0.5, 2},
		coo.WithDimNames("user", "film"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer t.Release()
	rec, err := t.ToRecord(mem)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rec.Release()
	fmt.Println(rec.Schema().Field(0).Name, rec.Schema().Field(1).Name, rec.Schema().Field(2).Name, rec.NumRows(), "rows")
	back, err := coo.FromRecord(mem, rec, coo.RecordOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer back.Release()
	fmt.Println(back.Shape(), back.DimNames(), coo.At[float64](back, 9, 7))
	// Output:
	// user film value 2 rows
	// [10 10] [user film] 2
}
