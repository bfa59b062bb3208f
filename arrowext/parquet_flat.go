package arrowext

import (
	"encoding/binary"
	"io"
	"math"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/arrowsparse/arrowsparse/internal/par"
)

// The flat reader: ReadParquet's fast path for files whose columns are all
// flat (no lists, no structs), of a fixed-width type whose Parquet PLAIN
// encoding is its Arrow layout (int32, uint32, int64, uint64, float32,
// float64), required or optional, in PLAIN data pages (version 1 or 2),
// uncompressed or compressed by any codec arrow-go has. That is the table
// of one big tensor (coo.ToRecords) as WriteParquet and pyarrow (without
// dictionaries) write it.
//
// It decodes every page of a column chunk straight into the column's final
// buffer, the values of an uncompressed required page read from the source
// into place with no intermediate copy, one task per column chunk spread
// over the cores. (pqarrow copies each value three times and grows its
// buffers as it goes; on a 240 MB table that is about twice pyarrow's
// time.) Whatever it does not cover, or any disagreement between the
// file's metadata and its pages, sends the whole file to pqarrow, which
// then reads it or reports the error: the flat reader never rejects a file
// that pqarrow reads.

// noFlatReader turns the flat reader off, for tests that compare it with
// pqarrow.
var noFlatReader bool

// flatReads counts the files the flat reader has read, for tests.
var flatReads atomic.Int64

// Parquet's page types and encodings, as the format's Thrift definitions
// number them.
const (
	pageData       = 0
	pageIndex      = 1
	pageDictionary = 2
	pageDataV2     = 3

	encodingPlain = 0
	encodingRLE   = 3
)

// flatColumn is one column of the table the flat reader builds.
type flatColumn struct {
	field    arrow.Field
	leaf     int // the Parquet column
	width    int // bytes per value
	optional bool
}

// flatTask is a column chunk: the rows of column col in one row group,
// read into buffers of its own.
type flatTask struct {
	cc       *metadata.ColumnChunkMetaData
	col      int
	rows     int64
	values   *memory.Buffer
	validity *memory.Buffer // when nulls > 0
	nulls    int64
}

