// Package vals holds the value kernels every sparse format shares: merging
// duplicate entries after a sort, scattering entries into a dense buffer, and
// finding the non-zeros of a dense row. Values are passed as raw bytes; For
// picks the kernel set for a data type once per call, and each kernel then
// runs typed loops.
package vals

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/float16"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// Ops are the value kernels for one data type. Byte slices hold whole,
// aligned elements of that type.
type Ops interface {
	// ReduceWords merges sorted entries. Word w stands for entry
	// w & (1<<ib-1) with key w >> ib; words are ascending, so equal keys are
	// adjacent and in storage order. For each run of equal keys it combines
	// in[entry] under policy p and writes the result to out[pos+u], u
	// counting runs. It returns the number of runs and whether a run had more
	// than one entry. Each result is written after the run's words are read,
	// so out may overlap the words.
	ReduceWords(in, out []byte, pos int, words []uint64, ib uint, p arrowsparse.Duplicates) (int, bool)
	// ReducePerm is ReduceWords for an explicit order: run r is
	// perm[starts[r]:starts[r+1]], and its result goes to out[pos+r].
	ReducePerm(in, out []byte, pos int, perm []int64, starts []int64, p arrowsparse.Duplicates) bool
	// Gather writes in[perm[j]] to out[j].
	Gather(in, out []byte, perm []int64)
	// Scatter combines in[lo+j] into dense[positions[j]] under policy p, in
	// order of j. dense starts zeroed. seen is a bitmap over dense positions,
	// needed (zeroed, len ≥ ceil(len(dense elements)/64)) by every policy but
	// SumDuplicates and KeepLast. It reports whether a position was hit twice.
	Scatter(dense []byte, positions []int64, in []byte, lo int64, p arrowsparse.Duplicates, seen []uint64) bool
	// CountNonzero counts the non-zero elements data[start + j·stride], j < n.
	// Negative zero is zero; NaN is not.
	CountNonzero(data []byte, start, n, stride int64) int64
	// CollectNonzero writes the non-zero elements data[start + j·stride],
	// j < n, to out from element position at, and their j to cols. It
	// returns how many it wrote.
	CollectNonzero(data []byte, start, n, stride int64, out []byte, at int64, cols []int64) int
}

// For returns the kernels for dt, which must be a tensor value type.
func For(dt arrow.DataType) Ops {
	switch dt.ID() {
	case arrow.INT8:
		return num[int8]{}
	case arrow.INT16:
		return num[int16]{}
	case arrow.INT32:
		return num[int32]{}
	case arrow.INT64:
		return num[int64]{}
	case arrow.UINT8:
		return num[uint8]{}
	case arrow.UINT16:
		return num[uint16]{}
	case arrow.UINT32:
		return num[uint32]{}
	case arrow.UINT64:
		return num[uint64]{}
	case arrow.FLOAT16:
		return half{}
	case arrow.FLOAT32:
		return num[float32]{}
	case arrow.FLOAT64:
		return num[float64]{}
	}
	panic(arrowsparse.PanicError{Msg: "vals: " + dt.String() + " is not a tensor value type"})
}

// num are the kernels for the types Go can add.
type num[T arrowsparse.Number] struct{}

func combine[T arrowsparse.Number](acc, x T, p arrowsparse.Duplicates) T {
	switch p {
	case arrowsparse.SumDuplicates:
		return acc + x
	case arrowsparse.KeepLast:
		return x
	case arrowsparse.KeepMin:
		if x < acc || acc != acc {
			return x
		}
	case arrowsparse.KeepMax:
		if x > acc || acc != acc {
			return x
		}
	}
	return acc // KeepFirst, RejectDuplicates
}

func (num[T]) ReduceWords(inb, outb []byte, pos int, words []uint64, ib uint, p arrowsparse.Duplicates) (int, bool) {
	in, out := core.MustSliceBytes[T](inb), core.MustSliceBytes[T](outb)
	mask := uint64(1)<<ib - 1
	dup := false
	u := 0
	n := len(words)
	if p == arrowsparse.SumDuplicates {
		for j := 0; j < n; {
			key := words[j] >> ib
			acc := in[words[j]&mask]
			j++
			for j < n && words[j]>>ib == key {
				acc += in[words[j]&mask]
				j++
				dup = true
			}
			out[pos+u] = acc
			u++
		}
		return u, dup
	}
	for j := 0; j < n; {
		key := words[j] >> ib
		acc := in[words[j]&mask]
		j++
		for j < n && words[j]>>ib == key {
			acc = combine(acc, in[words[j]&mask], p)
			j++
			dup = true
		}
		out[pos+u] = acc
		u++
	}
	return u, dup
}

func (num[T]) ReducePerm(inb, outb []byte, pos int, perm []int64, starts []int64, p arrowsparse.Duplicates) bool {
	in, out := core.MustSliceBytes[T](inb), core.MustSliceBytes[T](outb)
	dup := false
	for r := 0; r+1 < len(starts); r++ {
		run := perm[starts[r]:starts[r+1]]
		acc := in[run[0]]
		for _, e := range run[1:] {
			acc = combine(acc, in[e], p)
			dup = true
		}
		out[pos+r] = acc
	}
	return dup
}

func (num[T]) Gather(inb, outb []byte, perm []int64) {
	in, out := core.MustSliceBytes[T](inb), core.MustSliceBytes[T](outb)
	for j, e := range perm {
		out[j] = in[e]
	}
}

