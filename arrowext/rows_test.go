package arrowext_test

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/arrowext"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
	"github.com/arrowsparse/arrowsparse/views"
)

// TestFixedShapeRows reads every row of random columns (every value type,
// ranks 1 to 5, random permutations, names, null rows, offsets) as views
// and compares them with the spec's logical tensor, computed from the
// physical values element by element.
func TestFixedShapeRows(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(1, 2))
	for _, vt := range testutil.ValueTypes {
		for rank := 1; rank <= 5; rank++ {
			for trial := range 4 {
				shape := make([]int64, rank)
				for k := range shape {
					shape[k] = 1 + r.Int64N(4)
				}
				perm := randomPerm(r, rank)
				if rank == 3 && trial == 0 {
					perm = []int{1, 2, 0} // a 3-cycle, always
				}
				var names []string
				if trial%2 == 1 {
					names = make([]string, rank)
					for k := range names {
						names[k] = fmt.Sprintf("d%d", k)
					}
				}
				typ := mustFixed(t, vt, shape, names, perm)
				n := r.IntN(5)
				null := make([]bool, n)
				for i := range null {
					null[i] = trial == 3 && r.IntN(3) == 0
				}
				col, rows := fixedColumn(t, r, mem, typ, typ.ListSize(), n, null, r.IntN(3))
				checkFixedRows(t, mem, col.(*arrowext.FixedShapeTensorArray), rows, null, shape, perm, names)

				// A slice of the column reads the same rows.
				if n > 1 {
					s := array.NewSlice(col, 1, int64(n)).(*arrowext.FixedShapeTensorArray)
					checkFixedRows(t, mem, s, rows[1:], null[1:], shape, perm, names)
					s.Release()
				}
				col.Release()
			}
		}
	}
}

func checkFixedRows(t *testing.T, mem memory.Allocator, col *arrowext.FixedShapeTensorArray, rows [][]byte, null []bool, shape []int64, perm []int, names []string) {
	t.Helper()
	typ := col.TensorType()
	w := arrowsparse.ByteWidth(typ.ValueType())
	anyNull := false
	all := []byte{}
	for i := range rows {
		v, err := col.Row(i)
		require.NoError(t, err)
		if null[i] {
			anyNull = true
			assert.Nil(t, v, "row %d is null", i)
			continue
		}
		require.NotNil(t, v)
		want := logicalBytes(rows[i], shape, perm, w)
		assert.Equal(t, typ.LogicalShape(), v.Shape())
		assert.Equal(t, want, viewBytes(t, mem, v), "%s row %d", typ, i)
		assert.Equal(t, typ.LogicalDimNames(), v.DimNames())
		assert.True(t, v.ReadOnly())
		// Zero-copy: the view is over the column's own buffer.
		assert.Same(t, col.Storage().(*array.FixedSizeList).ListValues().Data().Buffers()[1], v.Buffer())
		all = append(all, want...)
		v.Release()
	}
	whole, err := col.View()
	if anyNull {
		assert.ErrorIs(t, err, arrow.ErrInvalid)
		return
	}
	require.NoError(t, err)
	defer whole.Release()
	assert.Equal(t, append([]int64{int64(len(rows))}, typ.LogicalShape()...), whole.Shape())
	assert.Equal(t, all, viewBytes(t, mem, whole))
	if names != nil {
		assert.Equal(t, append([]string{""}, typ.LogicalDimNames()...), whole.DimNames())
	}
	// views.FromArray honours the type too.
	same, err := views.FromArray(col)
	require.NoError(t, err)
	assert.Equal(t, whole.Shape(), same.Shape())
	assert.Equal(t, whole.ElemStrides(), same.ElemStrides())
	same.Release()
}

