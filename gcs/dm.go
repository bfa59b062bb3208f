package gcs

import (
	"iter"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/coords"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/debug"
	"github.com/arrowsparse/arrowsparse/internal/keysort"
	"github.com/arrowsparse/arrowsparse/internal/strided"
	"github.com/arrowsparse/arrowsparse/internal/vals"
	"github.com/arrowsparse/arrowsparse/views"
)

// DM is a dimensions-mapping tensor (the DM proposal): a wrapper of some shape
// over a storage tensor of lower or equal rank, in any format. Each storage
// dimension k is the C-order linearisation of a group of wrapper axes, as
// in a GCS mapping with any number of parts. Slicing, integer indexing and
// permuting the axes of a DM change only its parameters, never the
// storage, whatever the storage's format. It is immutable once built; see
// the package documentation (# DM).
type DM struct {
	refCount atomic.Int64
	shape    []int64            // wrapper shape
	names    []string           // nil or one per wrapper axis
	groups   [][]factor         // per storage dimension, most significant first
	storage  arrowsparse.Tensor // retained
	kind     storeKind
	nnzOnce  sync.Once
	nnz      int64
}

var _ arrowsparse.Tensor = (*DM)(nil)

// factor is one wrapper axis of a group, or the trace of an axis removed by
// integer indexing. In its group's linearisation it counts size positions
// with stride stride; the factor index i_f of wrapper index x is start +
// step·x (or start itself for a fixed factor).
type factor struct {
	size   int64 // length of the factor in the storage linearisation
	stride int64 // C-order stride of the factor in its storage dimension
	axis   int   // wrapper axis, or -1 for a fixed factor
	start  int64 // factor index of wrapper index 0, or the fixed index
	step   int64 // factor index increment per wrapper index
	div    keysort.Divider
}

type storeKind int8

const (
	storeDense storeKind = iota
	storeCOO
	storeMatrix
	storeDM
)

// NewDM returns the DM tensor of the given shape over storage, with the
// axis permutation dims and the partitioning: the non-decreasing positions
// 0 ≤ p_1 ≤ … ≤ p_m ≤ N that cut dims into m+1 groups, group k (the axes
// dims[p_k:p_{k+1}], linearised in C order) being storage dimension k. The
// storage must have rank m+1 and its dimension k the product of the sizes
// of group k. The DM proposal asks for 0 < p_1 < … < p_m < N; an empty group is
// accepted here as a storage dimension of length 1.
//
// storage may be a dense tensor (arrowsparse.Dense, such as *views.View), a
// *coo.Tensor, a *Matrix (CSR or CSC), a *Tensor (GCS, seen as the DM of
// its own mapping) or a *DM (hierarchical storage). It is shared without
// copying and retained. A non-permutation dims or a bad partitioning is an
// error wrapping arrowsparse.ErrStructure, a shape that does not match the storage
// one wrapping arrowsparse.ErrShape (arrowsparse.ErrOverflow if a group's size overflows),
// and another storage format one wrapping arrowsparse.ErrUnsupportedType. The
// result must be released by the caller.
func NewDM(shape []int64, dims []int, partitioning []int, storage arrowsparse.Tensor) (*DM, error) {
	if storage == nil {
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "gcs: nil DM storage")
	}
	if err := core.CheckShape(shape); err != nil {
		return nil, err
	}
	n := len(shape)
	if err := core.CheckPermutation(dims, n, "gcs: dimensions"); err != nil {
		return nil, err
	}
	prev := 0
	for _, p := range partitioning {
		if p < prev || p > n {
			return nil, core.Errorf(arrowsparse.ErrStructure, "gcs: partitioning %v is not a non-decreasing sequence in [0, %d]", partitioning, n)
		}
		prev = p
	}
	if dn, ok := storage.(arrowsparse.Dense); ok {
		// Any Dense is read through a checked view.
		v, err := views.Of(dn)
		if err != nil {
			return nil, err
		}
		defer v.Release()
		storage = v
	}
	kind, err := storeKindOf(storage)
	if err != nil {
		return nil, err
	}
	sshape := storage.Shape()
	if len(sshape) != len(partitioning)+1 {
		return nil, core.Errorf(arrowsparse.ErrShape, "gcs: a partitioning of %d positions needs a storage of rank %d, not %d", len(partitioning), len(partitioning)+1, len(sshape))
	}
	cuts := append(append([]int{0}, partitioning...), n)
	d := &DM{
		shape:  slices.Clone(shape),
		groups: make([][]factor, len(sshape)),
		kind:   kind,
	}
	for k := range d.groups {
		axes := dims[cuts[k]:cuts[k+1]]
		strides := make([]int64, len(axes))
		size, err := groupStrides(shape, axes, strides)
		if err != nil {
			return nil, err
		}
		if size != sshape[k] {
			return nil, core.Errorf(arrowsparse.ErrShape, "gcs: wrapper dimensions %v of shape %v have %d elements, but storage dimension %d has length %d", axes, shape, size, k, sshape[k])
		}
		g := make([]factor, len(axes))
		for i, a := range axes {
			g[i] = factor{size: shape[a], stride: strides[i], axis: a, step: 1, div: keysort.NewDivider(uint64(max(shape[a], 1)))}
		}
		d.groups[k] = g
	}
	if t, ok := storage.(*Tensor); ok {
		inner := t.DM()
		storage, d.kind = inner, storeDM
	} else {
		storage.Retain()
	}
	d.storage = storage
	d.refCount.Store(1)
	return d, nil
}

