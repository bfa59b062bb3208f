package mtx

// This file is the one place where the package calls the APIs of coo and
// views (and the root package's error constructor), so that renames there
// are one-line fixes here.

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/views"
)

// errorf builds an error of one of the root package's categories.
func errorf(kind error, format string, args ...any) error {
	return core.Errorf(kind, format, args...)
}

// newCOO adopts the buffers of a matrix this package has parsed and
// checked: every coordinate is inside the shape, and canonical is true
// only if the entries are sorted without duplicates. It takes over the
// caller's references.
func newCOO(vt, it arrow.DataType, shape []int64, coords, values *memory.Buffer, nnz int64, canonical bool) (*coo.Tensor, error) {
	defer coords.Release()
	defer values.Release()
	return coo.New(vt, it, shape, coords, coo.RowMajor, values, nnz, coo.WithTrusted(), coo.WithCanonicalClaim(canonical))
}

// newColMajor returns a column-major rows × cols view of buf (taking over
// the caller's reference).
func newColMajor(vt arrow.DataType, buf *memory.Buffer, rows, cols int64) (*views.View, error) {
	defer buf.Release()
	return views.New(vt, buf, 0, []int64{rows, cols}, []int64{1, rows})
}

// denseToCOO returns the non-zero elements of a dense matrix as COO.
func denseToCOO(mem memory.Allocator, d arrowsparse.Dense, it arrow.DataType) (*coo.Tensor, error) {
	return coo.FromDense(mem, d, coo.ConvertOptions{IndexType: it})
}

// cooParts returns what the writer reads of a COO tensor: its coordinate
// matrix (row-major, 2 per entry, as raw bytes of the index type) and its
// values (raw bytes). A column-major tensor is converted first; release is
// then its release.
func cooParts(mem memory.Allocator, t *coo.Tensor) (coords, values []byte, release func(), err error) {
	release = func() {}
	if t.Layout() != coo.RowMajor {
		r, err := t.WithLayout(mem, coo.RowMajor)
		if err != nil {
			return nil, nil, nil, err
		}
		t = r
		release = r.Release
	}
	nnz := t.NNZ()
	iw, vw := int64(arrowsparse.ByteWidth(t.IndexType())), int64(arrowsparse.ByteWidth(t.DataType()))
	if nnz > 0 {
		coords = t.CoordsBuffer().Bytes()[:nnz*int64(t.NumDims())*iw]
		values = t.ValuesBuffer().Bytes()[:nnz*vw]
	}
	return coords, values, release, nil
}

// canonical returns t with its entries sorted and duplicates summed.
func canonical(mem memory.Allocator, t *coo.Tensor) (*coo.Tensor, error) {
	return t.Canonicalize(mem, coo.ConvertOptions{})
}

// transposed returns the canonical COO of the transpose of a matrix.
func transposed(mem memory.Allocator, t *coo.Tensor) (*coo.Tensor, error) {
	p, err := t.Permute(mem, 1, 0)
	if err != nil {
		return nil, err
	}
	defer p.Release()
	return p.Canonicalize(mem, coo.ConvertOptions{})
}

// denseParts returns what the writer reads of a dense 2-d tensor: a
// column-major contiguous copy's bytes (or the tensor's own, when it is
// already column-major and contiguous).
func denseParts(mem memory.Allocator, src arrowsparse.Dense) (data []byte, release func(), err error) {
	d, err := views.Of(src) // a Dense from elsewhere is checked first
	if err != nil {
		return nil, nil, err
	}
	defer d.Release()
	shape := d.Shape()
	rows, cols := shape[0], shape[1]
	w := int64(arrowsparse.ByteWidth(d.DataType()))
	st := d.ElemStrides()
	n := rows * cols
	if n == 0 {
		return nil, func() {}, nil
	}
	if (rows <= 1 || st[0] == 1) && (cols <= 1 || st[1] == rows) {
		off := d.ElemOffset() * w
		d.Retain()
		return d.Buffer().Bytes()[off : off+n*w], d.Release, nil
	}
	// Copy through the transpose: a row-major copy of dᵀ is d in
	// column-major order.
	vt := d.T()
	defer vt.Release()
	c, err := vt.Copy(mem, views.CopyOptions{})
	if err != nil {
		return nil, nil, err
	}
	return c.Buffer().Bytes()[:n*w], c.Release, nil
}