// readFlat reads the file through the flat reader, or returns false when
// the file is not one it covers (or is malformed): the caller then reads it
// with pqarrow.
func readFlat(r parquet.ReaderAtSeeker, pf *file.Reader, fr *pqarrow.FileReader, mem memory.Allocator) (arrow.Table, bool) {
	if noFlatReader || pf.MetaData().IsSetEncryptionAlgorithm() {
		return nil, false
	}
	size, err := r.Seek(0, io.SeekEnd)
	if err != nil || size <= 0 {
		return nil, false
	}
	schema, err := fr.Schema()
	if err != nil {
		return nil, false
	}
	descr := pf.MetaData().Schema
	fields := fr.Manifest.Fields
	if len(fields) == 0 || len(fields) != descr.NumColumns() || len(fields) != schema.NumFields() {
		return nil, false
	}
	cols := make([]flatColumn, len(fields))
	for i, sf := range fields {
		if !sf.IsLeaf() || len(sf.Children) > 0 || sf.Field == nil || sf.ColIndex < 0 || sf.ColIndex >= descr.NumColumns() {
			return nil, false
		}
		leaf := descr.Column(sf.ColIndex)
		width := flatWidth(sf.Field.Type.ID(), leaf.PhysicalType())
		if width == 0 || leaf.MaxRepetitionLevel() != 0 || leaf.MaxDefinitionLevel() > 1 {
			return nil, false
		}
		cols[i] = flatColumn{field: *sf.Field, leaf: sf.ColIndex, width: width, optional: leaf.MaxDefinitionLevel() == 1}
	}

	// The row groups, and a bound on what the columns allocate: the
	// chunks must lie in the file without overlapping in total, and a
	// chunk's rows must fit in a fixed multiple of its stored bytes (more
	// than that happens only with long runs of nulls or of repeated bytes,
	// which pqarrow then reads).
	md := pf.MetaData()
	var tasks []flatTask
	total, stored := int64(0), int64(0)
	for g := range pf.NumRowGroups() {
		rg := md.RowGroup(g)
		rows := rg.NumRows()
		if rows < 0 || rows > math.MaxInt32*64 || total > math.MaxInt64/16-rows {
			return nil, false
		}
		for k, c := range cols {
			cc, err := rg.ColumnChunk(c.leaf)
			if err != nil || cc.CryptoMetadata() != nil || cc.HasDictionaryPage() {
				return nil, false
			}
			n := cc.TotalCompressedSize()
			if n < 0 || n > size || stored > size-n || rows*int64(c.width) > 16*n+1<<16 {
				return nil, false
			}
			stored += n
			tasks = append(tasks, flatTask{cc: cc, col: k, rows: rows})
		}
		total += rows
	}
	if total == 0 || total > math.MaxInt/16 {
		return nil, false
	}
	release := func() {
		for i := range tasks {
			for _, b := range []*memory.Buffer{tasks[i].values, tasks[i].validity} {
				if b != nil {
					b.Release()
				}
			}
		}
	}

	var next atomic.Int64
	var failed atomic.Bool
	par.Do(min(par.Workers(0), len(tasks)), func(int) {
		var s flatScratch
		for !failed.Load() {
			i := next.Add(1) - 1
			if i >= int64(len(tasks)) {
				return
			}
			t := &tasks[i]
			if !s.readChunk(r, size, mem, &cols[t.col], t) {
				failed.Store(true)
			}
		}
	})
	if failed.Load() {
		release()
		return nil, false
	}

	// One chunk per row group, as pyarrow reads them.
	arrs := make([]arrow.Column, len(cols))
	for k, c := range cols {
		var chunks []arrow.Array
		for i := range tasks {
			t := &tasks[i]
			if t.col != k || (t.rows == 0 && len(chunks) > 0) {
				continue
			}
			data := array.NewData(c.field.Type, int(t.rows), []*memory.Buffer{t.validity, t.values}, nil, int(t.nulls), 0)
			chunks = append(chunks, array.MakeFromData(data))
			data.Release()
		}
		ch := arrow.NewChunked(c.field.Type, chunks)
		for _, a := range chunks {
			a.Release()
		}
		arrs[k] = *arrow.NewColumn(c.field, ch)
		ch.Release()
	}
	release()
	tbl := array.NewTable(schema, arrs, total)
	for k := range arrs {
		arrs[k].Release()
	}
	flatReads.Add(1)
	return tbl, true
}

// flatWidth is the byte width of an Arrow type whose values the flat
// reader copies from Parquet's physical type pt unchanged, or 0.
func flatWidth(id arrow.Type, pt parquet.Type) int {
	switch {
	case (id == arrow.INT32 || id == arrow.UINT32) && pt == parquet.Types.Int32,
		id == arrow.FLOAT32 && pt == parquet.Types.Float:
		return 4
	case (id == arrow.INT64 || id == arrow.UINT64) && pt == parquet.Types.Int64,
		id == arrow.FLOAT64 && pt == parquet.Types.Double:
		return 8
	}
	return 0
}

// flatScratch holds a worker's reusable buffers.
type flatScratch struct {
	header, page, plain []byte
	levels              []byte
}

// grow returns b with length n, reallocated only when too small.
func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// readAt fills p from r at off, or returns false.
func readAt(r io.ReaderAt, p []byte, off int64) bool {
	n, err := r.ReadAt(p, off)
	return n == len(p) && (err == nil || err == io.EOF)
}

