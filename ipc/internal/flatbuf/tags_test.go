package flatbuf_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/arrowsparse/arrowsparse/ipc/internal/flatbuf"
)

// TestUnionTags pins the union tags and enum values of the Arrow format
// (spec §1.5, §2.1, §2.2) so that a schema edit cannot change them silently.
func TestUnionTags(t *testing.T) {
	assert.EqualValues(t, 0, flatbuf.TypeNONE)
	assert.EqualValues(t, 1, flatbuf.TypeNull)
	assert.EqualValues(t, 2, flatbuf.TypeInt)
	assert.EqualValues(t, 3, flatbuf.TypeFloatingPoint)
	assert.EqualValues(t, 4, flatbuf.TypeBinary)
	assert.EqualValues(t, 5, flatbuf.TypeUtf8)
	assert.EqualValues(t, 6, flatbuf.TypeBool)
	assert.EqualValues(t, 7, flatbuf.TypeDecimal)
	assert.EqualValues(t, 8, flatbuf.TypeDate)
	assert.EqualValues(t, 9, flatbuf.TypeTime)
	assert.EqualValues(t, 10, flatbuf.TypeTimestamp)
	assert.EqualValues(t, 11, flatbuf.TypeInterval)
	assert.EqualValues(t, 12, flatbuf.TypeList)
	assert.EqualValues(t, 13, flatbuf.TypeStruct_)
	assert.EqualValues(t, 14, flatbuf.TypeUnion)
	assert.EqualValues(t, 15, flatbuf.TypeFixedSizeBinary)
	assert.EqualValues(t, 16, flatbuf.TypeFixedSizeList)
	assert.EqualValues(t, 17, flatbuf.TypeMap)
	assert.EqualValues(t, 18, flatbuf.TypeDuration)
	assert.EqualValues(t, 19, flatbuf.TypeLargeBinary)
	assert.EqualValues(t, 20, flatbuf.TypeLargeUtf8)
	assert.EqualValues(t, 21, flatbuf.TypeLargeList)
	assert.EqualValues(t, 22, flatbuf.TypeRunEndEncoded)
	assert.EqualValues(t, 23, flatbuf.TypeBinaryView)
	assert.EqualValues(t, 24, flatbuf.TypeUtf8View)
	assert.EqualValues(t, 25, flatbuf.TypeListView)
	assert.EqualValues(t, 26, flatbuf.TypeLargeListView)

	assert.EqualValues(t, 1, flatbuf.MessageHeaderSchema)
	assert.EqualValues(t, 2, flatbuf.MessageHeaderDictionaryBatch)
	assert.EqualValues(t, 3, flatbuf.MessageHeaderRecordBatch)
	assert.EqualValues(t, 4, flatbuf.MessageHeaderTensor)
	assert.EqualValues(t, 5, flatbuf.MessageHeaderSparseTensor)

	assert.EqualValues(t, 1, flatbuf.SparseTensorIndexSparseTensorIndexCOO)
	assert.EqualValues(t, 2, flatbuf.SparseTensorIndexSparseMatrixIndexCSX)
	assert.EqualValues(t, 3, flatbuf.SparseTensorIndexSparseTensorIndexCSF)

	assert.EqualValues(t, 3, flatbuf.MetadataVersionV4)
	assert.EqualValues(t, 4, flatbuf.MetadataVersionV5)
	assert.EqualValues(t, 0, flatbuf.PrecisionHALF)
	assert.EqualValues(t, 1, flatbuf.PrecisionSINGLE)
	assert.EqualValues(t, 2, flatbuf.PrecisionDOUBLE)
	assert.EqualValues(t, 0, flatbuf.SparseMatrixCompressedAxisRow)
	assert.EqualValues(t, 1, flatbuf.SparseMatrixCompressedAxisColumn)
}
