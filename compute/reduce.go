package compute

import (
	"math"
	"math/bits"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/coords"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/divide"
	"github.com/arrowsparse/arrowsparse/internal/keysort"
	"github.com/arrowsparse/arrowsparse/internal/par"
	"github.com/arrowsparse/arrowsparse/views"
)

// reduction is a kind of reduction.
type reduction int8

const (
	rSum reduction = iota
	rProd
	rMin
	rMax
	rCount
	rMean
)

var reductionNames = [...]string{"Sum", "Prod", "Min", "Max", "Count", "Mean"}

func (k reduction) String() string { return reductionNames[k] }

// Sum returns the sum of x's elements over the given axes, as NumPy's
// x.sum(axis=axes): axes nil reduces over every axis (axis=None), an
// empty non-nil slice over none, and negative axes count from the end.
// Integers are summed in int64 (signed) or uint64 (unsigned), wrapping
// around as Go's arithmetic does, and the result has that type, as
// NumPy's default for small integers; float32 and float64 are summed in
// their own type and float16 in float32, rounded once at the end. See
// ReduceOptions for the format of the result. The result must be released
// by the caller.
func Sum(mem memory.Allocator, x arrowsparse.Tensor, axes []int, o ReduceOptions) (arrowsparse.Tensor, error) {
	return reduce(mem, x, rSum, axes, o)
}

// Prod returns the product of x's elements over the given axes, as NumPy's
// prod, with Sum's axes, types and result. An element of an axis that a
// stored value does not reach is an implicit zero, so the product over it
// is 0 (NaN if a stored value is NaN or infinite, as 0·Inf is); the product
// over an empty axis is 1.
func Prod(mem memory.Allocator, x arrowsparse.Tensor, axes []int, o ReduceOptions) (arrowsparse.Tensor, error) {
	return reduce(mem, x, rProd, axes, o)
}

// Min returns the smallest of x's elements over the given axes, implicit
// zeros included, as NumPy's min (NaN propagates), in x's value type, with
// Sum's axes and result. A reduction over an axis of length 0 has no
// identity and is an error wrapping arrowsparse.ErrShape, as in NumPy.
func Min(mem memory.Allocator, x arrowsparse.Tensor, axes []int, o ReduceOptions) (arrowsparse.Tensor, error) {
	return reduce(mem, x, rMin, axes, o)
}

// Max returns the largest of x's elements over the given axes, as Min
// does.
func Max(mem memory.Allocator, x arrowsparse.Tensor, axes []int, o ReduceOptions) (arrowsparse.Tensor, error) {
	return reduce(mem, x, rMax, axes, o)
}

// Count returns the number of stored values of x over the given axes, as
// int64, with Sum's axes and result: the entries of x's canonical form
// (duplicates count once; explicit zeros count). Every element of a dense
// tensor is stored.
func Count(mem memory.Allocator, x arrowsparse.Tensor, axes []int, o ReduceOptions) (arrowsparse.Tensor, error) {
	return reduce(mem, x, rCount, axes, o)
}

// Mean returns the mean of x's elements over the given axes, implicit
// zeros included, as NumPy's mean: the sum divided by the number of
// elements reduced. Integers give float64 (summed in float64); float32
// and float64 keep their type; float16 is computed in float32 and
// rounded once. The mean over an empty axis is NaN. Axes and result are
// Sum's.
func Mean(mem memory.Allocator, x arrowsparse.Tensor, axes []int, o ReduceOptions) (arrowsparse.Tensor, error) {
	return reduce(mem, x, rMean, axes, o)
}

// plan is what a reduction computes, resolved from its arguments.
type plan struct {
	kind     reduction
	shape    []int64 // the operand's
	reduced  []bool  // per axis of the operand
	outShape []int64
	outNames []string
	outAxis  []int   // per axis of the operand: its axis in the result, or -1
	outElems int64   // elements of the result; -1 if they overflow int64
	r        int64   // elements reduced per result; math.MaxInt64 if more
	rf       float64 // the same, as a float
	vt       arrow.DataType
	at, ot   arrow.DataType // accumulator and result types
	halfOut  bool           // the result is float16
	format   Format
	o        ReduceOptions
}