// TestRowErrors covers rows that cannot be read.
func TestRowErrors(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(3, 4))
	typ := mustFixed(t, arrow.PrimitiveTypes.Float64, []int64{2, 2}, nil, nil)
	col, _ := fixedColumn(t, r, mem, typ, 4, 3, []bool{false, true, false}, 0)
	defer col.Release()
	fc := col.(*arrowext.FixedShapeTensorArray)
	for _, i := range []int{-1, 3} {
		_, err := fc.Row(i)
		assert.ErrorIs(t, err, arrow.ErrIndex)
	}
	assert.Equal(t, "(null)", fc.ValueStr(1))
	assert.Nil(t, fc.GetOneForMarshal(1))
	assert.NotNil(t, fc.GetOneForMarshal(0))

	// A value type a view cannot hold.
	btyp := mustFixed(t, arrow.FixedWidthTypes.Boolean, []int64{3}, nil, nil)
	bs, _, err := array.FromJSON(mem, btyp.StorageType(), stringsReader(`[[true,false,true]]`))
	require.NoError(t, err)
	defer bs.Release()
	bcol := array.NewExtensionArrayWithStorage(btyp, bs).(*arrowext.FixedShapeTensorArray)
	defer bcol.Release()
	_, err = bcol.Row(0)
	assert.ErrorIs(t, err, arrow.ErrType)
	_, err = bcol.View()
	assert.ErrorIs(t, err, arrow.ErrType)
	assert.Contains(t, bcol.ValueStr(0), "not a tensor value type")

	// Null values inside a valid row.
	ns, _, err := array.FromJSON(mem, typ.StorageType(), stringsReader(`[[1,2,3,4],[5,null,7,8]]`))
	require.NoError(t, err)
	defer ns.Release()
	ncol := array.NewExtensionArrayWithStorage(typ, ns).(*arrowext.FixedShapeTensorArray)
	defer ncol.Release()
	v, err := ncol.Row(0)
	require.NoError(t, err)
	v.Release()
	_, err = ncol.Row(1)
	assert.ErrorIs(t, err, arrow.ErrInvalid)
	assert.ErrorContains(t, err, "null values")

	// arrowext.Row of a column of another type.
	ints, _, err := array.FromJSON(mem, arrow.PrimitiveTypes.Int32, stringsReader(`[1]`))
	require.NoError(t, err)
	defer ints.Release()
	_, err = arrowext.Row(ints, 0)
	assert.ErrorIs(t, err, arrow.ErrType)
}

// TestVariableShapeRows reads random variable-shape columns row by row and
// compares them with the spec's logical tensors.
func TestVariableShapeRows(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(5, 6))
	for _, vt := range testutil.ValueTypes {
		for ndim := 1; ndim <= 5; ndim++ {
			for trial := range 3 {
				perm := randomPerm(r, ndim)
				if ndim == 3 && trial == 0 {
					perm = []int{2, 0, 1}
				}
				var uniform []int64
				if trial == 1 {
					uniform = make([]int64, ndim)
					for k := range uniform {
						uniform[k] = arrowext.VariableDim
						if r.IntN(2) == 0 {
							uniform[k] = r.Int64N(3)
						}
					}
				}
				names := []string(nil)
				if trial == 2 {
					names = make([]string, ndim)
					for k := range names {
						names[k] = fmt.Sprintf("n%d", k)
					}
				}
				typ := mustVariable(t, vt, ndim, names, perm, uniform)
				n := r.IntN(6)
				shapes := make([][]int64, n)
				null := make([]bool, n)
				for i := range shapes {
					null[i] = r.IntN(4) == 0
					shapes[i] = make([]int64, ndim)
					for k := range shapes[i] {
						shapes[i][k] = r.Int64N(4) // zero-size dimensions included
						if uniform != nil && uniform[k] >= 0 {
							shapes[i][k] = uniform[k]
						}
					}
				}
				col, rows := variableColumn(t, r, mem, typ, shapes, null)
				vc := col.(*arrowext.VariableShapeTensorArray)
				w := arrowsparse.ByteWidth(vt)
				for i := range n {
					v, err := vc.Row(i)
					require.NoError(t, err)
					shape, err := vc.RowShape(i)
					require.NoError(t, err)
					if null[i] {
						assert.Nil(t, v)
						assert.Nil(t, shape)
						continue
					}
					want := logicalBytes(rows[i], shapes[i], perm, w)
					assert.Equal(t, shape, v.Shape())
					assert.Equal(t, want, viewBytes(t, mem, v), "%s row %d", typ, i)
					assert.Equal(t, typ.LogicalDimNames(), v.DimNames())
					v.Release()
				}
				col.Release()
			}
		}
	}
}

// variableColumn builds a variable_shape_tensor column over random values
// with the given physical shapes and null rows, returning the physical bytes
// of each row. Null rows get an empty list and a zero shape.
func variableColumn(t testing.TB, r *rand.Rand, mem memory.Allocator, typ *arrowext.VariableShapeTensorType, shapes [][]int64, null []bool) (arrow.Array, [][]byte) {
	t.Helper()
	st := typ.StorageType().(*arrow.StructType)
	vt := typ.ValueType()
	w := arrowsparse.ByteWidth(vt)
	nd := typ.NumDims()
	n := len(shapes)
	offsets := make([]int32, n+1)
	dims := make([]int32, n*nd)
	for i, s := range shapes {
		size := int64(1)
		for k, d := range s {
			size *= d
			if !null[i] {
				dims[i*nd+k] = int32(d)
			}
		}
		if null[i] {
			size = 0
		}
		offsets[i+1] = offsets[i] + int32(size)
	}
	values := randomBuffer(r, mem, int(offsets[n])*w)
	defer values.Release()
	rows := make([][]byte, n)
	for i := range rows {
		rows[i] = append([]byte(nil), values.Bytes()[int(offsets[i])*w:int(offsets[i+1])*w]...)
	}
	ob := testutil.BufferOf(mem, offsets)
	defer ob.Release()
	db := testutil.BufferOf(mem, dims)
	defer db.Release()
	vd := array.NewData(vt, int(offsets[n]), []*memory.Buffer{nil, values}, nil, 0, 0)
	defer vd.Release()
	ld := array.NewData(st.Field(0).Type, n, []*memory.Buffer{nil, ob}, []arrow.ArrayData{vd}, 0, 0)
	defer ld.Release()
	dd := array.NewData(arrow.PrimitiveTypes.Int32, n*nd, []*memory.Buffer{nil, db}, nil, 0, 0)
	defer dd.Release()
	sd := array.NewData(st.Field(1).Type, n, []*memory.Buffer{nil}, []arrow.ArrayData{dd}, 0, 0)
	defer sd.Release()
	valid, nulls := nullBitmap(mem, null)
	if valid != nil {
		defer valid.Release()
	}
	data := array.NewData(st, n, []*memory.Buffer{valid}, []arrow.ArrayData{ld, sd}, nulls, 0)
	defer data.Release()
	storage := array.MakeFromData(data)
	defer storage.Release()
	return array.NewExtensionArrayWithStorage(typ, storage), rows
}

