package describe

import (
	"fmt"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/ipc"
)

// MaxDenseValues bounds the number of elements FromMessage lists for a
// dense tensor, as the C++ peer does: a message may describe far more
// elements than its body holds (stride 0 repeats data).
const MaxDenseValues = 1 << 26

// FromMessage describes the content of a decoded message. Layout keys are
// taken from the message as written (COO indices strides, dense strides),
// or computed as Arrow C++ computes them when the message leaves them out.
func FromMessage(m *ipc.Message) (*Content, error) {
	if m == nil || m.Tensor == nil {
		return nil, fmt.Errorf("describe: no tensor")
	}
	t := m.Tensor
	c := &Content{
		ValueType: t.DataType(),
		Shape:     t.Shape(),
		DimNames:  t.DimNames(),
		NNZ:       t.NNZ(),
	}
	var err error
	switch x := t.(type) {
	case *coo.Tensor:
		err = fromCOO(c, x, m)
	default:
		if d, ok := t.(arrowsparse.Dense); ok && t.Format() == arrowsparse.FormatDense {
			err = fromDense(c, d, m)
		} else if err = fromCompressed(c, t, m); err == errUnknown {
			err = fmt.Errorf("describe: cannot describe a %T (%s)", t, t.Format())
		}
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

var errUnknown = fmt.Errorf("unknown tensor type")

// prefix returns the first n bytes of a buffer's bytes, or an error if it
// holds fewer.
func prefix(b []byte, n int64, what string) ([]byte, error) {
	if n < 0 || int64(len(b)) < n {
		return nil, fmt.Errorf("describe: %s holds %d bytes, %d needed", what, len(b), n)
	}
	return b[:n], nil
}

func fromCOO(c *Content, t *coo.Tensor, m *ipc.Message) error {
	c.Format = "COO"
	c.IndexType = t.IndexType()
	c.IsCanonical = m.CanonicalClaim
	n, nd := t.NNZ(), int64(t.NumDims())
	w := int64(arrowsparse.ByteWidth(c.IndexType))
	c.IndicesStrides = m.IndicesStrides
	if c.IndicesStrides == nil {
		// What Arrow C++ assumes when the field is absent.
		c.IndicesStrides = []int64{nd * w, w}
	}
	var cb, vb []byte
	if b := t.CoordsBuffer(); b != nil {
		cb = b.Bytes()
	}
	if b := t.ValuesBuffer(); b != nil {
		vb = b.Bytes()
	}
	cb, err := prefix(cb, n*nd*w, "COO coordinate buffer")
	if err != nil {
		return err
	}
	vb, err = prefix(vb, n*int64(arrowsparse.ByteWidth(c.ValueType)), "values buffer")
	if err != nil {
		return err
	}
	coords := loadIndices(cb, c.IndexType, n*nd)
	vals := loadBits(vb, arrowsparse.ByteWidth(c.ValueType), n)
	e := NewEntries(int(nd), n)
	row := make([]int64, nd)
	for i := range n {
		for k := range nd {
			if t.Layout() == coo.ColMajor {
				row[k] = coords[k*n+i]
			} else {
				row[k] = coords[i*nd+k]
			}
		}
		e.Append(vals[i], row...)
	}
	c.Entries = e.Canonical(c.ValueType)
	return nil
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

func fromDense(c *Content, d arrowsparse.Dense, m *ipc.Message) error {
	c.Format = "TENSOR"
	w := arrowsparse.ByteWidth(c.ValueType)
	c.Strides = m.Strides
	if c.Strides == nil {
		c.Strides = arrowStrides(c.Shape, int64(w))
	}
	size, err := arrowsparse.NumElements(c.Shape)
	if err != nil {
		return err
	}
	if size > MaxDenseValues {
		return fmt.Errorf("describe: tensor too large to print (%d elements)", size)
	}
	c.NNZ = size
	if size == 0 {
		return nil
	}
	var data []byte
	if b := d.Buffer(); b != nil {
		data = b.Bytes()
	}
	strides := d.ElemStrides()
	off := d.ElemOffset()
	nd := len(c.Shape)
	idx := make([]int64, nd)
	c.DenseValues = make([]uint64, 0, size)
	for range size {
		p := off
		for k := range nd {
			p += idx[k] * strides[k]
		}
		if p < 0 || (p+1)*int64(w) > int64(len(data)) {
			return fmt.Errorf("describe: element at %v lies outside the buffer", idx)
		}
		c.DenseValues = append(c.DenseValues, loadBit(data[p*int64(w):], w))
		for k := nd - 1; k >= 0; k-- {
			idx[k]++
			if idx[k] < c.Shape[k] {
				break
			}
			idx[k] = 0
		}
	}
	return nil
}