func storeKindOf(s arrowsparse.Tensor) (storeKind, error) {
	switch s.(type) {
	case *coo.Tensor:
		return storeCOO, nil
	case *Matrix:
		return storeMatrix, nil
	case *DM, *Tensor:
		return storeDM, nil
	case arrowsparse.Dense:
		return storeDense, nil
	}
	return 0, core.Errorf(arrowsparse.ErrUnsupportedType, "gcs: a DM cannot store a %s tensor of type %T (use a strided view, COO, CSR, CSC, GCS or DM; a remapped view must be copied or made strided with AsView first)", s.Format(), s)
}

// DM returns the tensor as a DM over its storage matrix, with the tensor's
// shape, dims and partitioning: a GCS tensor is a DM of two parts. The DM
// shares the storage (retaining it) and must be released by the caller.
func (t *Tensor) DM() *DM {
	d, err := NewDM(t.mp.shape, t.mp.dims, []int{t.mp.split}, t.m)
	if err != nil {
		panic(arrowsparse.PanicError{Msg: "gcs: " + err.Error()}) // a valid tensor always maps
	}
	d.names = core.CloneDimNames(t.names)
	return d
}

// derive returns a copy of the parameters, sharing and retaining the
// storage; the caller adjusts the shape and the factors.
func (d *DM) derive() *DM {
	out := &DM{
		shape:   slices.Clone(d.shape),
		names:   slices.Clone(d.names),
		groups:  make([][]factor, len(d.groups)),
		storage: d.storage,
		kind:    d.kind,
	}
	for k, g := range d.groups {
		out.groups[k] = slices.Clone(g)
	}
	d.storage.Retain()
	out.refCount.Store(1)
	return out
}

// Retain increases the reference count by 1.
// Retain may be called simultaneously from multiple goroutines.
func (d *DM) Retain() { d.refCount.Add(1) }

// Release decreases the reference count by 1.
// When the reference count goes to zero, the storage is released.
// Release may be called simultaneously from multiple goroutines.
func (d *DM) Release() {
	n := d.refCount.Add(-1)
	debug.Assert(n >= 0, "gcs: too many releases of a DM")
	if n == 0 {
		d.storage.Release()
		d.storage = nil
	}
}

// Format returns arrowsparse.FormatDM.
func (d *DM) Format() arrowsparse.Format { return arrowsparse.FormatDM }

// DataType returns the type of the values: the storage's.
func (d *DM) DataType() arrow.DataType { return d.storage.DataType() }

// Shape returns a copy of the wrapper shape.
func (d *DM) Shape() []int64 { return append([]int64(nil), d.shape...) }

// NumDims returns the rank of the wrapper.
func (d *DM) NumDims() int { return len(d.shape) }

