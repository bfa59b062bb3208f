package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/describe"
	"github.com/arrowsparse/arrowsparse/ipc"
	"github.com/arrowsparse/arrowsparse/views"
)

// maxDenseBytes bounds what convert materialises from a shape: a dense
// result, or the indptr array of a CSR, CSC or GCS result.
const maxDenseBytes = 4 << 30

// convertOpts are the parsed flags of convert.
type convertOpts struct {
	to                    string // "" keeps the format
	indexType, indptrType arrow.DataType
	axisOrder             []int // CSF
	dimensions            []int // GCS
	partitioning          []int // GCS
}

// changes reports whether any flag asks for a change.
func (o *convertOpts) changes() bool {
	return o.to != "" || o.indexType != nil || o.indptrType != nil || o.axisOrder != nil || o.dimensions != nil || o.partitioning != nil
}

var targets = []string{"coo", "csr", "csc", "csf", "gcs", "tensor"}

func parseConvert(args []string) (*convertOpts, string, string, error) {
	flags, pos, err := parseFlags(args, flagSpec{
		"to": true, "index-type": true, "indptr-type": true,
		"axis-order": true, "dimensions": true, "partitioning": true,
	})
	if err != nil {
		return nil, "", "", err
	}
	if len(pos) != 2 {
		return nil, "", "", usagef("expected IN and OUT arguments, got %d arguments", len(pos))
	}
	o := &convertOpts{}
	if v, ok := flags["to"]; ok {
		o.to = strings.ToLower(v)
		if !slices.Contains(targets, o.to) {
			return nil, "", "", usagef("--to %q: expected one of %s", v, strings.Join(targets, ", "))
		}
	}
	for _, f := range []struct {
		name string
		dst  *arrow.DataType
	}{{"index-type", &o.indexType}, {"indptr-type", &o.indptrType}} {
		if v, ok := flags[f.name]; ok {
			dt := describe.TypeByName(v)
			if dt == nil || !arrowsparse.IsIndexType(dt) {
				return nil, "", "", usagef("--%s %q: expected int8, int16, int32, int64, uint8, uint16 or uint32", f.name, v)
			}
			*f.dst = dt
		}
	}
	for _, f := range []struct {
		name string
		dst  *[]int
	}{{"axis-order", &o.axisOrder}, {"dimensions", &o.dimensions}, {"partitioning", &o.partitioning}} {
		if v, ok := flags[f.name]; ok {
			l, err := intList(v)
			if err != nil {
				return nil, "", "", usagef("--%s %q: %v", f.name, v, err)
			}
			*f.dst = l
		}
	}
	if o.axisOrder != nil && o.to != "csf" && o.to != "" {
		return nil, "", "", usagef("--axis-order applies to --to csf only")
	}
	if (o.dimensions != nil || o.partitioning != nil) && o.to != "gcs" && o.to != "" {
		return nil, "", "", usagef("--dimensions and --partitioning apply to --to gcs only")
	}
	if o.partitioning != nil && len(o.partitioning) != 1 {
		return nil, "", "", usagef("--partitioning takes one number: the count of row dimensions")
	}
	if o.to == "tensor" && (o.indexType != nil || o.indptrType != nil) {
		return nil, "", "", usagef("a dense tensor has no index type")
	}
	if o.indptrType != nil && (o.to == "coo") {
		return nil, "", "", usagef("a COO tensor has no indptr type")
	}
	return o, pos[0], pos[1], nil
}

// intList parses "2,0,1" (spaces allowed).
func intList(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return []int{}, nil
	}
	parts := strings.Split(s, ",")
	out := make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("expected comma-separated non-negative integers")
		}
		out[i] = n
	}
	return out, nil
}

func cmdConvert(args []string) error {
	o, in, out, err := parseConvert(args)
	if err != nil {
		return err
	}
	m, err := readMessage(in)
	if err != nil {
		return err
	}
	defer m.Release()
	mem := memory.DefaultAllocator
	t, err := convert(mem, m.Tensor, o)
	if err != nil {
		return err
	}
	defer t.Release()
	return writeOut(out, t)
}

