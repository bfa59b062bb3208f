package main

import (
	"bufio"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/tools/describe"
	"github.com/arrowsparse/arrowsparse/ipc"
)

// maxDenseBytes bounds what convert materialises from a shape: a dense
// result, the indptr array of a CSR, CSC or GCS result. Tests lower it.
var maxDenseBytes int64 = 4 << 30

// convertOpts are the parsed flags of convert.
type convertOpts struct {
	to                    string // "" keeps the format
	indexType, indptrType arrow.DataType
	axisOrder             []int // CSF
	dimensions            []int // GCS
	partitioning          []int // GCS
	progress, quiet       bool  // --progress, --quiet
}

// changes reports whether any flag asks for a change.
func (o *convertOpts) changes() bool {
	return o.to != "" || o.indexType != nil || o.indptrType != nil || o.axisOrder != nil || o.dimensions != nil || o.partitioning != nil
}

var targets = []string{"coo", "csr", "csc", "csf", "gcs", "tensor"}

func parseConvert(args []string) (*convertOpts, string, string, int, error) {
	fl, pos, err := parseFlags(args, flagSpec{
		"to": true, "index-type": true, "indptr-type": true,
		"axis-order": true, "dimensions": true, "partitioning": true,
		"message": true, "progress": false, "quiet": false,
	})
	if err != nil {
		return nil, "", "", 0, err
	}
	if len(pos) != 2 {
		return nil, "", "", 0, usagef("expected IN and OUT arguments, got %d arguments", len(pos))
	}
	sel, err := fl.message()
	if err != nil {
		return nil, "", "", 0, err
	}
	o := &convertOpts{}
	if v, ok := fl["to"]; ok {
		o.to = strings.ToLower(v)
		if !slices.Contains(targets, o.to) {
			return nil, "", "", 0, usagef("--to %q: expected one of %s", v, strings.Join(targets, ", "))
		}
	}
	for _, f := range []struct {
		name string
		dst  *arrow.DataType
	}{{"index-type", &o.indexType}, {"indptr-type", &o.indptrType}} {
		if v, ok := fl[f.name]; ok {
			dt := describe.TypeByName(v)
			if dt == nil || !arrowsparse.IsIndexType(dt) {
				return nil, "", "", 0, usagef("--%s %q: expected int8, int16, int32, int64, uint8, uint16 or uint32", f.name, v)
			}
			*f.dst = dt
		}
	}
	for _, f := range []struct {
		name string
		dst  *[]int
	}{{"axis-order", &o.axisOrder}, {"dimensions", &o.dimensions}, {"partitioning", &o.partitioning}} {
		if v, ok := fl[f.name]; ok {
			l, err := intList(v)
			if err != nil {
				return nil, "", "", 0, usagef("--%s %q: %v", f.name, v, err)
			}
			*f.dst = l
		}
	}
	if o.partitioning != nil && len(o.partitioning) != 1 {
		return nil, "", "", 0, usagef("--partitioning takes one number: the count of row dimensions")
	}
	// What the format of the result rules out; without --to, check
	// repeats this once IN's format is known.
	if err := o.fits(o.to, "--to "+o.to); err != nil {
		return nil, "", "", 0, err
	}
	o.progress, o.quiet = fl.bool("progress"), fl.bool("quiet")
	if o.progress && o.quiet {
		return nil, "", "", 0, usagef("--progress and --quiet exclude each other")
	}
	return o, pos[0], pos[1], sel, nil
}

// fits returns a usage error if a flag does not apply to a result of
// format to ("" for any); what names the format for the message.
func (o *convertOpts) fits(to, what string) error {
	switch {
	case to == "":
	case o.axisOrder != nil && to != "csf":
		return usagef("--axis-order applies to CSF results, not to %s", what)
	case (o.dimensions != nil || o.partitioning != nil) && to != "gcs":
		return usagef("--dimensions and --partitioning apply to GCS results, not to %s", what)
	case to == "tensor" && (o.indexType != nil || o.indptrType != nil):
		return usagef("a dense tensor has no index type (%s)", what)
	case to == "coo" && o.indptrType != nil:
		return usagef("a COO tensor has no indptr type (%s)", what)
	}
	return nil
}

