// Command termweights keeps a table of documents with a sparse column of
// term weights, one sparse vector per document (the arrowsparse.coo
// extension type with one dimension, SPARSE.md), writes it to a Parquet
// file, reads it back, and scores the documents against a query by
// multiplying the column, taken as one CSR matrix without copying its
// arrays, by a dense vector of query weights.
//
//	go run ./examples/termweights [DIR]
//
// read.py in this directory reads the file with pyarrow and the Python
// package and scores it the same way (interop/run.sh runs both).
//
// The vocabulary and the documents are tiny; the same code serves columns
// of millions of rows: the CSR matrix's indices and values are the
// column's buffers, and its row pointers are the lists' offsets.
package main

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/arrowext"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/gcs"
)

var vocabulary = []string{"arrow", "column", "go", "matrix", "parquet", "python", "sparse", "tensor"}

var documents = []struct{ title, text string }{
	{"Sparse tensors in Arrow", "sparse tensor arrow column sparse"},
	{"Parquet from Go", "parquet go column go"},
	{"Matrices in Python", "python matrix sparse matrix"},
	{"An empty note", ""},
}

func main() {
	dir := "."
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	if err := run(mem, filepath.Join(dir, "documents.parquet")); err != nil {
		log.Fatal(err)
	}
	if n := mem.CurrentAlloc(); n != 0 {
		log.Fatalf("leaked %d bytes", n)
	}
}

// termVector returns a document's term counts as a sparse vector over the
// vocabulary.
func termVector(mem memory.Allocator, text string) (*coo.Tensor, error) {
	counts := map[int32]float32{}
	for _, w := range strings.Fields(text) {
		if k := slices.Index(vocabulary, w); k >= 0 {
			counts[int32(k)]++
		}
	}
	var terms []int32
	for k := range counts {
		terms = append(terms, k)
	}
	slices.Sort(terms)
	weights := make([]float32, len(terms))
	for i, k := range terms {
		weights[i] = counts[k]
	}
	return coo.FromSlices(mem, []int64{int64(len(vocabulary))}, terms, coo.RowMajor, weights, coo.WithDimNames("term"))
}

func run(mem memory.Allocator, path string) error {
	// The table: a title column and a column of term-weight vectors.
	var rows []arrowsparse.Tensor
	defer func() {
		for _, r := range rows {
			r.Release()
		}
	}()
	titles := array.NewStringBuilder(mem)
	defer titles.Release()
	for _, d := range documents {
		v, err := termVector(mem, d.text)
		if err != nil {
			return err
		}
		rows = append(rows, v)
		titles.Append(d.title)
	}
	terms, err := arrowext.NewSparseTensorArray(mem, arrowext.SparseTensorParams{Format: arrowsparse.FormatCOO}, rows)
	if err != nil {
		return err
	}
	defer terms.Release()
	title := titles.NewArray()
	defer title.Release()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "title", Type: arrow.BinaryTypes.String},
		{Name: "terms", Type: terms.DataType(), Nullable: true},
	}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{title, terms}, int64(len(documents)))
	defer rec.Release()
	tbl := array.NewTableFromRecords(schema, []arrow.RecordBatch{rec})
	defer tbl.Release()
	fmt.Println("column type:", terms.DataType())

	// To Parquet and back.
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = arrowext.WriteParquet(f, tbl, arrowext.WithAllocator(mem))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	f, err = os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	back, err := arrowext.ReadParquet(f, arrowext.WithAllocator(mem))
	if err != nil {
		return err
	}
	defer back.Release()
	fmt.Printf("read %d documents from %s\n", back.NumRows(), filepath.Base(path))

	// The column as one CSR matrix (documents × terms) and the query
	// "sparse arrow column" as a dense vector of weights.
	query := make([]float32, len(vocabulary))
	for _, w := range []string{"sparse", "arrow", "column"} {
		query[slices.Index(vocabulary, w)] = 1
	}
	scores := make([]float32, 0, back.NumRows())
	for _, ch := range back.Column(1).Data().Chunks() {
		col := ch.(*arrowext.SparseTensorArray)
		m, err := col.ToCSR(mem)
		if err != nil {
			return err
		}
		part := make([]float32, m.Rows())
		err = gcs.MulVec(part, m, query, gcs.KernelOptions{})
		m.Release()
		if err != nil {
			return err
		}
		scores = append(scores, part...)
	}
	var names []string
	for _, ch := range back.Column(0).Data().Chunks() {
		for i := range ch.Len() {
			names = append(names, ch.(*array.String).Value(i))
		}
	}
	for i, s := range scores {
		fmt.Printf("%4.1f  %s\n", s, names[i])
	}
	return nil
}
