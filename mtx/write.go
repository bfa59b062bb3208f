package mtx

import (
	"bufio"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/klauspost/compress/gzip"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/textparse"
)

type writeConfig struct {
	mem      memory.Allocator
	symmetry Symmetry
	pattern  bool
	comments []string
	workers  int
}

func newWriteConfig(opts []WriteOption) *writeConfig {
	c := &writeConfig{mem: memory.DefaultAllocator}
	for _, o := range opts {
		o.applyWrite(c)
	}
	return c
}

// WithSymmetry declares the symmetry of the matrix to write. The writer
// checks that the matrix has it (duplicates summed, a missing entry counting
// as zero; for SkewSymmetric a zero diagonal) and writes the lower triangle
// only (without the diagonal for SkewSymmetric). Hermitian is Symmetric for
// real values. The default is General: every stored entry is written, in
// storage order, duplicates included.
func WithSymmetry(s Symmetry) WriteOption {
	return writeOption(func(c *writeConfig) { c.symmetry = s })
}

// WithPattern writes a coordinate file with the pattern field: the
// positions of the entries without their values. By default the field is
// real for float values and integer for integer values.
func WithPattern() WriteOption {
	return writeOption(func(c *writeConfig) { c.pattern = true })
}

// WithComments adds comment lines after the banner; each is written after a
// '%', and a line containing a line break is split.
func WithComments(lines ...string) WriteOption {
	return writeOption(func(c *writeConfig) { c.comments = append(c.comments, lines...) })
}

// blockEntries is the number of entries formatted per block.
const blockEntries = 1 << 15

// Write writes a 2-d tensor as a Matrix Market file: a *coo.Tensor as a
// coordinate file, an arrowsparse.Dense (such as a *views.View) as an array
// file. Values are written so that they read back to the same bits. Other
// formats must be converted first. Write does not compress; wrap w in a
// gzip.Writer for that, or use WriteFile.
func Write(w io.Writer, t arrowsparse.Tensor, opts ...WriteOption) error {
	cfg := newWriteConfig(opts)
	if t.NumDims() != 2 {
		return errorf(arrowsparse.ErrShape, "mtx: a Matrix Market file holds a matrix, not a %d-d tensor", t.NumDims())
	}
	if cfg.symmetry < General || cfg.symmetry > Hermitian {
		return errorf(arrowsparse.ErrStructure, "mtx: unknown symmetry %d", cfg.symmetry)
	}
	shape := t.Shape()
	if cfg.symmetry != General && shape[0] != shape[1] {
		return errorf(arrowsparse.ErrShape, "mtx: a %s matrix must be square, not %d × %d", cfg.symmetry, shape[0], shape[1])
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	var err error
	switch v := t.(type) {
	case *coo.Tensor:
		err = writeCoordinate(bw, v, cfg)
	case arrowsparse.Dense:
		if cfg.pattern {
			return errorf(arrowsparse.ErrUnsupportedType, "mtx: an array file cannot have the pattern field")
		}
		err = writeArray(bw, v, cfg)
	default:
		return errorf(arrowsparse.ErrUnsupportedType, "mtx: cannot write a %s tensor: convert it to COO or dense first", t.Format())
	}
	if err != nil {
		return err
	}
	return bw.Flush()
}

// WriteFile writes a 2-d tensor to a Matrix Market file, gzip-compressed
// when path ends in ".gz". See Write.
func WriteFile(path string, t arrowsparse.Tensor, opts ...WriteOption) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	if !strings.HasSuffix(path, ".gz") {
		return Write(f, t, opts...)
	}
	zw := gzip.NewWriter(f)
	if err := Write(zw, t, opts...); err != nil {
		return err
	}
	return zw.Close()
}

// header writes the banner, comments and size line.
func (c *writeConfig) header(w *bufio.Writer, layout Layout, dt arrow.DataType, rows, cols int64, entries int64) {
	field := Integer
	switch {
	case c.pattern:
		field = Pattern
	case textparse.IsFloat(dt):
		field = Real
	}
	h := Header{Layout: layout, Field: field, Symmetry: c.symmetry}
	w.WriteString(h.String())
	w.WriteByte('\n')
	for _, cm := range c.comments {
		for _, l := range strings.Split(cm, "\n") {
			w.WriteByte('%')
			w.WriteString(strings.TrimSuffix(l, "\r"))
			w.WriteByte('\n')
		}
	}
	b := strconv.AppendInt(nil, rows, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, cols, 10)
	if layout == Coordinate {
		b = append(b, ' ')
		b = strconv.AppendInt(b, entries, 10)
	}
	w.Write(append(b, '\n'))
}

