package arrowext_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/arrowext"
)

// sparseMetaSeeds are real metadata of the sparse types (what the writers
// of both packages write, and the strict tests' cases), with their format.
var sparseMetaSeeds = []struct {
	f    arrowsparse.Format
	meta string
}{
	{arrowsparse.FormatCOO, `{"format":"COO","shape":[3,4],"canonical":true,"data_types":{"indices":"int32","values":"float64"}}`},
	{arrowsparse.FormatCOO, `{"format":"COO","ndim":2,"dim_names":["i","j"],"data_types":{"indices":"int32","values":"float64"}}`},
	{arrowsparse.FormatCOO, `{"format":"COO","shape":[null,4],"data_types":{"indices":"int32","values":"float64"},"binsparse":{"version":"0.1"}}`},
	{arrowsparse.FormatCSR, `{"format":"CSR","shape":[4,5],"canonical":true,"data_types":{"pointers_to_1":"int32","indices_1":"int32","values":"float64"}}`},
	{arrowsparse.FormatCSC, `{"format":"CSC","ndim":2,"data_types":{"pointers_to_1":"int32","indices_1":"int32","values":"float64"}}`},
	{arrowsparse.FormatCSF, `{"format":"CSF","shape":[3,4],"data_types":{"indices_0":"int32","pointers_to_1":"int32","indices_1":"int32","values":"float64"},"axis_order":[1,0]}`},
	{arrowsparse.FormatGCS, `{"format":"GCS","shape":[3,4],"data_types":{"pointers_to_1":"int32","indices_1":"int32","values":"float64"},"dimensions":[1,0],"partitioning":2,"compressed_axis":"column"}`},
	{arrowsparse.FormatGCS, `{"format":"GCS","shape":[1099511627776,1099511627776],"data_types":{"pointers_to_1":"int32","indices_1":"int32","values":"float64"},"dimensions":[0,1],"partitioning":0,"compressed_axis":"row"}`},
	{arrowsparse.FormatCOO, `{"format":"COO","shape":[3.0,4],"data_types":{"indices":"int32","values":"float64"}}`},
	{arrowsparse.FormatCOO, `{"format":"COO","format":"COO"}`},
	{arrowsparse.FormatCOO, ``},
}

// FuzzSparseMetadata parses fuzzed metadata for each format over the
// storage its own parse implies: never a panic; what it accepts
// serialises to metadata that parses again into an equal type.
func FuzzSparseMetadata(f *testing.F) {
	for _, s := range sparseMetaSeeds {
		f.Add(uint8(s.f), s.meta)
	}
	f.Fuzz(func(t *testing.T, format uint8, data string) {
		fm := sparseFormatList[int(format)%len(sparseFormatList)]
		proto, err := arrowext.NewSparseTensorType(arrowext.SparseTensorParams{Format: fm, ValueType: f64, NDim: 2})
		require.NoError(t, err)
		// The storage a writer would make for the metadata: try the
		// prototype's, then the one the parse of a permissive copy gives.
		for _, storage := range []arrow.DataType{proto.StorageType(), cooST, cooVarST, csrST, csfST} {
			got, err := proto.Deserialize(storage, data)
			if err != nil {
				require.True(t, errors.Is(err, arrow.ErrInvalid) || errors.Is(err, arrow.ErrType), "%v", err)
				continue
			}
			typ := got.(*arrowext.SparseTensorType)
			back, err := proto.Deserialize(storage, typ.Serialize())
			require.NoError(t, err, typ.Serialize())
			assert.True(t, arrow.TypeEqual(typ, back))
			assert.Equal(t, typ.Serialize(), back.Serialize())
			again, err := arrowext.NewSparseTensorType(typ.Params())
			require.NoError(t, err)
			if typ.BinsparseVersion() != "" || !strings.Contains(typ.Serialize(), `"binsparse":`) {
				// (Params cannot say "an empty binsparse version".)
				assert.Equal(t, typ.Serialize(), again.Serialize())
			}
		}
	})
}

// FuzzSparseRows reads fuzzed bytes as an IPC stream holding sparse
// columns, and every row of them, checked and trusted: an error or a
// tensor whose dense form can be built, never a panic. Seeds are IPC
// streams of columns of every format that this package wrote.
func FuzzSparseRows(f *testing.F) {
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(51, 52))
	tbl, ref := sparseTable(f, mem, r, false)
	for _, vs := range ref {
		for _, v := range vs {
			if v != nil {
				v.Release()
			}
		}
	}
	for i := range int(tbl.NumCols()) {
		one := oneColumnTable(tbl, i)
		var buf bytes.Buffer
		if arrowext.WriteIPCStream(&buf, one) == nil {
			f.Add(buf.Bytes())
		}
		one.Release()
	}
	tbl.Release()
	f.Fuzz(func(t *testing.T, data []byte) {
		// An input that takes more than 20 s is a failure: crash with every
		// goroutine's stack, so that the fuzzer keeps the input.
		watchdog := time.AfterFunc(20*time.Second, func() {
			buf := make([]byte, 1<<20)
			panic("FuzzSparseRows: input takes too long\n" + string(buf[:runtime.Stack(buf, true)]))
		})
		defer watchdog.Stop()
		got, err := arrowext.ReadIPCStream(bytes.NewReader(data))
		if err != nil {
			require.ErrorIs(t, err, arrow.ErrInvalid)
			return
		}
		defer got.Release()
		for c := range int(got.NumCols()) {
			for _, ch := range got.Column(c).Data().Chunks() {
				col, ok := ch.(*arrowext.SparseTensorArray)
				if !ok {
					continue
				}
				for _, opts := range [][]arrowext.RowOption{nil, {arrowext.WithTrusted()}} {
					for i := range col.Len() {
						x, err := col.Row(i, opts...)
						if err != nil {
							require.True(t, errors.Is(err, arrow.ErrInvalid) || errors.Is(err, arrow.ErrIndex), "%v", err)
							continue
						}
						if x == nil {
							continue
						}
						if opts == nil && shapeSize(x.Shape()) < 1<<16 {
							d, err := x.ToDense(memory.DefaultAllocator)
							if err == nil {
								d.Release()
							}
						}
						x.Release()
					}
				}
				if col.TensorType().Format() == arrowsparse.FormatCOO && col.TensorType().NumDims() == 1 {
					if m, err := col.ToCSR(memory.DefaultAllocator); err == nil {
						m.Release()
					}
				}
			}
		}
	})
}

// shapeSize returns the product of the shape, saturated at 2^62.
func shapeSize(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		if d != 0 && n > (1<<62)/d {
			return 1 << 62
		}
		n *= d
	}
	return n
}

// oneColumnTable returns column i of tbl as a table of its own.
func oneColumnTable(tbl arrow.Table, i int) arrow.Table {
	f := tbl.Schema().Field(i)
	col := tbl.Column(i)
	return arrowTable(f, col)
}

func arrowTable(f arrow.Field, col *arrow.Column) arrow.Table {
	schema := arrow.NewSchema([]arrow.Field{f}, nil)
	return array.NewTable(schema, []arrow.Column{*col}, int64(col.Len()))
}
