//go:build ignore

// gen_go_messages.go writes the Go-written messages the Python tests read
// (go-*.arrow in this directory). Run from the repository root:
//
//	go run ./python/tests/testdata/gen_go_messages.go python/tests/testdata
//
// The files are committed; the Python tests check that arrowsparse reads
// them and writes them back byte for byte, GCS custom metadata included.
package main

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	as "github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/ipc"
)

func main() {
	log.SetFlags(0)
	if len(os.Args) != 2 {
		log.Fatal("usage: go run gen_go_messages.go OUTDIR")
	}
	dir := os.Args[1]
	mem := memory.DefaultAllocator

	// A 4×6 CSR storage of a 2×3×4 GCS tensor: dims (2, 0, 1), partitioning 1.
	csr, err := gcs.FromSlices(mem, gcs.Rows, []int64{4, 6},
		[]int32{0, 2, 2, 5, 6}, []int16{1, 4, 0, 2, 5, 3}, []float32{1.5, -2, 3, 4.25, 5, 6})
	check(err)
	g, err := gcs.NewTensor([]int64{2, 3, 4}, []int{2, 0, 1}, 1, csr)
	check(err)
	g, err = g.WithDimNames("a<b", "x&y", "tab\there \"q\" é\u2028")
	check(err)
	write(dir, "go-gcs-3d.arrow", g)

	// A 6×2 CSC storage of a 3×2×2 GCS tensor without names: dims (0, 1, 2),
	// partitioning 2.
	csc, err := gcs.FromSlices(mem, gcs.Cols, []int64{6, 2},
		[]int64{0, 3, 4}, []uint8{0, 2, 5, 1}, []int64{7, -8, 9, 1 << 40})
	check(err)
	g2, err := gcs.NewTensor([]int64{3, 2, 2}, []int{0, 1, 2}, 2, csc)
	check(err)
	write(dir, "go-gcs-csc.arrow", g2)

	// Column-major int16 COO coordinates of a canonical 3×4 tensor.
	c, err := coo.FromSlices(mem, []int64{3, 4}, []int16{0, 1, 2, 1, 3, 0}, coo.ColMajor,
		[]float64{1, 2, 3}, coo.WithDimNames("r", "c"))
	check(err)
	write(dir, "go-coo-colmajor-int16.arrow", c)

	// A CSF tensor with uint8 indices and int16 indptr, axis order (1, 0, 2).
	p0 := []int16{0, 1, 3}
	p1 := []int16{0, 2, 3, 4}
	i0 := []uint8{0, 2}
	i1 := []uint8{1, 0, 1}
	i2 := []uint8{0, 3, 2, 1}
	levels := []csf.Level{
		{Indices: buf(i0), IndicesType: u8(), Len: 2, Indptr: buf(p0), IndptrType: i16()},
		{Indices: buf(i1), IndicesType: u8(), Len: 3, Indptr: buf(p1), IndptrType: i16()},
		{Indices: buf(i2), IndicesType: u8(), Len: 4},
	}
	vals := buf([]uint16{10, 20, 30, 40})
	f, err := csf.New(u16(), []int64{2, 3, 4}, []int{1, 0, 2}, levels, vals, 4)
	check(err)
	write(dir, "go-csf-uint8.arrow", f)
	// The same with byte lengths for the index buffers (the unit the format
	// documents; Arrow C++ up to 26 writes element counts).
	write(dir, "go-csf-bytes.arrow", f, ipc.WithCSFLengths(ipc.ByteLengths))
}

func buf[T as.Value](s []T) *memory.Buffer { return memory.NewBufferBytes(as.BytesOf(s)) }

func u8() arrow.DataType  { return arrow.PrimitiveTypes.Uint8 }
func i16() arrow.DataType { return arrow.PrimitiveTypes.Int16 }
func u16() arrow.DataType { return arrow.PrimitiveTypes.Uint16 }

func write(dir, name string, t as.Tensor, opts ...ipc.WriteOption) {
	var out bytes.Buffer
	_, err := ipc.WriteTensor(&out, t, opts...)
	check(err)
	check(os.WriteFile(filepath.Join(dir, name), out.Bytes(), 0o644))
	fmt.Println(name, out.Len(), "bytes")
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
