package coo

import (
	"errors"
	"io"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// DefaultBatchRows is the number of entries per record batch that ToRecords
// uses when asked for 0: 1Mi entries, a few megabytes per column, which
// suits Parquet row groups and IPC readers alike.
const DefaultBatchRows = 1 << 20

// ToRecords returns the tensor in table form as ToRecord does, cut into
// record batches of at most batchRows entries each (DefaultBatchRows when
// batchRows is 0), so that a tensor of any size can be written to an IPC
// file or a Parquet file batch by batch. Every batch has the same schema,
// with the shape and dim names under TableMetadataKey, and is a slice of
// one table: for a column-major tensor no entry is copied; otherwise the
// coordinates are transposed once into a buffer the batches share. A
// tensor with no stored entries gives one empty batch, so that the schema
// still travels. Each batch must be released by the caller.
func (t *Tensor) ToRecords(mem memory.Allocator, batchRows int64) ([]arrow.RecordBatch, error) {
	if batchRows < 0 {
		return nil, core.Errorf(arrowsparse.ErrShape, "coo: batchRows is %d, want a positive number (or 0 for the default)", batchRows)
	}
	if batchRows == 0 {
		batchRows = DefaultBatchRows
	}
	whole, err := t.ToRecord(mem)
	if err != nil {
		return nil, err
	}
	defer whole.Release()
	if t.nnz <= batchRows {
		whole.Retain()
		return []arrow.RecordBatch{whole}, nil
	}
	out := make([]arrow.RecordBatch, 0, (t.nnz+batchRows-1)/batchRows)
	for lo := int64(0); lo < t.nnz; lo += batchRows {
		out = append(out, whole.NewSlice(lo, min(lo+batchRows, t.nnz)))
	}
	return out, nil
}

// FromRecordReader builds one tensor from every record batch of r, in
// order, reading each as FromRecord reads one batch: the same columns,
// metadata, checks and errors, with row numbers counted across batches.
// The schema of r says which columns hold what (or o does), so the batches
// may come from an IPC file or stream reader, a Parquet file read with
// pqarrow, or array.NewTableReader over a table: batches are read one at a
// time and appended to the tensor's buffers, and none is retained, so a
// table larger than one batch, or than memory twice over, is never held
// twice. Coordinates are stored row-major. Without a shape from o or from
// the metadata, the shape is the largest coordinate of each column plus
// one. An error of r (r.Err) is returned as it is. The result must be
// released by the caller; r is not released.
func FromRecordReader(mem memory.Allocator, r array.RecordReader, o RecordOptions) (*Tensor, error) {
	return fromReader(mem, r, o, -1)
}

// fromReader is FromRecordReader. With rows ≥ 0, the number of entries the
// reader gives, the buffers are allocated once and the coordinates stored
// column-major; otherwise they grow batch by batch and are row-major.
func fromReader(mem memory.Allocator, r array.RecordReader, o RecordOptions, rows int64) (*Tensor, error) {
	p, err := planTable(r.Schema(), o)
	if err != nil {
		return nil, err
	}
	nd := int64(len(p.dimCols))
	vt := p.valueType
	vw := int64(arrowsparse.ByteWidth(vt))
	layout := RowMajor
	if rows >= 0 && nd > 1 {
		layout = ColMajor
	}
	// Coordinates are staged as int64 and narrowed to the index type in
	// place at the end.
	cb := memory.NewResizableBuffer(mem)
	vb := memory.NewResizableBuffer(mem)
	release := func() { cb.Release(); vb.Release() }
	reserve := func(total int64) error {
		need, ok := core.MulInt64(total, nd*8)
		if !ok || core.CheckAlloc(need, "the coordinates of the table") != nil {
			return core.Errorf(arrowsparse.ErrOverflow, "coo: a table of %d entries of %d dimensions is larger than memory", total, nd)
		}
		grow[uint8](mem, cb, need)
		grow[uint8](mem, vb, total*vw)
		return nil
	}
	if rows >= 0 {
		if err := reserve(rows); err != nil {
			release()
			return nil, err
		}
	}
	shape := p.shape
	seen := make([]int64, nd) // largest coordinate + 1 of each column
	var nnz int64
	for r.Next() {
		rec := r.RecordBatch()
		n := rec.NumRows()
		if n == 0 {
			continue
		}
		total := nnz + n
		if rows >= 0 && total > rows {
			release()
			return nil, core.Errorf(arrowsparse.ErrShape, "coo: the table gave more than the %d rows it announced", rows)
		}
		if rows < 0 {
			if err := reserve(total); err != nil {
				release()
				return nil, err
			}
		}
		valArr, err := p.column(rec, p.valueIdx, p.valueCol)
		if err == nil && !arrow.TypeEqual(valArr.DataType(), vt) {
			err = core.Errorf(arrowsparse.ErrUnsupportedType, "coo: value column %q has type %s in one batch and %s in another", p.valueCol, valArr.DataType(), vt)
		}
		if err != nil {
			release()
			return nil, err
		}
		all := core.MustSliceBytes[int64](cb.Bytes())
		for k := range nd {
			arr, err := p.column(rec, p.dimIdx[k], p.dimCols[k])
			if err != nil {
				release()
				return nil, err
			}
			// Entry i of this batch, dimension k, goes to dst[i*stride].
			dst, stride := all[nnz*nd+k:], nd
			if layout == ColMajor {
				dst, stride = all[k*rows+nnz:], 1
			}
			bound := int64(-1)
			if shape != nil {
				bound = shape[k]
			}
			if err := putColumn(arr, p.dimCols[k], dst, stride, bound, nnz, &seen[k]); err != nil {
				release()
				return nil, err
			}
		}
		off := int64(valArr.Data().Offset())
		copy(vb.Bytes()[nnz*vw:total*vw], valArr.Data().Buffers()[1].Bytes()[off*vw:(off+n)*vw])
		nnz = total
	}
	if err := r.Err(); err != nil && !errors.Is(err, io.EOF) {
		release()
		return nil, err
	}
	if layout == ColMajor && nnz < rows {
		// Fewer rows than announced: close the gaps between the columns.
		all := core.MustSliceBytes[int64](cb.Bytes())
		for k := int64(1); k < nd; k++ {
			copy(all[k*nnz:(k+1)*nnz], all[k*rows:k*rows+nnz])
		}
	}
	if shape == nil {
		shape = seen
	}
	if err := core.CheckShape(shape); err != nil {
		release()
		return nil, err
	}
	indexType := o.IndexType
	if indexType == nil {
		indexType = arrowsparse.SmallestIndexType(maxCoord(shape))
	}
	if err := core.CheckIndexType(indexType); err != nil {
		release()
		return nil, err
	}
	if m := arrowsparse.IndexMax(indexType); nnz > 0 {
		for k := range nd {
			if seen[k]-1 > m {
				release()
				return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "coo: column %q holds %d, which index type %s cannot hold", p.dimCols[k], seen[k]-1, indexType)
			}
		}
	}
	narrowCoords(cb.Bytes()[:nnz*nd*8], indexType)
	cb.Resize(int(nnz * nd * int64(arrowsparse.ByteWidth(indexType))))
	vb.Resize(int(nnz * vw))
	cfg := config{names: p.names}
	t, err := adopt(vt, indexType, shape, cb, layout, vb, nnz, &cfg)
	if err != nil {
		release()
		return nil, err
	}
	return t, nil
}