// readChunk decodes the pages of task t's column chunk into its rows of
// column c; false when the chunk is not what the flat reader covers or
// disagrees with the metadata.
func (s *flatScratch) readChunk(r io.ReaderAt, size int64, mem memory.Allocator, c *flatColumn, t *flatTask) bool {
	cc := t.cc
	codec, err := compress.GetCodec(cc.Compression())
	if err != nil {
		return false
	}
	raw := cc.Compression() == compress.Codecs.Uncompressed
	pos := cc.DataPageOffset()
	if pos < 0 || pos > size || cc.TotalCompressedSize() > size-pos {
		return false
	}
	end := pos + cc.TotalCompressedSize()
	w := int64(c.width)
	t.values = memory.NewResizableBuffer(mem)
	t.values.Resize(int(t.rows * w))
	dst := t.values.Bytes()
	var bitmap []byte
	if c.optional {
		t.validity = memory.NewResizableBuffer(mem)
		t.validity.Resize(int(bitutil.BytesForBits(t.rows)))
		bitmap = t.validity.Bytes()
		clear(bitmap)
	}
	for got := int64(0); got < t.rows; {
		h, hlen, ok := s.readHeader(r, pos, end)
		if !ok {
			return false
		}
		pos += hlen
		if h.compressed < 0 || h.uncompressed < 0 || int64(h.compressed) > end-pos {
			return false
		}
		body := pos
		pos += int64(h.compressed)
		switch h.typ {
		case pageData, pageDataV2:
			if h.v2 != (h.typ == pageDataV2) {
				return false
			}
		case pageDictionary:
			return false
		default:
			continue // index pages and pages of later versions carry no values
		}
		if h.encoding != encodingPlain || h.numValues < 0 || int64(h.numValues) > t.rows-got {
			return false
		}
		if h.v2 && (h.repLen != 0 || h.defLen < 0 || h.defLen > h.compressed || h.defLen > h.uncompressed || (!c.optional && h.defLen != 0)) {
			return false
		}
		if !h.v2 && c.optional && h.defEncoding != encodingRLE {
			return false
		}
		n := int64(h.numValues)
		out := dst[got*w : (got+n)*w]

		// A required page whose values are stored as they are: read them
		// into place.
		if !c.optional && (raw || (h.v2 && !h.isCompressed)) {
			if int64(h.compressed) < n*w || !readAt(r, out, body) {
				return false
			}
			got += n
			continue
		}

		// Otherwise through the scratch buffers.
		s.page = grow(s.page, int(h.compressed))
		if !readAt(r, s.page, body) {
			return false
		}
		var levels, vals []byte
		if h.v2 {
			levels, vals = s.page[:h.defLen], s.page[h.defLen:]
			if h.isCompressed && !raw {
				m := int64(h.uncompressed) - int64(h.defLen)
				if m < 0 || m > n*w {
					return false
				}
				if vals, ok = s.decompress(codec, vals, int(m)); !ok {
					return false
				}
			}
		} else {
			p := s.page
			if !raw {
				// Levels of n values take at most 2n bytes (runs of one).
				m := int64(h.uncompressed)
				if m > n*w+2*n+64 {
					return false
				}
				if p, ok = s.decompress(codec, p, int(m)); !ok {
					return false
				}
			}
			vals = p
			if c.optional {
				if len(p) < 4 {
					return false
				}
				l := int64(binary.LittleEndian.Uint32(p))
				if l > int64(len(p)-4) {
					return false
				}
				levels, vals = p[4:4+l], p[4+l:]
			}
		}
		if !c.optional {
			if int64(len(vals)) < n*w {
				return false
			}
			copy(out, vals)
			got += n
			continue
		}
		s.levels = grow(s.levels, int(n))
		if !decodeLevels(levels, s.levels) {
			return false
		}
		// Runs of defined values are copied whole; null slots are zeroed.
		j := int64(0)
		for i := int64(0); i < n; {
			if s.levels[i] == 0 {
				clear(out[i*w : (i+1)*w])
				t.nulls++
				i++
				continue
			}
			k := i + 1
			for k < n && s.levels[k] != 0 {
				k++
			}
			m := (k - i) * w
			if j+m > int64(len(vals)) {
				return false
			}
			copy(out[i*w:k*w], vals[j:j+m])
			bitutil.SetBitsTo(bitmap, got+i, k-i, true)
			j += m
			i = k
		}
		got += n
	}
	if t.nulls == 0 && t.validity != nil {
		t.validity.Release()
		t.validity = nil
	}
	return true
}

// decompress decodes src into the worker's buffer, which must come out
// exactly m bytes long.
func (s *flatScratch) decompress(codec compress.Codec, src []byte, m int) ([]byte, bool) {
	// The codecs are bounded by the buffer's capacity (parquet_codecs.go).
	s.plain = grow(s.plain, m)
	d, err := compress.Decode(codec, s.plain, src)
	return d, err == nil && len(d) == m
}

