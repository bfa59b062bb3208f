package wire

import (
	"encoding/binary"
	"math"
)

// builder writes a flatbuffer the way the C++ FlatBufferBuilder does, so
// that the bytes equal Arrow C++'s. Like the C++ builder it fills its buffer
// from the back: every object is written in front of the objects created
// before it, and an object is referred to by its "offset from the end",
// the number of bytes written when it was finished.
//
// Differences from github.com/google/flatbuffers/go that matter for byte
// identity:
//
//   - a vtable is reused only if it is byte-for-byte equal to an earlier one,
//     including the inline object size (the stock Go builder compares only
//     the field entries);
//   - struct fields are written at the point where they are added, as C++
//     AddStruct does;
//   - default values are never stored (force_defaults off).
//
// The caller adds the fields of a table in the order of the generated C++
// CreateX helper; that order, and the order in which objects are created,
// decide the layout.
type builder struct {
	buf  []byte // data lives in buf[head:]
	head int

	minAlign int

	// Table under construction.
	tableStart int
	fields     []fieldLoc
	maxVoffset int
	nested     bool

	// Offsets (from the end) of the vtables written so far, in creation
	// order.
	vtables []int
}

type fieldLoc struct {
	voffset int // byte position of the field's entry in the vtable: 4+2*id
	off     int // offset from the end of the buffer, taken after the field was written
}

func newBuilder(capacity int) *builder {
	if capacity < 64 {
		capacity = 64
	}
	return &builder{buf: make([]byte, capacity), head: capacity, minAlign: 1}
}

// size is the number of bytes written so far (C++ GetSize).
func (b *builder) size() int { return len(b.buf) - b.head }

// grow makes room for at least n more bytes in front of the data.
func (b *builder) grow(n int) {
	if b.head >= n {
		return
	}
	used := b.size()
	newCap := 2 * len(b.buf)
	for newCap-used < n {
		newCap *= 2
	}
	nb := make([]byte, newCap)
	copy(nb[newCap-used:], b.buf[b.head:])
	b.buf = nb
	b.head = newCap - used
}

// pad writes n zero bytes.
func (b *builder) pad(n int) {
	if n <= 0 {
		return
	}
	b.grow(n)
	b.head -= n
	clear(b.buf[b.head : b.head+n])
}

func paddingBytes(size, align int) int {
	return (-size) & (align - 1)
}

func (b *builder) trackMinAlign(a int) {
	if a > b.minAlign {
		b.minAlign = a
	}
}

// align pads so that the size is a multiple of a (C++ Align).
func (b *builder) align(a int) {
	b.trackMinAlign(a)
	b.pad(paddingBytes(b.size(), a))
}

// preAlign pads so that, after n more bytes, the size is a multiple of a
// (C++ PreAlign). Like the C++ builder, it does nothing when n is 0.
func (b *builder) preAlign(n, a int) {
	if n == 0 {
		return
	}
	b.trackMinAlign(a)
	b.pad(paddingBytes(b.size()+n, a))
}

func (b *builder) pushU8(v uint8) int {
	b.align(1)
	b.grow(1)
	b.head--
	b.buf[b.head] = v
	return b.size()
}

func (b *builder) pushU16(v uint16) int {
	b.align(2)
	b.grow(2)
	b.head -= 2
	binary.LittleEndian.PutUint16(b.buf[b.head:], v)
	return b.size()
}

func (b *builder) pushU32(v uint32) int {
	b.align(4)
	b.grow(4)
	b.head -= 4
	binary.LittleEndian.PutUint32(b.buf[b.head:], v)
	return b.size()
}

func (b *builder) pushU64(v uint64) int {
	b.align(8)
	b.grow(8)
	b.head -= 8
	binary.LittleEndian.PutUint64(b.buf[b.head:], v)
	return b.size()
}

// referTo returns the uoffset that, written at the next 4-aligned position,
// points at the object whose offset from the end is off.
func (b *builder) referTo(off int) uint32 {
	b.align(4)
	return uint32(b.size() - off + 4)
}

// at returns the buffer position of an object given its offset from the end.
func (b *builder) at(off int) int { return len(b.buf) - off }

// Tables.

func (b *builder) startTable() {
	if b.nested {
		panic("ipc: builder: nested table")
	}
	b.nested = true
	b.tableStart = b.size()
	b.fields = b.fields[:0]
	b.maxVoffset = 0
}

func (b *builder) track(id, off int) {
	vo := 4 + 2*id
	b.fields = append(b.fields, fieldLoc{voffset: vo, off: off})
	if vo > b.maxVoffset {
		b.maxVoffset = vo
	}
}

func (b *builder) addI64(id int, v, def int64) {
	if v != def {
		b.track(id, b.pushU64(uint64(v)))
	}
}

func (b *builder) addI32(id int, v, def int32) {
	if v != def {
		b.track(id, b.pushU32(uint32(v)))
	}
}

