package describe

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/float16"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/ipc"
)

// fromCompressed describes CSR, CSC, GCS and CSF tensors.
func fromCompressed(c *Content, t arrowsparse.Tensor, m *ipc.Message) error {
	switch x := t.(type) {
	case *csf.Tensor:
		return fromCSF(c, x)
	case *gcs.Matrix:
		return fromMatrix(c, x)
	case *gcs.Tensor:
		return fromGCS(c, x)
	}
	return errUnknown
}

func summarizeCompressed(s *Summary, t arrowsparse.Tensor, m *ipc.Message) {
	switch x := t.(type) {
	case *csf.Tensor:
		s.str("index_type", TypeName(x.IndexType(0)))
		s.str("indptr_type", TypeName(x.IndptrType(0)))
		s.intsInt("axis_order", x.AxisOrder())
		levels := make([]int64, x.NumDims())
		for l := range levels {
			levels[l] = x.LevelLen(l)
		}
		s.ints("level_lengths", levels)
		s.str("csf_lengths", m.CSFLengths.String())
		s.num("index_bytes", x.IndexBytes())
	case *gcs.Matrix:
		summarizeMatrix(s, x)
	case *gcs.Tensor:
		st := x.Storage()
		s.intsInt("dimensions", x.Dims())
		s.intsInt("partitioning", []int{x.Partitioning()})
		s.str("storage", st.Format().String())
		s.ints("storage_shape", st.Shape())
		summarizeMatrix(s, st)
	}
}

func summarizeMatrix(s *Summary, m *gcs.Matrix) {
	s.str("index_type", TypeName(m.IndexType()))
	s.str("indptr_type", TypeName(m.IndptrType()))
	s.flag("sorted", m.IsSorted())
	s.flag("canonical", m.IsCanonical())
	s.num("index_bytes", (m.Lanes()+1)*int64(arrowsparse.ByteWidth(m.IndptrType()))+m.NNZ()*int64(arrowsparse.ByteWidth(m.IndexType())))
}

func matrixIndices(m *gcs.Matrix) ([]int64, error) {
	return indexAccessor{
		i8:  func() ([]int8, error) { return gcs.Indices[int8](m) },
		i16: func() ([]int16, error) { return gcs.Indices[int16](m) },
		i32: func() ([]int32, error) { return gcs.Indices[int32](m) },
		i64: func() ([]int64, error) { return gcs.Indices[int64](m) },
		u8:  func() ([]uint8, error) { return gcs.Indices[uint8](m) },
		u16: func() ([]uint16, error) { return gcs.Indices[uint16](m) },
		u32: func() ([]uint32, error) { return gcs.Indices[uint32](m) },
	}.load(m.IndexType())
}

func matrixIndptr(m *gcs.Matrix) ([]int64, error) {
	return indexAccessor{
		i8:  func() ([]int8, error) { return gcs.Indptr[int8](m) },
		i16: func() ([]int16, error) { return gcs.Indptr[int16](m) },
		i32: func() ([]int32, error) { return gcs.Indptr[int32](m) },
		i64: func() ([]int64, error) { return gcs.Indptr[int64](m) },
		u8:  func() ([]uint8, error) { return gcs.Indptr[uint8](m) },
		u16: func() ([]uint16, error) { return gcs.Indptr[uint16](m) },
		u32: func() ([]uint32, error) { return gcs.Indptr[uint32](m) },
	}.load(m.IndptrType())
}

func matrixValues(m *gcs.Matrix) ([]uint64, error) {
	return valueAccessor{
		i8:  func() ([]int8, error) { return gcs.Values[int8](m) },
		i16: func() ([]int16, error) { return gcs.Values[int16](m) },
		i32: func() ([]int32, error) { return gcs.Values[int32](m) },
		i64: func() ([]int64, error) { return gcs.Values[int64](m) },
		u8:  func() ([]uint8, error) { return gcs.Values[uint8](m) },
		u16: func() ([]uint16, error) { return gcs.Values[uint16](m) },
		u32: func() ([]uint32, error) { return gcs.Values[uint32](m) },
		u64: func() ([]uint64, error) { return gcs.Values[uint64](m) },
		f16: func() ([]float16.Num, error) { return gcs.Values[float16.Num](m) },
		f32: func() ([]float32, error) { return gcs.Values[float32](m) },
		f64: func() ([]float64, error) { return gcs.Values[float64](m) },
	}.load(m.DataType())
}

// matrixEntries returns the (row, column) entries of a CSR or CSC matrix in
// storage order.
func matrixEntries(m *gcs.Matrix) (*Entries, error) {
	ptr, err := matrixIndptr(m)
	if err != nil {
		return nil, err
	}
	idx, err := matrixIndices(m)
	if err != nil {
		return nil, err
	}
	vals, err := matrixValues(m)
	if err != nil {
		return nil, err
	}
	n := int64(len(idx))
	if int64(len(vals)) != n || int64(len(ptr)) != m.Lanes()+1 || len(ptr) == 0 || ptr[0] != 0 || ptr[len(ptr)-1] != n {
		return nil, fmt.Errorf("describe: inconsistent %s matrix", m.Format())
	}
	e := NewEntries(2, n)
	csr := m.Axis() == gcs.Rows
	for k := range m.Lanes() {
		lo, hi := ptr[k], ptr[k+1]
		if lo > hi || hi > n {
			return nil, fmt.Errorf("describe: %s indptr decreases at lane %d", m.Format(), k)
		}
		for j := lo; j < hi; j++ {
			if csr {
				e.Append(vals[j], k, idx[j])
			} else {
				e.Append(vals[j], idx[j], k)
			}
		}
	}
	return e, nil
}

