// Command cootable makes the Go side of the "one big tensor as a table"
// check of the live interop suite (interop/run.sh, check 8), read by
// interop/cootable_check.py with pyarrow and DuckDB.
//
//	cootable write SEED DIR
//	cootable read DIR
//
// write draws random COO tensors of ranks 1 to 4 (every index type, the
// value types DuckDB sums exactly, duplicates, empty tensors), writes each
// in table form (coo.ToRecords, in batches of a few thousand entries, so
// that every file holds several batches or row groups) as a Parquet file
// and an Arrow IPC file, and computes with package compute the sum over
// every axis but one, for each axis. DIR/cases.jsonl gets one line per
// tensor: the files, the shape, dim names, column names, the number of
// entries, and the sums by axis as [coordinate, sum] pairs of the non-zero
// sums. cootable_check.py then runs, with DuckDB,
//
//	SELECT d, sum(value) FROM 'FILE.parquet' GROUP BY d
//
// and reads both files with pyarrow (entries, schema metadata).
//
// read reads back the Parquet files that cootable_check.py write wrote with
// pyarrow (DIR/py_cases.jsonl: file, shape, and the entries' checksum) with
// coo.FromTable and compares. Both commands end with "N checked, M
// failed".
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/arrowext"
	"github.com/arrowsparse/arrowsparse/compute"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/views"
)

func main() {
	var err error
	switch {
	case len(os.Args) == 4 && os.Args[1] == "write":
		var seed uint64
		if seed, err = strconv.ParseUint(os.Args[2], 10, 64); err == nil {
			err = write(seed, os.Args[3])
		}
	case len(os.Args) == 3 && os.Args[1] == "read":
		err = read(os.Args[2])
	default:
		fmt.Fprintln(os.Stderr, "usage: cootable write SEED DIR | cootable read DIR")
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "cootable:", err)
		os.Exit(1)
	}
}

// goCase is one line of cases.jsonl.
type goCase struct {
	Parquet    string      `json:"parquet"`
	IPC        string      `json:"ipc"`
	Shape      []int64     `json:"shape"`
	DimNames   []string    `json:"dim_names"`
	DimColumns []string    `json:"dim_columns"`
	NNZ        int64       `json:"nnz"`
	Batches    int         `json:"batches"`
	ValueType  string      `json:"value_type"`
	SumsByAxis [][][2]any  `json:"sums_by_axis"`
	Total      json.Number `json:"total"`
}

var indexTypes = []arrow.DataType{
	arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
	arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32,
}

var valueTypes = []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64}

func write(seed uint64, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	r := rand.New(rand.NewPCG(seed, 0x7ab1e))
	f, err := os.Create(filepath.Join(dir, "cases.jsonl"))
	if err != nil {
		return err
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	n := 0
	for i := range 40 {
		it := indexTypes[i%len(indexTypes)]
		vt := valueTypes[i%len(valueTypes)]
		c, err := oneCase(mem, r, dir, i, it, vt)
		if err != nil {
			return fmt.Errorf("case %d: %w", i, err)
		}
		if err := enc.Encode(c); err != nil {
			return err
		}
		n++
	}
	if got := mem.CurrentAlloc(); got != 0 {
		return fmt.Errorf("%d bytes leaked", got)
	}
	fmt.Printf("%d tables written\n", n)
	return nil
}

func oneCase(mem memory.Allocator, r *rand.Rand, dir string, i int, it, vt arrow.DataType) (*goCase, error) {
	nd := 1 + r.IntN(4)
	maxExt := int64(2000)
	if it.ID() == arrow.INT8 || it.ID() == arrow.UINT8 {
		maxExt = 100
	}
	shape := make([]int64, nd)
	for k := range shape {
		shape[k] = 1 + r.Int64N(maxExt)
	}
	nnz := 0
	if i%10 != 3 { // some tables are empty
		nnz = 1 + r.IntN(20000)
	}
	names := []string{"user", "item", "day", "hour"}[:nd]
	if i%5 == 4 {
		names = nil
	}
	b := coo.NewBuilder[int64, float64](mem, shape...)
	defer b.Release()
	if names != nil {
		b.SetDimNames(names...)
	}
	idx := make([]int64, nd)
	for j := range nnz {
		if j > 0 && r.IntN(8) == 0 {
			// a duplicate of a recent coordinate, summed by both sides
		} else {
			for k := range idx {
				idx[k] = r.Int64N(shape[k])
			}
		}
		if err := b.Append(float64(r.IntN(2001)-1000), idx...); err != nil {
			return nil, err
		}
	}
	x64, err := b.NewTensor()
	if err != nil {
		return nil, err
	}
	defer x64.Release()
	x, err := compute.AsType(mem, x64, vt, compute.CastOptions{IndexType: it})
	if err != nil {
		return nil, err
	}
	defer x.Release()
	t := x.(*coo.Tensor)
	recs, err := t.ToRecords(mem, 1000+int64(r.IntN(3000)))
	if err != nil {
		return nil, err
	}
	tbl := array.NewTableFromRecords(recs[0].Schema(), recs)
	for _, rec := range recs {
		rec.Release()
	}
	defer tbl.Release()
	base := fmt.Sprintf("t%02d", i)
	c := &goCase{Parquet: base + ".parquet", IPC: base + ".arrow", Shape: shape, DimNames: t.DimNames(), NNZ: t.NNZ(), Batches: len(recs), ValueType: vt.String()}
	for k := range nd {
		c.DimColumns = append(c.DimColumns, tbl.Schema().Field(k).Name)
	}
	var pq, ipcf bytes.Buffer
	if err := arrowext.WriteParquet(&pq, tbl, arrowext.WithAllocator(mem), arrowext.WithRowGroupLength(2500)); err != nil {
		return nil, err
	}
	if err := arrowext.WriteIPCFile(&ipcf, tbl, arrowext.WithAllocator(mem)); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, c.Parquet), pq.Bytes(), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, c.IPC), ipcf.Bytes(), 0o644); err != nil {
		return nil, err
	}
	// The library's own reduction: for each axis d, the sum over every
	// other axis, as a dense vector of shape[d].
	for d := range nd {
		others := []int{} // nil would mean every axis
		for k := range nd {
			if k != d {
				others = append(others, k)
			}
		}
		s, err := compute.Sum(mem, t, others, compute.ReduceOptions{Format: compute.Dense})
		if err != nil {
			return nil, err
		}
		pairs, err := nonZeros(s.(*views.View))
		s.Release()
		if err != nil {
			return nil, err
		}
		c.SumsByAxis = append(c.SumsByAxis, pairs)
	}
	total, err := compute.Sum(mem, t, nil, compute.ReduceOptions{Format: compute.Dense})
	if err != nil {
		return nil, err
	}
	defer total.Release()
	tv, err := nonZeros(total.(*views.View))
	if err != nil {
		return nil, err
	}
	c.Total = "0"
	if len(tv) == 1 {
		c.Total = json.Number(fmt.Sprint(tv[0][1]))
	}
	return c, nil
}