// putColumn writes the integer column arr (named name, its first row being
// row base of the table) to dst[0], dst[stride], …, refusing negative
// values, values beyond int64, and values ≥ bound when bound ≥ 0, and
// raises *seen to the largest value + 1.
func putColumn(arr arrow.Array, name string, dst []int64, stride, bound, base int64, seen *int64) error {
	var bad, hi int64
	switch a := arr.(type) {
	case *array.Int8:
		bad, hi = putInts(a.Int8Values(), dst, stride, bound)
	case *array.Int16:
		bad, hi = putInts(a.Int16Values(), dst, stride, bound)
	case *array.Int32:
		bad, hi = putInts(a.Int32Values(), dst, stride, bound)
	case *array.Int64:
		bad, hi = putInts(a.Int64Values(), dst, stride, bound)
	case *array.Uint8:
		bad, hi = putInts(a.Uint8Values(), dst, stride, bound)
	case *array.Uint16:
		bad, hi = putInts(a.Uint16Values(), dst, stride, bound)
	case *array.Uint32:
		bad, hi = putInts(a.Uint32Values(), dst, stride, bound)
	case *array.Uint64:
		bad, hi = putInts(a.Uint64Values(), dst, stride, bound)
	default:
		return core.Errorf(arrowsparse.ErrUnsupportedType, "coo: dimension column %q has type %s, want an integer type", name, arr.DataType())
	}
	if bad >= 0 {
		v := getInt(arr, bad)
		if bound >= 0 && v >= 0 && v != math.MaxInt64 {
			return core.Errorf(arrowsparse.ErrOutOfRange, "coo: row %d of column %q is %d, outside [0, %d)", base+bad, name, v, bound)
		}
		return core.Errorf(arrowsparse.ErrOutOfRange, "coo: row %d of column %q is negative or beyond int64", base+bad, name)
	}
	*seen = max(*seen, hi)
	return nil
}

