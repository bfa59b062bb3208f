package describe

import (
	"fmt"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/ipc"
	"github.com/arrowsparse/arrowsparse/views"
)

// MaxDenseValues bounds the number of elements a description lists for a
// dense tensor, as the C++ peer does ("tensor too large to print"): a
// message may describe far more elements than its body holds (stride 0
// repeats data).
const MaxDenseValues = 1 << 26

// FromMessage describes the content of a decoded message, dense values
// listed in DenseValues (at most MaxDenseValues of them). Layout keys are
// taken from the message as written (COO indices strides, dense strides),
// or computed as Arrow C++ computes them when the message leaves them out.
// The content shares no memory with m.
func FromMessage(m *ipc.Message) (*Content, error) {
	c, err := Describe(m, MaxDenseValues)
	if err != nil || c.src == nil {
		return c, err
	}
	vals := make([]uint64, 0, c.NNZ)
	err = eachDense(c.src, chunkLen, func(bits []uint64) error {
		vals = append(vals, bits...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	c.DenseValues, c.src = vals, nil
	return c, nil
}

// Describe is FromMessage without listing a dense tensor's values: JSON,
// WriteJSON, Text and WriteText read them from m's tensor as they write,
// a chunk at a time, so m must not be released before the content is
// written. A dense tensor of more than maxDense elements (≤ 0:
// MaxDenseValues) is an error, as is anything that would fail to write:
// once Describe succeeds, writing fails only if the writer does.
func Describe(m *ipc.Message, maxDense int64) (*Content, error) {
	if m == nil || m.Tensor == nil {
		return nil, fmt.Errorf("describe: no tensor")
	}
	if maxDense <= 0 {
		maxDense = MaxDenseValues
	}
	t := m.Tensor
	c := &Content{
		ValueType: t.DataType(),
		Shape:     t.Shape(),
		DimNames:  t.DimNames(),
		NNZ:       t.NNZ(),
	}
	if d, ok := t.(arrowsparse.Dense); ok && t.Format() == arrowsparse.FormatDense {
		if err := fromDense(c, d, m, maxDense); err != nil {
			return nil, err
		}
		return c, nil
	}
	out, err := Sparse(t, m.CanonicalClaim)
	if err != nil {
		return nil, err
	}
	if out.Format == "COO" && m.IndicesStrides != nil {
		out.IndicesStrides = m.IndicesStrides
	}
	return out, nil
}

// Sparse describes a sparse tensor of this module (*coo.Tensor,
// *gcs.Matrix, *gcs.Tensor, *csf.Tensor): its entries summed and sorted.
// claim is what a COO description gives as is_canonical (a message's
// isCanonical flag, or a column's canonical claim); a COO description
// has the row-major indices strides Arrow C++ assumes.
func Sparse(t arrowsparse.Tensor, claim bool) (*Content, error) {
	c := &Content{
		ValueType: t.DataType(),
		Shape:     t.Shape(),
		DimNames:  t.DimNames(),
		NNZ:       t.NNZ(),
	}
	s, ok := t.(arrowsparse.Sparse)
	if !ok {
		return nil, fmt.Errorf("describe: cannot describe a %T (%s)", t, t.Format())
	}
	switch x := t.(type) {
	case *coo.Tensor:
		c.Format = "COO"
		c.IndexType = x.IndexType()
		c.IsCanonical = claim
		w := int64(arrowsparse.ByteWidth(c.IndexType))
		c.IndicesStrides = []int64{int64(x.NumDims()) * w, w}
	case *gcs.Matrix:
		c.Format = x.Format().String()
		c.IndexType, c.IndptrType = x.IndexType(), x.IndptrType()
	case *gcs.Tensor:
		st := x.Storage()
		c.Format = "GCS"
		c.IndexType, c.IndptrType = st.IndexType(), st.IndptrType()
		c.Dimensions = x.Dims()
		c.Partitioning = []int{x.Partitioning()}
	case *csf.Tensor:
		c.Format = "CSF"
		c.IndexType, c.IndptrType = x.IndexType(0), x.IndptrType(0)
		c.AxisOrder = x.AxisOrder()
	default:
		return nil, fmt.Errorf("describe: cannot describe a %T (%s)", t, t.Format())
	}
	e, err := entries(s)
	if err != nil {
		return nil, err
	}
	c.Entries = e.Canonical(c.ValueType)
	return c, nil
}

// entries lists the stored entries of a sparse tensor in storage order.
func entries(s arrowsparse.Sparse) (*Entries, error) {
	nd, n := s.NumDims(), s.NNZ()
	coords := s.AppendCoords(nil)
	vals, err := valueBits(nil, nil, s)
	if err != nil {
		return nil, err
	}
	if int64(len(vals)) != n || int64(len(coords)) != n*int64(nd) {
		return nil, fmt.Errorf("describe: %s tensor lists %d coordinates and %d values for %d entries of %d dimensions", s.Format(), len(coords), len(vals), n, nd)
	}
	return &Entries{NDim: nd, Coords: coords, Values: vals}, nil
}

// arrowStrides returns the byte strides Arrow C++ computes for a
// row-major tensor: every stride equals the width when the shape has no
// elements.
func arrowStrides(shape []int64, w int64) []int64 {
	s := make([]int64, len(shape))
	empty := false
	for _, d := range shape {
		empty = empty || d == 0
	}
	acc := w
	for k := len(shape) - 1; k >= 0; k-- {
		if empty {
			s[k] = w
			continue
		}
		s[k] = acc
		acc *= shape[k]
	}
	return s
}

// fromDense describes a dense tensor, keeping it as the source of the
// values.
func fromDense(c *Content, d arrowsparse.Dense, m *ipc.Message, maxDense int64) error {
	c.Format = "TENSOR"
	c.Strides = m.Strides
	if c.Strides == nil {
		c.Strides = arrowStrides(c.Shape, int64(arrowsparse.ByteWidth(c.ValueType)))
	}
	size, err := arrowsparse.NumElements(c.Shape)
	if err != nil || size > maxDense {
		return fmt.Errorf("describe: tensor too large to print (shape %s, more than %d elements)", intList(c.Shape), maxDense)
	}
	// Every element the layout addresses must lie in the buffer.
	v, err := views.Of(d)
	if err != nil {
		return err
	}
	v.Release()
	c.NNZ = size
	if size > 0 {
		c.src = d
	}
	return nil
}