// readHeader reads the page header at pos (before end): a window of the
// source is parsed, and widened when the header is longer.
func (s *flatScratch) readHeader(r io.ReaderAt, pos, end int64) (pageHeader, int64, bool) {
	for win := int64(256); ; win *= 2 {
		w := min(win, end-pos)
		if w <= 0 {
			return pageHeader{}, 0, false
		}
		s.header = grow(s.header, int(w))
		if !readAt(r, s.header, pos) {
			return pageHeader{}, 0, false
		}
		h, n, short := parsePageHeader(s.header)
		if n > 0 {
			return h, int64(n), true
		}
		if !short || w == end-pos || win >= 1<<20 {
			return pageHeader{}, 0, false
		}
	}
}

// decodeLevels decodes len(out) definition levels of bit width 1 from src,
// in Parquet's hybrid of runs and bit-packed groups, one byte per level.
func decodeLevels(src, out []byte) bool {
	p := 0
	for i := 0; i < len(out); {
		h, k := binary.Uvarint(src[p:])
		if k <= 0 {
			return false
		}
		p += k
		if h&1 == 0 {
			count := h >> 1
			if count == 0 || p >= len(src) || src[p] > 1 {
				return false
			}
			v := src[p]
			p++
			m := int(min(count, uint64(len(out)-i)))
			for j := range m {
				out[i+j] = v
			}
			i += m
			continue
		}
		groups := h >> 1
		if groups == 0 || groups > uint64(len(src)-p) {
			return false
		}
		for _, b := range src[p : p+int(groups)] {
			for bit := 0; bit < 8 && i < len(out); bit++ {
				out[i] = (b >> bit) & 1
				i++
			}
		}
		p += int(groups)
	}
	return true
}

// pageHeader is what the flat reader needs of a Parquet PageHeader.
type pageHeader struct {
	typ, uncompressed, compressed int32
	v2                            bool // a DataPageHeaderV2 was given
	numValues, encoding           int32
	defEncoding                   int32 // version 1
	defLen, repLen                int32 // version 2
	isCompressed                  bool  // version 2
}

// parsePageHeader parses a PageHeader in Thrift's compact protocol at the
// start of b, and returns it with its length, or a length of 0 and whether
// b ended before the header did.
func parsePageHeader(b []byte) (h pageHeader, n int, short bool) {
	c := compact{b: b}
	h.isCompressed = true
	var last int16
	seen := 0
	for {
		typ, id, ok := c.field(&last)
		if c.bad {
			return h, 0, c.short
		}
		if !ok {
			break
		}
		switch {
		case id == 1 && typ == tI32:
			h.typ = c.i32()
			seen |= 1
		case id == 2 && typ == tI32:
			h.uncompressed = c.i32()
			seen |= 2
		case id == 3 && typ == tI32:
			h.compressed = c.i32()
			seen |= 4
		case id == 5 && typ == tStruct:
			if c.dataHeader(&h, false) {
				seen |= 8
			}
		case id == 8 && typ == tStruct:
			h.v2 = true
			if c.dataHeader(&h, true) {
				seen |= 8
			}
		default:
			c.skip(typ, 0)
		}
		if c.bad {
			return h, 0, c.short
		}
	}
	if seen&7 != 7 || ((h.typ == pageData || h.typ == pageDataV2) && seen&8 == 0) {
		return h, 0, false
	}
	return h, c.p, false
}

// Thrift compact protocol type codes.
const (
	tTrue   = 1
	tFalse  = 2
	tByte   = 3
	tI16    = 4
	tI32    = 5
	tI64    = 6
	tDouble = 7
	tBinary = 8
	tList   = 9
	tSet    = 10
	tMap    = 11
	tStruct = 12
	tUUID   = 13
)

