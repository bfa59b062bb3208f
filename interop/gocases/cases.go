package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/tools/describe"
)

var (
	valueTypes = []arrow.DataType{
		arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
		arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64,
		arrow.FixedWidthTypes.Float16, arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64,
	}
	indexTypes = []arrow.DataType{
		arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
		arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32,
	}
)

// Sparse message kinds: the format and, for COO, the coordinate layout and
// for GCS the storage axis.
var sparseKinds = []string{"coo", "coo-colmajor", "csr", "csc", "csf", "gcs-csr", "gcs-csc"}

// Shape classes. Every sparse kind is generated in every class; a class a
// format cannot hold is mapped to the nearest it can (a 1-d "vector" is a
// [1, n] matrix for CSR, a 0-d "scalar" a [1, 1] one).
var sparseClasses = []string{"empty", "zero-dim", "vector", "scalar", "named", "random", "full", "special", "large"}

// Dense kinds and classes: column-major and strided views need two axes
// longer than one to differ from row-major, so they get the classes that
// have them.
var (
	denseKinds   = []string{"tensor", "tensor-colmajor", "tensor-strided"}
	denseClasses = map[string][]string{
		"tensor":          {"scalar", "vector", "zero-size", "unit", "named", "random", "special", "large"},
		"tensor-colmajor": {"zero-size", "named", "random", "special", "large"},
		"tensor-strided":  {"named", "random", "special", "large"},
	}
)