// DimNames returns a copy of the wrapper's dimension names, or nil.
func (d *DM) DimNames() []string { return core.CloneDimNames(d.names) }

// Storage returns the storage tensor. It shares memory with the DM: the DM
// must outlive it, or it must be retained. A DM built over a GCS tensor
// stores that tensor's DM.
func (d *DM) Storage() arrowsparse.Tensor { return d.storage }

// WithDimNames returns the DM with the given wrapper dimension names (one
// per axis, or none), sharing its storage. The result must be released by
// the caller.
func (d *DM) WithDimNames(names ...string) (*DM, error) {
	if err := core.CheckDimNames(names, len(d.shape)); err != nil {
		return nil, err
	}
	out := d.derive()
	out.names = core.CloneDimNames(names)
	return out, nil
}

// NNZ returns the number of stored elements inside the wrapper: all of its
// elements over dense storage, the elements that the slice selects
// otherwise. For sparse storage that was sliced or indexed the first call
// counts them in one pass (as All does) and remembers the count.
func (d *DM) NNZ() int64 {
	d.nnzOnce.Do(func() {
		if d.kind == storeDense {
			d.nnz, _ = arrowsparse.NumElements(d.shape)
			return
		}
		if d.isWhole() {
			d.nnz = d.storage.NNZ()
			return
		}
		d.each(func([]int64, int64) bool { d.nnz++; return true })
	})
	return d.nnz
}

// isWhole reports whether every storage element is inside the wrapper.
func (d *DM) isWhole() bool {
	for _, g := range d.groups {
		for _, f := range g {
			if f.axis < 0 || f.start != 0 || (f.step != 1 && f.size > 1) || d.shape[f.axis] != f.size {
				return false
			}
		}
	}
	return true
}

// Dims returns the wrapper axes of each storage dimension, in order,
// concatenated: the DM proposal's dimensions. Axes removed by Index do not appear.
func (d *DM) Dims() []int {
	var out []int
	for _, g := range d.groups {
		for _, f := range g {
			if f.axis >= 0 {
				out = append(out, f.axis)
			}
		}
	}
	return out
}

// Partitioning returns the positions in Dims that start storage
// dimensions 1, 2, …: the DM proposal's partitioning. After Index removed every
// axis of a group, two positions may be equal.
func (d *DM) Partitioning() []int {
	out := make([]int, 0, len(d.groups)-1)
	n := 0
	for k, g := range d.groups {
		if k > 0 {
			out = append(out, n)
		}
		for _, f := range g {
			if f.axis >= 0 {
				n++
			}
		}
	}
	return out
}

// Reduction returns the internal parameters of the reference implementation of the DM proposal, which
// make slicing and permuting copy-free: for each storage dimension k, the
// wrapper axes that map onto it (rdimensions[k]), their signed strides in
// it (rstrides[k]), and its offset (roffset[k]), so that storage index k of
// the wrapper index idx is
//
//	roffset[k] + Σ_i rstrides[k][i]·idx[rdimensions[k][i]].
func (d *DM) Reduction() (rdimensions [][]int, rstrides [][]int64, roffset []int64) {
	rdimensions = make([][]int, len(d.groups))
	rstrides = make([][]int64, len(d.groups))
	roffset = make([]int64, len(d.groups))
	for k, g := range d.groups {
		for _, f := range g {
			roffset[k] += f.stride * f.start
			if f.axis >= 0 {
				rdimensions[k] = append(rdimensions[k], f.axis)
				rstrides[k] = append(rstrides[k], f.stride*f.step)
			}
		}
	}
	return rdimensions, rstrides, roffset
}

