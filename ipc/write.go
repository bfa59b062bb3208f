package ipc

import (
	"bytes"
	"io"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/ipc/internal/wire"
	"github.com/arrowsparse/arrowsparse/views"
)

// WriteTensor writes t to w as one encapsulated message, the way Arrow
// C++'s WriteTensor and WriteSparseTensor do: for any tensor Arrow C++ could
// hold, the bytes are identical to what it writes. It returns the number of
// bytes written.
//
// t may be a *views.View or other dense tensor (a Tensor message), a
// *coo.Tensor, a *gcs.Matrix (CSR or CSC), a *gcs.Tensor (a CSR/CSC message
// of its storage with the N-d mapping in the custom metadata, see the
// package documentation) or a *csf.Tensor (SparseTensor messages). The
// writer refuses what Arrow C++ rejects or aborts on: an index type too
// narrow for the counts the message implies (nnz, ndim, rows+1, level
// sizes); uint64 indices cannot occur, since no tensor of this module holds
// them.
func WriteTensor(w io.Writer, t arrowsparse.Tensor, opts ...WriteOption) (int64, error) {
	m, body, release, err := encode(t, newWriteConfig(opts))
	if err != nil {
		return 0, err
	}
	defer release()
	return wire.WriteMessage(w, m, body...)
}

// AppendTensor appends the message WriteTensor would write to dst.
func AppendTensor(dst []byte, t arrowsparse.Tensor, opts ...WriteOption) ([]byte, error) {
	buf := bytes.NewBuffer(dst)
	if _, err := WriteTensor(buf, t, opts...); err != nil {
		return dst, err
	}
	return buf.Bytes(), nil
}

// WriteEndOfStream writes the 8-byte end-of-stream marker (continuation
// marker and a zero length). Arrow C++ never writes one after tensor
// messages; readers of sequences accept it.
func WriteEndOfStream(w io.Writer) error {
	_, err := w.Write(wire.AppendEndOfStream(nil))
	return err
}

// encode returns the metadata and body pieces of t's message, and a
// function releasing any temporary buffer.
func encode(t arrowsparse.Tensor, cfg *writeConfig) (*wire.Message, [][]byte, func(), error) {
	nop := func() {}
	switch x := t.(type) {
	case *coo.Tensor:
		m, body, err := encodeCOO(x)
		return m, body, nop, err
	case *views.View:
		return encodeDense(x, cfg)
	}
	if m, body, release, ok, err := encodeCompressed(t, cfg); ok {
		return m, body, release, err
	}
	if t.Format() == arrowsparse.FormatDense {
		d, err := t.ToDense(cfg.mem)
		if err != nil {
			return nil, nil, nop, err
		}
		v, ok := d.(*views.View)
		if !ok {
			d.Release()
			return nil, nil, nop, core.Errorf(arrowsparse.ErrUnsupportedType, "ipc: cannot write a dense %T", d)
		}
		m, body, release, err := encodeDense(v, cfg)
		return m, body, func() { release(); v.Release() }, err
	}
	return nil, nil, nop, core.Errorf(arrowsparse.ErrUnsupportedType, "ipc: cannot write a %T (%s): materialise it as COO, CSR/CSC, GCS, CSF or a dense view first", t, t.Format())
}

// dims returns the TensorDims Arrow C++ writes: a name string for every
// dimension, empty when the tensor has no names.
func dims(shape []int64, names []string) []wire.Dim {
	ds := make([]wire.Dim, len(shape))
	for k, n := range shape {
		ds[k] = wire.Dim{Size: n, HasName: true}
		if names != nil {
			ds[k].Name = names[k]
		}
	}
	return ds
}

// sparseBody lays out body buffers as Arrow C++ does (each padded to 8) and
// returns their metadata ranges, the body length and the pieces to write.
func sparseBody(bufs ...[]byte) ([]wire.Buffer, int64, [][]byte, error) {
	sizes := make([]int64, len(bufs))
	for i, b := range bufs {
		sizes[i] = int64(len(b))
	}
	ranges, total, err := wire.SparseBodyLayout(sizes...)
	if err != nil {
		return nil, 0, nil, err
	}
	pieces := make([][]byte, 0, 2*len(bufs))
	for _, b := range bufs {
		pieces = append(pieces, b)
		if p := wire.Padding(int64(len(b))); len(p) > 0 {
			pieces = append(pieces, p)
		}
	}
	return ranges, total, pieces, nil
}

// prefix returns the first n bytes of buf (nil for an empty range).
func prefix(buf *memory.Buffer, n int64) []byte {
	if n == 0 || buf == nil {
		return nil
	}
	return buf.Bytes()[:n]
}