func newPlan(x arrowsparse.Tensor, k reduction, axes []int, o ReduceOptions) (*plan, error) {
	p := &plan{kind: k, shape: x.Shape(), vt: x.DataType(), o: o}
	if err := core.CheckValueType(p.vt); err != nil {
		return nil, err
	}
	if err := checkRequest(o.IndexType); err != nil {
		return nil, err
	}
	nd := len(p.shape)
	p.reduced = make([]bool, nd)
	if axes == nil {
		for k := range p.reduced {
			p.reduced[k] = true
		}
	}
	for _, a := range axes {
		if a < -nd || a >= nd {
			return nil, core.Errorf(arrowsparse.ErrShape, "compute: %s over axis %d of a %d-d tensor", k, a, nd)
		}
		if a < 0 {
			a += nd
		}
		if p.reduced[a] {
			return nil, core.Errorf(arrowsparse.ErrShape, "compute: %s over axis %d twice", k, a)
		}
		p.reduced[a] = true
	}
	names := x.DimNames()
	p.outAxis = make([]int, nd)
	p.r, p.rf = 1, 1
	for a, red := range p.reduced {
		p.outAxis[a] = -1
		if red {
			p.rf *= float64(p.shape[a])
			if p.r != math.MaxInt64 {
				if v, ok := core.MulInt64(p.r, p.shape[a]); ok {
					p.r = v
				} else {
					p.r = math.MaxInt64
				}
			}
			if p.shape[a] == 0 {
				p.r, p.rf = 0, 0
			}
		}
		if !red || o.KeepDims {
			p.outAxis[a] = len(p.outShape)
			d := p.shape[a]
			if red {
				d = 1
			}
			p.outShape = append(p.outShape, d)
			if names != nil {
				p.outNames = append(p.outNames, names[a])
			}
		}
	}
	if n, err := arrowsparse.NumElements(p.outShape); err == nil {
		p.outElems = n
	} else {
		p.outElems = -1
	}
	if p.r == 0 && (k == rMin || k == rMax) {
		return nil, core.Errorf(arrowsparse.ErrShape, "compute: %s over an axis of length 0 has no identity", k)
	}
	p.at, p.ot = reductionTypes(k, p.vt)
	p.halfOut = p.ot.ID() == arrow.FLOAT16
	p.format = o.Format
	if p.format == Auto {
		p.format = COO
		if p.outElems >= 0 && (p.outElems <= max(x.NNZ(), 1) || isDense(x)) {
			p.format = Dense
		}
	}
	return p, nil
}

func isDense(x arrowsparse.Tensor) bool {
	_, ok := x.(arrowsparse.Dense)
	return ok
}

// reductionTypes returns the accumulator and result types of a reduction
// of values of type vt.
func reductionTypes(k reduction, vt arrow.DataType) (acc, out arrow.DataType) {
	if k == rCount {
		return arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64
	}
	switch kindOf(vt) {
	case kindSigned:
		switch k {
		case rSum, rProd:
			return arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64
		case rMean:
			return arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Float64
		}
	case kindUnsigned:
		switch k {
		case rSum, rProd:
			return arrow.PrimitiveTypes.Uint64, arrow.PrimitiveTypes.Uint64
		case rMean:
			return arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Float64
		}
	}
	if vt.ID() == arrow.FLOAT16 {
		return arrow.PrimitiveTypes.Float32, vt
	}
	return vt, vt
}