// sparseCase chooses the content of one sparse case.
// A rank ≥ 0 overrides the class's choice of rank.
func sparseCase(rng *rand.Rand, kind string, vt, it, pt arrow.DataType, class string, rank int) *sparseSpec {
	s := &sparseSpec{vt: vt, it: it, pt: pt}
	minR, maxR := 0, 5
	dups := false
	switch kind {
	case "coo", "coo-colmajor":
		s.format, dups = "COO", true
		if kind == "coo-colmajor" {
			s.layout = coo.ColMajor
		}
	case "csr", "csc":
		s.format, minR, maxR, dups = map[string]string{"csr": "CSR", "csc": "CSC"}[kind], 2, 2, true
	case "csf":
		s.format, minR = "CSF", 2
	case "gcs-csr", "gcs-csc":
		s.format, maxR = "GCS", 4
		if kind == "gcs-csc" {
			s.axis = gcs.Cols
		}
	}
	// Every count Arrow C++ checks against the index types (nnz, rows+1,
	// level sizes+1, ndim) and every coordinate stays below lim.
	lim := arrowsparse.IndexMax(it)
	if pt != nil {
		lim = min(lim, arrowsparse.IndexMax(pt))
	}
	lim--
	r := minR + rng.IntN(maxR-minR+1)
	if rank >= 0 {
		r = rank
	}
	var shape []int64
	nnz := int64(0)
	special := false
	switch class {
	case "empty":
		shape = randShape(rng, r, 6)
	case "zero-dim":
		shape = randShape(rng, max(r, 1), 6)
		shape[rng.IntN(len(shape))] = 0
	case "vector":
		if minR <= 1 {
			shape = []int64{1 + rng.Int64N(min(lim, 60))}
		} else {
			shape = onesShape(minR)
			shape[rng.IntN(minR)] = 1 + rng.Int64N(min(lim, 40))
		}
		nnz = -2 // 1 to size
	case "scalar":
		shape = onesShape(minR)
		nnz = 1
	case "named", "random", "special":
		shape = randShape(rng, r, 7)
		nnz = rng.Int64N(30)
		special = class == "special"
	case "full":
		shape = randShape(rng, r, 4)
		nnz = -1
	case "large":
		r = max(minR, min(r, 3), 2)
		if maxR < 2 {
			r = maxR
		}
		shape = randShape(rng, r, min(lim, 3000))
		nnz = 200 + rng.Int64N(1500)
	}
	if s.format == "GCS" {
		s.dims = rng.Perm(len(shape))
		s.part = rng.IntN(len(shape) + 1)
		// The reduced matrix must fit the index types as well.
		for {
			rows, cols := reducedShape(shape, s.dims, s.part)
			if rows <= lim-1 && cols <= lim {
				break
			}
			k := slices.Index(shape, slices.Max(shape))
			shape[k] = max(1, shape[k]/2)
		}
	}
	for k := range shape {
		shape[k] = min(shape[k], lim)
	}
	size := int64(1)
	for _, n := range shape {
		size *= n
	}
	switch {
	case nnz == -2:
		nnz = 1 + rng.Int64N(size)
	case nnz < 0 || nnz > size:
		nnz = size
	}
	nnz = min(nnz, lim)
	if s.format == "CSF" {
		// Each level has at most nnz nodes; nnz+1 must fit the indptr type.
		nnz = min(nnz, lim-1)
	}
	s.shape = shape
	if class == "named" || rng.IntN(5) == 0 {
		s.names = randNames(rng, len(shape))
		if s.format == "GCS" {
			// The N-d names travel in JSON custom metadata, which holds
			// Unicode text only.
			s.names = randUTF8Names(rng, len(shape))
		}
	}
	if s.format == "CSF" {
		s.order = rng.Perm(len(shape))
	}
	coords := pickCoords(rng, shape, nnz)
	distinct := len(coords)
	// Duplicates (summed in the description) for the formats that allow
	// them, in the classes meant to be irregular.
	if dups && (class == "random" || class == "large" || class == "special" || class == "scalar" && rng.IntN(2) == 0) && len(coords) > 0 {
		extra := rng.IntN(len(coords)/3 + 2)
		for range extra {
			if int64(len(coords)) >= lim {
				break
			}
			coords = append(coords, coords[rng.IntN(len(coords))])
		}
	}
	zeros := class == "random" || class == "special"
	e := describe.NewEntries(len(shape), int64(len(coords)))
	for _, c := range coords {
		v := randValue(rng, vt, special)
		if zeros && rng.IntN(8) == 0 {
			v = zeroValue(rng, vt)
		}
		e.Append(v, c...)
	}
	switch s.format {
	case "COO":
		// Storage order: shuffled for the irregular classes, sorted
		// otherwise; a sorted tensor claims canonicality two times in three.
		if class == "random" || class == "large" || class == "special" || class == "vector" || len(coords) > distinct {
			e = shuffled(rng, e)
		} else {
			e = e.Canonical(vt)
		}
		canon := e.Canonical(vt)
		s.claim = canon.Len() == e.Len() && slices.Equal(canon.Coords, e.Coords) && rng.IntN(3) != 0
	case "CSR", "CSC":
		axis := gcs.Rows
		if s.format == "CSC" {
			axis = gcs.Cols
		}
		e = sortedByLane(e, axis)
		if class == "random" || class == "large" || class == "special" {
			e = shuffledWithinLanes(rng, e, axis)
		}
	}
	s.raw = e
	return s
}

func onesShape(r int) []int64 {
	s := make([]int64, r)
	for k := range s {
		s[k] = 1
	}
	return s
}

// randShape returns r dimensions of 1..maxDim, with a total size kept
// moderate (at most about 200,000 elements).
func randShape(rng *rand.Rand, r int, maxDim int64) []int64 {
	s := make([]int64, r)
	size := int64(1)
	for k := range s {
		hi := max(1, min(maxDim, 200000/size))
		s[k] = 1 + rng.Int64N(hi)
		size *= s[k]
	}
	rng.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	return s
}

