package ipc

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/ipc/internal/wire"
)

func decodeCSF(st *wire.SparseTensor, idx *wire.CSFIndex, body *memory.Buffer, out *Message, cfg *readConfig) (arrowsparse.Tensor, error) {
	shape, names := dimsOf(st.Shape)
	nd := len(shape)
	unit, err := wire.DetectCSFLengthUnit(idx)
	if err != nil {
		return nil, err
	}
	if unit == wire.CSFLengthBytes {
		out.CSFLengths = ByteLengths
	}
	ptrCounts, idxCounts, err := wire.CSFCounts(idx, unit)
	if err != nil {
		return nil, err
	}
	order := make([]int, nd)
	for l, a := range idx.AxisOrder {
		order[l] = int(a)
	}
	wp, wi := int64(arrowsparse.ByteWidth(idx.IndptrType)), int64(arrowsparse.ByteWidth(idx.IndicesType))
	levels := make([]csf.Level, nd)
	var bufs []*memory.Buffer
	defer func() {
		for _, b := range bufs {
			b.Release()
		}
	}()
	for l := range nd {
		ib := idx.IndicesBuffers[l]
		levels[l].Indices = slice(body, wire.Buffer{Offset: ib.Offset, Length: idxCounts[l] * wi})
		levels[l].IndexType = idx.IndicesType
		levels[l].Len = idxCounts[l]
		bufs = append(bufs, levels[l].Indices)
		if l < nd-1 {
			pb := idx.IndptrBuffers[l]
			levels[l].Indptr = slice(body, wire.Buffer{Offset: pb.Offset, Length: ptrCounts[l] * wp})
			levels[l].IndptrType = idx.IndptrType
			bufs = append(bufs, levels[l].Indptr)
			if ptrCounts[l] != idxCounts[l]+1 {
				return nil, core.Errorf(arrowsparse.ErrStructure, "ipc: CSF indptr %d has %d entries for %d nodes, want %d", l, ptrCounts[l], idxCounts[l], idxCounts[l]+1)
			}
		}
	}
	nnz := idxCounts[nd-1]
	if st.NonZeroLength != 0 && st.NonZeroLength != nnz {
		return nil, core.Errorf(arrowsparse.ErrStructure, "ipc: CSF non_zero_length is %d but the last level holds %d values", st.NonZeroLength, nnz)
	}
	values := slice(body, st.Data)
	bufs = append(bufs, values)
	opts := []csf.Option{csf.WithDimNames(names...)}
	if cfg.trusted {
		opts = append(opts, csf.WithTrusted())
	}
	return csf.New(st.Type, shape, order, levels, values, nnz, opts...)
}

func encodeCSF(t *csf.Tensor, cfg *writeConfig) (*wire.Message, [][]byte, func(), error) {
	release := func() {}
	if !t.IsCompact() {
		c, err := t.Compact(cfg.mem)
		if err != nil {
			return nil, nil, release, err
		}
		release = c.Release
		t = c
	}
	nd := t.NumDims()
	pt, it, mixed := commonTypes(t)
	if mixed {
		// The message holds one indptr type and one indices type: widen.
		c, err := t.WithIndexTypes(cfg.mem, pt, it)
		if err != nil {
			release()
			return nil, nil, func() {}, err
		}
		release0 := release
		release = func() { c.Release(); release0() }
		t = c
	}
	for l := range nd {
		if err := checkFits(it, "a CSF level size", t.LevelLen(l)); err != nil {
			release()
			return nil, nil, func() {}, err
		}
		if l < nd-1 {
			if err := checkFits(pt, "a CSF level size + 1", t.LevelLen(l)+1); err != nil {
				release()
				return nil, nil, func() {}, err
			}
		}
	}
	wp, wi := int64(arrowsparse.ByteWidth(pt)), int64(arrowsparse.ByteWidth(it))
	bufs := make([][]byte, 0, 2*nd)
	for l := range nd - 1 {
		bufs = append(bufs, prefix(t.IndptrBuffer(l), (t.LevelLen(l)+1)*wp))
	}
	for l := range nd {
		bufs = append(bufs, prefix(t.IndicesBuffer(l), t.LevelLen(l)*wi))
	}
	nnz := t.NNZ()
	bufs = append(bufs, prefix(t.ValuesBuffer(), nnz*int64(arrowsparse.ByteWidth(t.DataType()))))
	ranges, total, body, err := sparseBody(bufs...)
	if err != nil {
		release()
		return nil, nil, func() {}, err
	}
	idx := &wire.CSFIndex{
		IndptrType:     pt,
		IndicesType:    it,
		IndptrBuffers:  ranges[:nd-1],
		IndicesBuffers: ranges[nd-1 : 2*nd-1],
	}
	for _, a := range t.AxisOrder() {
		idx.AxisOrder = append(idx.AxisOrder, int32(a))
	}
	if cfg.csfUnit == ElementCounts {
		// Arrow C++ records element counts for the index buffers (offsets
		// stay those of the padded byte layout).
		for l := range nd - 1 {
			idx.IndptrBuffers[l].Length = t.LevelLen(l) + 1
		}
		for l := range nd {
			idx.IndicesBuffers[l].Length = t.LevelLen(l)
		}
	} else {
		// Exact byte sizes, not padded ones, so that the unit is
		// recognisable (see wire.DetectCSFLengthUnit).
		for l := range nd - 1 {
			idx.IndptrBuffers[l].Length = (t.LevelLen(l) + 1) * wp
		}
		for l := range nd {
			idx.IndicesBuffers[l].Length = t.LevelLen(l) * wi
		}
	}
	st := &wire.SparseTensor{
		Type:          t.DataType(),
		Shape:         dims(t.Shape(), t.DimNames()),
		NonZeroLength: nnz,
		Index:         idx,
		Data:          ranges[2*nd-1],
	}
	return sparseMessage(st, total, nil), body, release, nil
}

// commonTypes returns the widest indptr and indices types among t's levels,
// and whether the levels disagree.
func commonTypes(t *csf.Tensor) (pt, it arrow.DataType, mixed bool) {
	nd := t.NumDims()
	pt, it = t.IndptrType(0), t.IndexType(0)
	for l := range nd {
		if x := t.IndexType(l); !arrow.TypeEqual(x, it) {
			mixed = true
			if arrowsparse.IndexMax(x) > arrowsparse.IndexMax(it) {
				it = x
			}
		}
		if l < nd-1 {
			if x := t.IndptrType(l); !arrow.TypeEqual(x, pt) {
				mixed = true
				if arrowsparse.IndexMax(x) > arrowsparse.IndexMax(pt) {
					pt = x
				}
			}
		}
	}
	return pt, it, mixed
}