func (num[T]) Scatter(denseb []byte, positions []int64, inb []byte, lo int64, p arrowsparse.Duplicates, seen []uint64) bool {
	dense, in := core.MustSliceBytes[T](denseb), core.MustSliceBytes[T](inb)
	in = in[lo : lo+int64(len(positions))]
	switch p {
	case arrowsparse.SumDuplicates:
		for j, q := range positions {
			dense[q] += in[j]
		}
		return false
	case arrowsparse.KeepLast:
		for j, q := range positions {
			dense[q] = in[j]
		}
		return false
	}
	dup := false
	for j, q := range positions {
		bit := uint64(1) << (q & 63)
		if seen[q>>6]&bit == 0 {
			seen[q>>6] |= bit
			dense[q] = in[j]
			continue
		}
		dup = true
		dense[q] = combine(dense[q], in[j], p)
	}
	return dup
}

func (num[T]) CountNonzero(datab []byte, start, n, stride int64) int64 {
	data := core.MustSliceBytes[T](datab)
	c := int64(0)
	if stride == 1 {
		for _, x := range data[start : start+n] {
			if x != 0 {
				c++
			}
		}
		return c
	}
	for j, q := int64(0), start; j < n; j, q = j+1, q+stride {
		if data[q] != 0 {
			c++
		}
	}
	return c
}

func (num[T]) CollectNonzero(datab []byte, start, n, stride int64, outb []byte, at int64, cols []int64) int {
	data, out := core.MustSliceBytes[T](datab), core.MustSliceBytes[T](outb)
	c := 0
	for j, q := int64(0), start; j < n; j, q = j+1, q+stride {
		if x := data[q]; x != 0 {
			out[at+int64(c)] = x
			cols[c] = j
			c++
		}
	}
	return c
}

// half are the kernels for float16, computed in float32 and rounded to
// float16 after every operation, as arithmetic in the value type would.
// (arrow-go's float16.Num arithmetic truncates and loses subnormals, so it
// is not used.)
type half struct{}

func combineHalf(acc, x float16.Num, p arrowsparse.Duplicates) float16.Num {
	switch p {
	case arrowsparse.SumDuplicates:
		return addHalf(acc, x)
	case arrowsparse.KeepLast:
		return x
	case arrowsparse.KeepMin:
		a, b := arrowsparse.HalfToFloat32(acc), arrowsparse.HalfToFloat32(x)
		if b < a || a != a {
			return x
		}
	case arrowsparse.KeepMax:
		a, b := arrowsparse.HalfToFloat32(acc), arrowsparse.HalfToFloat32(x)
		if b > a || a != a {
			return x
		}
	}
	return acc
}

// addHalf adds in float32 and rounds once to float16. float32 carries more
// than twice float16's precision plus two bits, so this equals a correctly
// rounded float16 addition.
func addHalf(a, b float16.Num) float16.Num {
	return arrowsparse.Float32ToHalf(arrowsparse.HalfToFloat32(a) + arrowsparse.HalfToFloat32(b))
}

func (half) ReduceWords(inb, outb []byte, pos int, words []uint64, ib uint, p arrowsparse.Duplicates) (int, bool) {
	in, out := core.MustSliceBytes[float16.Num](inb), core.MustSliceBytes[float16.Num](outb)
	mask := uint64(1)<<ib - 1
	dup := false
	u := 0
	for j := 0; j < len(words); {
		key := words[j] >> ib
		acc := in[words[j]&mask]
		j++
		for j < len(words) && words[j]>>ib == key {
			acc = combineHalf(acc, in[words[j]&mask], p)
			j++
			dup = true
		}
		out[pos+u] = acc
		u++
	}
	return u, dup
}

func (half) ReducePerm(inb, outb []byte, pos int, perm []int64, starts []int64, p arrowsparse.Duplicates) bool {
	in, out := core.MustSliceBytes[float16.Num](inb), core.MustSliceBytes[float16.Num](outb)
	dup := false
	for r := 0; r+1 < len(starts); r++ {
		run := perm[starts[r]:starts[r+1]]
		acc := in[run[0]]
		for _, e := range run[1:] {
			acc = combineHalf(acc, in[e], p)
			dup = true
		}
		out[pos+r] = acc
	}
	return dup
}

func (half) Gather(inb, outb []byte, perm []int64) { num[uint16]{}.Gather(inb, outb, perm) }

func (half) Scatter(denseb []byte, positions []int64, inb []byte, lo int64, p arrowsparse.Duplicates, seen []uint64) bool {
	if p == arrowsparse.KeepLast {
		return num[uint16]{}.Scatter(denseb, positions, inb, lo, p, seen)
	}
	dense, in := core.MustSliceBytes[float16.Num](denseb), core.MustSliceBytes[float16.Num](inb)
	in = in[lo : lo+int64(len(positions))]
	if p == arrowsparse.SumDuplicates {
		for j, q := range positions {
			dense[q] = addHalf(dense[q], in[j])
		}
		return false
	}
	dup := false
	for j, q := range positions {
		bit := uint64(1) << (q & 63)
		if seen[q>>6]&bit == 0 {
			seen[q>>6] |= bit
			dense[q] = in[j]
			continue
		}
		dup = true
		dense[q] = combineHalf(dense[q], in[j], p)
	}
	return dup
}

func (half) CountNonzero(datab []byte, start, n, stride int64) int64 {
	data := core.MustSliceBytes[uint16](datab)
	c := int64(0)
	for j, q := int64(0), start; j < n; j, q = j+1, q+stride {
		if data[q]&0x7fff != 0 {
			c++
		}
	}
	return c
}

func (half) CollectNonzero(datab []byte, start, n, stride int64, outb []byte, at int64, cols []int64) int {
	data, out := core.MustSliceBytes[uint16](datab), core.MustSliceBytes[uint16](outb)
	c := 0
	for j, q := int64(0), start; j < n; j, q = j+1, q+stride {
		if x := data[q]; x&0x7fff != 0 {
			out[at+int64(c)] = x
			cols[c] = j
			c++
		}
	}
	return c
}