// pickCoords returns n distinct coordinates inside shape, in random order.
func pickCoords(rng *rand.Rand, shape []int64, n int64) [][]int64 {
	size := int64(1)
	for _, d := range shape {
		size *= d
	}
	n = min(n, size)
	var lin []int64
	if n*2 > size {
		lin = make([]int64, size)
		for i := range lin {
			lin[i] = int64(i)
		}
		rng.Shuffle(len(lin), func(i, j int) { lin[i], lin[j] = lin[j], lin[i] })
		lin = lin[:n]
	} else {
		seen := map[int64]bool{}
		for int64(len(lin)) < n {
			x := rng.Int64N(size)
			if !seen[x] {
				seen[x] = true
				lin = append(lin, x)
			}
		}
	}
	out := make([][]int64, len(lin))
	for i, x := range lin {
		c := make([]int64, len(shape))
		for k := len(shape) - 1; k >= 0; k-- {
			c[k] = x % shape[k]
			x /= shape[k]
		}
		out[i] = c
	}
	return out
}

func shuffled(rng *rand.Rand, e *describe.Entries) *describe.Entries {
	perm := rng.Perm(e.Len())
	out := describe.NewEntries(e.NDim, int64(e.Len()))
	for _, i := range perm {
		out.Append(e.Values[i], e.At(i)...)
	}
	return out
}

// shuffledWithinLanes shuffles the entries of each lane of a matrix whose
// entries are grouped by lane.
func shuffledWithinLanes(rng *rand.Rand, e *describe.Entries, axis gcs.Axis) *describe.Entries {
	lane := 0
	if axis == gcs.Cols {
		lane = 1
	}
	out := describe.NewEntries(2, int64(e.Len()))
	for lo := 0; lo < e.Len(); {
		hi := lo
		for hi < e.Len() && e.At(hi)[lane] == e.At(lo)[lane] {
			hi++
		}
		for _, i := range rng.Perm(hi - lo) {
			out.Append(e.Values[lo+i], e.At(lo+i)...)
		}
		lo = hi
	}
	return out
}

// namePool ends with the one name that is not UTF-8.
var namePool = []string{"row", "col", "depth", "batch", "größe", "日本語", "with space", `quote"d`, `back\slash`, "tab\there", "", "x", "ünïcödé→", "bad\xff"}

func randNames(rng *rand.Rand, n int) []string {
	names := make([]string, n)
	for k := range names {
		names[k] = namePool[rng.IntN(len(namePool))]
	}
	return names
}

// randUTF8Names leaves out names that are not UTF-8, which Arrow C++
// carries but pyarrow cannot decode (dense messages go to pyarrow too).
func randUTF8Names(rng *rand.Rand, n int) []string {
	names := make([]string, n)
	for k := range names {
		names[k] = namePool[rng.IntN(len(namePool)-1)]
	}
	return names
}

func isFloat(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
		return true
	}
	return false
}

func signed(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		return true
	}
	return false
}

func zeroValue(rng *rand.Rand, vt arrow.DataType) uint64 {
	if isFloat(vt) && rng.IntN(2) == 0 {
		return describe.FloatBits(vt, math.Copysign(0, -1))
	}
	return 0
}

// randValue returns the bits of a random value of type vt: small values
// mostly, any bit pattern sometimes, and with special set the extremes:
// minimum, maximum, ±2^53±1, NaN, infinities, negative zero, subnormals.
func randValue(rng *rand.Rand, vt arrow.DataType, special bool) uint64 {
	w := arrowsparse.ByteWidth(vt)
	mask := uint64(math.MaxUint64)
	if w < 8 {
		mask = uint64(1)<<(8*w) - 1
	}
	if isFloat(vt) {
		if special {
			choices := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1),
				math.SmallestNonzeroFloat64, math.MaxFloat64, 65504, math.Ldexp(1, -24), math.Ldexp(1, -14),
				math.MaxFloat32, math.SmallestNonzeroFloat32, 0.1, -1.0 / 3}
			if rng.IntN(3) == 0 {
				return rng.Uint64() & mask // any pattern, NaN payloads included
			}
			return describe.FloatBits(vt, choices[rng.IntN(len(choices))])
		}
		if rng.IntN(6) == 0 {
			for {
				x := rng.Uint64() & mask
				if d := describe.Float64(vt, x); !math.IsNaN(d) && !math.IsInf(d, 0) {
					return x
				}
			}
		}
		return describe.FloatBits(vt, float64(rng.IntN(801)-400)/8)
	}
	if special {
		bits := uint(8 * w)
		var choices []uint64
		if signed(vt) {
			minV := uint64(1) << (bits - 1)
			choices = []uint64{minV, minV - 1, mask, 1, 0, minV + 1}
		} else {
			choices = []uint64{mask, mask - 1, 1 << (bits - 1), 0, 1}
		}
		if w == 8 {
			big := uint64(1) << 53
			choices = append(choices, big, big+1, -(big + 1), -big)
		}
		if rng.IntN(3) == 0 {
			return rng.Uint64() & mask
		}
		return choices[rng.IntN(len(choices))] & mask
	}
	if rng.IntN(6) == 0 {
		return rng.Uint64() & mask
	}
	if signed(vt) {
		return uint64(rng.IntN(101)-50) & mask
	}
	return uint64(rng.IntN(101)) & mask
}

