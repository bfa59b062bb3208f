package gcs

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/debug"
	"github.com/arrowsparse/arrowsparse/internal/divide"
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
	div    divide.Divider
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
			g[i] = factor{size: shape[a], stride: strides[i], axis: a, step: 1, div: divide.New(uint64(max(shape[a], 1)))}
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