// Slice returns the DM of the elements selected by one views.Range per
// axis, with Python's slice semantics (negative bounds count from the end,
// bounds are clamped, a negative step reverses, a step of 0 is an error
// wrapping arrowsparse.ErrOutOfRange). Missing trailing ranges select whole axes.
// The storage is shared, never copied or read: only the parameters change.
// The result must be released by the caller.
func (d *DM) Slice(ranges ...views.Range) (*DM, error) {
	if len(ranges) > len(d.shape) {
		return nil, core.Errorf(arrowsparse.ErrShape, "gcs: %d ranges for a %d-d DM", len(ranges), len(d.shape))
	}
	type sel struct{ start, step, n int64 }
	sels := make([]sel, len(ranges))
	for a, r := range ranges {
		s, st, n, err := r.Resolve(d.shape[a])
		if err != nil {
			return nil, err
		}
		sels[a] = sel{s, st, n}
	}
	out := d.derive()
	for _, g := range out.groups {
		for i := range g {
			f := &g[i]
			if f.axis < 0 || f.axis >= len(sels) {
				continue
			}
			s := sels[f.axis]
			f.start += f.step * s.start
			if s.n > 1 {
				f.step *= s.step
			}
		}
	}
	for a, s := range sels {
		out.shape[a] = s.n
	}
	return out, nil
}

// Index returns the DM of the elements whose index on axis is i, with that
// axis removed: NumPy's a[..., i, ...]. A negative axis or i counts from the
// end; an axis or index out of range is an error wrapping arrowsparse.ErrOutOfRange.
// The storage is shared, never copied: the axis becomes a fixed offset in
// its storage dimension. The result must be released by the caller.
func (d *DM) Index(axis int, i int64) (*DM, error) {
	n := len(d.shape)
	if axis < 0 {
		axis += n
	}
	if axis < 0 || axis >= n {
		return nil, core.Errorf(arrowsparse.ErrOutOfRange, "gcs: axis %d is outside a %d-d DM", axis, n)
	}
	if i < 0 {
		i += d.shape[axis]
	}
	if i < 0 || i >= d.shape[axis] {
		return nil, core.Errorf(arrowsparse.ErrOutOfRange, "gcs: index %d is outside axis %d of length %d", i, axis, d.shape[axis])
	}
	out := d.derive()
	for _, g := range out.groups {
		for j := range g {
			f := &g[j]
			switch {
			case f.axis == axis:
				f.start += f.step * i
				f.step = 1
				f.axis = -1
			case f.axis > axis:
				f.axis--
			}
		}
	}
	out.shape = slices.Delete(out.shape, axis, axis+1)
	if out.names != nil {
		out.names = core.CloneDimNames(slices.Delete(out.names, axis, axis+1))
	}
	return out, nil
}

// Transpose returns the DM with its axes permuted: axis k of the result is
// axis perm[k] of the receiver; with no arguments the axes are reversed. The
// storage is shared, never copied: only the axis numbers in the parameters
// change. A perm that is not a permutation is an error wrapping
// arrowsparse.ErrStructure. The result must be released by the caller.
func (d *DM) Transpose(perm ...int) (*DM, error) {
	n := len(d.shape)
	if len(perm) == 0 {
		perm = make([]int, n)
		for k := range perm {
			perm[k] = n - 1 - k
		}
	}
	if err := core.CheckPermutation(perm, n, "gcs: axis permutation"); err != nil {
		return nil, err
	}
	inv := make([]int, n)
	for k, p := range perm {
		inv[p] = k
	}
	out := d.derive()
	for _, g := range out.groups {
		for j := range g {
			if g[j].axis >= 0 {
				g[j].axis = inv[g[j].axis]
			}
		}
	}
	for k, p := range perm {
		out.shape[k] = d.shape[p]
		if out.names != nil {
			out.names[k] = d.names[p]
		}
	}
	return out, nil
}

// SwapAxes returns the DM with axes a and b exchanged (negative axes count
// from the end), without copying. The result must be released by the
// caller.
func (d *DM) SwapAxes(a, b int) (*DM, error) {
	n := len(d.shape)
	if a < 0 {
		a += n
	}
	if b < 0 {
		b += n
	}
	if a < 0 || a >= n || b < 0 || b >= n {
		return nil, core.Errorf(arrowsparse.ErrOutOfRange, "gcs: axes %d and %d are not both axes of a %d-d DM", a, b, n)
	}
	perm := make([]int, n)
	for k := range perm {
		perm[k] = k
	}
	perm[a], perm[b] = b, a
	return d.Transpose(perm...)
}

