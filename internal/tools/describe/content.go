package describe

import (
	"cmp"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowsparse/arrowsparse"
)

// Content is what a message holds, in the terms of the interop JSON schema
// (testdata/interop/README.md). Fields that do not apply to the format are
// left at their zero values and are not written.
type Content struct {
	// Format is "COO", "CSR", "CSC", "CSF", "GCS" or "TENSOR".
	Format string
	// ValueType is the type of the values.
	ValueType arrow.DataType
	// IndexType is the type of the COO coordinates, the CSR/CSC (or GCS
	// storage) indices or the CSF indices; IndptrType that of the indptr
	// arrays. Both are nil for a dense tensor, and IndptrType for COO.
	IndexType, IndptrType arrow.DataType
	// Shape is the shape; DimNames the dimension names, nil for none.
	Shape    []int64
	DimNames []string
	// NNZ is the number of stored values (duplicates included).
	NNZ int64
	// IsCanonical is a COO message's isCanonical flag as written.
	IsCanonical bool
	// IndicesStrides are the byte strides of a COO coordinate matrix.
	IndicesStrides []int64
	// AxisOrder is a CSF tensor's axis order.
	AxisOrder []int
	// Dimensions and Partitioning are a GCS tensor's dimension mapping.
	Dimensions, Partitioning []int
	// Strides are a dense tensor's byte strides.
	Strides []int64
	// Entries are a sparse tensor's distinct coordinates, sorted, with
	// their (summed) values.
	Entries *Entries
	// DenseValues are a dense tensor's elements in row-major order, as
	// bits. A content of Describe leaves them out and reads them from its
	// tensor as it writes.
	DenseValues []uint64
	// Note is free text written as "_note" when not empty.
	Note string

	src arrowsparse.Dense // Describe: the tensor whose elements to write
}

// Sparse reports whether the content is a sparse tensor's.
func (c *Content) Sparse() bool { return c.Format != "TENSOR" }

// elements returns the number of dense values.
func (c *Content) elements() int64 {
	if c.src != nil {
		return c.NNZ
	}
	return int64(len(c.DenseValues))
}

// eachValue calls f with every dense value in row-major order, reading
// them from the tensor of a content of Describe.
func (c *Content) eachValue(f func(x uint64)) error {
	if c.src == nil {
		for _, x := range c.DenseValues {
			f(x)
		}
		return nil
	}
	return eachDense(c.src, chunkLen, func(bits []uint64) error {
		for _, x := range bits {
			f(x)
		}
		return nil
	})
}

// Entries is a list of sparse entries: coordinates (NDim per entry, flat)
// and value bits.
type Entries struct {
	NDim   int
	Coords []int64
	Values []uint64
}

// NewEntries returns an empty list for coordinates of ndim dimensions with
// room for n entries.
func NewEntries(ndim int, n int64) *Entries {
	if n < 0 {
		n = 0
	}
	return &Entries{NDim: ndim, Coords: make([]int64, 0, int64(ndim)*n), Values: make([]uint64, 0, n)}
}

// Len returns the number of entries.
func (e *Entries) Len() int { return len(e.Values) }

// Append adds an entry.
func (e *Entries) Append(v uint64, coords ...int64) {
	e.Coords = append(e.Coords, coords...)
	e.Values = append(e.Values, v)
}

// At returns the coordinates of entry i, aliasing the list.
func (e *Entries) At(i int) []int64 { return e.Coords[i*e.NDim : (i+1)*e.NDim] }

// Canonical returns the entries sorted lexicographically by coordinates,
// with equal coordinates merged by summing their values in storage order,
// in the value type vt. Explicitly stored zeros are kept.
func (e *Entries) Canonical(vt arrow.DataType) *Entries {
	n := e.Len()
	perm := make([]int, n)
	sorted := true
	for i := range perm {
		perm[i] = i
		if i > 0 && sorted && slices.Compare(e.At(i-1), e.At(i)) >= 0 {
			sorted = false
		}
	}
	if sorted {
		return e
	}
	slices.SortStableFunc(perm, func(a, b int) int {
		if c := slices.Compare(e.At(a), e.At(b)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	out := NewEntries(e.NDim, int64(n))
	for _, i := range perm {
		k := out.Len()
		if k > 0 && slices.Equal(out.At(k-1), e.At(i)) {
			out.Values[k-1] = Add(vt, out.Values[k-1], e.Values[i])
			continue
		}
		out.Append(e.Values[i], e.At(i)...)
	}
	return out
}
