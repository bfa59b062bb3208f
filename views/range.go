package views

import (
	"math"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// None marks an omitted Start or Stop of a Range, like an empty slot in
// NumPy's a[start:stop:step]: the range then starts or stops at the end of
// the axis that the sign of Step points to.
const None int64 = math.MinInt64

// Range selects the indices Start, Start+Step, … up to but excluding Stop
// along one axis, with the semantics of a Python slice:
//
//   - Start and Stop may be negative, counting from the end of the axis
//     (-1 is the last index);
//   - None (an omitted bound) means the first index for Start and one past
//     the last for Stop when Step > 0, and the reverse when Step < 0;
//   - bounds outside the axis are clamped, never an error, and a range that
//     selects nothing gives an axis of length 0;
//   - Step may be negative; a Step of 0 is an error.
//
// The fields are indices, not element or byte offsets. Range{None, None, 1}
// (Full()) is the whole axis; Range{None, None, -1} reverses it.
type Range struct {
	Start, Stop, Step int64
}

// Full returns the range of a whole axis, NumPy's ":".
func Full() Range { return Range{None, None, 1} }

// Span returns the range start:stop with step 1.
func Span(start, stop int64) Range { return Range{start, stop, 1} }

// Resolve applies the range to an axis of length n and returns the first
// index, the step and the number of indices selected, as Python's
// slice.indices and PySlice_AdjustIndices do. A Step of 0 is an error
// wrapping arrow.ErrIndex.
func (r Range) Resolve(n int64) (start, step, length int64, err error) {
	step = r.Step
	if step == 0 {
		return 0, 0, 0, core.Errorf(arrowsparse.ErrOutOfRange, "views: slice step cannot be zero")
	}
	start = adjust(r.Start, n, step, true)
	stop := adjust(r.Stop, n, step, false)
	if step > 0 {
		if start < stop {
			length = int64((uint64(stop-start)-1)/uint64(step)) + 1
		}
	} else if stop < start {
		length = int64((uint64(start-stop)-1)/(uint64(^step)+1)) + 1
	}
	return start, step, length, nil
}

// adjust resolves one bound of a range over an axis of length n: None
// becomes the end the step starts from (isStart) or runs to, a negative
// bound counts from the end, and the result is clamped to [0, n] for a
// positive step or [-1, n-1] for a negative one.
func adjust(b, n, step int64, isStart bool) int64 {
	if b == None {
		switch {
		case isStart && step > 0:
			return 0
		case isStart:
			return n - 1
		case step > 0:
			return n
		default:
			return -1
		}
	}
	if b < 0 {
		b += n
		if b < 0 {
			if step < 0 {
				return -1
			}
			return 0
		}
	} else if b >= n {
		if step < 0 {
			return n - 1
		}
		return n
	}
	return b
}
