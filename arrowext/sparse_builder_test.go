package arrowext_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/arrowext"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
	"github.com/arrowsparse/arrowsparse/views"
)

// sparseCase is a column of reference dense tensors (nil for null rows)
// and the sparse rows made from them.
type sparseCase struct {
	dense []*views.View
	rows  []arrowsparse.Tensor
}

func (c *sparseCase) release() {
	for _, d := range c.dense {
		if d != nil {
			d.Release()
		}
	}
	releaseTensors(c.rows)
}

// makeCase builds rows of format f from random dense tensors of the
// shapes (nil: a null row).
func makeCase(t testing.TB, r *rand.Rand, mem memory.Allocator, f arrowsparse.Format, vt, it arrow.DataType, shapes [][]int64, order, dims []int, part int) *sparseCase {
	c := &sparseCase{}
	for i, s := range shapes {
		if s == nil {
			c.dense = append(c.dense, nil)
			c.rows = append(c.rows, nil)
			continue
		}
		density := 0.3
		if i == 2 {
			density = 0 // a row without entries
		}
		d := randomDense(t, r, mem, vt, s, density)
		c.dense = append(c.dense, d)
		c.rows = append(c.rows, sparseOf(t, mem, d, f, it, order, dims, part))
	}
	return c
}

// checkColumn reads every row of col and compares it with the reference.
func checkColumn(t *testing.T, mem memory.Allocator, col *arrowext.SparseTensorArray, dense []*views.View, opts ...arrowext.RowOption) {
	t.Helper()
	require.Equal(t, len(dense), col.Len())
	for i, d := range dense {
		x, err := col.Row(i, opts...)
		require.NoError(t, err, "row %d", i)
		if d == nil {
			require.Nil(t, x, "row %d", i)
			require.True(t, col.IsNull(i))
			shape, err := col.RowShape(i)
			require.NoError(t, err)
			require.Nil(t, shape)
			continue
		}
		require.NotNil(t, x, "row %d", i)
		require.Equal(t, col.TensorType().Format(), x.Format())
		require.Equal(t, d.Shape(), x.Shape(), "row %d", i)
		shape, err := col.RowShape(i)
		require.NoError(t, err)
		require.Equal(t, d.Shape(), shape)
		nnz, err := col.RowNNZ(i)
		require.NoError(t, err)
		require.Equal(t, x.NNZ(), nnz)
		require.Equal(t, viewBytes(t, mem, d), denseBytes(t, mem, x), "row %d", i)
		if names := col.TensorType().DimNames(); names != nil {
			require.Equal(t, names, x.DimNames())
		}
		x.Release()
	}
}

// formatParams returns the parameters of a test column of format f.
func formatParams(f arrowsparse.Format, nd int) (order, dims []int, part int) {
	switch f {
	case arrowsparse.FormatCSF:
		order = []int{2, 0, 1}[:nd]
		if nd == 2 {
			order = []int{1, 0}
		}
	case arrowsparse.FormatGCS:
		dims, part = []int{2, 0, 1}[:nd], 1
		if nd == 2 {
			dims = []int{1, 0}
		}
	}
	return order, dims, part
}

// TestSparseRoundTrip builds columns of every format, index type and value
// type, with fixed and varying shapes, null rows and rows without entries,
// and reads every row back against its dense reference.
func TestSparseRoundTrip(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(1, 2))
	for _, f := range sparseFormatList {
		nd := 3
		if f == arrowsparse.FormatCSR || f == arrowsparse.FormatCSC {
			nd = 2
		}
		base := []int64{4, 5, 3}[:nd]
		grown := []int64{5, 2, 6}[:nd]
		empty := append([]int64{0}, base[1:]...)
		order, dims, part := formatParams(f, nd)
		for _, vt := range sparseValueTypes {
			for _, it := range sparseIndexTypes {
				for _, mode := range []string{"fixed", "varying"} {
					name := fmt.Sprintf("%s/%s/%s/%s", f, vt, it, mode)
					shapes := [][]int64{base, nil, base, base}
					if mode == "varying" {
						shapes = [][]int64{base, grown, empty, nil, base}
					}
					c := makeCase(t, r, mem, f, vt, it, shapes, order, dims, part)
					p := arrowext.SparseTensorParams{Format: f, AxisOrder: order, Dimensions: dims, Partitioning: part}
					if mode == "varying" {
						p.DimNames = []string{"i", "j", "k"}[:nd]
					}
					col, err := arrowext.NewSparseTensorArray(mem, p, c.rows)
					require.NoError(t, err, name)
					typ := col.TensorType()
					require.Equal(t, vt, typ.ValueType(), name)
					require.Equal(t, it.ID(), typ.IndexType().ID(), name)
					if f != arrowsparse.FormatCOO {
						require.Equal(t, it.ID(), typ.IndptrType().ID(), name)
					}
					require.Equal(t, f != arrowsparse.FormatCSF, typ.CanonicalClaim(), name)
					if mode == "fixed" {
						require.Equal(t, base, typ.FixedShape(), name)
					} else {
						require.Nil(t, typ.FixedShape(), name)
					}
					for _, a := range typ.ArrayNames() {
						require.False(t, typ.IsLargeList(a))
					}
					checkColumn(t, mem, col, c.dense)
					checkColumn(t, mem, col, c.dense, arrowext.WithTrusted())
					// The type survives its metadata.
					again, err := typ.Deserialize(typ.StorageType(), typ.Serialize())
					require.NoError(t, err, name)
					require.True(t, arrow.TypeEqual(typ, again), name)
					col.Release()
					c.release()
				}
			}
		}
	}
}

