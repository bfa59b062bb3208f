package ipc

import (
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/ipc/internal/wire"
)

// Default limits of the readers.
const (
	// DefaultMaxMetadataSize bounds the flatbuffer metadata of a message.
	DefaultMaxMetadataSize = 64 << 20
	// DefaultMaxBodySize bounds the body of a message.
	DefaultMaxBodySize = 64 << 30
)

// ReadOption configures the readers (ReadMessage, ParseMessage,
// ParseBuffer, ReadFile, NewReader, OpenFile and friends).
type ReadOption interface{ applyRead(*readConfig) }

// WriteOption configures the writers (WriteTensor, AppendTensor,
// WriteFile, WriteFileSeq).
type WriteOption interface{ applyWrite(*writeConfig) }

// Option configures readers and writers alike: it is both a ReadOption and
// a WriteOption.
type Option interface {
	ReadOption
	WriteOption
}

type readOption func(*readConfig)

func (f readOption) applyRead(c *readConfig) { f(c) }

type writeOption func(*writeConfig)

func (f writeOption) applyWrite(c *writeConfig) { f(c) }

type allocatorOption struct{ mem memory.Allocator }

func (o allocatorOption) applyRead(c *readConfig)   { c.mem = o.mem }
func (o allocatorOption) applyWrite(c *writeConfig) { c.mem = o.mem }

type readConfig struct {
	mem     memory.Allocator
	maxMeta int64
	maxBody int64
	trusted bool
}

func newReadConfig(opts []ReadOption) *readConfig {
	c := &readConfig{mem: memory.DefaultAllocator, maxMeta: DefaultMaxMetadataSize, maxBody: DefaultMaxBodySize}
	for _, o := range opts {
		o.applyRead(c)
	}
	return c
}

func (c *readConfig) wire() []wire.ReadOption {
	return []wire.ReadOption{wire.WithAllocator(c.mem), wire.WithMaxMetadataSize(c.maxMeta), wire.WithMaxBodySize(c.maxBody)}
}

// WithAllocator sets the allocator of every buffer a reader or writer
// makes: bodies read from an io.Reader, aligned copies of misaligned
// in-memory bodies, and the temporary copies a writer needs (a
// non-contiguous dense view made contiguous, a CSF tensor made compact or
// given common index types). The default is memory.DefaultAllocator.
func WithAllocator(mem memory.Allocator) Option {
	return allocatorOption{mem}
}

// WithMaxMetadataSize bounds the metadata of a message; a larger one is an
// error before anything is allocated. The default is DefaultMaxMetadataSize
// (64 MiB). Values ≤ 0 keep the default.
func WithMaxMetadataSize(n int64) ReadOption {
	return readOption(func(c *readConfig) {
		if n > 0 {
			c.maxMeta = n
		}
	})
}

// WithMaxBodySize bounds the body of a message; a larger one is an error
// before anything is allocated. The default is DefaultMaxBodySize (64 GiB).
// Values ≤ 0 keep the default.
func WithMaxBodySize(n int64) ReadOption {
	return readOption(func(c *readConfig) {
		if n > 0 {
			c.maxBody = n
		}
	})
}

// WithTrusted skips the checks that read every index: coordinates and
// indices inside the shape, indptr arrays that start at 0, never decrease
// and end at the next level's length, indices sorted within CSF nodes, and
// the truth of a COO isCanonical flag (which is then taken as written). What
// is still checked takes O(ndim) time: the framing, the flatbuffer, types,
// shapes, that every buffer lies inside the body and is aligned, and that
// every buffer is large enough for the counts the metadata gives. So no
// access can go outside the message, but a tensor built from bad indices
// can make a later operation panic or give wrong results. Use it only for
// messages this process or a trusted peer wrote.
func WithTrusted() ReadOption {
	return readOption(func(c *readConfig) { c.trusted = true })
}

type writeConfig struct {
	mem     memory.Allocator
	csfUnit LengthUnit
}

func newWriteConfig(opts []WriteOption) *writeConfig {
	c := &writeConfig{mem: memory.DefaultAllocator}
	for _, o := range opts {
		o.applyWrite(c)
	}
	return c
}

// WithCSFLengths sets the unit of the CSF index buffer lengths. The default,
// ElementCounts, is what every released Arrow C++ writes and reads;
// ByteLengths follows the format's documentation and open apache/arrow PR
// #50817, and Arrow C++ up to 26.0 misreads it.
func WithCSFLengths(u LengthUnit) WriteOption {
	return writeOption(func(c *writeConfig) { c.csfUnit = u })
}
