package csf

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// iops are the kernels for one index type. A level's indptr and indices
// may have different types, and levels may differ from each other, so
// opsFor is called once per buffer and each method runs a typed loop over a
// range. Positions are element positions in the buffer's bytes.
type iops interface {
	// get returns element i.
	get(b []byte, i int64) int64
	// read writes elements [lo, lo+len(dst)) to dst.
	read(b []byte, lo int64, dst []int64)
	// write stores src at elements [lo, lo+len(src)).
	write(b []byte, lo int64, src []int64)
	// firstDecrease returns the first i in (lo, hi] with b[i] < b[i-1], or
	// -1 if b is non-decreasing over [lo, hi].
	firstDecrease(b []byte, lo, hi int64) int64
	// checkRuns checks every run [bounds[r], bounds[r+1]) of b: each
	// element lies in [0, dim) and each is greater than the one before it
	// in the run. It returns -1, or the position of the first bad element
	// and whether it is out of range (true) or out of order (false).
	checkRuns(b []byte, bounds []int64, dim int64) (int64, bool)
	// search returns the first position p in [lo, hi) with b[p] ≥ x (hi
	// if none) and whether b[p] == x. b must be increasing over [lo, hi).
	search(b []byte, lo, hi, x int64) (int64, bool)
	// lastLE returns the last position p in [lo, hi) with b[p] ≤ x, or
	// lo-1 if there is none. b must be non-decreasing over [lo, hi).
	lastLE(b []byte, lo, hi, x int64) int64
}

// opsFor returns the kernels for an index type, which must be one.
func opsFor(dt arrow.DataType) iops {
	switch dt.ID() {
	case arrow.INT8:
		return ix[int8]{}
	case arrow.INT16:
		return ix[int16]{}
	case arrow.INT32:
		return ix[int32]{}
	case arrow.INT64:
		return ix[int64]{}
	case arrow.UINT8:
		return ix[uint8]{}
	case arrow.UINT16:
		return ix[uint16]{}
	case arrow.UINT32:
		return ix[uint32]{}
	}
	panic(arrowsparse.PanicError{Msg: "csf: " + dt.String() + " is not an index type"})
}

type ix[I arrowsparse.Index] struct{}

func (ix[I]) get(b []byte, i int64) int64 { return int64(core.MustSliceBytes[I](b)[i]) }

func (ix[I]) read(b []byte, lo int64, dst []int64) {
	src := core.MustSliceBytes[I](b)[lo : lo+int64(len(dst))]
	for j, v := range src {
		dst[j] = int64(v)
	}
}

func (ix[I]) write(b []byte, lo int64, src []int64) {
	dst := core.MustSliceBytes[I](b)[lo : lo+int64(len(src))]
	for j, v := range src {
		dst[j] = I(v)
	}
}

func (ix[I]) firstDecrease(b []byte, lo, hi int64) int64 {
	s := core.MustSliceBytes[I](b)[lo : hi+1]
	for j := 1; j < len(s); j++ {
		if s[j] < s[j-1] {
			return lo + int64(j)
		}
	}
	return -1
}

func (ix[I]) checkRuns(b []byte, bounds []int64, dim int64) (int64, bool) {
	s := core.MustSliceBytes[I](b)
	for r := 0; r+1 < len(bounds); r++ {
		lo, hi := bounds[r], bounds[r+1]
		if lo == hi {
			continue
		}
		run := s[lo:hi]
		prev := int64(run[0])
		if prev < 0 || prev >= dim {
			return lo, true
		}
		for j := 1; j < len(run); j++ {
			v := int64(run[j])
			if v >= dim {
				return lo + int64(j), true
			}
			if v <= prev {
				return lo + int64(j), false
			}
			prev = v
		}
	}
	return -1, false
}

func (ix[I]) search(b []byte, lo, hi, x int64) (int64, bool) {
	s := core.MustSliceBytes[I](b)
	end := hi
	for lo < hi {
		mid := int64(uint64(lo+hi) >> 1)
		if int64(s[mid]) < x {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, lo < end && int64(s[lo]) == x
}

func (ix[I]) lastLE(b []byte, lo, hi, x int64) int64 {
	s := core.MustSliceBytes[I](b)
	l, h := lo, hi // find the first position with s[p] > x
	for l < h {
		mid := int64(uint64(l+h) >> 1)
		if int64(s[mid]) <= x {
			l = mid + 1
		} else {
			h = mid
		}
	}
	return l - 1
}

// chunk is the number of elements a cursor or a stage holds.
const chunk = 1024

// cursor reads one buffer of index values in increasing positions,
// converting a chunk at a time to int64. Reading backwards works but
// refills on every step.
type cursor struct {
	ops iops
	b   []byte
	lo  int64 // position of buf[0]
	end int64 // one past the last readable position
	buf []int64
}

func newCursor(dt arrow.DataType, b []byte, end int64) cursor {
	return cursor{ops: opsFor(dt), b: b, end: end, buf: make([]int64, 0, chunk)}
}

// at returns element i.
func (c *cursor) at(i int64) int64 {
	j := i - c.lo
	if uint64(j) >= uint64(len(c.buf)) {
		c.fill(i, i+1)
		j = 0
	}
	return c.buf[j]
}

// span returns elements [i, j) as a slice that is valid until the next
// call on c.
func (c *cursor) span(i, j int64) []int64 {
	if i < c.lo || j > c.lo+int64(len(c.buf)) {
		c.fill(i, j)
	}
	return c.buf[i-c.lo : j-c.lo]
}

// fill loads at least [i, j) (as far as end allows), starting at i.
func (c *cursor) fill(i, j int64) {
	if n := j - i; n > int64(cap(c.buf)) {
		c.buf = make([]int64, 0, n)
	}
	n := min(int64(cap(c.buf)), c.end-i)
	if n < j-i || i < 0 {
		panic(arrowsparse.PanicError{Msg: "csf: internal error: read outside a level"})
	}
	c.buf = c.buf[:n]
	c.ops.read(c.b, i, c.buf)
	c.lo = i
}

// stage collects int64 values for consecutive positions of one output
// buffer and stores them, converted to the buffer's type, a chunk at a time.
type stage struct {
	ops iops
	b   []byte
	at  int64 // position of buf[0]
	n   int
	buf []int64
}

func newStage(dt arrow.DataType, b []byte, at int64) stage {
	return stage{ops: opsFor(dt), b: b, at: at, buf: make([]int64, chunk)}
}

func (s *stage) push(x int64) {
	s.put(x)
	s.take(1)
}

// put writes x where push would, without taking it: a later put
// overwrites it unless take takes it first.
func (s *stage) put(x int64) { s.buf[s.n] = x }

// take takes the value put last when k is 1, and nothing when k is 0.
func (s *stage) take(k int) {
	s.n += k
	if s.n == len(s.buf) {
		s.flush()
	}
}

func (s *stage) flush() {
	if s.n > 0 {
		s.ops.write(s.b, s.at, s.buf[:s.n])
		s.at += int64(s.n)
		s.n = 0
	}
}