// TestSparseBuilderConversions appends rows of other formats, layouts and
// index types than the column's, and dense tensors.
func TestSparseBuilderConversions(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(3, 4))
	i32, i16 := arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int16
	f64 := arrow.PrimitiveTypes.Float64
	for _, target := range sparseFormatList {
		nd := 3
		if target == arrowsparse.FormatCSR || target == arrowsparse.FormatCSC {
			nd = 2
		}
		shape := []int64{4, 5, 3}[:nd]
		order, dims, part := formatParams(target, nd)
		typ, err := arrowext.NewSparseTensorType(arrowext.SparseTensorParams{Format: target, ValueType: f64, Shape: shape, IndexType: i16, IndptrType: i32, AxisOrder: order, Dimensions: dims, Partitioning: part})
		require.NoError(t, err)
		b, err := arrowext.NewSparseTensorBuilder(mem, typ)
		require.NoError(t, err)
		var dense []*views.View
		for _, src := range sparseFormatList {
			if (src == arrowsparse.FormatCSR || src == arrowsparse.FormatCSC) && nd != 2 {
				continue
			}
			d := randomDense(t, r, mem, f64, shape, 0.4)
			o2, d2, p2 := formatParams(src, nd) // other orders than the column's
			if o2 != nil {
				o2 = identity(nd)
			}
			if d2 != nil {
				d2, p2 = identity(nd), nd-1
			}
			x := sparseOf(t, mem, d, src, arrow.PrimitiveTypes.Int64, o2, d2, p2)
			require.NoError(t, b.Append(x), "%s <- %s", target, src)
			x.Release()
			dense = append(dense, d)
		}
		// a column-major COO tensor and a dense tensor
		d := randomDense(t, r, mem, f64, shape, 0.4)
		x := sparseOf(t, mem, d, arrowsparse.FormatCOO, i32, nil, nil, 0).(*coo.Tensor)
		cm, err := x.WithLayout(mem, coo.ColMajor)
		require.NoError(t, err)
		require.NoError(t, b.Append(cm))
		cm.Release()
		x.Release()
		dense = append(dense, d)
		d2 := randomDense(t, r, mem, f64, shape, 0.4)
		require.NoError(t, b.Append(d2))
		dense = append(dense, d2)
		require.NoError(t, b.Append(nil))
		dense = append(dense, nil)
		require.True(t, b.AllCanonical())
		col, err := b.NewArray()
		require.NoError(t, err)
		require.Equal(t, 0, b.Len())
		checkColumn(t, mem, col, dense)
		col.Release()
		b.Release()
		for _, d := range dense {
			if d != nil {
				d.Release()
			}
		}
	}
}

func identity(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return p
}