// nonZeros returns the non-zero elements of a dense 1-d or 0-d sum as
// [index, value] pairs; sums of integers are int64, of floats float64.
func nonZeros(v *views.View) ([][2]any, error) {
	out := [][2]any{}
	switch v.DataType().ID() {
	case arrow.INT64:
		vals, err := views.Values[int64](v)
		if err != nil {
			return nil, err
		}
		for i, x := range vals {
			if x != 0 {
				out = append(out, [2]any{i, x})
			}
		}
	case arrow.FLOAT64:
		vals, err := views.Values[float64](v)
		if err != nil {
			return nil, err
		}
		for i, x := range vals {
			if x != 0 {
				out = append(out, [2]any{i, x})
			}
		}
	default:
		return nil, fmt.Errorf("unexpected sum type %s", v.DataType())
	}
	return out, nil
}

// pyCase is one line of py_cases.jsonl, written by cootable_check.py.
type pyCase struct {
	Parquet string  `json:"parquet"`
	Shape   []int64 `json:"shape"`
	NNZ     int64   `json:"nnz"`
	// Checksum is sum over entries of value * (1 + linear index mod 1009),
	// exact in float64 for the small integer values written.
	Checksum float64 `json:"checksum"`
}

func read(dir string) error {
	f, err := os.Open(filepath.Join(dir, "py_cases.jsonl"))
	if err != nil {
		return err
	}
	defer f.Close()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	checked, failed := 0, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var c pyCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return err
		}
		checked++
		if err := readOne(mem, dir, c); err != nil {
			failed++
			fmt.Printf("FAIL %s: %v\n", c.Parquet, err)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if got := mem.CurrentAlloc(); got != 0 {
		fmt.Printf("FAIL %d bytes leaked\n", got)
		failed++
	}
	fmt.Printf("%d checked, %d failed\n", checked, failed)
	return nil
}

func readOne(mem memory.Allocator, dir string, c pyCase) error {
	data, err := os.ReadFile(filepath.Join(dir, c.Parquet))
	if err != nil {
		return err
	}
	tbl, err := arrowext.ReadParquet(bytes.NewReader(data), arrowext.WithAllocator(mem))
	if err != nil {
		return err
	}
	defer tbl.Release()
	t, err := coo.FromTable(mem, tbl, coo.RecordOptions{Shape: c.Shape})
	if err != nil {
		return err
	}
	defer t.Release()
	if t.NNZ() != c.NNZ {
		return fmt.Errorf("%d entries, want %d", t.NNZ(), c.NNZ)
	}
	vals := make([]float64, 0, t.NNZ())
	vals, err = appendFloat(vals, t)
	if err != nil {
		return err
	}
	sum := 0.0
	for i := range t.NNZ() {
		q := int64(0)
		for k := range t.NumDims() {
			q = q*c.Shape[k] + t.Coord(i, k)
		}
		sum += vals[i] * float64(1+q%1009)
	}
	if sum != c.Checksum {
		return fmt.Errorf("checksum %v, want %v", sum, c.Checksum)
	}
	return nil
}

func appendFloat(dst []float64, t *coo.Tensor) ([]float64, error) {
	switch t.DataType().ID() {
	case arrow.INT32:
		v, err := coo.Values[int32](t)
		for _, x := range v {
			dst = append(dst, float64(x))
		}
		return dst, err
	case arrow.INT64:
		v, err := coo.Values[int64](t)
		for _, x := range v {
			dst = append(dst, float64(x))
		}
		return dst, err
	case arrow.FLOAT64:
		v, err := coo.Values[float64](t)
		return append(dst, v...), err
	}
	return nil, fmt.Errorf("value type %s", t.DataType())
}