// putInts is putColumn's loop: it returns the first bad row (or -1) and
// the largest value + 1.
func putInts[E int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64](src []E, dst []int64, stride, bound int64) (int64, int64) {
	lim := uint64(bound)
	if bound < 0 {
		lim = math.MaxInt64
	}
	var hi uint64
	j := int64(0)
	for i, v := range src {
		x := uint64(int64(v))
		if E(int64(v)) != v || x >= lim { // negative values wrap above lim
			return int64(i), 0
		}
		hi = max(hi, x)
		dst[j] = int64(x)
		j += stride
	}
	if len(src) == 0 {
		return -1, 0
	}
	return -1, int64(hi) + 1
}

// getInt returns row i of the integer column arr as int64 (uint64 values
// beyond int64 as math.MaxInt64).
func getInt(arr arrow.Array, i int64) int64 {
	switch a := arr.(type) {
	case *array.Int8:
		return int64(a.Value(int(i)))
	case *array.Int16:
		return int64(a.Value(int(i)))
	case *array.Int32:
		return int64(a.Value(int(i)))
	case *array.Int64:
		return a.Value(int(i))
	case *array.Uint8:
		return int64(a.Value(int(i)))
	case *array.Uint16:
		return int64(a.Value(int(i)))
	case *array.Uint32:
		return int64(a.Value(int(i)))
	case *array.Uint64:
		return int64(min(a.Value(int(i)), math.MaxInt64))
	}
	return -1
}

// FromTable builds one tensor from every chunk of a table (as read from an
// IPC file or a Parquet file), as FromRecordReader does.
func FromTable(mem memory.Allocator, tbl arrow.Table, o RecordOptions) (*Tensor, error) {
	tr := array.NewTableReader(tbl, 0)
	defer tr.Release()
	return fromReader(mem, tr, o, tbl.NumRows())
}

// narrowCoords rewrites the int64 coordinates in b as the index type dt,
// from the front of b. Element i of the narrow type ends at or before byte
// 8(i+1), where int64 element i+1 begins, so every wide element is read
// before any narrow write reaches it.
func narrowCoords(b []byte, dt arrow.DataType) {
	src := core.MustSliceBytes[int64](b)
	switch dt.ID() {
	case arrow.INT64:
	case arrow.INT32:
		narrow(src, core.MustSliceBytes[int32](b[:len(src)*4]))
	case arrow.INT16:
		narrow(src, core.MustSliceBytes[int16](b[:len(src)*2]))
	case arrow.INT8:
		narrow(src, core.MustSliceBytes[int8](b[:len(src)]))
	case arrow.UINT32:
		narrow(src, core.MustSliceBytes[uint32](b[:len(src)*4]))
	case arrow.UINT16:
		narrow(src, core.MustSliceBytes[uint16](b[:len(src)*2]))
	case arrow.UINT8:
		narrow(src, core.MustSliceBytes[uint8](b[:len(src)]))
	case arrow.UINT64:
		narrow(src, core.MustSliceBytes[uint64](b))
	}
}

func narrow[I int8 | int16 | int32 | uint8 | uint16 | uint32 | uint64](src []int64, dst []I) {
	for i := range dst {
		dst[i] = I(src[i])
	}
}