// TestSparseBuilderErrors checks that refused rows leave the builder as it
// was and free what they allocated.
func TestSparseBuilderErrors(t *testing.T) {
	mem := testutil.Checked(t)
	f64 := arrow.PrimitiveTypes.Float64
	typ, err := arrowext.NewSparseTensorType(arrowext.SparseTensorParams{Format: arrowsparse.FormatCOO, ValueType: f64, Shape: []int64{300, 4}, IndexType: arrow.PrimitiveTypes.Int8, Canonical: true})
	require.NoError(t, err)
	b, err := arrowext.NewSparseTensorBuilder(mem, typ)
	require.NoError(t, err)
	defer b.Release()
	ok, err := coo.FromSlices(mem, []int64{300, 4}, []int64{1, 2, 5, 3}, coo.RowMajor, []float64{1, 2})
	require.NoError(t, err)
	defer ok.Release()
	require.NoError(t, b.Append(ok))
	// an index beyond int8
	big, err := coo.FromSlices(mem, []int64{300, 4}, []int64{1, 2, 200, 3}, coo.RowMajor, []float64{1, 2})
	require.NoError(t, err)
	defer big.Release()
	err = b.Append(big)
	require.ErrorIs(t, err, arrow.ErrInvalid)
	require.ErrorIs(t, err, arrowsparse.ErrOverflow)
	assert.Contains(t, err.Error(), "does not fit")
	// not canonical under a canonical claim
	dup, err := coo.FromSlices(mem, []int64{300, 4}, []int64{5, 3, 1, 2}, coo.RowMajor, []float64{1, 2})
	require.NoError(t, err)
	defer dup.Release()
	err = b.Append(dup)
	require.ErrorIs(t, err, arrow.ErrInvalid)
	assert.Contains(t, err.Error(), "not canonical")
	// another value type, shape, rank
	f32, err := coo.FromSlices(mem, []int64{300, 4}, []int64{1, 2}, coo.RowMajor, []float32{1})
	require.NoError(t, err)
	defer f32.Release()
	require.ErrorIs(t, b.Append(f32), arrow.ErrType)
	other, err := coo.FromSlices(mem, []int64{300, 5}, []int64{1, 2}, coo.RowMajor, []float64{1})
	require.NoError(t, err)
	defer other.Release()
	require.ErrorIs(t, b.Append(other), arrow.ErrInvalid)
	rank3, err := coo.FromSlices(mem, []int64{300, 4, 1}, []int64{1, 2, 0}, coo.RowMajor, []float64{1})
	require.NoError(t, err)
	defer rank3.Release()
	require.ErrorIs(t, b.Append(rank3), arrow.ErrInvalid)
	require.Equal(t, 1, b.Len())
	col, err := b.NewArray()
	require.NoError(t, err)
	defer col.Release()
	require.Equal(t, 1, col.Len())
	x, err := col.Row(0)
	require.NoError(t, err)
	defer x.Release()
	require.Equal(t, int64(2), x.NNZ())
	// the column's arrays hold exactly the accepted row
	st := col.Storage().(*array.Struct)
	require.Equal(t, 2, st.Field(0).(*array.List).ListValues().Len())
	require.Equal(t, 2, st.Field(1).(*array.List).ListValues().Len())

	// NewSparseTensorArray: errors name the row; nothing leaks
	_, err = arrowext.NewSparseTensorArray(mem, arrowext.SparseTensorParams{Format: arrowsparse.FormatCOO}, []arrowsparse.Tensor{ok, f32})
	require.ErrorIs(t, err, arrow.ErrType)
	_, err = arrowext.NewSparseTensorArray(mem, arrowext.SparseTensorParams{Format: arrowsparse.FormatCOO, Canonical: true}, []arrowsparse.Tensor{ok, dup})
	require.ErrorIs(t, err, arrow.ErrInvalid)
	assert.Contains(t, err.Error(), "rows[1]")
	_, err = arrowext.NewSparseTensorArray(mem, arrowext.SparseTensorParams{Format: arrowsparse.FormatCOO}, []arrowsparse.Tensor{nil})
	require.ErrorIs(t, err, arrow.ErrType)
	_, err = arrowext.NewSparseTensorArray(mem, arrowext.SparseTensorParams{}, nil)
	require.ErrorIs(t, err, arrow.ErrType)
	_, err = arrowext.NewSparseTensorArray(mem, arrowext.SparseTensorParams{Format: arrowsparse.FormatCOO}, []arrowsparse.Tensor{ok, rank3})
	require.ErrorIs(t, err, arrow.ErrInvalid)
	_, err = arrowext.NewSparseTensorBuilder(mem, nil)
	require.ErrorIs(t, err, arrow.ErrInvalid)
}