func reduce(mem memory.Allocator, x arrowsparse.Tensor, k reduction, axes []int, o ReduceOptions) (arrowsparse.Tensor, error) {
	p, err := newPlan(x, k, axes, o)
	if err != nil {
		return nil, err
	}
	if p.r == 0 || (k == rCount && isDense(x)) {
		return p.filled(mem)
	}
	// Sums in the value type need no canonical form: duplicates add up
	// either way. Everything else sees each element's value: duplicates
	// combined in the value type (wrapping, or rounding to float16).
	canon := (k != rSum && k != rMean) || !arrow.TypeEqual(p.vt, p.at)
	c, err := toCOO(mem, x, o.Workers, canon)
	if err != nil {
		return nil, err
	}
	defer c.Release()
	switch p.at.ID() {
	case arrow.INT64:
		return reduceAs[int64](mem, p, c)
	case arrow.UINT64:
		return reduceAs[uint64](mem, p, c)
	case arrow.INT8:
		return reduceAs[int8](mem, p, c)
	case arrow.INT16:
		return reduceAs[int16](mem, p, c)
	case arrow.INT32:
		return reduceAs[int32](mem, p, c)
	case arrow.UINT8:
		return reduceAs[uint8](mem, p, c)
	case arrow.UINT16:
		return reduceAs[uint16](mem, p, c)
	case arrow.UINT32:
		return reduceAs[uint32](mem, p, c)
	case arrow.FLOAT32:
		return reduceAs[float32](mem, p, c)
	}
	return reduceAs[float64](mem, p, c)
}

// filled returns the result of a reduction whose every element is the
// same: over an empty axis (0 for Sum and Count, 1 for Prod, NaN for
// Mean), or Count of a dense tensor (the number of elements reduced).
func (p *plan) filled(mem memory.Allocator) (arrowsparse.Tensor, error) {
	var fill float64
	switch p.kind {
	case rProd:
		fill = 1
	case rMean:
		fill = math.NaN()
	case rCount:
		fill = float64(p.r)
	}
	if fill == 0 && p.format != Dense {
		// Nothing to store: an empty sparse result, whatever its shape.
		it, err := chooseIndex(p.o.IndexType, p.indexType(), max(maxDim(p.outShape)-1, 0), "the coordinates of the result")
		if err != nil {
			return nil, err
		}
		c, err := buildCOO(mem, p.outShape, p.outNames, nil, p.ot, nil, 0, it, true)
		if err != nil {
			return nil, err
		}
		defer c.Release()
		return p.sparse(mem, c)
	}
	if p.outElems < 0 {
		return nil, core.Errorf(arrowsparse.ErrOverflow, "compute: the result of %s, of shape %v, has more elements than int64 counts", p.kind, p.outShape)
	}
	v, err := views.Alloc(mem, p.ot, p.outShape)
	if err != nil {
		return nil, err
	}
	if fill != 0 {
		// One word, so that the bytes are 8-aligned wherever the compiler
		// puts them (a [8]byte on the stack need not be).
		var word [1]uint64
		b := core.BytesOf(word[:])
		putFloat(b, p.ot, fill, p.r)
		w := arrowsparse.ByteWidth(p.ot)
		out, _ := storedValues(v)
		for i := 0; i < len(out); i += w {
			copy(out[i:i+w], b[:w])
		}
	}
	return p.finish(mem, v)
}

// putFloat writes f (or, for an int64 result, n) as the first value of b,
// of type dt.
func putFloat(b []byte, dt arrow.DataType, f float64, n int64) {
	switch dt.ID() {
	case arrow.FLOAT16:
		core.MustSliceBytes[float16.Num](b[:2])[0] = halfOf64(f)
	case arrow.FLOAT32:
		core.MustSliceBytes[float32](b[:4])[0] = float32(f)
	case arrow.FLOAT64:
		core.MustSliceBytes[float64](b[:8])[0] = f
	case arrow.UINT64:
		core.MustSliceBytes[uint64](b[:8])[0] = uint64(f)
	default:
		if f == 1 {
			n = 1
		}
		core.MustSliceBytes[int64](b[:8])[0] = n
	}
}