// dataHeader parses a DataPageHeader (or, for v2, a DataPageHeaderV2) into
// h; it reports whether the number of values and the encoding were given.
func (c *compact) dataHeader(h *pageHeader, v2 bool) bool {
	var last int16
	seen := 0
	for {
		typ, id, ok := c.field(&last)
		if c.bad || !ok {
			return seen == 3
		}
		switch {
		case id == 1 && typ == tI32:
			h.numValues = c.i32()
			seen |= 1
		case (!v2 && id == 2 || v2 && id == 4) && typ == tI32:
			h.encoding = c.i32()
			seen |= 2
		case !v2 && id == 3 && typ == tI32:
			h.defEncoding = c.i32()
		case v2 && id == 5 && typ == tI32:
			h.defLen = c.i32()
		case v2 && id == 6 && typ == tI32:
			h.repLen = c.i32()
		case v2 && id == 7 && (typ == tTrue || typ == tFalse):
			h.isCompressed = typ == tTrue
		default:
			c.skip(typ, 1)
		}
		if c.bad {
			return false
		}
	}
}

// compact reads Thrift's compact protocol from b. Any error sets bad; short
// says that b ended too soon.
type compact struct {
	b          []byte
	p          int
	bad, short bool
}

func (c *compact) byte() byte {
	if c.p >= len(c.b) {
		c.bad, c.short = true, true
		return 0
	}
	v := c.b[c.p]
	c.p++
	return v
}

func (c *compact) uvarint() uint64 {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		b := c.byte()
		if c.bad {
			return 0
		}
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return v
		}
	}
	c.bad = true
	return 0
}

func (c *compact) varint() int64 {
	u := c.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

func (c *compact) i32() int32 {
	v := c.varint()
	if v < math.MinInt32 || v > math.MaxInt32 {
		c.bad = true
		return 0
	}
	return int32(v)
}

func (c *compact) skipBytes(n uint64) {
	if n > uint64(len(c.b)-c.p) {
		c.bad, c.short = true, true
		c.p = len(c.b)
		return
	}
	c.p += int(n)
}

// field reads a field header; ok is false at the struct's end.
func (c *compact) field(last *int16) (typ byte, id int16, ok bool) {
	b := c.byte()
	if c.bad || b == 0 {
		return 0, 0, false
	}
	typ = b & 0x0f
	if d := b >> 4; d != 0 {
		id = *last + int16(d)
	} else {
		v := c.varint()
		if v < math.MinInt16 || v > math.MaxInt16 {
			c.bad = true
			return 0, 0, false
		}
		id = int16(v)
	}
	*last = id
	return typ, id, true
}

// skip skips a value of type typ; elem says it is an element of a list,
// set or map, where booleans take a byte.
func (c *compact) skip(typ byte, depth int) { c.skipValue(typ, depth, false) }

func (c *compact) skipValue(typ byte, depth int, elem bool) {
	if depth > 32 {
		c.bad = true
		return
	}
	switch typ {
	case tTrue, tFalse:
		if elem {
			c.skipBytes(1)
		}
	case tByte:
		c.skipBytes(1)
	case tI16, tI32, tI64:
		c.uvarint()
	case tDouble:
		c.skipBytes(8)
	case tBinary:
		c.skipBytes(c.uvarint())
	case tUUID:
		c.skipBytes(16)
	case tList, tSet:
		h := c.byte()
		n, et := uint64(h>>4), h&0x0f
		if n == 15 {
			n = c.uvarint()
		}
		c.skipElems(n, []byte{et}, depth)
	case tMap:
		n := c.uvarint()
		if n == 0 || c.bad {
			return
		}
		kv := c.byte()
		c.skipElems(n, []byte{kv >> 4, kv & 0x0f}, depth)
	case tStruct:
		var last int16
		for !c.bad {
			t, _, ok := c.field(&last)
			if !ok {
				return
			}
			c.skipValue(t, depth+1, false)
		}
	default:
		c.bad = true
	}
}

// skipElems skips n elements (each of the types in kinds, in turn); every
// element takes at least a byte, which bounds n by what is left.
func (c *compact) skipElems(n uint64, kinds []byte, depth int) {
	if c.bad {
		return
	}
	if n > uint64(len(c.b)-c.p) {
		c.bad, c.short = true, true
		return
	}
	for i := uint64(0); i < n && !c.bad; i++ {
		for _, k := range kinds {
			c.skipValue(k, depth+1, true)
		}
	}
}