// TestSparseCanonicalClaim: the claim is written exactly when every row is
// canonical, and a non-canonical COO row keeps its duplicates.
func TestSparseCanonicalClaim(t *testing.T) {
	mem := testutil.Checked(t)
	shape := []int64{3, 3}
	sorted, err := coo.FromSlices(mem, shape, []int32{0, 1, 2, 2}, coo.RowMajor, []float64{1, 2})
	require.NoError(t, err)
	defer sorted.Release()
	dup, err := coo.FromSlices(mem, shape, []int32{2, 2, 0, 1, 2, 2}, coo.RowMajor, []float64{1, 2, 4})
	require.NoError(t, err)
	defer dup.Release()
	col, err := arrowext.NewSparseTensorArray(mem, arrowext.SparseTensorParams{Format: arrowsparse.FormatCOO}, []arrowsparse.Tensor{sorted, nil})
	require.NoError(t, err)
	assert.Equal(t, `{"format":"COO","shape":[3,3],"canonical":true,"data_types":{"indices":"int32","values":"float64"}}`, col.TensorType().Serialize())
	col.Release()
	col, err = arrowext.NewSparseTensorArray(mem, arrowext.SparseTensorParams{Format: arrowsparse.FormatCOO}, []arrowsparse.Tensor{sorted, dup})
	require.NoError(t, err)
	defer col.Release()
	assert.False(t, col.TensorType().CanonicalClaim())
	x, err := col.Row(1)
	require.NoError(t, err)
	defer x.Release()
	assert.Equal(t, int64(3), x.NNZ())
	assert.False(t, x.(arrowsparse.Sparse).IsCanonical())
	d, err := x.ToDense(mem)
	require.NoError(t, err)
	defer d.Release()
	assert.Equal(t, []float64{0, 2, 0, 0, 0, 0, 0, 0, 5}, testutil.DenseValues(t, d))
	// CSR with an unsorted lane
	m, err := gcs.FromSlices(mem, gcs.Rows, shape, []int32{0, 2, 2, 2}, []int32{2, 0}, []float64{1, 2}, gcs.WithTrusted())
	if err == nil {
		defer m.Release()
		c2, err := arrowext.NewSparseTensorArray(mem, arrowext.SparseTensorParams{Format: arrowsparse.FormatCSR}, []arrowsparse.Tensor{m})
		require.NoError(t, err)
		assert.False(t, c2.TensorType().CanonicalClaim())
		c2.Release()
	}
}

// TestSparseSharedOffsets: COO's indices and values share one offsets
// buffer, and so do CSR's indices_1 and values.
func TestSparseSharedOffsets(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(5, 6))
	for _, f := range []arrowsparse.Format{arrowsparse.FormatCOO, arrowsparse.FormatCSR} {
		c := makeCase(t, r, mem, f, arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Int32, [][]int64{{3, 4}, nil, {3, 4}, {3, 4}}, nil, nil, 0)
		col, err := arrowext.NewSparseTensorArray(mem, arrowext.SparseTensorParams{Format: f}, c.rows)
		require.NoError(t, err)
		ch := col.Storage().Data().Children()
		last := len(ch) - 1
		assert.Same(t, ch[last-1].Buffers()[1], ch[last].Buffers()[1], "%s", f)
		col.Release()
		c.release()
	}
}

// bufferRange reports whether b lies inside the bytes of buf.
func insideBuffer(b []byte, buf *memory.Buffer) bool {
	if len(b) == 0 || buf == nil || buf.Len() == 0 {
		return false
	}
	lo := uintptr(unsafe.Pointer(&buf.Bytes()[0]))
	p := uintptr(unsafe.Pointer(&b[0]))
	return p >= lo && p+uintptr(len(b)) <= lo+uintptr(buf.Len())
}