// TestVariableShapeRowErrors covers rows whose storage disagrees with the
// type or with itself.
func TestVariableShapeRowErrors(t *testing.T) {
	mem := testutil.Checked(t)
	typ := mustVariable(t, arrow.PrimitiveTypes.Int32, 2, nil, nil, []int64{arrowext.VariableDim, 2})
	for _, tc := range []struct {
		json string
		row  int
		want string
	}{
		{`[{"data": [1, 2, 3], "shape": [2, 2]}]`, 0, "holds 3 values"},
		{`[{"data": [1, 2, 3, 4], "shape": [-1, -4]}]`, 0, "negative"},
		{`[{"data": [1, 2, 3], "shape": [1, 3]}]`, 0, "uniform shape"},
		{`[{"data": null, "shape": [0, 2]}]`, 0, "data list is null"},
		{`[{"data": [], "shape": null}]`, 0, "shape is null"},
		{`[{"data": [1, 2], "shape": [1, null]}]`, 0, "null values"},
		{`[{"data": [1, null], "shape": [1, 2]}]`, 0, "null values"},
	} {
		storage, _, err := array.FromJSON(mem, typ.StorageType(), stringsReader(tc.json))
		require.NoError(t, err, tc.json)
		col := array.NewExtensionArrayWithStorage(typ, storage).(*arrowext.VariableShapeTensorArray)
		_, err = col.Row(tc.row)
		assert.ErrorIs(t, err, arrow.ErrInvalid, tc.json)
		assert.ErrorContains(t, err, tc.want, tc.json)
		_, err = col.RowShape(tc.row)
		assert.Error(t, err)
		assert.Contains(t, col.ValueStr(tc.row), tc.want)
		col.Release()
		storage.Release()
	}
}

// TestVariableShapeCorruptOffsets feeds rows whose list offsets lie outside
// the values: an error, never a panic.
func TestVariableShapeCorruptOffsets(t *testing.T) {
	mem := testutil.Checked(t)
	typ := mustVariable(t, arrow.PrimitiveTypes.Int8, 1, nil, nil, nil)
	st := typ.StorageType().(*arrow.StructType)
	for _, offs := range [][]int32{{0, 5}, {3, 1}, {-2, 0}, {0}} {
		ob := memory.NewResizableBuffer(mem)
		ob.Resize(len(offs) * 4)
		for i, o := range offs {
			binary.NativeEndian.PutUint32(ob.Bytes()[i*4:], uint32(o))
		}
		vals := testutil.BufferOf(mem, []int8{1, 2})
		dims := testutil.BufferOf(mem, []int32{2})
		vd := array.NewData(arrow.PrimitiveTypes.Int8, 2, []*memory.Buffer{nil, vals}, nil, 0, 0)
		ld := array.NewData(st.Field(0).Type, 1, []*memory.Buffer{nil, ob}, []arrow.ArrayData{vd}, 0, 0)
		dd := array.NewData(arrow.PrimitiveTypes.Int32, 1, []*memory.Buffer{nil, dims}, nil, 0, 0)
		sd := array.NewData(st.Field(1).Type, 1, []*memory.Buffer{nil}, []arrow.ArrayData{dd}, 0, 0)
		data := array.NewData(typ, 1, []*memory.Buffer{nil}, []arrow.ArrayData{ld, sd}, 0, 0)
		col := array.NewExtensionData(data).(*arrowext.VariableShapeTensorArray)
		_, err := col.Row(0)
		assert.ErrorIs(t, err, arrow.ErrInvalid, "%v", offs)
		for _, x := range []interface{ Release() }{col, data, sd, dd, ld, vd, dims, vals, ob} {
			x.Release()
		}
	}
}