// checkFits returns an error unless every count fits the index type, the
// check Arrow C++ makes on the shapes of its index tensors.
func checkFits(dt arrow.DataType, what string, counts ...int64) error {
	for _, c := range counts {
		if c > arrowsparse.IndexMax(dt) {
			return core.Errorf(arrowsparse.ErrUnsupportedType, "ipc: index type %s is too narrow for %s = %d (max %d): Arrow C++ rejects such a message; use a wider index type", dt, what, c, arrowsparse.IndexMax(dt))
		}
	}
	return nil
}

func sparseMessage(st *wire.SparseTensor, total int64, meta []wire.KeyValue) *wire.Message {
	return &wire.Message{
		Version:        wire.V5,
		Header:         wire.HeaderSparseTensor,
		BodyLength:     total,
		CustomMetadata: meta,
		SparseTensor:   st,
	}
}

func encodeCOO(t *coo.Tensor) (*wire.Message, [][]byte, error) {
	n, nd := t.NNZ(), int64(t.NumDims())
	it := t.IndexType()
	if err := checkFits(it, "nnz or ndim of the coordinate matrix", n, nd); err != nil {
		return nil, nil, err
	}
	w := int64(arrowsparse.ByteWidth(it))
	rm, cm := wire.COOStrides(n, nd, w)
	strides := rm
	if t.Layout() == coo.ColMajor {
		strides = cm
	}
	ranges, total, body, err := sparseBody(
		prefix(t.CoordsBuffer(), n*nd*w),
		prefix(t.ValuesBuffer(), n*int64(arrowsparse.ByteWidth(t.DataType()))))
	if err != nil {
		return nil, nil, err
	}
	st := &wire.SparseTensor{
		Type:          t.DataType(),
		Shape:         dims(t.Shape(), t.DimNames()),
		NonZeroLength: n,
		Index: &wire.COOIndex{
			IndicesType:       it,
			IndicesStrides:    strides[:],
			HasIndicesStrides: true,
			IndicesBuffer:     ranges[0],
			IsCanonical:       t.CanonicalFlag(),
		},
		Data: ranges[1],
	}
	return sparseMessage(st, total, nil), body, nil
}

// encodeDense writes a contiguous view as it is, with row-major or
// column-major strides, like Arrow C++; any other view is first copied to
// row-major order.
func encodeDense(v *views.View, cfg *writeConfig) (*wire.Message, [][]byte, func(), error) {
	release := func() {}
	shape := v.Shape()
	dt := v.DataType()
	w := int64(arrowsparse.ByteWidth(dt))
	size := v.Len()
	cOrder, fOrder := orderStrides(shape)
	var strides []int64
	switch es := v.ElemStrides(); {
	case size == 0:
		// Arrow C++'s rule for shapes without elements: every stride is
		// one element.
		strides = make([]int64, len(shape))
		for k := range strides {
			strides[k] = 1
		}
	case slices.Equal(es, cOrder):
		strides = cOrder
	case slices.Equal(es, fOrder):
		strides = fOrder
	case v.IsCContiguous():
		strides = cOrder
	case v.IsFContiguous():
		strides = fOrder
	default:
		c, err := v.Copy(cfg.mem, views.CopyOptions{})
		if err != nil {
			return nil, nil, release, err
		}
		release = c.Release
		v, strides = c, cOrder
	}
	var body []byte
	if size > 0 {
		off := v.ElemOffset() * w
		body = v.Buffer().Bytes()[off : off+size*w]
	}
	bs := make([]int64, len(strides))
	for k, s := range strides {
		bs[k] = s * w
	}
	m := &wire.Message{
		Version:    wire.V5,
		Header:     wire.HeaderTensor,
		BodyLength: int64(len(body)),
		Tensor: &wire.Tensor{
			Type:       dt,
			Shape:      dims(shape, v.DimNames()),
			Strides:    bs,
			HasStrides: true,
			Data:       wire.Buffer{Offset: 0, Length: int64(len(body))},
		},
	}
	return m, [][]byte{body}, release, nil
}

// orderStrides returns the row-major and column-major element strides of a
// shape with at least one element.
func orderStrides(shape []int64) (c, f []int64) {
	nd := len(shape)
	c, f = make([]int64, nd), make([]int64, nd)
	s := int64(1)
	for k := nd - 1; k >= 0; k-- {
		c[k] = s
		s *= shape[k]
	}
	s = 1
	for k := range nd {
		f[k] = s
		s *= shape[k]
	}
	return c, f
}
