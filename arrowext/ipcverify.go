package arrowext

import (
	"encoding/binary"
	"io"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// arrow-go's IPC readers trust the flatbuffers they decode: a vector whose
// length lies (a Field's children, say) makes them allocate what it claims,
// and a body length or a compressed buffer's uncompressed length is
// allocated before it is read. On untrusted input that is a fatal
// out-of-memory error, which no recover catches. So the readers of this
// package first walk every message's metadata (Message.fbs, Schema.fbs,
// File.fbs) and check that each table, vector and string lies inside it,
// that the tables it reaches are no more than its size allows (shared
// subtrees could otherwise make the walk exponential), that every body lies
// inside the input, and that compressed buffers claim at most
// maxDecompressionRatio times their compressed size.

// maxDecompressionRatio bounds the uncompressed size a compressed IPC
// buffer may claim, relative to its compressed size (plus 64 KiB): LZ4 and
// Zstandard frames of real data stay far below it, while a lie that would
// exhaust memory is refused before anything is allocated.
const maxDecompressionRatio = 4096

// fbKind is what a flatbuffer field holds.
type fbKind int8

const (
	fbString   fbKind = iota // a string
	fbTable                  // a table of a known layout
	fbTables                 // a vector of tables of a known layout
	fbScalars                // a vector of scalars or structs of size elem bytes
	fbUnion                  // a union value, its type in the slot before
	fbAnyTable               // a table whose fields are all scalars
)

// fbField describes one offset field of a table: its slot, kind, element
// size (fbScalars) and the layout of the tables it points to.
type fbField struct {
	slot  int
	kind  fbKind
	elem  int
	table *fbLayout
	union map[byte]*fbLayout // fbUnion: layout per type code (nil: scalars only)
}

// fbLayout lists the offset fields of a table; scalar fields need no check
// beyond the table's own bounds.
type fbLayout struct {
	name   string
	fields []fbField
}

var (
	keyValueFB = &fbLayout{"KeyValue", []fbField{{slot: 0, kind: fbString}, {slot: 1, kind: fbString}}}
	intFB      = &fbLayout{"Int", nil}
	dictFB     = &fbLayout{"DictionaryEncoding", []fbField{{slot: 1, kind: fbTable, table: intFB}}}
	fieldFB    = &fbLayout{name: "Field"}
	schemaFB   = &fbLayout{"Schema", []fbField{
		{slot: 1, kind: fbTables, table: fieldFB},
		{slot: 2, kind: fbTables, table: keyValueFB},
		{slot: 3, kind: fbScalars, elem: 8},
	}}
	recordBatchFB = &fbLayout{"RecordBatch", []fbField{
		{slot: 1, kind: fbScalars, elem: 16}, // FieldNode structs
		{slot: 2, kind: fbScalars, elem: 16}, // Buffer structs
		{slot: 3, kind: fbAnyTable},          // BodyCompression
		{slot: 4, kind: fbScalars, elem: 8},
	}}
	dictionaryBatchFB = &fbLayout{"DictionaryBatch", []fbField{{slot: 1, kind: fbTable, table: recordBatchFB}}}
	messageFB         = &fbLayout{"Message", []fbField{
		{slot: 2, kind: fbUnion, union: map[byte]*fbLayout{1: schemaFB, 2: dictionaryBatchFB, 3: recordBatchFB}},
		{slot: 4, kind: fbTables, table: keyValueFB},
	}}
	anyTableFB = &fbLayout{name: "table"}
	footerFB   = &fbLayout{"Footer", []fbField{
		{slot: 1, kind: fbTable, table: schemaFB},
		{slot: 2, kind: fbScalars, elem: 24}, // Block structs
		{slot: 3, kind: fbScalars, elem: 24},
		{slot: 4, kind: fbTables, table: keyValueFB},
	}}
)

func init() {
	// Type union (Schema.fbs): Timestamp has a timezone string, Union a
	// vector of int32 type ids; every other member holds scalars only.
	types := map[byte]*fbLayout{
		10: {"Timestamp", []fbField{{slot: 1, kind: fbString}}},
		14: {"Union", []fbField{{slot: 1, kind: fbScalars, elem: 4}}},
	}
	fieldFB.fields = []fbField{
		{slot: 0, kind: fbString},
		{slot: 3, kind: fbUnion, union: types},
		{slot: 4, kind: fbTable, table: dictFB},
		{slot: 5, kind: fbTables, table: fieldFB},
		{slot: 6, kind: fbTables, table: keyValueFB},
	}
}

// fbVerifier checks one flatbuffer.
type fbVerifier struct {
	b      []byte
	budget int // tables left to visit
}

func fbError(format string, args ...any) error {
	return core.Errorf(arrowsparse.ErrStructure, "malformed Arrow IPC metadata: "+format, args...)
}

func (v *fbVerifier) u32(p int) (uint32, bool) {
	if p < 0 || p+4 > len(v.b) {
		return 0, false
	}
	return binary.LittleEndian.Uint32(v.b[p:]), true
}

func (v *fbVerifier) u16(p int) (uint16, bool) {
	if p < 0 || p+2 > len(v.b) {
		return 0, false
	}
	return binary.LittleEndian.Uint16(v.b[p:]), true
}

// root verifies the root table, of the given layout.
func (v *fbVerifier) root(l *fbLayout) (int, error) {
	off, ok := v.u32(0)
	if !ok {
		return 0, fbError("%d bytes hold no flatbuffer", len(v.b))
	}
	t := int(off)
	return t, v.table(t, l, 0)
}

// field returns the position of slot s's value in table t, or 0 when absent.
func (v *fbVerifier) field(t, s int) (int, error) {
	so, ok := v.u32(t)
	if !ok {
		return 0, fbError("table at %d lies outside the %d bytes", t, len(v.b))
	}
	vt := t - int(int32(so))
	vsize, ok := v.u16(vt)
	if !ok || vsize < 4 || vt+int(vsize) > len(v.b) {
		return 0, fbError("vtable at %d lies outside the %d bytes", vt, len(v.b))
	}
	if vsize%2 != 0 {
		// The flatbuffers library reads slot s when 4+2s < vsize: with an
		// odd size it would read a slot this check took for absent.
		return 0, fbError("vtable at %d has the odd size %d", vt, vsize)
	}
	if 4+2*s >= int(vsize) {
		return 0, nil
	}
	fo, _ := v.u16(vt + 4 + 2*s)
	if fo == 0 {
		return 0, nil
	}
	tsize, _ := v.u16(vt + 2)
	if int(fo) >= int(tsize) || t+int(fo) >= len(v.b) {
		return 0, fbError("field %d of the table at %d lies outside it", s, t)
	}
	return t + int(fo), nil
}

// deref follows the offset stored at p.
func (v *fbVerifier) deref(p int) (int, error) {
	off, ok := v.u32(p)
	if !ok || p+int(off) >= len(v.b) || int(off) == 0 {
		return 0, fbError("offset at %d points outside the %d bytes", p, len(v.b))
	}
	return p + int(off), nil
}

// vector checks the vector at p, of n elements of elem bytes, and returns
// n and the position of its first element.
func (v *fbVerifier) vector(p, elem int) (int, int, error) {
	n, ok := v.u32(p)
	if !ok || uint64(p)+4+uint64(n)*uint64(elem) > uint64(len(v.b)) {
		return 0, 0, fbError("a vector at %d claims %d elements of %d bytes, more than the %d bytes hold", p, n, elem, len(v.b))
	}
	return int(n), p + 4, nil
}

const maxNesting = 64

// table checks table t of layout l, recursively.
func (v *fbVerifier) table(t int, l *fbLayout, depth int) error {
	if depth > maxNesting {
		return fbError("%s tables nested more than %d deep", l.name, maxNesting)
	}
	if v.budget--; v.budget < 0 {
		return fbError("more tables than %d bytes of metadata can hold", len(v.b))
	}
	if _, err := v.field(t, 0); err != nil { // checks the table and its vtable
		return err
	}
	for _, f := range l.fields {
		p, err := v.field(t, f.slot)
		if err != nil || p == 0 {
			if err != nil {
				return err
			}
			continue
		}
		q, err := v.deref(p)
		if err != nil {
			return err
		}
		switch f.kind {
		case fbString:
			if _, _, err := v.vector(q, 1); err != nil {
				return err
			}
		case fbScalars:
			if _, _, err := v.vector(q, f.elem); err != nil {
				return err
			}
		case fbTable:
			if err := v.table(q, f.table, depth+1); err != nil {
				return err
			}
		case fbAnyTable:
			if err := v.table(q, anyTableFB, depth+1); err != nil {
				return err
			}
		case fbTables:
			n, first, err := v.vector(q, 4)
			if err != nil {
				return err
			}
			for i := range n {
				e, err := v.deref(first + 4*i)
				if err != nil {
					return err
				}
				if err := v.table(e, f.table, depth+1); err != nil {
					return err
				}
			}
		case fbUnion:
			tp, err := v.field(t, f.slot-1)
			if err != nil {
				return err
			}
			var code byte
			if tp != 0 {
				code = v.b[tp]
			}
			layout := f.union[code]
			if layout == nil {
				layout = anyTableFB
			}
			if err := v.table(q, layout, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// bodyReader reads n bytes at off of a message's body, which is bodyLen
// bytes long and lies inside the input.
type bodyReader func(off int64, n int) ([]byte, error)

// verifyMessage checks one IPC message's metadata (the flatbuffer), that
// its body of the length it claims fits in the avail bytes that follow it,
// and its body's buffers, read through at. It returns the body length.
func verifyMessage(meta []byte, avail int64, at bodyReader) (int64, error) {
	v := &fbVerifier{b: meta, budget: len(meta)/4 + 1}
	t, err := v.root(messageFB)
	if err != nil {
		return 0, err
	}
	var bodyLen int64
	if p, err := v.field(t, 3); err != nil {
		return 0, err
	} else if p != 0 {
		if p+8 > len(meta) {
			return 0, fbError("the body length lies outside the metadata")
		}
		bodyLen = int64(binary.LittleEndian.Uint64(meta[p:]))
	}
	if bodyLen < 0 || bodyLen > avail {
		return 0, fbError("a message claims a %d-byte body, but %d bytes follow it", bodyLen, avail)
	}
	return bodyLen, v.checkBuffers(t, bodyLen, at)
}

// checkBuffers checks that a record batch's (or dictionary batch's)
// buffers lie inside the body, and that compressed ones claim a bounded
// uncompressed size.
func (v *fbVerifier) checkBuffers(msg int, bodyLen int64, at bodyReader) error {
	hp, _ := v.field(msg, 1)
	p, _ := v.field(msg, 2)
	if hp == 0 || p == 0 {
		return nil
	}
	code := v.b[hp]
	if code != 2 && code != 3 {
		return nil
	}
	rb, _ := v.deref(p)
	if code == 2 { // DictionaryBatch: its data
		q, _ := v.field(rb, 1)
		if q == 0 {
			return nil
		}
		rb, _ = v.deref(q)
	}
	if err := v.checkNodes(rb); err != nil {
		return err
	}
	compressed, _ := v.field(rb, 3)
	n, first := v.pairs(rb, 2)
	for i := range n {
		off, length := v.pair(first, i)
		if off < 0 || length < 0 || off > bodyLen || length > bodyLen-off {
			return fbError("buffer %d (%d bytes at %d) lies outside the %d-byte body", i, length, off, bodyLen)
		}
		if compressed == 0 || length == 0 {
			continue
		}
		if length < 8 {
			return fbError("compressed buffer %d has %d bytes, less than its length prefix", i, length)
		}
		prefix, err := at(off, 8)
		if err != nil {
			return err
		}
		claimed := int64(binary.LittleEndian.Uint64(prefix))
		if claimed != -1 && (claimed < 0 || claimed > maxDecompressionRatio*length+64<<10) {
			return fbError("compressed buffer %d of %d bytes claims %d uncompressed bytes", i, length, claimed)
		}
	}
	return nil
}

// checkNodes checks a record batch's length and its field nodes: lengths
// and null counts that are not negative, and no more nulls than slots.
// arrow-go counts the nulls of an array whose null count is negative from
// its validity bitmap when first asked, whatever the bitmap's size, which
// can panic long after the read.
func (v *fbVerifier) checkNodes(rb int) error {
	if p, _ := v.field(rb, 0); p != 0 {
		if p+8 > len(v.b) {
			return fbError("a record batch's length lies outside the metadata")
		}
		if n := int64(binary.LittleEndian.Uint64(v.b[p:])); n < 0 {
			return fbError("a record batch claims %d rows", n)
		}
	}
	n, first := v.pairs(rb, 1)
	for i := range n {
		length, nulls := v.pair(first, i)
		if length < 0 || nulls < 0 || nulls > length {
			return fbError("field node %d claims %d nulls among %d slots", i, nulls, length)
		}
	}
	return nil
}

// pairs returns the length and the position of the first element of the
// vector of 16-byte structs (two int64s: a RecordBatch's FieldNodes or
// Buffers) in slot s of the already walked table t; 0, 0 when absent.
func (v *fbVerifier) pairs(t, s int) (n, first int) {
	p, _ := v.field(t, s)
	if p == 0 {
		return 0, 0
	}
	q, _ := v.deref(p)
	n, first, _ = v.vector(q, 16)
	return n, first
}

// pair returns the two int64s of element i of a vector of 16-byte structs
// starting at first.
func (v *fbVerifier) pair(first, i int) (a, b int64) {
	e := v.b[first+16*i:]
	return int64(binary.LittleEndian.Uint64(e)), int64(binary.LittleEndian.Uint64(e[8:]))
}

// verifyIPCStream checks every message of an IPC stream held in memory.
func verifyIPCStream(data []byte) error {
	for p := 0; p < len(data); {
		if len(data)-p < 4 {
			return fbError("%d stray bytes at the end of the stream", len(data)-p)
		}
		n := binary.LittleEndian.Uint32(data[p:])
		p += 4
		if n == 0xFFFFFFFF {
			if len(data)-p < 4 {
				return fbError("the stream ends inside a message's length")
			}
			n = binary.LittleEndian.Uint32(data[p:])
			p += 4
		}
		if n == 0 {
			return nil // end of stream
		}
		if int64(n) > int64(len(data)-p) {
			return fbError("a message claims %d bytes of metadata, but %d remain", n, len(data)-p)
		}
		meta := data[p : p+int(n)]
		p += int(n)
		start := p
		bodyLen, err := verifyMessage(meta, int64(len(data)-p), func(off int64, k int) ([]byte, error) {
			return data[start+int(off) : start+int(off)+k], nil
		})
		if err != nil {
			return err
		}
		p += int(bodyLen)
	}
	return nil
}

// verifyIPCFile checks the footer of an IPC file of the given size and the
// metadata and body of every block it lists.
func verifyIPCFile(r io.ReaderAt, size int64) error {
	const magic = "ARROW1"
	if size < int64(2*len(magic)+4) {
		return fbError("%d bytes are too few for an Arrow IPC file", size)
	}
	tail := make([]byte, 4)
	if _, err := r.ReadAt(tail, size-int64(len(magic))-4); err != nil {
		return fbError("cannot read the footer length: %v", err)
	}
	flen := int64(binary.LittleEndian.Uint32(tail))
	if flen <= 0 || flen > size-int64(2*len(magic))-4 {
		return fbError("a footer of %d bytes does not fit in a %d-byte file", flen, size)
	}
	footer := make([]byte, flen)
	if _, err := r.ReadAt(footer, size-int64(len(magic))-4-flen); err != nil {
		return fbError("cannot read the footer: %v", err)
	}
	v := &fbVerifier{b: footer, budget: len(footer)/4 + 1}
	t, err := v.root(footerFB)
	if err != nil {
		return err
	}
	for _, slot := range []int{2, 3} {
		p, _ := v.field(t, slot)
		if p == 0 {
			continue
		}
		q, _ := v.deref(p)
		n, first, _ := v.vector(q, 24)
		for i := range n {
			e := footer[first+24*i:]
			off := int64(binary.LittleEndian.Uint64(e))
			mlen := int64(int32(binary.LittleEndian.Uint32(e[8:])))
			blen := int64(binary.LittleEndian.Uint64(e[16:]))
			if off < 0 || mlen < 8 || blen < 0 || off > size || mlen > size-off || blen > size-off-mlen {
				return fbError("block %d (%d + %d bytes at %d) lies outside the %d-byte file", i, mlen, blen, off, size)
			}
			block := make([]byte, mlen)
			if _, err := r.ReadAt(block, off); err != nil {
				return fbError("cannot read block %d: %v", i, err)
			}
			meta := block[4:]
			if binary.LittleEndian.Uint32(block) == 0xFFFFFFFF {
				meta = block[8:]
			}
			if n := binary.LittleEndian.Uint32(block[len(block)-len(meta)-4:]); int64(n) <= int64(len(meta)) {
				meta = meta[:n]
			}
			bodyStart := off + mlen
			if _, err := verifyMessage(meta, blen, func(o int64, k int) ([]byte, error) {
				b := make([]byte, k)
				if _, err := r.ReadAt(b, bodyStart+o); err != nil {
					return nil, fbError("cannot read block %d's body: %v", i, err)
				}
				return b, nil
			}); err != nil {
				return err
			}
		}
	}
	return nil
}
