// Command gen writes the deterministic synthetic workloads shared by every
// benchmark harness (Go and Python read exactly the same bytes).
//
// Layout of one workload directory data/<name>/:
//
//	header.json   shape, nnz, dtypes, array files, generator params, checksums
//	coords.bin    (COO only) int64 little-endian, shape (ndim, nnz), C order:
//	              all mode-0 indices, then all mode-1 indices, ...
//	              (== Arrow SparseCOOIndex indices tensor of shape (nnz, ndim)
//	              with column-major strides)
//	values.bin    (COO only) float64 little-endian, nnz entries, same order
//	dense.bin     (dense only) float64 little-endian, row-major (C order)
//
// Workloads (defaults):
//
//	a_powerlaw2d   1e6 x 1e6, 1e7 nnz, Zipf(s=0.7) row degrees (rows drawn
//	               from a Zipf rank distribution over a random permutation of
//	               rows), uniform columns, unsorted, natural duplicates kept.
//	b_tensor3d     1e4 x 1e4 x 1e4, 1e7 nnz, each mode drawn independently
//	               from Zipf(s=0.5) over a random permutation, unsorted,
//	               natural duplicates kept.
//	c_dense4096    4096 x 4096 float64, exactly 1% nonzero cells chosen
//	               uniformly without replacement.
//
// This copy (arrowsparse bench/harness, overlaid on the shared harness by
// bench/run.sh) adds, without changing the default workloads' bytes:
//
//	d_delicious4d  532924 x 17262471 x 2480308 x 1443 (the dimensions of
//	               FROSTT's delicious-4d), 1e7 nnz, uniform coordinates:
//	               about 2^75 elements, more than a 64-bit linear index holds.
//	e_nell2        12092 x 9184 x 28818 (FROSTT's nell-2), 1e7 nnz, every
//	               mode Zipf(s=0.5) over its own random permutation.
//	-name          writes the (single) workload to data/<name> (the random
//	               streams keep the workload's own name, so a larger a has
//	               the smaller one's entries first);
//	-int32         writes int32 coordinates (<i4), for the largest sizes;
//	               countUnique works beyond 64-bit linear indices.
//
// Everything derives from -seed through a SplitMix64 stream, so a rerun with
// the same flags and Go toolchain reproduces the files bit for bit; the
// sha256 of each file is recorded in header.json (gen -verify checks it).
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"
)

const formatName = "anchor-bench-v1"

// ---------- PRNG: SplitMix64 (stable forever, trivially portable) ----------

type rng struct{ s uint64 }

func newRNG(seed uint64, stream string) *rng {
	// Derive an independent stream per purpose from (seed, stream name).
	h := seed ^ 0x9E3779B97F4A7C15
	for _, c := range []byte(stream) {
		h = (h ^ uint64(c)) * 0x100000001B3
	}
	return &rng{s: h}
}