func (b *builder) addI16(id int, v, def int16) {
	if v != def {
		b.track(id, b.pushU16(uint16(v)))
	}
}

func (b *builder) addU8(id int, v, def uint8) {
	if v != def {
		b.track(id, b.pushU8(v))
	}
}

func (b *builder) addBool(id int, v bool) {
	if v {
		b.track(id, b.pushU8(1))
	}
}

// addOffset adds a reference to an object; off 0 means "absent".
func (b *builder) addOffset(id int, off int) {
	if off == 0 {
		return
	}
	b.track(id, b.pushU32(b.referTo(off)))
}

// addBuffer writes a Buffer struct inline (C++ AddStruct).
func (b *builder) addBuffer(id int, buf Buffer) {
	b.align(8)
	b.pushBufferStruct(buf)
	b.track(id, b.size())
}

func (b *builder) pushBufferStruct(buf Buffer) {
	b.grow(16)
	b.head -= 16
	binary.LittleEndian.PutUint64(b.buf[b.head:], uint64(buf.Offset))
	binary.LittleEndian.PutUint64(b.buf[b.head+8:], uint64(buf.Length))
}

// endTable writes the table's vtable (or reuses an identical earlier one)
// and returns the table's offset from the end.
func (b *builder) endTable() int {
	if !b.nested {
		panic("ipc: builder: endTable without startTable")
	}
	// Placeholder for the soffset to the vtable.
	tableOff := b.pushU32(0)

	vtSize := max(b.maxVoffset+2, 4)
	b.pad(vtSize)
	vt := b.buf[b.head : b.head+vtSize]
	objSize := tableOff - b.tableStart
	if objSize > math.MaxUint16 || vtSize > math.MaxUint16 {
		panic("ipc: builder: table too large")
	}
	binary.LittleEndian.PutUint16(vt[0:], uint16(vtSize))
	binary.LittleEndian.PutUint16(vt[2:], uint16(objSize))
	for _, f := range b.fields {
		binary.LittleEndian.PutUint16(vt[f.voffset:], uint16(tableOff-f.off))
	}
	b.fields = b.fields[:0]

	use := b.size()
	for _, old := range b.vtables {
		p := b.at(old)
		oldSize := int(binary.LittleEndian.Uint16(b.buf[p:]))
		if oldSize != vtSize || string(b.buf[p:p+oldSize]) != string(vt) {
			continue
		}
		use = old
		// Drop the new vtable.
		b.head += b.size() - tableOff
		break
	}
	if use == b.size() {
		b.vtables = append(b.vtables, use)
	}
	binary.LittleEndian.PutUint32(b.buf[b.at(tableOff):], uint32(int32(use-tableOff)))
	b.nested = false
	return tableOff
}

// Strings and vectors.

func (b *builder) createString(s string) int {
	b.preAlign(len(s)+1, 4)
	b.pad(1) // NUL terminator
	b.grow(len(s))
	b.head -= len(s)
	copy(b.buf[b.head:], s)
	return b.pushU32(uint32(len(s)))
}

// startVector prepares for n elements of elemSize bytes aligned to a.
func (b *builder) startVector(n, elemSize, a int) {
	b.preAlign(n*elemSize, 4)
	b.preAlign(n*elemSize, a)
}

func (b *builder) endVector(n int) int {
	return b.pushU32(uint32(n))
}

func (b *builder) createInt64Vector(v []int64) int {
	b.startVector(len(v), 8, 8)
	b.grow(8 * len(v))
	b.head -= 8 * len(v)
	for i, x := range v {
		binary.LittleEndian.PutUint64(b.buf[b.head+8*i:], uint64(x))
	}
	return b.endVector(len(v))
}

func (b *builder) createInt32Vector(v []int32) int {
	b.startVector(len(v), 4, 4)
	b.grow(4 * len(v))
	b.head -= 4 * len(v)
	for i, x := range v {
		binary.LittleEndian.PutUint32(b.buf[b.head+4*i:], uint32(x))
	}
	return b.endVector(len(v))
}

func (b *builder) createBufferVector(v []Buffer) int {
	b.startVector(len(v), 16, 8)
	for i := len(v) - 1; i >= 0; i-- {
		b.pushBufferStruct(v[i])
	}
	return b.endVector(len(v))
}

// createOffsetVector writes a vector of references to objects given by
// their offsets from the end.
func (b *builder) createOffsetVector(offs []int) int {
	b.startVector(len(offs), 4, 4)
	for i := len(offs) - 1; i >= 0; i-- {
		b.pushU32(b.referTo(offs[i]))
	}
	return b.endVector(len(offs))
}

// finish writes the root offset, aligning the whole buffer to the largest
// alignment used, and returns the finished bytes. The builder must not be
// used afterwards.
func (b *builder) finish(root int) []byte {
	b.preAlign(4, b.minAlign)
	b.pushU32(b.referTo(root))
	b.vtables = nil
	return b.buf[b.head:]
}