func writeCoordinate(w *bufio.Writer, t *coo.Tensor, cfg *writeConfig) error {
	shape := t.Shape()
	src := t
	if cfg.symmetry != General {
		c, err := checkSymmetry(t, cfg)
		if err != nil {
			return err
		}
		defer c.Release()
		src = c
	}
	coords, values, release, err := cooParts(cfg.mem, src)
	if err != nil {
		return err
	}
	defer release()
	iw := arrowsparse.ByteWidth(src.IndexType())
	nnz := src.NNZ()
	// With a symmetry, the entries to write are those of the lower
	// triangle (strictly lower for skew-symmetric).
	keep := func(r, c uint64) bool { return true }
	count := nnz
	switch cfg.symmetry {
	case Symmetric, Hermitian:
		keep = func(r, c uint64) bool { return r >= c }
	case SkewSymmetric:
		keep = func(r, c uint64) bool { return r > c }
	}
	if cfg.symmetry != General {
		count = 0
		for i := range nnz {
			if keep(textparse.Index(coords, iw, 2*i), textparse.Index(coords, iw, 2*i+1)) {
				count++
			}
		}
	}
	cfg.header(w, Coordinate, src.DataType(), shape[0], shape[1], count)
	app := textparse.Appender(src.DataType())
	blocks := (nnz + blockEntries - 1) / blockEntries
	return textparse.WriteBlocks(w, blocks, cfg.workers, func(dst []byte, b int64) []byte {
		lo, hi := b*blockEntries, min((b+1)*blockEntries, nnz)
		for i := lo; i < hi; i++ {
			r, c := textparse.Index(coords, iw, 2*i), textparse.Index(coords, iw, 2*i+1)
			if cfg.symmetry != General && !keep(r, c) {
				continue
			}
			dst = strconv.AppendUint(dst, r+1, 10)
			dst = append(dst, ' ')
			dst = strconv.AppendUint(dst, c+1, 10)
			if !cfg.pattern {
				dst = append(dst, ' ')
				dst = app(dst, values, i)
			}
			dst = append(dst, '\n')
		}
		return dst
	})
}

func writeArray(w *bufio.Writer, d arrowsparse.Dense, cfg *writeConfig) error {
	shape := d.Shape()
	rows, cols := shape[0], shape[1]
	data, release, err := denseParts(cfg.mem, d)
	if err != nil {
		return err
	}
	defer release()
	dt := d.DataType()
	if cfg.symmetry != General {
		if err := checkDenseSymmetry(data, dt, rows, cfg.symmetry); err != nil {
			return err
		}
	}
	cfg.header(w, Array, dt, rows, cols, 0)
	app := textparse.Appender(dt)
	if cfg.symmetry == General {
		n := rows * cols
		blocks := (n + blockEntries - 1) / blockEntries
		return textparse.WriteBlocks(w, blocks, cfg.workers, func(dst []byte, b int64) []byte {
			for i := b * blockEntries; i < min((b+1)*blockEntries, n); i++ {
				dst = app(dst, data, i)
				dst = append(dst, '\n')
			}
			return dst
		})
	}
	// The lower triangle, column by column.
	skew := int64(0)
	if cfg.symmetry == SkewSymmetric {
		skew = 1
	}
	return textparse.WriteBlocks(w, cols, cfg.workers, func(dst []byte, j int64) []byte {
		for i := j + skew; i < rows; i++ {
			dst = app(dst, data, i+j*rows)
			dst = append(dst, '\n')
		}
		return dst
	})
}

// mirrors reports whether a and b are each other's mirror images: equal
// (NaN matches NaN), or negatives of each other when skew.
func mirrors(a, b textparse.Value, skew bool) bool {
	if a.Float {
		if a.F != a.F || b.F != b.F {
			return a.F != a.F && b.F != b.F
		}
		if skew {
			return a.F == -b.F
		}
		return a.F == b.F
	}
	if skew {
		return a.I == -b.I && a.U == 0 && b.U == 0
	}
	return a == b
}

