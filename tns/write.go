package tns

import (
	"bufio"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/klauspost/compress/gzip"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/textparse"
)

type writeConfig struct {
	mem      memory.Allocator
	comments []string
	workers  int
}

// WithComments writes comment lines first; each is written after "# ",
// and a line containing a line break is split.
func WithComments(lines ...string) WriteOption {
	return writeOption(func(c *writeConfig) { c.comments = append(c.comments, lines...) })
}

// blockEntries is the number of entries formatted per block.
const blockEntries = 1 << 15

// Write writes a COO tensor as a FROSTT file: one line per stored entry,
// in storage order (duplicates included), with 1-based coordinates and the
// value written so that it reads back to the same bits. The shape is not
// written: a reader infers it from the largest coordinates, so give it to
// the reader (WithShape) if trailing slices are empty. Write does not
// compress; wrap w in a gzip.Writer for that, or use WriteFile.
func Write(w io.Writer, t *coo.Tensor, opts ...WriteOption) error {
	cfg := &writeConfig{mem: memory.DefaultAllocator}
	for _, o := range opts {
		o.applyWrite(cfg)
	}
	coords, values, release, err := cooParts(cfg.mem, t)
	if err != nil {
		return err
	}
	defer release()
	bw := bufio.NewWriterSize(w, 1<<16)
	for _, cm := range cfg.comments {
		for _, l := range strings.Split(cm, "\n") {
			bw.WriteString("# ")
			bw.WriteString(strings.TrimSuffix(l, "\r"))
			bw.WriteByte('\n')
		}
	}
	rank := int64(t.NumDims())
	nnz := t.NNZ()
	iw := arrowsparse.ByteWidth(t.IndexType())
	app := textparse.Appender(t.DataType())
	blocks := (nnz + blockEntries - 1) / blockEntries
	err = textparse.WriteBlocks(bw, blocks, cfg.workers, func(dst []byte, b int64) []byte {
		for i := b * blockEntries; i < min((b+1)*blockEntries, nnz); i++ {
			for k := range rank {
				dst = strconv.AppendUint(dst, textparse.Index(coords, iw, i*rank+k)+1, 10)
				dst = append(dst, ' ')
			}
			dst = app(dst, values, i)
			dst = append(dst, '\n')
		}
		return dst
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// WriteFile writes a COO tensor to a FROSTT file, gzip-compressed when path
// ends in ".gz". See Write.
func WriteFile(path string, t *coo.Tensor, opts ...WriteOption) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	if !strings.HasSuffix(path, ".gz") {
		return Write(f, t, opts...)
	}
	zw := gzip.NewWriter(f)
	if err := Write(zw, t, opts...); err != nil {
		return err
	}
	return zw.Close()
}
