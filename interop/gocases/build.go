package main

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/tools/describe"
	"github.com/arrowsparse/arrowsparse/views"
)

// sparseSpec is the content and layout of a sparse message, chosen by the
// generator (or read from a sidecar), from which both the tensor and the
// expected descriptions are made.
type sparseSpec struct {
	format     string // "COO", "CSR", "CSC", "CSF" or "GCS"
	vt, it, pt arrow.DataType
	shape      []int64
	names      []string
	// raw holds the entries in storage order for COO, CSR and CSC (lanes
	// ascending for CSR/CSC, any order within a lane, duplicates allowed);
	// CSF and GCS take distinct coordinates in any order and store them
	// sorted.
	raw    *describe.Entries
	layout coo.Layout // COO
	claim  bool       // COO isCanonical
	order  []int      // CSF axis order
	dims   []int      // GCS axis permutation
	part   int        // GCS partitioning
	axis   gcs.Axis   // GCS storage
}

// denseSpec is the content and memory layout of a dense message.
type denseSpec struct {
	vt     arrow.DataType
	shape  []int64
	names  []string
	values []uint64 // row-major logical order
	layout string   // "C", "F" or "strided"
	steps  []int64  // strided: step per axis
	offset int64    // strided: offset of element 0 in the buffer
}

// newBuffer returns a zeroed buffer of n bytes from mem (aligned, unlike a
// tiny Go allocation).
func newBuffer(mem memory.Allocator, n int64) *memory.Buffer {
	b := memory.NewResizableBuffer(mem)
	b.Resize(int(n))
	clear(b.Bytes())
	return b
}