// denseCase chooses the content of one dense case.
func denseCase(rng *rand.Rand, kind string, vt arrow.DataType, class string) *denseSpec {
	d := &denseSpec{vt: vt, layout: map[string]string{"tensor": "C", "tensor-colmajor": "F", "tensor-strided": "strided"}[kind]}
	// Column-major and strided shapes have at least two axes longer than 1.
	twoLong := func(s []int64) []int64 {
		for len(s) < 2 {
			s = append(s, 1)
		}
		long := 0
		for _, n := range s {
			if n > 1 {
				long++
			}
		}
		for k := 0; long < 2 && k < len(s); k++ {
			if s[k] <= 1 {
				s[k] = 2 + rng.Int64N(3)
				long++
			}
		}
		return s
	}
	special := false
	switch class {
	case "scalar":
		d.shape = []int64{}
	case "vector":
		d.shape = []int64{rng.Int64N(3001)}
	case "zero-size":
		d.shape = randShape(rng, 1+rng.IntN(4), 5)
		d.shape[rng.IntN(len(d.shape))] = 0
	case "unit":
		d.shape = onesShape(1 + rng.IntN(4))
		d.shape[rng.IntN(len(d.shape))] = 1 + rng.Int64N(6)
	case "named", "random", "special":
		d.shape = randShape(rng, 2+rng.IntN(4), 6)
		special = class == "special"
	case "large":
		d.shape = randShape(rng, 2+rng.IntN(2), 60)
	}
	if class == "named" || rng.IntN(5) == 0 {
		d.names = randUTF8Names(rng, len(d.shape))
	}
	if d.layout != "C" && class != "zero-size" {
		d.shape = twoLong(d.shape)
		if d.names != nil {
			d.names = randUTF8Names(rng, len(d.shape))
		}
	}
	size := int64(1)
	for _, n := range d.shape {
		size *= n
	}
	d.values = make([]uint64, size)
	for i := range d.values {
		d.values[i] = randValue(rng, vt, special)
		if rng.IntN(4) == 0 {
			d.values[i] = zeroValue(rng, vt)
		}
	}
	if d.layout == "strided" {
		d.steps = make([]int64, len(d.shape))
		for k := range d.steps {
			d.steps[k] = 1 + rng.Int64N(3)
		}
		// At least one axis longer than 1 skips elements.
		for k, n := range d.shape {
			if n > 1 {
				d.steps[k] = max(d.steps[k], 2)
				break
			}
		}
		d.offset = rng.Int64N(5)
	}
	return d
}

// name returns the file name of a case.
func caseName(i int, kind string, vt, it, pt arrow.DataType, class string) string {
	s := fmt.Sprintf("%04d-%s-%s", i, kind, describe.TypeName(vt))
	if it != nil {
		s += "-idx_" + describe.TypeName(it)
	}
	if pt != nil && !arrow.TypeEqual(pt, it) {
		s += "-ptr_" + describe.TypeName(pt)
	}
	return s + "-" + class
}
