package coo

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/coords"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// FromRecord builds a tensor from a record batch in table form: one integer
// column per dimension (named by dimCols, in dimension order) and one value
// column (valueCol), one row per entry — the "user, movie, rating" table.
//
// shape gives the size of each dimension; if it is nil, each size is the
// largest coordinate in its column plus one. Coordinates are stored with
// indexType, column-major (one contiguous run per dimension), in buffers
// from mem; the column names become the dimension names. Columns may have
// any integer type, the value column any tensor value type. Nulls, negative
// coordinates and coordinates outside shape are errors. The result must be
// released by the caller.
func FromRecord(mem memory.Allocator, rec arrow.RecordBatch, dimCols []string, valueCol string, shape []int64, indexType arrow.DataType) (*Tensor, error) {
	if err := core.CheckIndexType(indexType); err != nil {
		return nil, err
	}
	if shape != nil && len(shape) != len(dimCols) {
		return nil, core.Errorf(arrowsparse.ErrShape, "coo: shape has %d dimensions but %d dimension columns are named", len(shape), len(dimCols))
	}
	column := func(name string) (arrow.Array, error) {
		idx := rec.Schema().FieldIndices(name)
		if len(idx) != 1 {
			return nil, core.Errorf(arrowsparse.ErrShape, "coo: record batch has %d columns named %q, want 1", len(idx), name)
		}
		col := rec.Column(idx[0])
		if col.NullN() > 0 {
			return nil, core.Errorf(arrowsparse.ErrStructure, "coo: column %q has %d nulls; sparse entries cannot be null", name, col.NullN())
		}
		return col, nil
	}
	valArr, err := column(valueCol)
	if err != nil {
		return nil, err
	}
	vt := valArr.DataType()
	if err := core.CheckValueType(vt); err != nil {
		return nil, err
	}
	nnz := int64(rec.NumRows())
	nd := len(dimCols)
	cols := make([][]int64, nd)
	for k, name := range dimCols {
		arr, err := column(name)
		if err != nil {
			return nil, err
		}
		if cols[k], err = int64Column(arr, name); err != nil {
			return nil, err
		}
	}
	if shape == nil {
		shape = make([]int64, nd)
		for k, c := range cols {
			for _, v := range c {
				shape[k] = max(shape[k], v+1)
			}
		}
	}
	if err := core.CheckShape(shape); err != nil {
		return nil, err
	}
	for k, c := range cols {
		for i, v := range c {
			if v >= shape[k] {
				return nil, core.Errorf(arrowsparse.ErrOutOfRange, "coo: row %d of column %q is %d, outside [0, %d)", i, dimCols[k], v, shape[k])
			}
		}
		if shape[k]-1 > arrowsparse.IndexMax(indexType) && nnz > 0 {
			return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "coo: index type %s cannot hold coordinates of dimension %d (size %d)", indexType, k, shape[k])
		}
	}
	iop := coords.For(indexType)
	cb := core.NewBuffer(mem, nnz*int64(nd)*int64(arrowsparse.ByteWidth(indexType)))
	for k, c := range cols {
		iop.Put(cb.Bytes(), int64(k)*nnz, c)
	}
	vw := int64(arrowsparse.ByteWidth(vt))
	vb := core.NewBuffer(mem, nnz*vw)
	off := int64(valArr.Data().Offset())
	copy(vb.Bytes(), valArr.Data().Buffers()[1].Bytes()[off*vw:(off+nnz)*vw])
	cfg := config{names: dimCols}
	t, err := newUnretained(vt, indexType, shape, cb, ColMajor, vb, nnz, &cfg)
	if err != nil {
		cb.Release()
		vb.Release()
		return nil, err
	}
	return t, nil
}

// int64Column reads an integer column into a new []int64, rejecting
// negative values and uint64 values above the int64 range.
func int64Column(arr arrow.Array, name string) ([]int64, error) {
	out := make([]int64, arr.Len())
	bad := -1
	switch a := arr.(type) {
	case *array.Int8:
		bad = convert(out, a.Int8Values())
	case *array.Int16:
		bad = convert(out, a.Int16Values())
	case *array.Int32:
		bad = convert(out, a.Int32Values())
	case *array.Int64:
		bad = convert(out, a.Int64Values())
	case *array.Uint8:
		bad = convert(out, a.Uint8Values())
	case *array.Uint16:
		bad = convert(out, a.Uint16Values())
	case *array.Uint32:
		bad = convert(out, a.Uint32Values())
	case *array.Uint64:
		bad = convert(out, a.Uint64Values())
	default:
		return nil, core.Errorf(arrowsparse.ErrUnsupportedType, "coo: dimension column %q has type %s, want an integer type", name, arr.DataType())
	}
	if bad >= 0 {
		return nil, core.Errorf(arrowsparse.ErrOutOfRange, "coo: row %d of column %q is negative or beyond int64", bad, name)
	}
	return out, nil
}

func convert[E int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64](dst []int64, src []E) int {
	for i, v := range src {
		x := int64(v)
		if x < 0 || E(x) != v {
			return i
		}
		dst[i] = x
	}
	return -1
}

// ToRecord returns the tensor in table form: one column per dimension,
// named after the dimension (or "dim0", "dim1", … without names), holding
// the coordinates with the index type, and a column "value". Entries keep
// their storage order. For a column-major tensor the columns are slices of
// the tensor's buffers (no copy); otherwise the coordinates are transposed
// into a buffer from mem first. The record must be released by the caller.
func (t *Tensor) ToRecord(mem memory.Allocator) (arrow.RecordBatch, error) {
	ct := t
	if t.layout != ColMajor && t.nnz > 1 && len(t.shape) > 1 {
		var err error
		if ct, err = t.WithLayout(mem, ColMajor); err != nil {
			return nil, err
		}
		defer ct.Release()
	}
	nd := len(t.shape)
	fields := make([]arrow.Field, nd+1)
	cols := make([]arrow.Array, nd+1)
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	iw := int64(arrowsparse.ByteWidth(t.indexType))
	vw := int64(arrowsparse.ByteWidth(t.valueType))
	for k := range nd {
		name := fmt.Sprintf("dim%d", k)
		if t.names != nil && t.names[k] != "" {
			name = t.names[k]
		}
		fields[k] = arrow.Field{Name: name, Type: t.indexType}
		cols[k] = sliceArray(t.indexType, ct.coords, int64(k)*t.nnz*iw, t.nnz*iw, t.nnz)
	}
	fields[nd] = arrow.Field{Name: "value", Type: t.valueType}
	cols[nd] = sliceArray(t.valueType, t.values, 0, t.nnz*vw, t.nnz)
	schema := arrow.NewSchema(fields, nil)
	return array.NewRecordBatch(schema, cols, t.nnz), nil
}

// sliceArray returns a primitive array of n elements over buf[off:off+size].
func sliceArray(dt arrow.DataType, buf *memory.Buffer, off, size, n int64) arrow.Array {
	var data *memory.Buffer
	if size > 0 {
		data = memory.SliceBuffer(buf, int(off), int(size))
		defer data.Release()
	}
	d := array.NewData(dt, int(n), []*memory.Buffer{nil, data}, nil, 0, 0)
	defer d.Release()
	return array.MakeFromData(d)
}