func (r *rng) next() uint64 {
	r.s += 0x9E3779B97F4A7C15
	z := r.s
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// intn returns a uniform integer in [0, n) (Lemire's multiply-shift with
// rejection; exact).
func (r *rng) intn(n uint64) uint64 {
	hi, lo := bits.Mul64(r.next(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(r.next(), n)
		}
	}
	return hi
}

// float returns a uniform float64 in [0, 1) with 53 random bits.
func (r *rng) float() float64 { return float64(r.next()>>11) * (1.0 / (1 << 53)) }

// value returns a nonzero uniform float64 in [-1, 1).
func (r *rng) value() float64 {
	v := float64(2.0*r.float()) - 1.0
	if v == 0 {
		v = 0.5
	}
	return v
}

// ---------- Zipf sampler over a permuted index space (Vose alias) ----------

type alias struct {
	prob  []float64
	alias []int32
	perm  []int32 // rank -> index
}

func newZipfAlias(n int, s float64, r *rng) *alias {
	w := make([]float64, n)
	var total float64
	for k := 0; k < n; k++ {
		w[k] = math.Pow(float64(k+1), -s)
		total += w[k]
	}
	a := &alias{prob: make([]float64, n), alias: make([]int32, n), perm: make([]int32, n)}
	scaled := make([]float64, n)
	small := make([]int32, 0, n)
	large := make([]int32, 0, n)
	for k := 0; k < n; k++ {
		scaled[k] = float64(w[k]*float64(n)) / total
		if scaled[k] < 1 {
			small = append(small, int32(k))
		} else {
			large = append(large, int32(k))
		}
	}
	for len(small) > 0 && len(large) > 0 {
		l := small[len(small)-1]
		small = small[:len(small)-1]
		g := large[len(large)-1]
		large = large[:len(large)-1]
		a.prob[l] = scaled[l]
		a.alias[l] = g
		scaled[g] = float64(scaled[g]+scaled[l]) - 1.0 // explicit rounding: no FMA fusion
		if scaled[g] < 1 {
			small = append(small, g)
		} else {
			large = append(large, g)
		}
	}
	for _, g := range large {
		a.prob[g] = 1
		a.alias[g] = g
	}
	for _, l := range small {
		a.prob[l] = 1
		a.alias[l] = l
	}
	// random permutation of the index space so heavy ranks are scattered
	for i := range a.perm {
		a.perm[i] = int32(i)
	}
	for i := n - 1; i > 0; i-- {
		j := int(r.intn(uint64(i + 1)))
		a.perm[i], a.perm[j] = a.perm[j], a.perm[i]
	}
	return a
}

func (a *alias) sample(r *rng) int64 {
	k := r.intn(uint64(len(a.prob)))
	if r.float() >= a.prob[k] {
		k = uint64(a.alias[k])
	}
	return int64(a.perm[k])
}

// ---------- headers ----------

type header struct {
	Format        string            `json:"format"`
	Name          string            `json:"name"`
	Layout        string            `json:"layout"` // "coo" or "dense"
	Shape         []int64           `json:"shape"`
	Nnz           int64             `json:"nnz"`
	UniqueNnz     int64             `json:"unique_nnz,omitempty"`
	Duplicates    int64             `json:"duplicate_entries,omitempty"`
	IndexDtype    string            `json:"index_dtype,omitempty"`
	ValueDtype    string            `json:"value_dtype"`
	CoordsFile    string            `json:"coords_file,omitempty"`
	CoordsLayout  string            `json:"coords_layout,omitempty"`
	ValuesFile    string            `json:"values_file,omitempty"`
	DenseFile     string            `json:"dense_file,omitempty"`
	Order         string            `json:"order,omitempty"`
	Sorted        bool              `json:"sorted"`
	HasDuplicates bool              `json:"has_duplicates"`
	ValueSum      float64           `json:"value_sum"`
	Stats         map[string]any    `json:"stats,omitempty"`
	Params        map[string]any    `json:"params"`
	SHA256        map[string]string `json:"sha256"`
	GenSeconds    float64           `json:"gen_seconds"`
}

// ---------- writers ----------

func writeI64(path string, xs []int64) (string, error) {
	buf := make([]byte, 0, 1<<20)
	return writeChunks(path, len(xs), func(lo, hi int) []byte {
		buf = buf[:0]
		for _, x := range xs[lo:hi] {
			buf = binary.LittleEndian.AppendUint64(buf, uint64(x))
		}
		return buf
	})
}

func writeI32(path string, xs []int64) (string, error) {
	buf := make([]byte, 0, 1<<20)
	return writeChunks(path, len(xs), func(lo, hi int) []byte {
		buf = buf[:0]
		for _, x := range xs[lo:hi] {
			buf = binary.LittleEndian.AppendUint32(buf, uint32(int32(x)))
		}
		return buf
	})
}

func writeF64(path string, xs []float64) (string, error) {
	buf := make([]byte, 0, 1<<20)
	return writeChunks(path, len(xs), func(lo, hi int) []byte {
		buf = buf[:0]
		for _, x := range xs[lo:hi] {
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(x))
		}
		return buf
	})
}

