package coo

import (
	"errors"
	"io"

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
	p, err := planTable(r.Schema(), o)
	if err != nil {
		return nil, err
	}
	nd := len(p.dimCols)
	vt := p.valueType
	vw := int64(arrowsparse.ByteWidth(vt))
	// Coordinates are staged as int64, entry by entry, and narrowed to the
	// index type in place at the end.
	cb := memory.NewResizableBuffer(mem)
	vb := memory.NewResizableBuffer(mem)
	release := func() { cb.Release(); vb.Release() }
	shape := p.shape
	seen := make([]int64, nd) // largest coordinate + 1 of each column
	var nnz int64
	cols := make([][]int64, nd)
	for r.Next() {
		rec := r.RecordBatch()
		n := rec.NumRows()
		if n == 0 {
			continue
		}
		for k := range nd {
			arr, err := p.column(rec, p.dimIdx[k], p.dimCols[k])
			if err == nil {
				cols[k], err = int64Column(arr, p.dimCols[k], nnz)
			}
			if err != nil {
				release()
				return nil, err
			}
		}
		valArr, err := p.column(rec, p.valueIdx, p.valueCol)
		if err != nil {
			release()
			return nil, err
		}
		for k, c := range cols {
			for i, v := range c {
				if shape != nil && v >= shape[k] {
					release()
					return nil, core.Errorf(arrowsparse.ErrOutOfRange, "coo: row %d of column %q is %d, outside [0, %d)", nnz+int64(i), p.dimCols[k], v, shape[k])
				}
				seen[k] = max(seen[k], v+1)
			}
		}
		total := nnz + n
		need, ok := core.MulInt64(total, int64(nd)*8)
		if !ok || core.CheckAlloc(need, "the coordinates of the table") != nil {
			release()
			return nil, core.Errorf(arrowsparse.ErrOverflow, "coo: a table of %d entries of %d dimensions is larger than memory", total, nd)
		}
		grow[uint8](mem, cb, need)
		grow[uint8](mem, vb, total*vw)
		dst := core.MustSliceBytes[int64](cb.Bytes()[nnz*int64(nd)*8 : need])
		for k, c := range cols {
			for i, v := range c {
				dst[int64(i)*int64(nd)+int64(k)] = v
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
	if m := arrowsparse.IndexMax(indexType); nd > 0 && nnz > 0 {
		for k := range nd {
			if seen[k]-1 > m {
				release()
				return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "coo: column %q holds %d, which index type %s cannot hold", p.dimCols[k], seen[k]-1, indexType)
			}
		}
	}
	narrowCoords(cb.Bytes()[:nnz*int64(nd)*8], indexType)
	cb.Resize(int(nnz * int64(nd) * int64(arrowsparse.ByteWidth(indexType))))
	vb.Resize(int(nnz * vw))
	cfg := config{names: p.names}
	t, err := adopt(vt, indexType, shape, cb, RowMajor, vb, nnz, &cfg)
	if err != nil {
		release()
		return nil, err
	}
	return t, nil
}

// FromTable builds one tensor from every chunk of a table (as read from an
// IPC file or a Parquet file), as FromRecordReader does.
func FromTable(mem memory.Allocator, tbl arrow.Table, o RecordOptions) (*Tensor, error) {
	tr := array.NewTableReader(tbl, 0)
	defer tr.Release()
	return FromRecordReader(mem, tr, o)
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
