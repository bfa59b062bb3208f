package tns

// This file is the one place where the package calls the APIs of coo (and
// the root package's error constructor), so that renames there are
// one-line fixes here.

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// errorf builds an error of one of the root package's categories.
func errorf(kind error, format string, args ...any) error {
	return core.Errorf(kind, format, args...)
}

// newCOO adopts the buffers of a tensor this package has parsed and
// checked: every coordinate is inside the shape, and canonical is true
// only if the entries are sorted without duplicates. It takes over the
// caller's references.
func newCOO(vt, it arrow.DataType, shape []int64, coords, values *memory.Buffer, nnz int64, canonical bool) (*coo.Tensor, error) {
	defer coords.Release()
	defer values.Release()
	return coo.New(vt, it, shape, coords, coo.RowMajor, values, nnz, coo.WithTrusted(), coo.WithCanonicalClaim(canonical))
}

// cooParts returns what the writer reads of a COO tensor: its row-major
// coordinate matrix and its values, as raw bytes. A column-major tensor is
// converted first; release is then its release.
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