// forward writes the storage index of the wrapper index idx to s.
func (d *DM) forward(idx, s []int64) {
	for k, g := range d.groups {
		var x int64
		for _, f := range g {
			i := f.start
			if f.axis >= 0 {
				i += f.step * idx[f.axis]
			}
			x += f.stride * i
		}
		s[k] = x
	}
}

// invert writes to idx the wrapper indices of the axes of group k encoded
// in the storage index x, and reports whether x is inside the wrapper.
func (d *DM) invert(k int, x int64, idx []int64) bool {
	g := d.groups[k]
	u := uint64(x)
	for j := len(g) - 1; j >= 0; j-- {
		f := &g[j]
		q, r := f.div.DivMod(u)
		u = q
		i := int64(r)
		if f.axis < 0 {
			if i != f.start {
				return false
			}
			continue
		}
		t := i - f.start
		if f.step != 1 {
			if t%f.step != 0 {
				return false
			}
			t /= f.step
		}
		if t < 0 || t >= d.shape[f.axis] {
			return false
		}
		idx[f.axis] = t
	}
	return u == 0
}

// bounds returns the smallest and largest storage index of group k that
// the wrapper reaches. The wrapper must not be empty.
func (d *DM) bounds(k int) (lo, hi int64) {
	for _, f := range d.groups[k] {
		a, b := f.start, f.start
		if f.axis >= 0 {
			b = f.start + f.step*(d.shape[f.axis]-1)
			if b < a {
				a, b = b, a
			}
		}
		lo += f.stride * a
		hi += f.stride * b
	}
	return lo, hi
}

// empty reports whether the wrapper has no elements.
func (d *DM) empty() bool {
	for _, n := range d.shape {
		if n == 0 {
			return true
		}
	}
	return false
}

// each calls f with the wrapper index and the position in the innermost
// storage's value buffer of every stored element inside the wrapper, until
// f returns false. It returns false if f did. The index slice is reused.
func (d *DM) each(f func(idx []int64, p int64) bool) bool {
	if d.empty() {
		return true
	}
	switch d.kind {
	case storeDense:
		return d.eachDense(f)
	case storeCOO:
		return d.eachCOO(f)
	case storeMatrix:
		return d.eachMatrix(f)
	}
	inner := d.storage.(*DM)
	idx := make([]int64, len(d.shape))
	return inner.each(func(s []int64, p int64) bool {
		for k := range d.groups {
			if !d.invert(k, s[k], idx) {
				return true
			}
		}
		return f(idx, p)
	})
}

// eachDense visits every wrapper index in row-major order: over dense
// storage the DM is a strided view.
func (d *DM) eachDense(f func([]int64, int64) bool) bool {
	off, strides := d.denseLayout()
	return strided.Walk(d.shape, strides, off, f)
}

// denseLayout returns the element offset and strides of the strided view
// that the DM is over dense storage.
func (d *DM) denseLayout() (int64, []int64) {
	dn := d.storage.(arrowsparse.Dense)
	ds := dn.ElemStrides()
	off := dn.ElemOffset()
	strides := make([]int64, len(d.shape))
	for k, g := range d.groups {
		for _, f := range g {
			off += ds[k] * f.stride * f.start
			if f.axis >= 0 {
				strides[f.axis] = ds[k] * f.stride * f.step
			}
		}
	}
	return off, strides
}

// eachCOO scans the COO entries, restricted by binary search to the range
// of the first storage dimension when the COO is canonical.
func (d *DM) eachCOO(f func([]int64, int64) bool) bool {
	t := d.storage.(*coo.Tensor)
	fm := formsOf(t)
	n := t.NNZ()
	lo, hi := int64(0), n
	nd := len(d.groups)
	if t.IsCanonical() && nd > 0 && n > 0 {
		a, b := d.bounds(0)
		lo = searchCOO(fm, n, nd, a)
		hi = searchCOO(fm, n, nd, b+1)
	}
	idx := make([]int64, len(d.shape))
	step := core.ChunkEntries(nd, hi-lo)
	buf := make([]int64, step*int64(max(nd, 1)))
	for a := lo; a < hi; a += step {
		b := min(a+step, hi)
		fm.coords(int(a), int(b), buf)
	entries:
		for q := range b - a {
			s := buf[q*int64(nd) : (q+1)*int64(nd)]
			for k := range nd {
				if !d.invert(k, s[k], idx) {
					continue entries
				}
			}
			if !f(idx, a+q) {
				return false
			}
		}
	}
	return true
}