// TestSparseRowZeroCopy checks that rows alias the column's buffers.
func TestSparseRowZeroCopy(t *testing.T) {
	mem := testutil.Checked(t)
	r := rand.New(rand.NewPCG(9, 10))
	for _, f := range sparseFormatList {
		nd := 3
		if f == arrowsparse.FormatCSR || f == arrowsparse.FormatCSC {
			nd = 2
		}
		shape := []int64{4, 5, 6}[:nd]
		order, dims, part := formatParams(f, nd)
		c := makeCase(t, r, mem, f, arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Int32, [][]int64{shape, shape}, order, dims, part)
		col, err := arrowext.NewSparseTensorArray(mem, arrowext.SparseTensorParams{Format: f, AxisOrder: order, Dimensions: dims, Partitioning: part}, c.rows)
		require.NoError(t, err)
		ch := col.Storage().Data().Children()
		leaf := func(j int) *memory.Buffer {
			d := ch[j].Children()[0]
			if len(d.Children()) > 0 {
				d = d.Children()[0]
			}
			return d.Buffers()[1]
		}
		x, err := col.Row(1)
		require.NoError(t, err)
		last := len(ch) - 1
		require.True(t, insideBuffer(x.(arrowsparse.Sparse).ValueBytes(), leaf(last)), "%s values", f)
		switch y := x.(type) {
		case *coo.Tensor:
			require.True(t, insideBuffer(y.CoordsBuffer().Bytes(), leaf(0)))
		case *gcs.Matrix:
			require.True(t, insideBuffer(y.IndptrBuffer().Bytes(), leaf(0)))
			require.True(t, insideBuffer(y.IndicesBuffer().Bytes(), leaf(1)))
		case *gcs.Tensor:
			require.True(t, insideBuffer(y.Storage().IndicesBuffer().Bytes(), leaf(1)))
		case *csf.Tensor:
			for l := range nd {
				require.True(t, insideBuffer(y.IndicesBuffer(l).Bytes(), leaf(2*l)))
			}
		}
		// the row outlives the column
		col.Release()
		require.Equal(t, viewBytes(t, mem, c.dense[1]), denseBytes(t, mem, x))
		x.Release()
		c.release()
	}
}

// TestSparseRowErrors: rows outside the column, and Row on other columns.
func TestSparseRowErrors(t *testing.T) {
	mem := testutil.Checked(t)
	col, err := arrowext.NewSparseTensorArray(mem, arrowext.SparseTensorParams{Format: arrowsparse.FormatCSR, ValueType: arrow.PrimitiveTypes.Float64, Shape: []int64{2, 2}}, []arrowsparse.Tensor{nil})
	require.NoError(t, err)
	defer col.Release()
	_, err = col.Row(1)
	require.ErrorIs(t, err, arrow.ErrIndex)
	_, err = col.Row(-1)
	require.ErrorIs(t, err, arrow.ErrIndex)
	_, err = col.RowShape(5)
	require.ErrorIs(t, err, arrow.ErrIndex)
	assert.Equal(t, "[(null)]", col.String())
	require.True(t, errors.Is(err, arrowsparse.ErrOutOfRange))
}

// BenchmarkSparseRow measures reading one row of a CSR column as a
// *gcs.Matrix (checked and trusted).
func BenchmarkSparseRow(b *testing.B) {
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(11, 12))
	c := makeCase(b, r, mem, arrowsparse.FormatCSR, arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Int32, [][]int64{{200, 300}, {200, 300}}, nil, nil, 0)
	defer c.release()
	col, err := arrowext.NewSparseTensorArray(mem, arrowext.SparseTensorParams{Format: arrowsparse.FormatCSR}, c.rows)
	require.NoError(b, err)
	defer col.Release()
	for _, trusted := range []bool{false, true} {
		var opts []arrowext.RowOption
		if trusted {
			opts = append(opts, arrowext.WithTrusted())
		}
		b.Run(fmt.Sprintf("trusted=%v", trusted), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				x, err := col.Row(1, opts...)
				if err != nil {
					b.Fatal(err)
				}
				x.Release()
			}
		})
	}
}

// TestSparseLargeLists: a field whose elements exceed the List limit (2^31-1,
// lowered here) is a LargeList, the others stay Lists, and rows read back.
func TestSparseLargeLists(t *testing.T) {
	mem := testutil.Checked(t)
	defer arrowext.SetListLimit(10)()
	r := rand.New(rand.NewPCG(13, 14))
	var dense []*views.View
	var rows []arrowsparse.Tensor
	for range 3 {
		d, err := views.Alloc(mem, arrow.PrimitiveTypes.Float32, []int64{5, 5})
		require.NoError(t, err)
		putValue(d.Buffer().Bytes(), arrow.PrimitiveTypes.Float32, r.IntN(25), 3)
		dense = append(dense, d)
		rows = append(rows, sparseOf(t, mem, d, arrowsparse.FormatCSR, arrow.PrimitiveTypes.Int32, nil, nil, 0))
	}
	col, err := arrowext.NewSparseTensorArray(mem, arrowext.SparseTensorParams{Format: arrowsparse.FormatCSR}, rows)
	require.NoError(t, err)
	typ := col.TensorType()
	assert.True(t, typ.IsLargeList("pointers_to_1"))
	assert.False(t, typ.IsLargeList("indices_1"))
	assert.False(t, typ.IsLargeList("values"))
	checkColumn(t, mem, col, dense)
	again, err := typ.Deserialize(typ.StorageType(), typ.Serialize())
	require.NoError(t, err)
	assert.True(t, again.(*arrowext.SparseTensorType).IsLargeList("pointers_to_1"))
	col.Release()
	// LargeLists asks for every field
	col, err = arrowext.NewSparseTensorArray(mem, arrowext.SparseTensorParams{Format: arrowsparse.FormatCSR, LargeLists: true}, rows)
	require.NoError(t, err)
	for _, a := range col.TensorType().ArrayNames() {
		assert.True(t, col.TensorType().IsLargeList(a))
	}
	checkColumn(t, mem, col, dense)
	col.Release()
	releaseTensors(rows)
	for _, d := range dense {
		d.Release()
	}
}

