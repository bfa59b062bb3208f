// Command gocases makes the Go side of the live interop checks
// (interop/run.sh).
//
//	gocases write SEED DIR
//	gocases rebuild CPPDIR OUTDIR
//
// write chooses the content of one message per format × index type ×
// value type × shape class, plus one CSF message per axis order of ranks 2
// to 4, and writes each with this library's constructors and writer. For
// every message it writes two descriptions in the interop JSON schema,
// computed from the chosen content, not by reading the message back:
//
//	DIR/peer/NAME.arrow, NAME.json   what Arrow C++ must read (a GCS tensor
//	                                 as its reduced CSR or CSC matrix)
//	DIR/go/NAME.arrow, NAME.json     what this library must read back (a GCS
//	                                 tensor as its N-d content)
//
// Index types are chosen so that Arrow C++ can hold every count and
// coordinate (it aborts on CSR/CSC messages whose index type is too narrow);
// the random choices depend only on SEED.
//
// rebuild checks byte identity from content: for every Arrow C++ message
// in CPPDIR whose sidecar fixes the storage order (sorted, no duplicates:
// this library's reader classifies it), it builds the tensor from the
// sidecar's content and layout keys alone, writes it to OUTDIR and compares
// the bytes with Arrow C++'s. It exits 1 on any difference.
package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"math/rand/v2"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/tools/describe"
	"github.com/arrowsparse/arrowsparse/ipc"
)

func main() {
	var err error
	switch {
	case len(os.Args) == 4 && os.Args[1] == "write":
		var seed uint64
		seed, err = strconv.ParseUint(os.Args[2], 10, 64)
		if err == nil {
			err = write(seed, os.Args[3])
		}
	case len(os.Args) == 4 && os.Args[1] == "rebuild":
		var failed int
		if _, failed, err = rebuild(os.Stdout, os.Args[2], os.Args[3]); err == nil && failed > 0 {
			os.Exit(1)
		}
	default:
		fmt.Fprintln(os.Stderr, "usage: gocases write SEED DIR | gocases rebuild CPPDIR OUTDIR")
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gocases:", err)
		os.Exit(1)
	}
}

// writer writes the cases of one run.
type writer struct {
	sample  int // write every sample-th case only (tests)
	dir     string
	mem     memory.Allocator
	n       int
	counts  map[string]int
	skipped map[string]int // formats ipc cannot write yet
}

func write(seed uint64, dir string) error {
	return writeSample(seed, dir, 1)
}

func writeSample(seed uint64, dir string, sample int) error {
	w := &writer{sample: sample, dir: dir, mem: memory.NewGoAllocator(), counts: map[string]int{}, skipped: map[string]int{}}
	for _, sub := range []string{"peer", "go"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return err
		}
	}
	rngFor := func() *rand.Rand { return rand.New(rand.NewPCG(seed, uint64(w.n))) }
	for _, kind := range sparseKinds {
		for ii, it := range indexTypes {
			for vi, vt := range valueTypes {
				for ci, class := range sparseClasses {
					var pt arrow.DataType
					if !strings.HasPrefix(kind, "coo") {
						pt = it
						if (ci+vi)%3 == 0 { // mixed indptr and indices types
							pt = indexTypes[(ii+1+ci)%len(indexTypes)]
						}
					}
					s := sparseCase(rngFor(), kind, vt, it, pt, class, -1)
					if err := w.sparse(caseName(w.n, kind, vt, it, pt, class), s); err != nil {
						return err
					}
				}
			}
		}
	}
	// Every axis order of CSF tensors of ranks 2 to 4.
	for r := 2; r <= 4; r++ {
		for _, order := range permutations(r) {
			k := w.n
			vt, it := valueTypes[k%len(valueTypes)], indexTypes[k%len(indexTypes)]
			s := sparseCase(rngFor(), "csf", vt, it, it, "random", r)
			s.order = order
			name := caseName(w.n, "csf", vt, it, it, "order"+strings.ReplaceAll(strings.Trim(fmt.Sprint(order), "[]"), " ", ""))
			if err := w.sparse(name, s); err != nil {
				return err
			}
		}
	}
	for _, kind := range denseKinds {
		for _, vt := range valueTypes {
			for _, class := range denseClasses[kind] {
				d := denseCase(rngFor(), kind, vt, class)
				if err := w.dense(caseName(w.n, kind, vt, nil, nil, class), d); err != nil {
					return err
				}
			}
		}
	}
	keys := make([]string, 0, len(w.counts))
	for k := range w.counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, w.counts[k]))
	}
	total := 0
	for _, n := range w.counts {
		total += n
	}
	fmt.Printf("gocases: seed %d: wrote %d messages (%s) to %s\n", seed, total, strings.Join(parts, ", "), dir)
	for k, n := range w.skipped {
		fmt.Printf("gocases: SKIPPED %d %s messages: this library cannot write them yet\n", n, k)
	}
	return nil
}

