// Package sniff tells what a file holds from its first bytes, so that a
// reader of Arrow IPC tensor messages can say what it was given instead
// ("metadata length 1330795073 exceeds the limit" is the first word of an
// Arrow IPC file read as a message length).
//
// Detect looks at a prefix only: PrefixLen bytes are enough for every kind
// (fewer give a weaker answer, never a panic). It checks, in order: an empty
// input; the magic bytes of an Arrow IPC file ("ARROW1"), a Parquet file
// ("PAR1") and gzip data (1F 8B); an Arrow IPC message frame (the
// continuation marker FF FF FF FF or a legacy 4-byte length, then a
// flatbuffer Message whose header type tells a tensor message from the
// Schema or RecordBatch that opens an Arrow IPC stream); a Matrix Market
// banner ("%%MatrixMarket"); text whose first data line is numbers (FROSTT
// .tns); other text. Anything else is Unknown.
package sniff

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"unicode/utf8"
)

// PrefixLen is the number of leading bytes Detect needs to tell every kind
// apart. Callers should pass min(PrefixLen, size) bytes.
const PrefixLen = 512

// Kind is what a file's first bytes say it holds.
type Kind int8

// The kinds Detect tells apart.
const (
	// Unknown is anything Detect does not recognise (binary data that is
	// not framed as an Arrow IPC message).
	Unknown Kind = iota
	// Empty is an input of zero bytes.
	Empty
	// TensorMessage is an Arrow IPC message frame whose header is a Tensor
	// or SparseTensor, or whose header lies beyond the prefix (an
	// end-of-stream marker counts too): what package ipc reads.
	TensorMessage
	// ArrowFile is an Arrow IPC file (magic "ARROW1"): a table.
	ArrowFile
	// ArrowStream is an Arrow IPC stream: a message frame whose header is a
	// Schema, DictionaryBatch or RecordBatch. It holds a table.
	ArrowStream
	// Parquet is a Parquet file (magic "PAR1").
	Parquet
	// Gzip is gzip-compressed data (magic 1F 8B).
	Gzip
	// MatrixMarket is a Matrix Market text file ("%%MatrixMarket" banner).
	MatrixMarket
	// FROSTT is text whose first data line (after '#' comments) is
	// whitespace-separated numbers, as in a FROSTT .tns file.
	FROSTT
	// Text is any other text.
	Text
)

var names = [...]string{
	Unknown:       "unknown data",
	Empty:         "empty",
	TensorMessage: "Arrow IPC tensor message",
	ArrowFile:     "Arrow IPC file",
	ArrowStream:   "Arrow IPC stream",
	Parquet:       "Parquet file",
	Gzip:          "gzip-compressed data",
	MatrixMarket:  "Matrix Market text",
	FROSTT:        "FROSTT text (.tns)",
	Text:          "text",
}