func writeChunks(path string, n int, chunk func(lo, hi int) []byte) (string, error) {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	w := bufio.NewWriterSize(io.MultiWriter(f, h), 4<<20)
	const step = 1 << 17
	for lo := 0; lo < n; lo += step {
		hi := min(lo+step, n)
		if _, err := w.Write(chunk(lo, hi)); err != nil {
			f.Close()
			return "", err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), os.Rename(tmp, path)
}

func writeHeader(dir string, h *header) error {
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(h); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "header.json"), []byte(buf.String()), 0o644)
}

func fileSHA(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, bufio.NewReaderSize(f, 4<<20)); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// upToDate reports whether dir already holds a workload generated with the
// same params (and, if verify, that the file hashes still match).
func upToDate(dir string, params map[string]any, verify bool) bool {
	b, err := os.ReadFile(filepath.Join(dir, "header.json"))
	if err != nil {
		return false
	}
	var h header
	if json.Unmarshal(b, &h) != nil || h.Format != formatName {
		return false
	}
	// Compare params through a JSON round trip (numbers become float64).
	pb, _ := json.Marshal(params)
	var p map[string]any
	_ = json.Unmarshal(pb, &p)
	if !reflect.DeepEqual(p, h.Params) {
		return false
	}
	for name, sum := range h.SHA256 {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || fi.Size() == 0 {
			return false
		}
		if verify {
			got, err := fileSHA(filepath.Join(dir, name))
			if err != nil || got != sum {
				fmt.Fprintf(os.Stderr, "gen: %s/%s sha256 mismatch\n", dir, name)
				return false
			}
		}
	}
	return true
}

// countUnique returns the number of distinct coordinates: through int64
// linear indices when the shape's size fits, 128-bit ones when that fits,
// and by sorting coordinate tuples otherwise.
func countUnique(coords [][]int64, shape []int64) int64 {
	n := len(coords[0])
	size := uint64(1)
	wide := false
	for _, d := range shape {
		hi, lo := bits.Mul64(size, uint64(d))
		if hi != 0 || lo > math.MaxInt64 {
			wide = true
			break
		}
		size = lo
	}
	if !wide {
		lin := make([]int64, n)
		for i := 0; i < n; i++ {
			var l int64
			for m := range coords {
				l = l*shape[m] + coords[m][i]
			}
			lin[i] = l
		}
		slices.Sort(lin)
		var u int64
		for i := 0; i < n; i++ {
			if i == 0 || lin[i] != lin[i-1] {
				u++
			}
		}
		return u
	}
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = int32(i)
	}
	cmpTuple := func(a, b int32) int {
		for m := range coords {
			if x, y := coords[m][a], coords[m][b]; x != y {
				if x < y {
					return -1
				}
				return 1
			}
		}
		return 0
	}
	slices.SortFunc(idx, cmpTuple)
	var u int64
	for i := range idx {
		if i == 0 || cmpTuple(idx[i], idx[i-1]) != 0 {
			u++
		}
	}
	return u
}

func degreeStats(idx []int64, n int64) map[string]any {
	deg := make([]int64, n)
	for _, r := range idx {
		deg[r]++
	}
	var empty, maxd int64
	for _, d := range deg {
		if d == 0 {
			empty++
		}
		maxd = max(maxd, d)
	}
	slices.Sort(deg)
	return map[string]any{
		"max_degree":    maxd,
		"median_degree": deg[len(deg)/2],
		"p99_degree":    deg[len(deg)*99/100],
		"empty":         empty,
	}
}

// ---------- workloads ----------

