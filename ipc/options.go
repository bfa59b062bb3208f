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

// ReadOption configures the readers.
type ReadOption func(*readConfig)

type readConfig struct {
	mem     memory.Allocator
	maxMeta int64
	maxBody int64
	trusted bool
}

func newReadConfig(opts []ReadOption) *readConfig {
	c := &readConfig{mem: memory.DefaultAllocator, maxMeta: DefaultMaxMetadataSize, maxBody: DefaultMaxBodySize}
	for _, o := range opts {
		o(c)
	}
	return c
}

func (c *readConfig) wire() []wire.ReadOption {
	return []wire.ReadOption{wire.WithAllocator(c.mem), wire.WithMaxMetadataSize(c.maxMeta), wire.WithMaxBodySize(c.maxBody)}
}

// WithAllocator sets the allocator for bodies read from an io.Reader (and
// for aligned copies of misaligned in-memory bodies). The default is
// memory.DefaultAllocator.
func WithAllocator(mem memory.Allocator) ReadOption {
	return func(c *readConfig) { c.mem = mem }
}

// WithMaxMetadataSize bounds the metadata of a message; a larger one is an
// error before anything is allocated. The default is DefaultMaxMetadataSize
// (64 MiB). Values ≤ 0 keep the default.
func WithMaxMetadataSize(n int64) ReadOption {
	return func(c *readConfig) {
		if n > 0 {
			c.maxMeta = n
		}
	}
}

// WithMaxBodySize bounds the body of a message; a larger one is an error
// before anything is allocated. The default is DefaultMaxBodySize (64 GiB).
// Values ≤ 0 keep the default.
func WithMaxBodySize(n int64) ReadOption {
	return func(c *readConfig) {
		if n > 0 {
			c.maxBody = n
		}
	}
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
	return func(c *readConfig) { c.trusted = true }
}

// WriteOption configures the writers.
type WriteOption func(*writeConfig)

type writeConfig struct {
	csfUnit LengthUnit
}

func newWriteConfig(opts []WriteOption) *writeConfig {
	c := &writeConfig{}
	for _, o := range opts {
		o(c)
	}
	return c
}

// WithCSFLengths sets the unit of the CSF index buffer lengths. The default,
// ElementCounts, is what every released Arrow C++ writes and reads;
// ByteLengths follows the format's documentation and open apache/arrow PR
// #50817, and Arrow C++ up to 26.0 misreads it.
func WithCSFLengths(u LengthUnit) WriteOption {
	return func(c *writeConfig) { c.csfUnit = u }
}
