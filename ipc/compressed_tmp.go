package ipc

import (
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/ipc/internal/wire"

	"github.com/apache/arrow-go/v18/arrow/memory"
	as "github.com/arrowsparse/arrowsparse"
)

func decodeCSX(st *wire.SparseTensor, idx *wire.CSXIndex, body *memory.Buffer, out *Message, cfg *readConfig) (as.Tensor, error) {
	return nil, as.Errorf(as.ErrUnsupportedType, "TODO csx")
}
func encodeCompressed(t as.Tensor, cfg *writeConfig) (*wire.Message, [][]byte, func(), bool, error) {
	if x, ok := t.(*csf.Tensor); ok {
		m, body, release, err := encodeCSF(x, cfg)
		return m, body, release, true, err
	}
	return nil, nil, nil, false, nil
}
