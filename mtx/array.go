package mtx

import (
	"bytes"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/internal/textparse"
	"github.com/arrowsparse/arrowsparse/views"
)

// arrayScratch is a worker's parse of one chunk of an array file.
type arrayScratch struct {
	vals []uint64
	off  int64
}

// arrayReader reads the body of an array file: one value per line, column
// by column (one triangle of a symmetric matrix).
type arrayReader struct {
	cfg    *readConfig
	h      Header
	vals   textparse.Values
	values *textparse.Column
}

func readArray(in *textparse.Input, cfg *readConfig, h Header, vals textparse.Values) (*views.View, error) {
	r := &arrayReader{cfg: cfg, h: h, vals: vals}
	room := h.Entries
	if size := in.Size(); size >= 0 {
		room = min(room, (size+1)/2) // each value takes at least "0\n"
	} else {
		room = min(room, streamStartEntries)
	}
	r.values = textparse.NewColumn(cfg.Mem, vals.Width, room)
	defer r.values.Release()
	n, lines, err := textparse.Run(in, textparse.Body[arrayScratch]{
		New:   func() *arrayScratch { return &arrayScratch{} },
		Parse: r.parse,
		Place: r.place,
		Copy:  r.copy,
	})
	if err != nil {
		return nil, err
	}
	if n != h.Entries {
		return nil, cfg.Errorf(arrowsparse.ErrStructure, "line %d: the input ends after %d values, but a %d × %d %s array has %d", lines, n, h.Rows, h.Cols, h.Symmetry, h.Entries)
	}
	if h.Symmetry == General {
		return newColMajor(vals.Type, r.values.Finish(n), h.Rows, h.Cols)
	}
	// Unpack the stored triangle into a full column-major matrix.
	dim := h.Rows
	size, _ := core.MulInt64(dim, dim)
	full := textparse.NewColumn(cfg.Mem, vals.Width, size)
	defer full.Release()
	dst := full.Bytes(0, size)
	clear(dst)
	unpack(dst, r.values.Bytes(0, n), vals.Width, dim, h.Symmetry == SkewSymmetric, !cfg.keepTriangle, negation(vals, h.Symmetry == SkewSymmetric))
	return newColMajor(vals.Type, full.Finish(size), dim, dim)
}

// unpack writes the packed lower triangle (column by column, without the
// diagonal when skew) into the column-major dim × dim matrix dst, and the
// mirror images into the upper triangle when both.
func unpack(dst, packed []byte, w int, dim int64, skew, both bool, neg uint64) {
	switch w {
	case 1:
		unpackT(view[uint8](dst, dim*dim), view[uint8](packed, int64(len(packed))), dim, skew, both, uint8(neg), neg == intNegate)
	case 2:
		unpackT(view[uint16](dst, dim*dim), view[uint16](packed, int64(len(packed)/2)), dim, skew, both, uint16(neg), neg == intNegate)
	case 4:
		unpackT(view[uint32](dst, dim*dim), view[uint32](packed, int64(len(packed)/4)), dim, skew, both, uint32(neg), neg == intNegate)
	default:
		unpackT(view[uint64](dst, dim*dim), view[uint64](packed, int64(len(packed)/8)), dim, skew, both, neg, neg == intNegate)
	}
}

func unpackT[V lane](dst, packed []V, dim int64, skew, both bool, mask V, intNeg bool) {
	p := 0
	for j := range dim {
		i0 := j
		if skew {
			i0 = j + 1
		}
		for i := i0; i < dim; i++ {
			x := packed[p]
			p++
			dst[i+j*dim] = x
			if both && i != j {
				if intNeg {
					x = -x
				} else {
					x ^= mask
				}
				dst[j+i*dim] = x
			}
		}
	}
}

func (r *arrayReader) parse(data []byte, s *arrayScratch) (lines, entries int64, lerr *textparse.LineError) {
	s.vals = s.vals[:0]
	maxLine := r.cfg.MaxLine
	n := len(data)
	i := 0
	for i < n {
		start := i
		for i < n && (data[i] == ' ' || data[i] == '\t') {
			i++
		}
		if i == n {
			lines++
			break
		}
		switch data[i] {
		case '\n', '\r', '%':
			j := bytes.IndexByte(data[i:], '\n')
			if j < 0 {
				j = n - i
			}
			if data[i] == '\r' && j != 1 {
				return lines, int64(len(s.vals)), textparse.NewLineError(arrowsparse.ErrSyntax, lines, "stray carriage return")
			}
			if j > maxLine {
				return lines, int64(len(s.vals)), textparse.NewLineError(arrowsparse.ErrSyntax, lines, "line is longer than %d bytes", maxLine)
			}
			i += j + 1
			lines++
			continue
		}
		lane, next, msg := r.vals.Parse(data, i)
		if msg != "" {
			return lines, int64(len(s.vals)), textparse.NewLineError(arrowsparse.ErrSyntax, lines, "%s", msg)
		}
		i = next
		for i < n && (data[i] == ' ' || data[i] == '\t') {
			i++
		}
		if i < n {
			if data[i] == '\r' && i+1 < n && data[i+1] == '\n' {
				i++
			}
			if data[i] != '\n' {
				return lines, int64(len(s.vals)), textparse.NewLineError(arrowsparse.ErrSyntax, lines, "an array file has one value per line, but this line has more")
			}
			i++
		}
		lines++
		if i-start > maxLine+1 {
			return lines - 1, int64(len(s.vals)), textparse.NewLineError(arrowsparse.ErrSyntax, lines-1, "line is longer than %d bytes", maxLine)
		}
		s.vals = append(s.vals, lane)
	}
	return lines, int64(len(s.vals)), nil
}

func (r *arrayReader) place(data []byte, s *arrayScratch, before int64, grow func(func())) error {
	n := int64(len(s.vals))
	if before+n > r.h.Entries {
		return textparse.NewLineError(arrowsparse.ErrStructure, entryLine(data, r.h.Entries-before), "more values than the %d a %d × %d %s array has", r.h.Entries, r.h.Rows, r.h.Cols, r.h.Symmetry)
	}
	s.off = before
	if need := before + n; need > r.values.Cap() {
		room := min(max(2*r.values.Cap(), need), r.h.Entries)
		grow(func() { r.values.Reserve(room) })
	}
	return nil
}

func (r *arrayReader) copy(s *arrayScratch) {
	textparse.Narrow(r.values.Bytes(s.off, int64(len(s.vals))), r.vals.Width, s.vals)
}