func genCOO(dir, name string, shape []int64, nnz int64, zipf []float64, seed uint64, force, verify, int32Coords bool) error {
	params := map[string]any{"seed": seed, "shape": shape, "nnz": nnz, "zipf_s": zipf,
		"generator": "splitmix64+vose-alias, version 1"}
	if int32Coords {
		for _, d := range shape {
			if d > math.MaxInt32 {
				return fmt.Errorf("%s: dimension %d does not fit int32 coordinates", name, d)
			}
		}
		params["index_dtype"] = "<i4"
	}
	if !force && upToDate(dir, params, verify) {
		fmt.Fprintf(os.Stderr, "gen: %s up to date\n", name)
		return nil
	}
	t0 := time.Now()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	_ = os.Remove(filepath.Join(dir, "header.json"))
	ndim := len(shape)
	samplers := make([]*alias, ndim)
	for m := 0; m < ndim; m++ {
		if zipf[m] > 0 {
			samplers[m] = newZipfAlias(int(shape[m]), zipf[m], newRNG(seed, fmt.Sprintf("%s/perm%d", name, m)))
		}
	}
	flat := make([]int64, int64(ndim)*nnz)
	coords := make([][]int64, ndim)
	for m := range coords {
		coords[m] = flat[int64(m)*nnz : int64(m+1)*nnz]
	}
	vals := make([]float64, nnz)
	r := newRNG(seed, name+"/entries")
	var vsum float64
	for i := int64(0); i < nnz; i++ {
		for m := 0; m < ndim; m++ {
			if samplers[m] != nil {
				coords[m][i] = samplers[m].sample(r)
			} else {
				coords[m][i] = int64(r.intn(uint64(shape[m])))
			}
		}
		vals[i] = r.value()
		vsum += vals[i]
	}
	h := &header{Format: formatName, Name: name, Layout: "coo", Shape: shape, Nnz: nnz,
		IndexDtype: "<i8", ValueDtype: "<f8", CoordsFile: "coords.bin",
		CoordsLayout: "mode-major: int64[ndim][nnz] (C order), i.e. coords of mode 0 for all entries, then mode 1, ...",
		ValuesFile:   "values.bin", Sorted: false, ValueSum: vsum, Params: params,
		SHA256: map[string]string{}}
	h.UniqueNnz = countUnique(coords, shape)
	h.Duplicates = nnz - h.UniqueNnz
	h.HasDuplicates = h.Duplicates > 0
	h.Stats = map[string]any{}
	for m := range coords {
		h.Stats[fmt.Sprintf("mode%d_degree", m)] = degreeStats(coords[m], shape[m])
	}
	var err error
	if int32Coords {
		h.IndexDtype = "<i4"
		h.CoordsLayout = "mode-major: int32[ndim][nnz] (C order), i.e. coords of mode 0 for all entries, then mode 1, ..."
		if h.SHA256["coords.bin"], err = writeI32(filepath.Join(dir, "coords.bin"), flat); err != nil {
			return err
		}
	} else if h.SHA256["coords.bin"], err = writeI64(filepath.Join(dir, "coords.bin"), flat); err != nil {
		return err
	}
	if h.SHA256["values.bin"], err = writeF64(filepath.Join(dir, "values.bin"), vals); err != nil {
		return err
	}
	h.GenSeconds = time.Since(t0).Seconds()
	fmt.Fprintf(os.Stderr, "gen: %s shape=%v nnz=%d unique=%d in %.1fs\n", filepath.Base(dir), shape, nnz, h.UniqueNnz, h.GenSeconds)
	return writeHeader(dir, h)
}

func genDense(dir, name string, n int64, density float64, seed uint64, force, verify bool) error {
	params := map[string]any{"seed": seed, "shape": []int64{n, n}, "density": density,
		"generator": "splitmix64+selection-sampling, version 1"}
	if !force && upToDate(dir, params, verify) {
		fmt.Fprintf(os.Stderr, "gen: %s up to date\n", name)
		return nil
	}
	t0 := time.Now()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	_ = os.Remove(filepath.Join(dir, "header.json"))
	cells := n * n
	want := int64(math.Round(density * float64(cells)))
	a := make([]float64, cells)
	r := newRNG(seed, name+"/cells")
	// Knuth's Algorithm S: exactly `want` cells, uniformly, in one pass.
	var chosen int64
	var vsum float64
	for i := int64(0); i < cells && chosen < want; i++ {
		if int64(r.intn(uint64(cells-i))) < want-chosen {
			a[i] = r.value()
			vsum += a[i]
			chosen++
		}
	}
	h := &header{Format: formatName, Name: name, Layout: "dense", Shape: []int64{n, n}, Nnz: chosen,
		UniqueNnz: chosen, ValueDtype: "<f8", DenseFile: "dense.bin", Order: "C", Sorted: true,
		ValueSum: vsum, Params: params, SHA256: map[string]string{}}
	var err error
	if h.SHA256["dense.bin"], err = writeF64(filepath.Join(dir, "dense.bin"), a); err != nil {
		return err
	}
	h.GenSeconds = time.Since(t0).Seconds()
	fmt.Fprintf(os.Stderr, "gen: %s %dx%d nnz=%d in %.1fs\n", name, n, n, chosen, h.GenSeconds)
	return writeHeader(dir, h)
}

