package arrowext

import (
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/zstd"
)

// Parquet readers give a codec's decoder a buffer of the page's announced
// uncompressed size, which a valid page fills exactly. Two of arrow-go's
// decoders allocate first whatever the compressed bytes announce instead:
// Zstd's up to 64 GiB from a frame header (an 18-byte frame made it
// allocate 1 GiB), Snappy's up to 4 GiB from a block's length prefix. This
// package registers, when loaded, bounded versions of both for Parquet
// (compress.RegisterCodec), which fail when the output would not fit the
// buffer: every arrow-go Parquet reader in the process gains the bound,
// valid files read as before, and encoding is arrow-go's.

// boundedZstd is arrow-go's Zstd codec with a decoder that never writes
// past the capacity of the buffer it is given.
type boundedZstd struct {
	compress.Codec
}

var (
	zstdOnce sync.Once
	zstdDec  *zstd.Decoder
)

func boundedDecoder() *zstd.Decoder {
	zstdOnce.Do(func() {
		zstdDec, _ = zstd.NewReader(nil, zstd.WithDecodeAllCapLimit(true))
	})
	return zstdDec
}

// DecodeWithError decodes src into dst[:0], failing when the output would
// not fit in cap(dst).
func (boundedZstd) DecodeWithError(dst, src []byte) ([]byte, error) {
	return boundedDecoder().DecodeAll(src, dst[:0])
}

// Decode is DecodeWithError for callers without an error path: it panics on
// error, as arrow-go's codecs do.
func (c boundedZstd) Decode(dst, src []byte) []byte {
	out, err := c.DecodeWithError(dst, src)
	if err != nil {
		panic(err)
	}
	return out
}

// boundedSnappy is arrow-go's Snappy codec, refusing a block whose
// length prefix exceeds the capacity of the buffer it is given.
type boundedSnappy struct {
	compress.Codec
}

// DecodeWithError decodes src into dst, failing when the block announces
// more than cap(dst) bytes.
func (c boundedSnappy) DecodeWithError(dst, src []byte) ([]byte, error) {
	if n, k := binary.Uvarint(src); k <= 0 || n > uint64(cap(dst)) {
		return nil, fmt.Errorf("a Snappy block announces more bytes than its page holds (%d)", cap(dst))
	}
	return compress.Decode(c.Codec, dst[:cap(dst)], src)
}

// Decode is DecodeWithError, panicking on error as arrow-go's codecs do.
func (c boundedSnappy) Decode(dst, src []byte) []byte {
	out, err := c.DecodeWithError(dst, src)
	if err != nil {
		panic(err)
	}
	return out
}

func init() {
	if c, err := compress.GetCodec(compress.Codecs.Zstd); err == nil {
		compress.RegisterCodec(compress.Codecs.Zstd, boundedZstd{c})
	}
	if c, err := compress.GetCodec(compress.Codecs.Snappy); err == nil {
		compress.RegisterCodec(compress.Codecs.Snappy, boundedSnappy{c})
	}
}