// searchCOO returns the first entry of a canonical COO whose first
// coordinate is ≥ x.
func searchCOO(fm cooForms, n int64, nd int, x int64) int64 {
	lo, hi := int64(0), n
	c := make([]int64, nd)
	for lo < hi {
		mid := int64(uint64(lo+hi) >> 1)
		fm.coords(int(mid), int(mid+1), c)
		if c[0] < x {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// eachMatrix visits the lanes that the wrapper reaches, and within each
// only the entries in the reachable range of indices when the lanes are
// sorted.
func (d *DM) eachMatrix(f func([]int64, int64) bool) bool {
	m := d.storage.(*Matrix)
	km, kn := 0, 1 // storage dimensions of the lanes and of the indices
	if m.axis == Cols {
		km, kn = 1, 0
	}
	ix := m.ix()
	lo, hi := d.bounds(kn)
	idx := make([]int64, len(d.shape))
	buf := make([]int64, chunk)
	// Enumerate the wrapper indices of the lane group: each gives one lane.
	g := d.groups[km]
	var shape, strides []int64
	var axes []int
	base := int64(0)
	for _, fc := range g {
		base += fc.stride * fc.start
		if fc.axis >= 0 {
			axes = append(axes, fc.axis)
			shape = append(shape, d.shape[fc.axis])
			strides = append(strides, fc.stride*fc.step)
		}
	}
	return strided.Walk(shape, strides, base, func(sub []int64, lane int64) bool {
		for i, a := range axes {
			idx[a] = sub[i]
		}
		a, b := ix.lane(m, lane)
		if m.sorted {
			a = ix.lowerBound(m, a, b, lo)
		}
		for c := a; c < b; c += chunk {
			e := min(c+chunk, b)
			ix.indices(m, c, e, buf)
			for q, j := range buf[:e-c] {
				if j > hi && m.sorted {
					return true
				}
				if d.invert(kn, j, idx) && !f(idx, c+int64(q)) {
					return false
				}
			}
		}
		return true
	})
}

// leafValues returns the value bytes of the innermost storage, into which
// the positions that each and find give point.
func (d *DM) leafValues() []byte {
	var b []byte
	switch s := d.storage.(type) {
	case *DM:
		return s.leafValues()
	case *coo.Tensor:
		if s.ValuesBuffer() != nil {
			b = s.ValuesBuffer().Bytes()
		}
	case *Matrix:
		if s.values != nil {
			b = s.values.Bytes()
		}
	case arrowsparse.Dense:
		b = s.Buffer().Bytes()
	}
	return b // whole elements: constructors keep exactly those
}

// find appends to dst the positions in the innermost value buffer of the
// elements stored at the wrapper index idx (already checked).
func (d *DM) find(idx []int64, dst []int64) []int64 {
	s := make([]int64, len(d.groups))
	d.forward(idx, s)
	switch st := d.storage.(type) {
	case *DM:
		return st.find(s, dst)
	case *coo.Tensor:
		return findCOO(st, s, dst)
	case *Matrix:
		k, j := s[0], s[1]
		if st.axis == Cols {
			k, j = j, k
		}
		ix := st.ix()
		if st.sorted {
			lo, hi := ix.search(st, k, j)
			for p := lo; p < hi; p++ {
				dst = append(dst, p)
			}
			return dst
		}
		return ix.scan(st, k, j, dst)
	case arrowsparse.Dense:
		p := st.ElemOffset()
		for k, v := range st.ElemStrides() {
			p += v * s[k]
		}
		return append(dst, p)
	}
	return dst
}

// findCOO appends the entries of t at coordinates s: by binary search in a
// canonical tensor, by a scan otherwise.
func findCOO(t *coo.Tensor, s []int64, dst []int64) []int64 {
	fm := formsOf(t)
	n := t.NNZ()
	nd := len(s)
	c := make([]int64, nd)
	cmp := func(i int64) int {
		fm.coords(int(i), int(i+1), c)
		for k := range nd {
			if c[k] != s[k] {
				if c[k] < s[k] {
					return -1
				}
				return 1
			}
		}
		return 0
	}
	if t.IsCanonical() {
		lo, hi := int64(0), n
		for lo < hi {
			mid := int64(uint64(lo+hi) >> 1)
			if cmp(mid) < 0 {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if lo < n && cmp(lo) == 0 {
			dst = append(dst, lo)
		}
		return dst
	}
	for i := range n {
		if cmp(i) == 0 {
			dst = append(dst, i)
		}
	}
	return dst
}

func (d *DM) checkIndex(idx []int64) {
	if len(idx) != len(d.shape) {
		panic(arrowsparse.PanicError{Msg: "gcs: index rank does not match the DM's rank"})
	}
	for k, i := range idx {
		if uint64(i) >= uint64(d.shape[k]) {
			panic(arrowsparse.PanicError{Msg: "gcs: index out of range"})
		}
	}
}

func mustDMType[T arrowsparse.Value](d *DM) {
	if !arrowsparse.TypeMatches[T](d.DataType()) {
		panic(arrowsparse.PanicError{Msg: "gcs: Go type " + arrowsparse.DataTypeOf[T]().String() + " does not match the DM's type " + d.DataType().String()})
	}
}

func dmAt[T arrowsparse.Value](d *DM, idx []int64) T {
	mustDMType[T](d)
	d.checkIndex(idx)
	perm := d.find(idx, nil)
	var zero T
	if len(perm) == 0 {
		return zero
	}
	vs := core.MustSliceBytes[T](d.leafValues())
	if len(perm) == 1 {
		return vs[perm[0]]
	}
	out := []T{zero}
	vals.For(d.DataType()).ReducePerm(core.BytesOf(vs), core.BytesOf(out), 0, perm, []int64{0, int64(len(perm))}, arrowsparse.SumDuplicates)
	return out[0]
}

func dmAll[T arrowsparse.Value](d *DM) iter.Seq2[[]int64, T] {
	mustDMType[T](d)
	return func(yield func([]int64, T) bool) {
		vs := core.MustSliceBytes[T](d.leafValues())
		d.each(func(idx []int64, p int64) bool { return yield(idx, vs[p]) })
	}
}

// ToDense returns a new row-major dense view of the DM's elements, in a
// buffer from mem, with duplicates summed. The result must be released by
// the caller.
func (d *DM) ToDense(mem memory.Allocator) (arrowsparse.Dense, error) {
	size, err := arrowsparse.NumElements(d.shape)
	if err != nil {
		return nil, err
	}
	if _, ok := core.MulInt64(size, int64(arrowsparse.ByteWidth(d.DataType()))); !ok {
		return nil, core.Errorf(arrowsparse.ErrOverflow, "gcs: dense size of shape %v overflows int64 bytes", d.shape)
	}
	if d.kind == storeDense {
		// A DM over dense storage is a strided view: copy it.
		dn := d.storage.(arrowsparse.Dense)
		off, strides := d.denseLayout()
		if d.empty() {
			off = 0
		}
		v, err := views.New(d.DataType(), dn.Buffer(), off, d.shape, strides)
		if err != nil {
			return nil, err
		}
		defer v.Release()
		c, err := v.Copy(mem, views.CopyOptions{})
		if err != nil {
			return nil, err
		}
		defer c.Release()
		return c.WithDimNames(d.names...)
	}
	v, err := views.AllocNamed(mem, d.DataType(), d.shape, d.names)
	if err != nil {
		return nil, err
	}
	strides, _ := arrowsparse.RowMajorStrides(d.shape)
	vt := d.DataType()
	vop := vals.For(vt)
	w := int64(arrowsparse.ByteWidth(vt))
	in := d.leafValues()
	dense := v.Buffer().Bytes()
	pos, perm := make([]int64, 0, chunk), make([]int64, 0, chunk)
	stage := make([]byte, chunk*w)
	flush := func() {
		vop.Gather(in, stage, perm)
		vop.Scatter(dense, pos, stage, 0, arrowsparse.SumDuplicates, nil)
		pos, perm = pos[:0], perm[:0]
	}
	d.each(func(idx []int64, p int64) bool {
		var q int64
		for a, i := range idx {
			q += i * strides[a]
		}
		pos, perm = append(pos, q), append(perm, p)
		if len(pos) == chunk {
			flush()
		}
		return true
	})
	flush()
	return v, nil
}

// ToCOO materialises the DM's elements as a COO tensor with row-major
// coordinates of type o.IndexType (by default the narrowest signed type
// that holds every coordinate of the shape) in new buffers from mem, in the
// order All yields them; zeros of dense storage are left out. The result
// must be released by the caller.
func (d *DM) ToCOO(mem memory.Allocator, o ConvertOptions) (*coo.Tensor, error) {
	it := o.IndexType
	if it == nil {
		var big int64
		for _, n := range d.shape {
			big = max(big, n-1)
		}
		it = arrowsparse.SmallestIndexType(big)
	}
	if err := core.CheckIndexType(it); err != nil {
		return nil, err
	}
	for k, n := range d.shape {
		if n-1 > arrowsparse.IndexMax(it) {
			return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "gcs: index type %s cannot hold coordinates of dimension %d (size %d)", it, k, n)
		}
	}
	if d.kind == storeDense {
		dn, err := d.ToDense(mem)
		if err != nil {
			return nil, err
		}
		defer dn.Release()
		return coo.FromDense(mem, dn, coo.ConvertOptions{IndexType: it})
	}
	vt := d.DataType()
	n := d.NNZ()
	nd := int64(len(d.shape))
	w := int64(arrowsparse.ByteWidth(vt))
	cb := core.NewBuffer(mem, n*nd*int64(arrowsparse.ByteWidth(it)))
	vb := core.NewBuffer(mem, n*w)
	defer cb.Release()
	defer vb.Release()
	iop, vop := coords.For(it), vals.For(vt)
	in := d.leafValues()
	stage := make([]int64, 0, chunk*max(nd, 1))
	perm := make([]int64, 0, chunk)
	var at int64
	flush := func() {
		iop.Put(cb.Bytes(), at*nd, stage)
		vop.Gather(in, vb.Bytes()[at*w:], perm)
		at += int64(len(perm))
		stage, perm = stage[:0], perm[:0]
	}
	d.each(func(idx []int64, p int64) bool {
		stage, perm = append(stage, idx...), append(perm, p)
		if len(perm) == chunk {
			flush()
		}
		return true
	})
	flush()
	var opts []coo.Option
	if d.names != nil {
		opts = append(opts, coo.WithDimNames(d.names...))
	}
	return coo.New(vt, it, d.shape, cb, coo.RowMajor, vb, n, opts...)
}

// ToGCS materialises the DM's elements as a GCS tensor with the mapping
// o.Mapping (see ConvertOptions), in new buffers from mem, through ToCOO
// and FromCOO. The result must be released by the caller.
func (d *DM) ToGCS(mem memory.Allocator, o ConvertOptions) (*Tensor, error) {
	c, err := d.ToCOO(mem, ConvertOptions{Workers: o.Workers})
	if err != nil {
		return nil, err
	}
	defer c.Release()
	return FromCOO(mem, c, o)
}

// ToMatrix materialises a 2-d DM as a canonical CSR (axis Rows) or CSC
// (axis Cols) matrix in new buffers from mem. The result must be released
// by the caller.
func (d *DM) ToMatrix(mem memory.Allocator, axis Axis, o ConvertOptions) (*Matrix, error) {
	if len(d.shape) != 2 {
		return nil, core.Errorf(arrowsparse.ErrShape, "gcs: a %d-d DM is not a matrix", len(d.shape))
	}
	c, err := d.ToCOO(mem, ConvertOptions{Workers: o.Workers})
	if err != nil {
		return nil, err
	}
	defer c.Release()
	return MatrixFromCOO(mem, c, axis, o)
}
