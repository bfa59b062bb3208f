package arrowext_test

import (
	"encoding/binary"
	"runtime"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/stretchr/testify/require"

	_ "github.com/arrowsparse/arrowsparse/arrowext" // registers the bounded codecs
)

// TestZstdBounded: an 18-byte Zstd frame whose header announces 1 GiB (with
// a 1 KiB window) but which holds one byte fails to decode without
// allocating what it announces (arrow-go's own decoder allocates the 1 GiB
// first); a valid frame still decodes.
func TestZstdBounded(t *testing.T) {
	codec, err := compress.GetCodec(compress.Codecs.Zstd)
	require.NoError(t, err)
	frame := []byte{
		0x28, 0xb5, 0x2f, 0xfd, // magic
		0xc0,                                           // 8-byte content size, not single segment
		0x00,                                           // window 1 KiB
		0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, // content size 1 GiB
		0x0b, 0x00, 0x00, 0x41, // last block, RLE of one byte 'A'
	}
	checkBounded(t, codec, frame, func(n int) []byte { return make([]byte, 0, n) })
}

// TestSnappyBounded: a Snappy block announcing 3 GiB fails without being
// allocated; a valid block still decodes.
func TestSnappyBounded(t *testing.T) {
	codec, err := compress.GetCodec(compress.Codecs.Snappy)
	require.NoError(t, err)
	block := binary.AppendUvarint(nil, 3<<30)
	block = append(block, 0x00, 0x41)
	checkBounded(t, codec, block, func(n int) []byte { return make([]byte, n) })
}

// checkBounded decodes hostile, which announces far more than it holds,
// into a buffer of 4096 bytes from buf and checks that the decode fails
// having allocated under 1 MiB; then that a valid block decodes into a
// buffer of its exact size and fails into one a byte short. buf makes the
// page buffer of n bytes as arrow-go's reader passes it to the codec
// (Zstd: capacity n, Snappy: length n).
func checkBounded(t *testing.T, codec compress.Codec, hostile []byte, buf func(n int) []byte) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := compress.Decode(codec, buf(4096), hostile)
	runtime.ReadMemStats(&after)
	require.Error(t, err)
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "bytes allocated by a failed decode")

	src := []byte("a Parquet page of values, a Parquet page of values, a Parquet page of values")
	enc := codec.Encode(nil, src)
	got, err := compress.Decode(codec, buf(len(src)), enc)
	require.NoError(t, err)
	require.Equal(t, src, got)
	_, err = compress.Decode(codec, buf(len(src)-1), enc)
	require.Error(t, err, "output larger than the buffer")
}
