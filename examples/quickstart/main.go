// Command quickstart shows the library's main job end to end, on built-in
// data: the ratings of a small film club become a sparse users × films
// matrix, which travels as a column of sparse vectors (one per user, the
// arrowsparse.coo extension type) in an Arrow IPC file and a Parquet file
// that pyarrow and DuckDB read; the column comes back without copying and
// is multiplied as one CSR matrix.
//
//	go run ./examples/quickstart [DIR]
//
// The files go to DIR (default: a new directory under the system's
// temporary directory), and the program prints the commands that open them
// from Python.
package main

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/arrowext"
	"github.com/arrowsparse/arrowsparse/compute"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/views"
)

// The built-in data: who rated which film, with how many stars. Ada rated
// Alien twice; the two ratings are summed when the matrix is made
// canonical, as scipy's tocsr does.
var (
	users  = []string{"ada", "bob", "cyd", "dee", "eve"}
	films  = []string{"Alien", "Brazil", "Casablanca", "Dune", "Eraserhead", "Fargo"}
	rating = []struct {
		user, film int64
		stars      float64
	}{
		{0, 0, 4}, {0, 3, 3}, {1, 1, 4}, {2, 1, 2}, {2, 4, 5}, {3, 2, 1},
		{3, 3, 4}, {0, 0, 1}, {4, 0, 2}, {4, 5, 3}, {1, 5, 5}, {2, 2, 4},
	}
)

func main() {
	dir := ""
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
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "arrowsparse-quickstart-"); err != nil {
			return err
		}
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}

	// 1. Build: a users × films COO tensor, entry by entry.
	b := coo.NewBuilder[int32, float64](mem, int64(len(users)), int64(len(films)))
	defer b.Release()
	b.SetDimNames("user", "film")
	for _, r := range rating {
		if err := b.Append(r.stars, r.user, r.film); err != nil {
			return err
		}
	}
	t, err := b.NewTensor()
	if err != nil {
		return err
	}
	defer t.Release()
	fmt.Printf("1. built a %v COO tensor %v with %d stored ratings (canonical: %v)\n", t.Shape(), t.DimNames(), t.NNZ(), t.IsCanonical())

	// 2. Convert: a canonical CSR matrix (sorted, duplicates summed).
	m, err := gcs.MatrixFromCOO(mem, t, gcs.Rows, gcs.ConvertOptions{})
	if err != nil {
		return err
	}
	defer m.Release()
	fmt.Printf("2. CSR matrix: %d rows, %d stored values, indptr %v\n", m.Rows(), m.NNZ(), indptr(m))

	// 3. Write: one sparse vector per user, a column of the
	// arrowsparse.coo extension type that shares the matrix's buffers,
	// next to the users' names, as an Arrow IPC file and a Parquet file.
	col, err := arrowext.VectorsFromCSR(mem, m)
	if err != nil {
		return err
	}
	defer col.Release()
	names := array.NewStringBuilder(mem)
	defer names.Release()
	names.AppendValues(users, nil)
	nameCol := names.NewArray()
	defer nameCol.Release()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "user", Type: arrow.BinaryTypes.String},
		{Name: "ratings", Type: col.DataType(), Nullable: true},
	}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{nameCol, col}, int64(len(users)))
	defer rec.Release()
	tbl := array.NewTableFromRecords(schema, []arrow.RecordBatch{rec})
	defer tbl.Release()
	arrowPath, parquetPath := filepath.Join(dir, "ratings.arrow"), filepath.Join(dir, "ratings.parquet")
	if err := writeFile(arrowPath, func(f *os.File) error { return arrowext.WriteIPCFile(f, tbl, arrowext.WithAllocator(mem)) }); err != nil {
		return err
	}
	if err := writeFile(parquetPath, func(f *os.File) error { return arrowext.WriteParquet(f, tbl, arrowext.WithAllocator(mem)) }); err != nil {
		return err
	}
	fmt.Printf("3. wrote %s and %s: column \"ratings\" of type %s\n", arrowPath, parquetPath, col.DataType().(arrow.ExtensionType).ExtensionName())

	// 4. Read back: the Parquet file, then the IPC file from its bytes; the
	// column of the IPC file becomes one CSR matrix on the file's buffers.
	pqData, err := os.ReadFile(parquetPath)
	if err != nil {
		return err
	}
	fromPQ, err := arrowext.ReadParquet(bytes.NewReader(pqData), arrowext.WithAllocator(mem))
	if err != nil {
		return err
	}
	defer fromPQ.Release()
	ipcData, err := os.ReadFile(arrowPath)
	if err != nil {
		return err
	}
	back, err := arrowext.ReadIPCFileBytes(ipcData, arrowext.WithAllocator(mem))
	if err != nil {
		return err
	}
	defer back.Release()
	got, ok := back.Column(1).Data().Chunk(0).(*arrowext.SparseTensorArray)
	if !ok {
		return fmt.Errorf("column ratings read back as %s", back.Column(1).DataType())
	}
	row, err := got.Row(2)
	if err != nil {
		return err
	}
	cyd := row.(*coo.Tensor)
	fmt.Printf("4. read back %d and %d rows; %s's ratings: ", fromPQ.NumRows(), back.NumRows(), users[2])
	for idx, stars := range coo.All[float64](cyd) {
		fmt.Printf("%s=%g ", films[idx[0]], stars)
	}
	fmt.Println()
	cyd.Release()
	r, err := got.ToCSR(mem)
	if err != nil {
		return err
	}
	defer r.Release()

	// 5. Compute: each user's total stars (the matrix times a vector of
	// ones) and each film's mean over the users who rated it.
	total := make([]float64, r.Rows())
	ones := []float64{1, 1, 1, 1, 1, 1}
	if err := gcs.MulVec(total, r, ones, gcs.KernelOptions{}); err != nil {
		return err
	}
	sums, err := compute.Sum(mem, r, []int{0}, compute.ReduceOptions{Format: compute.Dense})
	if err != nil {
		return err
	}
	defer sums.Release()
	counts, err := compute.Count(mem, r, []int{0}, compute.ReduceOptions{Format: compute.Dense})
	if err != nil {
		return err
	}
	defer counts.Release()
	sv, err := views.Values[float64](sums.(*views.View))
	if err != nil {
		return err
	}
	cv, err := views.Values[int64](counts.(*views.View))
	if err != nil {
		return err
	}
	fmt.Print("5. stars per user:")
	for i, u := range users {
		fmt.Printf(" %s=%g", u, total[i])
	}
	fmt.Print("\n   mean stars per film:")
	for j, f := range films {
		fmt.Printf(" %s=%.2f", f, sv[j]/float64(max(cv[j], 1)))
	}
	fmt.Println()

	fmt.Printf(`
Open the files from Python (pip install ./python; the test venv has it):
  .venv/bin/python -c "import arrowsparse, pyarrow as pa; t = pa.ipc.open_file('%s').read_all(); print(t.column('ratings').chunk(0).to_csr_matrix().toarray())"
  .venv/bin/python -c "import duckdb; print(duckdb.sql(\"SELECT user, unnest(ratings.indices)[1] AS film, unnest(ratings.values) AS stars FROM '%s'\"))"
`, arrowPath, parquetPath)
	return nil
}

// indptr returns m's index pointers as int64.
func indptr(m *gcs.Matrix) []int64 {
	p, err := gcs.Indptr[int32](m)
	if err != nil {
		return nil
	}
	out := make([]int64, len(p))
	for i, v := range p {
		out[i] = int64(v)
	}
	return out
}

// writeFile creates path and writes it with write, closing it.
func writeFile(path string, write func(*os.File) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