// writeOut writes t's message to path ("-": standard output), through a
// temporary file renamed into place, so that OUT may be IN.
func writeOut(path string, t arrowsparse.Tensor) error {
	if path == "-" {
		_, err := ipc.WriteTensor(os.Stdout, t)
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, err = ipc.WriteTensor(f, t)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// formatOf returns the --to name of a tensor's format.
func formatOf(t arrowsparse.Tensor) string {
	if t.Format() == arrowsparse.FormatDense {
		return "tensor"
	}
	return strings.ToLower(t.Format().String())
}

// convert returns t converted as the options ask. The result must be
// released by the caller.
func convert(mem memory.Allocator, t arrowsparse.Tensor, o *convertOpts) (arrowsparse.Tensor, error) {
	if !o.changes() {
		t.Retain()
		return t, nil
	}
	to := o.to
	if to == "" {
		to = formatOf(t)
	}
	if to == "tensor" {
		return toDense(mem, t)
	}
	if to == "coo" {
		return toCOO(mem, t, o.indexType)
	}
	return convertCompressed(mem, t, to, o)
}

// toDense materialises t as a row-major dense view.
func toDense(mem memory.Allocator, t arrowsparse.Tensor) (arrowsparse.Tensor, error) {
	if t.Format() == arrowsparse.FormatDense {
		t.Retain()
		return t, nil
	}
	n, err := arrowsparse.NumElements(t.Shape())
	if err != nil {
		return nil, err
	}
	if w := int64(arrowsparse.ByteWidth(t.DataType())); n > maxDenseBytes/w {
		return nil, fmt.Errorf("the dense tensor would take %d elements of %d bytes, more than the limit of %d bytes", n, w, int64(maxDenseBytes))
	}
	d, err := t.ToDense(mem)
	if err != nil {
		return nil, err
	}
	return d, nil
}

// sourceIndexType returns the index type of a sparse tensor, or nil.
func sourceIndexType(t arrowsparse.Tensor) arrow.DataType {
	if x, ok := t.(*coo.Tensor); ok {
		return x.IndexType()
	}
	return compressedIndexType(t)
}

// defaultIndexType picks the index type of a conversion's result: want if
// given, else the source's index type when it can hold every coordinate
// and count of the result, else the narrowest signed type that can (int64
// for dense sources, as Arrow C++ does).
func defaultIndexType(t arrowsparse.Tensor, want arrow.DataType) arrow.DataType {
	if want != nil {
		return want
	}
	src := sourceIndexType(t)
	if src == nil {
		return arrow.PrimitiveTypes.Int64
	}
	need := max(t.NNZ(), int64(t.NumDims()))
	for _, d := range t.Shape() {
		need = max(need, d)
	}
	if arrowsparse.IndexMax(src) >= need {
		return src
	}
	return arrowsparse.SmallestIndexType(need)
}

// toCOO converts t to COO with the given index type (nil: see
// defaultIndexType). A COO source keeps its layout and entry order; others
// give canonical tensors.
func toCOO(mem memory.Allocator, t arrowsparse.Tensor, it arrow.DataType) (arrowsparse.Tensor, error) {
	it = defaultIndexType(t, it)
	switch x := t.(type) {
	case *coo.Tensor:
		return retypeCOO(mem, x, it)
	case *views.View:
		return coo.FromDense(mem, x, coo.ConvertOptions{IndexType: it})
	}
	if d, ok := t.(arrowsparse.Dense); ok && t.Format() == arrowsparse.FormatDense {
		return coo.FromDense(mem, d, coo.ConvertOptions{IndexType: it})
	}
	c, err := compressedToCOO(mem, t, it)
	if err != nil {
		return nil, err
	}
	defer c.Release()
	return retypeCOO(mem, c, it)
}

// retypeCOO returns t with coordinates of type it, in the same layout and
// order, with the same canonical claim. The values buffer is shared.
func retypeCOO(mem memory.Allocator, t *coo.Tensor, it arrow.DataType) (*coo.Tensor, error) {
	if arrow.TypeEqual(t.IndexType(), it) {
		t.Retain()
		return t, nil
	}
	n, nd := t.NNZ(), int64(t.NumDims())
	src := []byte(nil)
	if b := t.CoordsBuffer(); b != nil {
		src = b.Bytes()
	}
	sw, dw := int64(arrowsparse.ByteWidth(t.IndexType())), int64(arrowsparse.ByteWidth(it))
	if int64(len(src)) < n*nd*sw {
		return nil, fmt.Errorf("COO coordinate buffer too short")
	}
	buf := memory.NewResizableBuffer(mem)
	defer buf.Release()
	buf.Resize(int(n * nd * dw))
	dst := buf.Bytes()
	lim := arrowsparse.IndexMax(it)
	for i := range n * nd {
		x := describe.IndexValue(t.IndexType(), loadLE(src[i*sw:], sw))
		if x > lim {
			return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "coordinate %d does not fit the index type %s", x, it)
		}
		storeLE(dst[i*dw:], dw, uint64(x))
	}
	return coo.New(t.DataType(), it, t.Shape(), buf, t.Layout(), t.ValuesBuffer(), n,
		coo.WithDimNames(t.DimNames()...), coo.WithCanonicalClaim(t.CanonicalFlag()))
}

func loadLE(b []byte, w int64) uint64 {
	switch w {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return binary.LittleEndian.Uint64(b)
}

func storeLE(b []byte, w int64, x uint64) {
	switch w {
	case 1:
		b[0] = byte(x)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(x))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(x))
	default:
		binary.LittleEndian.PutUint64(b, x)
	}
}