func fromMatrix(c *Content, m *gcs.Matrix) error {
	c.Format = m.Format().String()
	c.IndexType = m.IndexType()
	c.IndptrType = m.IndptrType()
	e, err := matrixEntries(m)
	if err != nil {
		return err
	}
	c.Entries = e.Canonical(c.ValueType)
	return nil
}

// fromGCS lists the N-d entries of a GCS tensor: each (row, column) entry of
// its storage matrix, mapped back through the tensor's mapping.
func fromGCS(c *Content, t *gcs.Tensor) error {
	st := t.Storage()
	c.Format = "GCS"
	c.IndexType = st.IndexType()
	c.IndptrType = st.IndptrType()
	c.Dimensions = t.Dims()
	c.Partitioning = []int{t.Partitioning()}
	me, err := matrixEntries(st)
	if err != nil {
		return err
	}
	mp := t.Mapping()
	nd := t.NumDims()
	e := NewEntries(nd, int64(me.Len()))
	idx := make([]int64, nd)
	for i := range me.Len() {
		rc := me.At(i)
		e.Append(me.Values[i], mp.FromRowCol(rc[0], rc[1], idx)...)
	}
	c.Entries = e.Canonical(c.ValueType)
	return nil
}

func csfIndices(t *csf.Tensor, l int) ([]int64, error) {
	return indexAccessor{
		i8:  func() ([]int8, error) { return csf.Indices[int8](t, l) },
		i16: func() ([]int16, error) { return csf.Indices[int16](t, l) },
		i32: func() ([]int32, error) { return csf.Indices[int32](t, l) },
		i64: func() ([]int64, error) { return csf.Indices[int64](t, l) },
		u8:  func() ([]uint8, error) { return csf.Indices[uint8](t, l) },
		u16: func() ([]uint16, error) { return csf.Indices[uint16](t, l) },
		u32: func() ([]uint32, error) { return csf.Indices[uint32](t, l) },
	}.load(t.IndexType(l))
}

func csfIndptr(t *csf.Tensor, l int) ([]int64, error) {
	return indexAccessor{
		i8:  func() ([]int8, error) { return csf.Indptr[int8](t, l) },
		i16: func() ([]int16, error) { return csf.Indptr[int16](t, l) },
		i32: func() ([]int32, error) { return csf.Indptr[int32](t, l) },
		i64: func() ([]int64, error) { return csf.Indptr[int64](t, l) },
		u8:  func() ([]uint8, error) { return csf.Indptr[uint8](t, l) },
		u16: func() ([]uint16, error) { return csf.Indptr[uint16](t, l) },
		u32: func() ([]uint32, error) { return csf.Indptr[uint32](t, l) },
	}.load(t.IndptrType(l))
}

func csfValues(t *csf.Tensor) ([]uint64, error) {
	return valueAccessor{
		i8:  func() ([]int8, error) { return csf.Values[int8](t) },
		i16: func() ([]int16, error) { return csf.Values[int16](t) },
		i32: func() ([]int32, error) { return csf.Values[int32](t) },
		i64: func() ([]int64, error) { return csf.Values[int64](t) },
		u8:  func() ([]uint8, error) { return csf.Values[uint8](t) },
		u16: func() ([]uint16, error) { return csf.Values[uint16](t) },
		u32: func() ([]uint32, error) { return csf.Values[uint32](t) },
		u64: func() ([]uint64, error) { return csf.Values[uint64](t) },
		f16: func() ([]float16.Num, error) { return csf.Values[float16.Num](t) },
		f32: func() ([]float32, error) { return csf.Values[float32](t) },
		f64: func() ([]float64, error) { return csf.Values[float64](t) },
	}.load(t.DataType())
}

// fromCSF walks the tree from the leaves up: the coordinate along
// dimension axisOrder[l] of a leaf is the index of its ancestor on level l.
func fromCSF(c *Content, t *csf.Tensor) error {
	c.Format = "CSF"
	nd := t.NumDims()
	c.IndexType = t.IndexType(0)
	c.IndptrType = t.IndptrType(0)
	c.AxisOrder = t.AxisOrder()
	indices := make([][]int64, nd)
	parent := make([][]int64, nd)
	for l := range nd {
		var err error
		if indices[l], err = csfIndices(t, l); err != nil {
			return err
		}
	}
	for l := 0; l+1 < nd; l++ {
		ptr, err := csfIndptr(t, l)
		if err != nil {
			return err
		}
		if len(ptr) != len(indices[l])+1 {
			return fmt.Errorf("describe: CSF level %d has %d indptr entries for %d nodes", l, len(ptr), len(indices[l]))
		}
		children := indices[l+1]
		parent[l+1] = make([]int64, len(children))
		base := ptr[0]
		for p := range len(indices[l]) {
			lo, hi := ptr[p]-base, ptr[p+1]-base
			if lo < 0 || hi < lo || hi > int64(len(children)) {
				return fmt.Errorf("describe: CSF level %d indptr out of range at node %d", l, p)
			}
			for i := lo; i < hi; i++ {
				parent[l+1][i] = int64(p)
			}
		}
	}
	vals, err := csfValues(t)
	if err != nil {
		return err
	}
	n := int64(len(indices[nd-1]))
	if int64(len(vals)) != n {
		return fmt.Errorf("describe: CSF has %d leaves but %d values", n, len(vals))
	}
	e := NewEntries(nd, n)
	row := make([]int64, nd)
	for j := range n {
		node := j
		for l := nd - 1; l >= 0; l-- {
			row[c.AxisOrder[l]] = indices[l][node]
			if l > 0 {
				node = parent[l][node]
			}
		}
		e.Append(vals[j], row...)
	}
	c.Entries = e.Canonical(c.ValueType)
	return nil
}