// BenchmarkSparseBuild measures building a CSR column of 1000 rows of
// 100×100 matrices (about 500 entries each) from gcs.Matrix rows, and
// the CSR ↔ sparse-vector conversions of a 10000×1000 matrix.
func BenchmarkSparseBuild(b *testing.B) {
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(61, 62))
	var rows []arrowsparse.Tensor
	for range 1000 {
		d := randomDense(b, r, mem, arrow.PrimitiveTypes.Float64, []int64{100, 100}, 0.05)
		rows = append(rows, sparseOf(b, mem, d, arrowsparse.FormatCSR, arrow.PrimitiveTypes.Int32, nil, nil, 0))
		d.Release()
	}
	defer releaseTensors(rows)
	b.Run("NewSparseTensorArray", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			col, err := arrowext.NewSparseTensorArray(mem, arrowext.SparseTensorParams{Format: arrowsparse.FormatCSR}, rows)
			if err != nil {
				b.Fatal(err)
			}
			col.Release()
		}
	})
	d := randomDense(b, r, mem, arrow.PrimitiveTypes.Float64, []int64{10000, 1000}, 0.01)
	m := sparseOf(b, mem, d, arrowsparse.FormatCSR, arrow.PrimitiveTypes.Int32, nil, nil, 0).(*gcs.Matrix)
	d.Release()
	defer m.Release()
	b.Run("VectorsFromCSR", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			col, err := arrowext.VectorsFromCSR(mem, m)
			if err != nil {
				b.Fatal(err)
			}
			col.Release()
		}
	})
	col, err := arrowext.VectorsFromCSR(mem, m)
	require.NoError(b, err)
	defer col.Release()
	b.Run("ToCSR", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			x, err := col.ToCSR(mem)
			if err != nil {
				b.Fatal(err)
			}
			x.Release()
		}
	})
}

// TestSparseRowFunction: SparseRow reads sparse columns; Row (dense) and
// SparseRow refuse each other's columns with arrow.ErrType.
func TestSparseRowFunction(t *testing.T) {
	mem := testutil.Checked(t)
	x, err := coo.FromSlices(mem, []int64{2, 2}, []int32{1, 0}, coo.RowMajor, []float64{4})
	require.NoError(t, err)
	defer x.Release()
	col, err := arrowext.NewSparseTensorArray(mem, arrowext.SparseTensorParams{Format: arrowsparse.FormatCOO}, []arrowsparse.Tensor{nil, x})
	require.NoError(t, err)
	defer col.Release()
	assert.True(t, arrowext.IsSparse(col.TensorType().ExtensionName()))
	assert.False(t, arrowext.IsSparse(arrowext.FixedShapeTensorName))
	y, err := arrowext.SparseRow(col, 1)
	require.NoError(t, err)
	assert.Equal(t, denseBytes(t, mem, x), denseBytes(t, mem, y))
	y.Release()
	y, err = arrowext.SparseRow(col, 0)
	require.NoError(t, err)
	assert.Nil(t, y)
	_, err = arrowext.Row(col, 1)
	require.ErrorIs(t, err, arrow.ErrType)
	assert.Contains(t, err.Error(), "SparseRow")
	ints := array.NewInt64Builder(mem)
	ints.Append(1)
	other := ints.NewArray()
	ints.Release()
	defer other.Release()
	_, err = arrowext.SparseRow(other, 0)
	require.ErrorIs(t, err, arrow.ErrType)
}