// finish returns a dense result v (whose reference it takes over) in the
// plan's format, with the plan's dim names.
func (p *plan) finish(mem memory.Allocator, v *views.View) (arrowsparse.Tensor, error) {
	if p.outNames != nil {
		defer v.Release()
		var err error
		if v, err = v.WithDimNames(p.outNames...); err != nil {
			return nil, err
		}
	}
	if p.format == Dense {
		return v, nil
	}
	defer v.Release()
	c, err := coo.FromDense(mem, v, coo.ConvertOptions{IndexType: p.indexType(), Workers: p.o.Workers})
	if err != nil {
		return nil, err
	}
	if p.format == COO {
		return c, nil
	}
	defer c.Release()
	return p.sparse(mem, c)
}

// indexType returns the index type of a sparse result.
func (p *plan) indexType() arrow.DataType {
	if p.o.IndexType != nil {
		return p.o.IndexType
	}
	return arrowsparse.SmallestIndexType(max(maxDim(p.outShape)-1, 0))
}

// sparse converts a canonical COO result to the plan's sparse format.
func (p *plan) sparse(mem memory.Allocator, c *coo.Tensor) (arrowsparse.Tensor, error) {
	if p.format == COO {
		c.Retain()
		return c, nil
	}
	tg, err := targetOf(c, p.format, p.outShape)
	if err != nil {
		return nil, err
	}
	r, err := conform(mem, c, tg, p.o.Workers)
	if err != nil {
		return nil, err
	}
	if p.o.IndexType == nil {
		return r, nil
	}
	return retype(mem, r, p.o.IndexType, nil)
}

// keyer gives each entry of the operand the key of the result element it
// reduces into; keys sort in the row-major order of the result.
type keyer struct {
	keys   []uint64 // per entry, in storage order
	bits   uint     // keys are below 1<<bits
	sorted bool     // keys never decrease in storage order
	// coords writes the coordinates of the result element of key k.
	coords func(k uint64, dst []int64)
}

// linearKeyer keys entries by the row-major linear index of their result
// element. The result's element count must fit in int64.
func (p *plan) linearKeyer(c *coo.Tensor) keyer {
	nd := len(p.shape)
	mul := make([]uint64, nd)
	m := uint64(1)
	for a := nd - 1; a >= 0; a-- {
		if j := p.outAxis[a]; j >= 0 && !p.reduced[a] {
			mul[a] = m
			m *= uint64(p.outShape[j])
		}
	}
	n := int(c.NNZ())
	out := make([]uint64, n)
	kr := keyer{keys: out, bits: uint(bits.Len64(uint64(max(p.outElems-1, 0))))}
	w := workersFor(p.o.Workers, int64(n))
	unsorted := make([]bool, w)
	par.Do(w, func(i int) {
		lo, hi := n*i/w, n*(i+1)/w
		cooKeys(c, mul, int64(lo), int64(hi), out)
		for j := lo + 1; j < hi; j++ {
			if out[j] < out[j-1] {
				unsorted[i] = true
				break
			}
		}
	})
	kr.sorted = !slices.Contains(unsorted, true)
	for i := 1; i < w && kr.sorted; i++ {
		j := n * i / w
		kr.sorted = j == 0 || j >= n || out[j] >= out[j-1]
	}
	shape := p.outShape
	divs := make([]divide.Divider, len(shape))
	for j, d := range shape {
		divs[j] = divide.New(uint64(max(d, 1)))
	}
	kr.coords = func(k uint64, dst []int64) {
		for j := len(shape) - 1; j >= 0; j-- {
			q, r := divs[j].DivMod(k)
			dst[j] = int64(r)
			k = q
		}
	}
	return kr
}

// cooKeys writes Σ_a coord[i][a]·mul[a] to keys[i] for the entries
// [lo, hi) of c.
func cooKeys(c *coo.Tensor, mul []uint64, lo, hi int64, keys []uint64) {
	switch c.IndexType().ID() {
	case arrow.INT8:
		cooKeysOf[int8](c, mul, lo, hi, keys)
	case arrow.INT16:
		cooKeysOf[int16](c, mul, lo, hi, keys)
	case arrow.INT32:
		cooKeysOf[int32](c, mul, lo, hi, keys)
	case arrow.INT64:
		cooKeysOf[int64](c, mul, lo, hi, keys)
	case arrow.UINT8:
		cooKeysOf[uint8](c, mul, lo, hi, keys)
	case arrow.UINT16:
		cooKeysOf[uint16](c, mul, lo, hi, keys)
	case arrow.UINT32:
		cooKeysOf[uint32](c, mul, lo, hi, keys)
	}
}