// checkSymmetry returns the canonical form of t after checking that it has
// the declared symmetry.
func checkSymmetry(t *coo.Tensor, cfg *writeConfig) (*coo.Tensor, error) {
	skew := cfg.symmetry == SkewSymmetric
	if skew {
		switch t.DataType().ID() {
		case arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
			return nil, errorf(arrowsparse.ErrUnsupportedType, "mtx: a skew-symmetric matrix needs a signed value type, not %s", t.DataType())
		}
	}
	c, err := canonical(cfg.mem, t)
	if err != nil {
		return nil, err
	}
	tr, err := transposed(cfg.mem, t)
	if err != nil {
		c.Release()
		return nil, err
	}
	defer tr.Release()
	ac, av, rel1, err := cooParts(cfg.mem, c)
	if err != nil {
		c.Release()
		return nil, err
	}
	defer rel1()
	bc, bv, rel2, err := cooParts(cfg.mem, tr)
	if err != nil {
		c.Release()
		return nil, err
	}
	defer rel2()
	iw := arrowsparse.ByteWidth(c.IndexType())
	dt := c.DataType()
	na, nb := c.NNZ(), tr.NNZ()
	at := func(coords []byte, i int64) (uint64, uint64) {
		return textparse.Index(coords, iw, 2*i), textparse.Index(coords, iw, 2*i+1)
	}
	bad := func(r, col uint64, why string) error {
		c.Release()
		return errorf(arrowsparse.ErrStructure, "mtx: the matrix is not %s: %s at (%d, %d) (1-based)", cfg.symmetry, why, r+1, col+1)
	}
	// Merge the entries of A and of Aᵀ, both sorted: at every position
	// a_ij must mirror a_ji, a missing entry counting as zero.
	var i, j int64
	for i < na || j < nb {
		var ra, ca, rb, cb uint64
		ra, ca, rb, cb = math.MaxUint64, math.MaxUint64, math.MaxUint64, math.MaxUint64
		if i < na {
			ra, ca = at(ac, i)
		}
		if j < nb {
			rb, cb = at(bc, j)
		}
		switch {
		case ra == rb && ca == cb:
			x, y := textparse.ValueAt(av, dt, i), textparse.ValueAt(bv, dt, j)
			if ra == ca && skew && !x.IsZero() {
				return nil, bad(ra, ca, "the diagonal entry is not zero")
			}
			if !mirrors(x, y, skew) {
				return nil, bad(ra, ca, "the entry does not mirror the one at ("+strconv.FormatUint(ca+1, 10)+", "+strconv.FormatUint(ra+1, 10)+")")
			}
			i++
			j++
		case rb == math.MaxUint64 || i < na && (ra < rb || ra == rb && ca < cb):
			if !textparse.ValueAt(av, dt, i).IsZero() {
				return nil, bad(ra, ca, "the entry has no mirror image")
			}
			i++
		default:
			if !textparse.ValueAt(bv, dt, j).IsZero() {
				return nil, bad(cb, rb, "the entry has no mirror image")
			}
			j++
		}
	}
	return c, nil
}

// checkDenseSymmetry checks a column-major square matrix for symmetry.
func checkDenseSymmetry(data []byte, dt arrow.DataType, n int64, s Symmetry) error {
	skew := s == SkewSymmetric
	for j := range n {
		for i := j; i < n; i++ {
			x := textparse.ValueAt(data, dt, i+j*n)
			if i == j {
				if skew && !x.IsZero() {
					return errorf(arrowsparse.ErrStructure, "mtx: the matrix is not %s: the diagonal entry is not zero at (%d, %d) (1-based)", s, i+1, j+1)
				}
				continue
			}
			if !mirrors(x, textparse.ValueAt(data, dt, j+i*n), skew) {
				return errorf(arrowsparse.ErrStructure, "mtx: the matrix is not %s: the entry at (%d, %d) does not mirror the one at (%d, %d) (1-based)", s, i+1, j+1, j+1, i+1)
			}
		}
	}
	return nil
}