func store(b []byte, w int, x uint64) {
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

// encode returns a buffer holding xs as values of type dt (integers as
// their two's complement, truncated to the width).
func encode(mem memory.Allocator, dt arrow.DataType, xs []uint64) *memory.Buffer {
	w := arrowsparse.ByteWidth(dt)
	b := newBuffer(mem, int64(len(xs)*w))
	for i, x := range xs {
		store(b.Bytes()[i*w:], w, x)
	}
	return b
}

func encodeInts(mem memory.Allocator, dt arrow.DataType, xs []int64) *memory.Buffer {
	u := make([]uint64, len(xs))
	for i, x := range xs {
		u[i] = uint64(x)
	}
	return encode(mem, dt, u)
}

// reduced returns the (row, column) of a GCS index under dims and part,
// from the formulas of the GCS introduction (the GCS introduction): row-major
// linearisation of the row dimensions and of the column dimensions.
func reduced(shape []int64, dims []int, part int, idx []int64) (row, col int64) {
	for _, d := range dims[:part] {
		row = row*shape[d] + idx[d]
	}
	for _, d := range dims[part:] {
		col = col*shape[d] + idx[d]
	}
	return row, col
}

// reducedShape returns the rows and columns of the GCS reduced matrix.
func reducedShape(shape []int64, dims []int, part int) (rows, cols int64) {
	rows, cols = 1, 1
	for _, d := range dims[:part] {
		rows *= shape[d]
	}
	for _, d := range dims[part:] {
		cols *= shape[d]
	}
	return rows, cols
}

// gcsMatrix returns the entries of the reduced matrix of a GCS spec, in
// storage order (lanes ascending, indices increasing), and its shape.
func (s *sparseSpec) gcsMatrix() (*describe.Entries, []int64) {
	e := describe.NewEntries(2, int64(s.raw.Len()))
	for i := range s.raw.Len() {
		r, c := reduced(s.shape, s.dims, s.part, s.raw.At(i))
		e.Append(s.raw.Values[i], r, c)
	}
	rows, cols := reducedShape(s.shape, s.dims, s.part)
	return sortedByLane(e, s.axis), []int64{rows, cols}
}

// sortedByLane returns matrix entries sorted by (row, column) for CSR or
// (column, row) for CSC.
func sortedByLane(e *describe.Entries, axis gcs.Axis) *describe.Entries {
	perm := make([]int, e.Len())
	for i := range perm {
		perm[i] = i
	}
	lane, minor := 0, 1
	if axis == gcs.Cols {
		lane, minor = 1, 0
	}
	slices.SortStableFunc(perm, func(a, b int) int {
		x, y := e.At(a), e.At(b)
		return cmp.Or(cmp.Compare(x[lane], y[lane]), cmp.Compare(x[minor], y[minor]))
	})
	out := describe.NewEntries(2, int64(e.Len()))
	for _, i := range perm {
		out.Append(e.Values[i], e.At(i)...)
	}
	return out
}

// buildMatrix builds a CSR or CSC matrix from (row, column) entries in
// storage order.
func buildMatrix(mem memory.Allocator, axis gcs.Axis, shape []int64, vt, pt, it arrow.DataType, e *describe.Entries, names []string) (*gcs.Matrix, error) {
	lanes, lane, minor := shape[0], 0, 1
	if axis == gcs.Cols {
		lanes, lane, minor = shape[1], 1, 0
	}
	ptr := make([]int64, lanes+1)
	idx := make([]int64, e.Len())
	for i := range e.Len() {
		c := e.At(i)
		ptr[c[lane]+1]++
		idx[i] = c[minor]
	}
	for k := range lanes {
		ptr[k+1] += ptr[k]
	}
	pb, ib, vb := encodeInts(mem, pt, ptr), encodeInts(mem, it, idx), encode(mem, vt, e.Values)
	defer pb.Release()
	defer ib.Release()
	defer vb.Release()
	return gcs.New(vt, pt, it, shape, axis, pb, ib, vb, int64(e.Len()), gcs.WithDimNames(names...))
}

// csfLevels returns the CSF tree of distinct coordinates under an axis
// order: the indices and indptr of each level and the values in tree
// order.
func csfLevels(e *describe.Entries, order []int) (indices, indptr [][]int64, values []uint64) {
	nd := len(order)
	perm := make([]int, e.Len())
	for i := range perm {
		perm[i] = i
	}
	key := func(i int) []int64 {
		c := e.At(i)
		k := make([]int64, nd)
		for l, d := range order {
			k[l] = c[d]
		}
		return k
	}
	slices.SortFunc(perm, func(a, b int) int { return slices.Compare(key(a), key(b)) })
	indices = make([][]int64, nd)
	indptr = make([][]int64, nd-1)
	var prev []int64
	for _, i := range perm {
		k := key(i)
		d := 0
		if prev != nil {
			for d < nd-1 && k[d] == prev[d] {
				d++
			}
		}
		for l := d; l < nd; l++ {
			if l < nd-1 {
				indptr[l] = append(indptr[l], int64(len(indices[l+1])))
			}
			indices[l] = append(indices[l], k[l])
		}
		values = append(values, e.Values[i])
		prev = k
	}
	for l := range nd - 1 {
		indptr[l] = append(indptr[l], int64(len(indices[l+1])))
	}
	return indices, indptr, values
}

// build makes the tensor of a sparse spec with the library's constructors
// over buffers holding exactly the chosen indices and values.
func (s *sparseSpec) build(mem memory.Allocator) (arrowsparse.Tensor, error) {
	switch s.format {
	case "COO":
		n, nd := int64(s.raw.Len()), len(s.shape)
		coords := make([]int64, 0, n*int64(nd))
		if s.layout == coo.ColMajor {
			for k := range nd {
				for i := range s.raw.Len() {
					coords = append(coords, s.raw.At(i)[k])
				}
			}
		} else {
			coords = append(coords, s.raw.Coords...)
		}
		cb, vb := encodeInts(mem, s.it, coords), encode(mem, s.vt, s.raw.Values)
		defer cb.Release()
		defer vb.Release()
		return coo.New(s.vt, s.it, s.shape, cb, s.layout, vb, n, coo.WithDimNames(s.names...), coo.WithCanonicalClaim(s.claim))
	case "CSR", "CSC":
		axis := gcs.Rows
		if s.format == "CSC" {
			axis = gcs.Cols
		}
		return buildMatrix(mem, axis, s.shape, s.vt, s.pt, s.it, s.raw, s.names)
	case "CSF":
		indices, indptr, values := csfLevels(s.raw, s.order)
		levels := make([]csf.Level, len(s.shape))
		for l := range levels {
			levels[l] = csf.Level{Indices: encodeInts(mem, s.it, indices[l]), IndexType: s.it, Len: int64(len(indices[l]))}
			if l < len(indptr) {
				levels[l].Indptr, levels[l].IndptrType = encodeInts(mem, s.pt, indptr[l]), s.pt
			}
		}
		defer func() {
			for _, l := range levels {
				l.Indices.Release()
				if l.Indptr != nil {
					l.Indptr.Release()
				}
			}
		}()
		vb := encode(mem, s.vt, values)
		defer vb.Release()
		return csf.New(s.vt, s.shape, s.order, levels, vb, int64(len(values)), csf.WithDimNames(s.names...))
	case "GCS":
		e, shape := s.gcsMatrix()
		m, err := buildMatrix(mem, s.axis, shape, s.vt, s.pt, s.it, e, nil)
		if err != nil {
			return nil, err
		}
		defer m.Release()
		g, err := gcs.NewTensor(s.shape, s.dims, s.part, m)
		if err != nil || len(s.names) == 0 {
			return g, err
		}
		defer g.Release()
		return g.WithDimNames(s.names...)
	}
	return nil, fmt.Errorf("unknown format %q", s.format)
}

// cooStrides returns the byte strides of an n × nd coordinate matrix as
// Arrow C++ writes them: [w, w] when the matrix has no elements.
func cooStrides(layout coo.Layout, n, nd, w int64) []int64 {
	switch {
	case n == 0 || nd == 0:
		return []int64{w, w}
	case layout == coo.ColMajor:
		return []int64{w, n * w}
	}
	return []int64{nd * w, w}
}

// expected returns what Arrow C++ reads from the message (peer) and what
// this library's dump prints (self); they differ only for GCS, which Arrow
// C++ sees as its reduced matrix.
func (s *sparseSpec) expected() (peer, self *describe.Content) {
	c := &describe.Content{
		Format:    s.format,
		ValueType: s.vt,
		IndexType: s.it,
		Shape:     s.shape,
		DimNames:  core.CloneDimNames(s.names),
		NNZ:       int64(s.raw.Len()),
		Entries:   s.raw.Canonical(s.vt),
	}
	switch s.format {
	case "COO":
		c.IsCanonical = s.claim
		c.IndicesStrides = cooStrides(s.layout, c.NNZ, int64(len(s.shape)), int64(arrowsparse.ByteWidth(s.it)))
	case "CSR", "CSC":
		c.IndptrType = s.pt
	case "CSF":
		c.IndptrType = s.pt
		c.AxisOrder = s.order
	case "GCS":
		c.IndptrType = s.pt
		c.Dimensions = s.dims
		c.Partitioning = []int{s.part}
		e, shape := s.gcsMatrix()
		p := &describe.Content{
			Format:     "CSR",
			ValueType:  s.vt,
			IndexType:  s.it,
			IndptrType: s.pt,
			Shape:      shape,
			NNZ:        int64(e.Len()),
			Entries:    e.Canonical(s.vt),
		}
		if s.axis == gcs.Cols {
			p.Format = "CSC"
		}
		return p, c
	}
	return c, c
}

// elemStrides returns row-major (C) or column-major (F) element strides.
func elemStrides(shape []int64, f bool) []int64 {
	s := make([]int64, len(shape))
	acc := int64(1)
	if f {
		for k := range shape {
			s[k] = acc
			acc *= shape[k]
		}
		return s
	}
	for k := len(shape) - 1; k >= 0; k-- {
		s[k] = acc
		acc *= shape[k]
	}
	return s
}

// build makes the view of a dense spec: the values placed in a buffer in
// the chosen memory layout.
func (d *denseSpec) build(mem memory.Allocator) (arrowsparse.Tensor, error) {
	w := int64(arrowsparse.ByteWidth(d.vt))
	size := int64(len(d.values))
	var strides []int64
	var off, extent int64
	switch d.layout {
	case "F":
		strides = elemStrides(d.shape, true)
		extent = size
	case "strided":
		// A parent row-major array of shape shape·steps (plus one), viewed
		// every steps[k]-th element, from an offset.
		parent := make([]int64, len(d.shape))
		for k, n := range d.shape {
			parent[k] = n*d.steps[k] + 1
		}
		ps := elemStrides(parent, false)
		strides = make([]int64, len(d.shape))
		extent = d.offset + 1
		for k := range d.shape {
			strides[k] = ps[k] * d.steps[k]
			extent += (d.shape[k] - 1) * strides[k]
		}
		off = d.offset
	default:
		strides = elemStrides(d.shape, false)
		extent = size
	}
	buf := newBuffer(mem, max(extent, 0)*w)
	defer buf.Release()
	b := buf.Bytes()
	for i := range b { // junk between the elements of a strided view
		b[i] = byte(i*7 + 3)
	}
	idx := make([]int64, len(d.shape))
	for _, x := range d.values {
		p := off
		for k := range idx {
			p += idx[k] * strides[k]
		}
		store(b[p*w:], int(w), x)
		for k := len(idx) - 1; k >= 0; k-- {
			idx[k]++
			if idx[k] < d.shape[k] {
				break
			}
			idx[k] = 0
		}
	}
	if size == 0 {
		strides = make([]int64, len(d.shape))
	}
	v, err := views.New(d.vt, buf, off, d.shape, strides)
	if err != nil || len(d.names) == 0 {
		return v, err
	}
	defer v.Release()
	return v.WithDimNames(d.names...)
}

// expected returns the description of the message this library writes for
// the spec: row- or column-major strides as laid out (Arrow C++'s rule of
// one element everywhere for a shape without elements), a row-major copy
// of a strided view, names kept.
func (d *denseSpec) expected() *describe.Content {
	w := int64(arrowsparse.ByteWidth(d.vt))
	es := elemStrides(d.shape, d.layout == "F")
	if len(d.values) == 0 {
		for k := range es {
			es[k] = 1
		}
	}
	bs := make([]int64, len(es))
	for k, s := range es {
		bs[k] = s * w
	}
	return &describe.Content{
		Format:      "TENSOR",
		ValueType:   d.vt,
		Shape:       d.shape,
		DimNames:    core.CloneDimNames(d.names),
		NNZ:         int64(len(d.values)),
		Strides:     bs,
		DenseValues: d.values,
	}
}
