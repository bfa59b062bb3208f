package wire_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse/ipc/internal/wire"
)

// After a framing error, Head holds the first bytes of the failed message,
// read on up to HeadLen bytes so that a caller can tell what the input is;
// after a good message, its first bytes.
func TestReaderHead(t *testing.T) {
	parquet := append([]byte("PAR1"), bytes.Repeat([]byte{7}, 2*wire.HeadLen)...)
	for _, in := range []io.Reader{bytes.NewReader(parquet), io.MultiReader(bytes.NewReader(parquet))} {
		r := wire.NewReader(in)
		_, err := r.Next()
		require.Error(t, err)
		assert.Len(t, r.Head(), wire.HeadLen)
		assert.Equal(t, parquet[:wire.HeadLen], r.Head())
	}
	// A short input: what there is.
	r := wire.NewReader(io.MultiReader(bytes.NewReader([]byte("1 2\n"))))
	_, err := r.Next()
	require.Error(t, err)
	assert.Equal(t, []byte("1 2\n"), r.Head())

	// Metadata cut short by the end of a stream of unknown length: the
	// bytes read are kept.
	gz := []byte{0x1f, 0x8b, 0x08, 0x00, 1, 2, 3, 4, 5, 6}
	r = wire.NewReader(io.MultiReader(bytes.NewReader(gz)))
	_, err = r.Next()
	require.Error(t, err)
	assert.Equal(t, gz, r.Head())
}