func cooKeysOf[I arrowsparse.Index](c *coo.Tensor, mul []uint64, lo, hi int64, keys []uint64) {
	cs, _ := coo.Coords[I](c)
	nd := int64(len(mul))
	keys = keys[lo:hi]
	clear(keys)
	if c.Layout() == coo.RowMajor {
		cs = cs[lo*nd : hi*nd]
		for a, m := range mul {
			if m == 0 {
				continue
			}
			for i := range keys {
				keys[i] += uint64(cs[int64(i)*nd+int64(a)]) * m
			}
		}
		return
	}
	n := c.NNZ()
	for a, m := range mul {
		if m == 0 {
			continue
		}
		col := cs[int64(a)*n+lo : int64(a)*n+hi]
		for i, x := range col {
			keys[i] += uint64(x) * m
		}
	}
}

// rankKeyer keys entries by the rank of their result coordinates among
// the distinct ones, for results with more elements than int64 counts.
// The result coordinates are keyed by one 64-bit word per part of the
// result's axes (coords.Linearize) and sorted once by the radix sort of
// the sparse formats (keysort.Carry), carrying each entry's number; the
// ranks follow from one pass over the sorted order.
func (p *plan) rankKeyer(c *coo.Tensor) keyer {
	nd := len(p.shape)
	n := int(c.NNZ())
	lin := coords.Linearize(p.outShape, nil)
	w := len(lin.KeyBits)
	strides := make([][]uint64, w)
	for q := range w {
		strides[q] = make([]uint64, nd)
		for a := range nd {
			if j := p.outAxis[a]; j >= 0 && !p.reduced[a] {
				strides[q][a] = lin.Strides[q][j]
			}
		}
	}
	var data []byte
	if b := c.CoordsBuffer(); b != nil {
		data = b.Bytes()
	}
	m := coords.Matrix{Type: c.IndexType(), Data: data, N: c.NNZ(), Shape: c.Shape(), ColMajor: c.Layout() == coo.ColMajor}
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = int64(i)
	}
	perm := make([]int64, n) // entries in result order, ties in storage order
	first := make([]bool, n) // perm[j] has other result coordinates than perm[j-1]
	srt := keysort.Carry{
		N:       n,
		KeyBits: lin.KeyBits,
		Workers: workersFor(p.o.Workers, int64(n)),
		Keys:    m.Ops().Keys(m, strides),
		In:      core.BytesOf(ids),
		VW:      8,
		Reduce: func(pos int, b *keysort.Bucket) int {
			vs := core.MustSliceBytes[int64](b.Vals)
			for i, x := range b.Words {
				perm[pos+i] = vs[b.Entry(x)]
				// Equal keys never straddle two buckets, and within one
				// equal keys have equal key numbers.
				first[pos+i] = i == 0 || x>>b.IB != b.Words[i-1]>>b.IB
			}
			return len(b.Words)
		},
	}
	srt.Run()
	ids = nil
	kr := keyer{keys: make([]uint64, n), sorted: true}
	var reps []int64 // an entry of each rank
	rank := uint64(0)
	for j, e := range perm {
		if j > 0 && first[j] {
			rank++
		}
		if j == 0 || first[j] {
			reps = append(reps, e)
		}
		kr.keys[e] = rank
	}
	for i := 1; i < n && kr.sorted; i++ {
		kr.sorted = kr.keys[i] >= kr.keys[i-1]
	}
	kr.bits = uint(bits.Len64(rank))
	iop := m.Ops()
	kr.coords = func(k uint64, dst []int64) {
		e := reps[k]
		for a := range nd {
			if j := p.outAxis[a]; j >= 0 {
				if p.reduced[a] {
					dst[j] = 0
				} else {
					dst[j] = iop.At(m, e, a)
				}
			}
		}
	}
	return kr
}