// check returns a usage error if a flag does not fit the tensor read: a
// flag that does not apply to the format kept (no --to), an axis order or
// dimensions that are not a permutation of its dimensions, a partitioning
// beyond its rank.
func (o *convertOpts) check(t arrowsparse.Tensor) error {
	if o.to == "" {
		kind := t.Format().String()
		if t.Format() == arrowsparse.FormatDense {
			kind = "dense"
		}
		if err := o.fits(formatOf(t), "IN's "+kind+" tensor, kept as it is without --to"); err != nil {
			return err
		}
	}
	nd := t.NumDims()
	for _, f := range []struct {
		name string
		perm []int
	}{{"--axis-order", o.axisOrder}, {"--dimensions", o.dimensions}} {
		if f.perm != nil {
			if err := core.CheckPermutation(f.perm, nd, f.name); err != nil {
				return usagef("%v (IN has %d dimensions)", err, nd)
			}
		}
	}
	if o.partitioning != nil && o.partitioning[0] > nd {
		return usagef("--partitioning %d: IN has %d dimensions, the most that can be row dimensions", o.partitioning[0], nd)
	}
	return nil
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

func cmdConvert(args []string, s *streams) error {
	o, inPath, outPath, sel, err := parseConvert(args)
	if err != nil {
		return err
	}
	in, err := openInput(inPath, s.stdin)
	if err != nil {
		return err
	}
	defer in.Close()
	src, err := readSource(in, sel, o, s)
	if err != nil {
		return err
	}
	defer src.Release()
	if err := o.check(src); err != nil {
		return err
	}
	t, err := convert(alloc, src, o)
	if err != nil {
		return err
	}
	defer t.Release()
	if tf := textByName(outPath); tf != notText {
		return writeText(outPath, t, tf)
	}
	if outPath == "-" {
		w := bufio.NewWriterSize(s.stdout, 1<<16)
		if _, err := ipc.WriteTensor(w, t, ipc.WithAllocator(alloc)); err != nil {
			return err
		}
		return w.Flush()
	}
	// Atomically (OUT may be IN, whose mapping stays valid).
	return ipc.WriteFile(outPath, t, ipc.WithAllocator(alloc))
}

// readSource reads the tensor to convert: message sel of an IPC input, or
// the matrix or tensor of a Matrix Market or FROSTT file (gzipped or not),
// with a progress bar on standard error when it is a terminal (or with
// --progress). The result must be released.
func readSource(in *input, sel int, o *convertOpts, s *streams) (arrowsparse.Tensor, error) {
	tf, err := textOf(in)
	if err != nil {
		return nil, err
	}
	if tf == notText {
		m, err := in.Message(sel)
		if err != nil {
			return nil, err
		}
		defer m.Release()
		m.Tensor.Retain()
		return m.Tensor, nil
	}
	if sel > 0 {
		return nil, usagef("--message applies to files of IPC messages, not to %s", in.name)
	}
	show := !o.quiet && (o.progress || isTerminal(s.stderr))
	update, done := progressBar(s.stderr, show, "reading "+filepath.Base(in.name))
	t, err := readText(in, tf, update)
	done()
	return t, err
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
	if d, ok := t.(arrowsparse.Dense); ok && t.Format() == arrowsparse.FormatDense {
		// Written back (as a row-major copy) or converted, every element
		// is read.
		if err := checkRepeats(d); err != nil {
			return nil, err
		}
	}
	if !o.changes() {
		t.Retain()
		return t, nil
	}
	to := o.to
	if to == "" {
		to = formatOf(t)
	}
	switch to {
	case "tensor":
		return toDense(mem, t)
	case "coo":
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
	if err := checkDenseSize(t, "the dense result"); err != nil {
		return nil, err
	}
	return t.ToDense(mem)
}

// maxRepeats bounds how many more elements than its buffer holds a dense
// source may describe (zero strides repeat elements): a message of a few
// hundred bytes could otherwise ask for a sparse result of billions of
// entries. Writers (Arrow C++, this module) write contiguous tensors, which
// never repeat elements. Tests lower it.
var maxRepeats int64 = 1 << 20

// checkRepeats refuses a dense source that describes more than maxRepeats
// elements beyond those of its buffer.
func checkRepeats(d arrowsparse.Dense) error {
	n, err := arrowsparse.NumElements(d.Shape())
	if err != nil {
		return err
	}
	var held int64
	if b := d.Buffer(); b != nil {
		held = int64(b.Len()) / int64(arrowsparse.ByteWidth(d.DataType()))
	}
	if n > held && n-held > maxRepeats {
		return fmt.Errorf("IN's dense tensor describes %d elements but its body holds %d: its strides repeat elements, more than convert reads (%d beyond the body)", n, held, maxRepeats)
	}
	return nil
}

// checkDenseSize refuses a dense result whose elements would take more
// than maxDenseBytes.
func checkDenseSize(t arrowsparse.Tensor, what string) error {
	n, err := arrowsparse.NumElements(t.Shape())
	if err != nil {
		return err
	}
	if w := int64(arrowsparse.ByteWidth(t.DataType())); n > maxDenseBytes/w {
		return fmt.Errorf("%s would take %d elements of %d bytes, more than the limit of %d bytes", what, n, w, maxDenseBytes)
	}
	return nil
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
// defaultIndexType). A COO source keeps its layout, entry order and
// isCanonical flag; others give canonical tensors.
func toCOO(mem memory.Allocator, t arrowsparse.Tensor, it arrow.DataType) (*coo.Tensor, error) {
	it = defaultIndexType(t, it)
	if x, ok := t.(*coo.Tensor); ok {
		return retypeCOO(mem, x, it)
	}
	if d, ok := t.(arrowsparse.Dense); ok && t.Format() == arrowsparse.FormatDense {
		return coo.FromDense(mem, d, coo.ConvertOptions{IndexType: it}) // convert checked the repeats
	}
	return compressedToCOO(mem, t, it)
}

// retypeCOO returns x with coordinates of type it, in the same layout and
// order, keeping a claim of non-canonical order. The values are shared.
func retypeCOO(mem memory.Allocator, x *coo.Tensor, it arrow.DataType) (*coo.Tensor, error) {
	y, err := x.WithIndexType(mem, it)
	if err != nil || y.CanonicalFlag() == x.CanonicalFlag() {
		return y, err
	}
	defer y.Release()
	return coo.New(y.DataType(), y.IndexType(), y.Shape(), y.CoordsBuffer(), y.Layout(), y.ValuesBuffer(), y.NNZ(),
		coo.WithDimNames(y.DimNames()...), coo.WithCanonicalClaim(false), coo.WithTrusted())
}