// String names the kind for people: "Arrow IPC file", "Parquet file",
// "gzip-compressed data", ….
func (k Kind) String() string {
	if k >= 0 && int(k) < len(names) {
		return names[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// IsTable reports whether the kind holds a table (Arrow IPC file or stream,
// Parquet), which package arrowext reads.
func (k Kind) IsTable() bool { return k == ArrowFile || k == ArrowStream || k == Parquet }

// Foreign reports whether the kind is something a reader of tensor
// messages should name in its error instead of the framing error: every
// kind but Unknown, Empty and TensorMessage.
func (k Kind) Foreign() bool { return k > TensorMessage }

// Explain describes an input of this kind to a reader that expected Arrow
// IPC tensor messages, with what to read it with instead, as a phrase that
// follows the input's name: "holds a table (Arrow IPC file); read it with
// package arrowext (ReadIPCFile) or `sptensor dump`". It is empty for the
// kinds that are not Foreign.
func (k Kind) Explain() string {
	switch k {
	case ArrowFile:
		return "holds a table (Arrow IPC file), not tensor messages; read it with package arrowext (ReadIPCFile) or `sptensor dump`"
	case ArrowStream:
		return "holds a table (Arrow IPC stream), not tensor messages; read it with package arrowext (ReadIPCStream) or `sptensor dump`"
	case Parquet:
		return "holds a table (Parquet file), not tensor messages; read it with package arrowext (ReadParquet) or `sptensor dump`"
	case Gzip:
		return "is gzip-compressed; decompress it first (packages mtx and tns read compressed Matrix Market and FROSTT files directly)"
	case MatrixMarket:
		return "is a Matrix Market text file, not tensor messages; read it with package mtx"
	case FROSTT:
		return "is text that looks like a FROSTT .tns file, not tensor messages; read it with package tns"
	case Text:
		return "is text, not Arrow IPC tensor messages (packages mtx and tns read Matrix Market and FROSTT text)"
	}
	return ""
}

// Message header types of the Arrow IPC MessageHeader union.
const (
	headerSchema          = 1
	headerDictionaryBatch = 2
	headerRecordBatch     = 3
	headerTensor          = 4
	headerSparseTensor    = 5
)

// Detect returns what prefix, the first bytes of an input, says it holds.
// It never panics and reads nothing beyond prefix.
func Detect(prefix []byte) Kind {
	switch {
	case len(prefix) == 0:
		return Empty
	case hasPrefix(prefix, "ARROW1"):
		return ArrowFile
	case hasPrefix(prefix, "PAR1"):
		return Parquet
	}
	if k, ok := frame(prefix); ok {
		return k
	}
	if len(prefix) >= 2 && prefix[0] == 0x1f && prefix[1] == 0x8b {
		return Gzip
	}
	return text(prefix)
}

// hasPrefix reports whether b starts with magic (a file shorter than its
// magic is not one).
func hasPrefix(b []byte, magic string) bool {
	return len(b) >= len(magic) && string(b[:len(magic)]) == magic
}

// frame recognises an Arrow IPC message frame and the kind of its header.
func frame(b []byte) (Kind, bool) {
	if len(b) < 4 {
		return Unknown, false
	}
	first := binary.LittleEndian.Uint32(b)
	var meta []byte
	var mlen uint32
	switch {
	case first == 0xFFFFFFFF:
		if len(b) < 8 {
			return TensorMessage, true
		}
		mlen = binary.LittleEndian.Uint32(b[4:])
		if mlen == 0 {
			return TensorMessage, true // end-of-stream marker
		}
		if int32(mlen) < 0 {
			return Unknown, false
		}
		meta = b[8:]
	case first == 0:
		return TensorMessage, true // legacy end-of-stream marker
	case int32(first) > 0:
		// A legacy frame: the word is the metadata length. Only a
		// flatbuffer that reads as a Message makes it one.
		mlen, meta = first, b[4:]
	default:
		return Unknown, false
	}
	if uint64(len(meta)) > uint64(mlen) {
		meta = meta[:mlen]
	}
	h, ok := headerType(meta)
	switch {
	case !ok && first == 0xFFFFFFFF:
		return TensorMessage, true // framed; the decoder will say more
	case !ok:
		return Unknown, false
	case h == headerTensor || h == headerSparseTensor:
		return TensorMessage, true
	case h == headerSchema || h == headerDictionaryBatch || h == headerRecordBatch:
		return ArrowStream, true
	case first == 0xFFFFFFFF:
		return TensorMessage, true
	}
	return Unknown, false
}

// headerType reads Message.header_type (field 1) and checks Message.version
// (field 0) from flatbuffer bytes, with every offset bounds-checked. ok is
// false when the bytes do not read as a Message of a known version and
// header type.
func headerType(m []byte) (uint8, bool) {
	u16 := func(p int64) (uint16, bool) {
		if p < 0 || p+2 > int64(len(m)) {
			return 0, false
		}
		return binary.LittleEndian.Uint16(m[p:]), true
	}
	if len(m) < 8 {
		return 0, false
	}
	root := int64(binary.LittleEndian.Uint32(m))
	if root < 4 || root+4 > int64(len(m)) || root%4 != 0 {
		return 0, false
	}
	vt := root - int64(int32(binary.LittleEndian.Uint32(m[root:])))
	vtSize, ok := u16(vt)
	if !ok || vtSize < 4 || vtSize%2 != 0 {
		return 0, false
	}
	field := func(id int64) (int64, bool) {
		if 4+2*id+2 > int64(vtSize) {
			return 0, true // absent: default value
		}
		off, ok := u16(vt + 4 + 2*id)
		if !ok {
			return 0, false
		}
		if off == 0 {
			return 0, true
		}
		return root + int64(off), true
	}
	vp, ok := field(0)
	if !ok {
		return 0, false
	}
	version := uint16(0) // V1, the default
	if vp != 0 {
		if version, ok = u16(vp); !ok {
			return 0, false
		}
	}
	if version > 4 { // V1 … V5 are 0 … 4
		return 0, false
	}
	hp, ok := field(1)
	if !ok || hp == 0 || hp >= int64(len(m)) {
		return 0, false
	}
	h := m[hp]
	if h < headerSchema || h > headerSparseTensor {
		return 0, false
	}
	return h, true
}

// text recognises Matrix Market, FROSTT and other text.
func text(b []byte) Kind {
	s := b
	if bytes.HasPrefix(s, []byte("\xef\xbb\xbf")) {
		s = s[3:]
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c < 0x20 || c == 0x7f:
			return Unknown
		case c < 0x80:
			i++
		default:
			r, n := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && n <= 1 {
				if !utf8.FullRune(s[i:]) {
					i = len(s) // a character cut by the end of the prefix
					continue
				}
				return Unknown
			}
			i += n
		}
	}
	if len(s) == 0 {
		return Text
	}
	if len(s) >= 14 && bytes.EqualFold(s[:14], []byte("%%MatrixMarket")) {
		return MatrixMarket
	}
	if numericLine(s) {
		return FROSTT
	}
	return Text
}

// numericLine reports whether the first line that is neither blank nor a
// '#' comment holds at least two whitespace-separated numbers and nothing
// else. A line cut by the end of the prefix is judged on what it has.
func numericLine(s []byte) bool {
	for len(s) > 0 {
		line := s
		if k := bytes.IndexByte(s, '\n'); k >= 0 {
			line, s = s[:k], s[k+1:]
		} else {
			s = nil
		}
		f := bytes.Fields(line)
		if len(f) == 0 || f[0][0] == '#' {
			continue
		}
		if len(f) < 2 {
			return false
		}
		for _, tok := range f {
			if _, err := strconv.ParseFloat(string(tok), 64); err != nil {
				return false
			}
		}
		return true
	}
	return false
}