func permutations(n int) [][]int {
	if n == 1 {
		return [][]int{{0}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for pos := 0; pos <= len(p); pos++ {
			q := slices.Insert(slices.Clone(p), pos, n-1)
			out = append(out, q)
		}
	}
	slices.SortFunc(out, slices.Compare)
	return out
}

// emit writes a tensor's message and its two descriptions.
func (w *writer) emit(name, format string, t arrowsparse.Tensor, peer, self *describe.Content) error {
	w.n++
	if (w.n-1)%w.sample != 0 {
		return nil
	}
	var buf bytes.Buffer
	if _, err := ipc.WriteTensor(&buf, t); err != nil {
		if strings.Contains(err.Error(), "cannot write") {
			w.skipped[format]++
			return nil
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	w.counts[format]++
	files := map[string][]byte{
		filepath.Join("peer", name+".arrow"): buf.Bytes(),
		filepath.Join("peer", name+".json"):  peer.JSON(),
		filepath.Join("go", name+".json"):    self.JSON(),
	}
	for p, data := range files {
		if err := os.WriteFile(filepath.Join(w.dir, p), data, 0o644); err != nil {
			return err
		}
	}
	return os.Symlink(filepath.Join("..", "peer", name+".arrow"), filepath.Join(w.dir, "go", name+".arrow"))
}

func (w *writer) sparse(name string, s *sparseSpec) error {
	t, err := s.build(w.mem)
	if err != nil {
		return fmt.Errorf("%s: building the tensor: %w", name, err)
	}
	defer t.Release()
	peer, self := s.expected()
	peer.Note = name
	return w.emit(name, s.format, t, peer, self)
}

func (w *writer) dense(name string, d *denseSpec) error {
	t, err := d.build(w.mem)
	if err != nil {
		return fmt.Errorf("%s: building the tensor: %w", name, err)
	}
	defer t.Release()
	c := d.expected()
	c.Note = name + " (" + d.layout + " layout)"
	return w.emit(name, "TENSOR", t, c, c)
}

// rebuild writes every corpus message whose sidecar fixes the bytes again
// from the sidecar and compares.
// It prints a line per failure and the counts, and returns them.
func rebuild(out io.Writer, cppDir, outDir string) (checked, failed int, err error) {
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return 0, 0, err
	}
	files, err := filepath.Glob(filepath.Join(cppDir, "*.arrow"))
	if err != nil {
		return 0, 0, err
	}
	if len(files) == 0 {
		return 0, 0, fmt.Errorf("no messages in %s", cppDir)
	}
	mem := memory.NewGoAllocator()
	var total, built, same, skipped int
	for _, f := range files {
		side := strings.TrimSuffix(f, ".arrow") + ".json"
		data, err := os.ReadFile(side)
		if err != nil {
			continue
		}
		total++
		name := filepath.Base(f)
		c, err := describe.ParseJSON(data)
		if err != nil {
			fmt.Fprintf(out, "FAIL %s: sidecar: %v\n", name, err)
			failed++
			continue
		}
		fixed, err := storageFixed(f, c)
		if err != nil {
			fmt.Fprintf(out, "FAIL %s: reading: %v\n", name, err)
			failed++
			continue
		}
		if !fixed {
			skipped++
			continue
		}
		t, err := tensorOf(mem, c)
		if err != nil {
			fmt.Fprintf(out, "FAIL %s: building from the sidecar: %v\n", name, err)
			failed++
			continue
		}
		var buf bytes.Buffer
		_, err = ipc.WriteTensor(&buf, t)
		t.Release()
		if err != nil {
			fmt.Fprintf(out, "FAIL %s: writing: %v\n", name, err)
			failed++
			continue
		}
		built++
		if err := os.WriteFile(filepath.Join(outDir, name), buf.Bytes(), 0o644); err != nil {
			return 0, 0, err
		}
		want, err := os.ReadFile(f)
		if err != nil {
			return 0, 0, err
		}
		if bytes.Equal(want, buf.Bytes()) {
			same++
			continue
		}
		at := 0
		for at < min(len(want), buf.Len()) && want[at] == buf.Bytes()[at] {
			at++
		}
		fmt.Fprintf(out, "FAIL %s: %d bytes written, Arrow C++ wrote %d; first difference at byte %d\n", name, buf.Len(), len(want), at)
		failed++
	}
	fmt.Fprintf(out, "rebuild: %d messages, %d built from their sidecars, %d identical to Arrow C++'s, %d skipped (storage order not fixed by the sidecar)\n",
		total, built, same, skipped)
	fmt.Fprintf(out, "%d checked, %d failed\n", total-skipped, failed)
	return total - skipped, failed, nil
}

// storageFixed reports whether the sidecar fixes the message's storage
// order: no duplicates, and sorted storage (COO rows, CSR/CSC indices
// within lanes), as this library's reader finds it.
func storageFixed(path string, c *describe.Content) (bool, error) {
	if !c.Sparse() {
		return true, nil
	}
	if int64(c.Entries.Len()) != c.NNZ {
		return false, nil
	}
	m, err := ipc.ReadFile(path)
	if err != nil {
		return false, err
	}
	defer m.Release()
	switch t := m.Tensor.(type) {
	case *coo.Tensor:
		return t.IsCanonical(), nil
	case *gcs.Matrix:
		return t.IsCanonical(), nil
	}
	return c.Format == "CSF", nil
}

// tensorOf builds the tensor a sidecar describes, with the layout its
// layout keys give.
func tensorOf(mem memory.Allocator, c *describe.Content) (arrowsparse.Tensor, error) {
	if !c.Sparse() {
		d := &denseSpec{vt: c.ValueType, shape: c.Shape, names: c.DimNames, values: c.DenseValues, layout: "C"}
		w := int64(arrowsparse.ByteWidth(c.ValueType))
		f := elemStrides(c.Shape, true)
		cs := elemStrides(c.Shape, false)
		for k := range f {
			f[k] *= w
			cs[k] *= w
		}
		if len(c.DenseValues) > 0 && slices.Equal(c.Strides, f) && !slices.Equal(c.Strides, cs) {
			d.layout = "F"
		}
		return d.build(mem)
	}
	s := &sparseSpec{format: c.Format, vt: c.ValueType, it: c.IndexType, pt: c.IndptrType, shape: c.Shape, names: c.DimNames, raw: c.Entries}
	switch c.Format {
	case "COO":
		n, nd, w := int64(c.Entries.Len()), int64(len(c.Shape)), int64(arrowsparse.ByteWidth(c.IndexType))
		if slices.Equal(c.IndicesStrides, []int64{w, n * w}) && !slices.Equal(c.IndicesStrides, []int64{nd * w, w}) {
			s.layout = coo.ColMajor
		}
		s.claim = c.IsCanonical
	case "CSR":
		s.raw = sortedByLane(c.Entries, gcs.Rows)
	case "CSC":
		s.raw = sortedByLane(c.Entries, gcs.Cols)
	case "CSF":
		s.order = c.AxisOrder
	default:
		return nil, fmt.Errorf("cannot rebuild a %s message", c.Format)
	}
	return s.build(mem)
}