func main() {
	out := flag.String("out", "data", "output directory")
	only := flag.String("only", "a,b,c", "comma-separated workloads to generate (a,b,c,d,e)")
	seed := flag.Uint64("seed", 20240601, "master seed")
	force := flag.Bool("force", false, "regenerate even if an up-to-date copy exists")
	verify := flag.Bool("verify", false, "re-hash existing files before trusting them")
	scale := flag.Float64("scale", 1, "multiply nnz (a,b) by this factor (smoke tests)")
	aN := flag.Int64("a-n", 1_000_000, "(a) rows = cols")
	aNnz := flag.Int64("a-nnz", 10_000_000, "(a) nonzeros")
	aS := flag.Float64("a-zipf", 0.7, "(a) Zipf exponent of the row rank distribution")
	bN := flag.Int64("b-n", 10_000, "(b) size of each of the 3 modes")
	bNnz := flag.Int64("b-nnz", 10_000_000, "(b) nonzeros")
	bS := flag.Float64("b-zipf", 0.5, "(b) Zipf exponent of every mode (0 = uniform)")
	cN := flag.Int64("c-n", 4096, "(c) dense matrix is c-n x c-n")
	cD := flag.Float64("c-density", 0.01, "(c) fraction of nonzero cells")
	dNnz := flag.Int64("d-nnz", 10_000_000, "(d) nonzeros")
	eNnz := flag.Int64("e-nnz", 10_000_000, "(e) nonzeros")
	eS := flag.Float64("e-zipf", 0.5, "(e) Zipf exponent of every mode (0 = uniform)")
	dirName := flag.String("name", "", "directory name of the workload (one workload only; default: its own name)")
	int32Coords := flag.Bool("int32", false, "write int32 coordinates (<i4) instead of int64 (a, b, d, e)")
	flag.Parse()
	dirOf := func(name string) string {
		if *dirName != "" {
			return filepath.Join(*out, *dirName)
		}
		return filepath.Join(*out, name)
	}

	var errs []error
	for _, w := range strings.Split(*only, ",") {
		switch strings.TrimSpace(w) {
		case "a":
			errs = append(errs, genCOO(dirOf("a_powerlaw2d"), "a_powerlaw2d",
				[]int64{*aN, *aN}, int64(float64(*aNnz)**scale), []float64{*aS, 0}, *seed, *force, *verify, *int32Coords))
		case "b":
			errs = append(errs, genCOO(dirOf("b_tensor3d"), "b_tensor3d",
				[]int64{*bN, *bN, *bN}, int64(float64(*bNnz)**scale), []float64{*bS, *bS, *bS}, *seed, *force, *verify, *int32Coords))
		case "d":
			errs = append(errs, genCOO(dirOf("d_delicious4d"), "d_delicious4d",
				[]int64{532924, 17262471, 2480308, 1443}, int64(float64(*dNnz)**scale), []float64{0, 0, 0, 0}, *seed, *force, *verify, *int32Coords))
		case "e":
			errs = append(errs, genCOO(dirOf("e_nell2"), "e_nell2",
				[]int64{12092, 9184, 28818}, int64(float64(*eNnz)**scale), []float64{*eS, *eS, *eS}, *seed, *force, *verify, *int32Coords))
		case "c":
			errs = append(errs, genDense(dirOf("c_dense4096"), "c_dense4096", *cN, *cD, *seed, *force, *verify))
		case "":
		default:
			errs = append(errs, fmt.Errorf("unknown workload %q", w))
		}
	}
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
