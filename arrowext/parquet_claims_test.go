package arrowext_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse/arrowext"
)

// TestParquetRowClaims rewrites, one at a time, every varint of a small
// Parquet file's footer that holds its 37 rows (zigzag 74) with 2^40:
// the row group's count among them, which pqarrow used to size its
// builders (a fatal out-of-memory error, 8 TiB asked). ReadParquet must
// refuse it with an error naming the claim, and every rewrite must give
// back all memory.
func TestParquetRowClaims(t *testing.T) {
	mem := memory.NewGoAllocator()
	lb := array.NewListBuilder(mem, arrow.PrimitiveTypes.Float64)
	defer lb.Release()
	vb := lb.ValueBuilder().(*array.Float64Builder)
	for i := range 37 {
		lb.Append(true)
		vb.AppendValues([]float64{1, 2, 3, float64(i)}, nil)
	}
	col := lb.NewArray()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "t", Type: col.DataType()}}, nil)
	tbl := array.NewTableFromSlice(schema, [][]arrow.Array{{col}})
	defer tbl.Release()
	var buf bytes.Buffer
	require.NoError(t, arrowext.WriteParquet(&buf, tbl))
	data := buf.Bytes()
	n := len(data)
	flen := int(binary.LittleEndian.Uint32(data[n-8:]))
	fstart := n - 8 - flen
	footer := data[fstart : n-8]

	refused := 0
	for pos, c := range footer {
		if c != 74 {
			continue
		}
		nf := append(append(bytes.Clone(footer[:pos]), binary.AppendUvarint(nil, 2<<40)...), footer[pos+1:]...)
		bad := append(bytes.Clone(data[:fstart]), nf...)
		bad = binary.LittleEndian.AppendUint32(bad, uint32(len(nf)))
		bad = append(bad, "PAR1"...)
		cm := memory.NewCheckedAllocator(memory.NewGoAllocator())
		got, err := arrowext.ReadParquet(bytes.NewReader(bad), arrowext.WithAllocator(cm))
		if err != nil {
			require.ErrorIs(t, err, arrow.ErrInvalid)
			if bytes.Contains([]byte(err.Error()), []byte("claims 1099511627776 rows, more than a")) {
				refused++
			}
		} else {
			got.Release()
		}
		cm.AssertSize(t, 0)
	}
	assert.Positive(t, refused, "no rewrite reached a row count")
}
