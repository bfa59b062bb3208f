package textparse

import (
	"io"
	"math"
	"runtime"
	"strconv"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/float16"

	"github.com/arrowsparse/arrowsparse"
)

// WriteBlocks formats blocks 0..n-1 on workers goroutines (GOMAXPROCS for
// workers ≤ 0) and writes them to w in order, with at most 2·workers
// blocks formatted ahead of the writer. format appends the text of block
// b to dst and returns it. The first write error stops the work and is
// returned.
func WriteBlocks(w io.Writer, n int64, workers int, format func(dst []byte, b int64) []byte) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if n == 0 {
		return nil
	}
	if workers == 1 || n == 1 {
		var buf []byte
		for b := range n {
			buf = format(buf[:0], b)
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
		return nil
	}
	// At most ahead blocks are handed out and not yet written: the
	// dispatcher takes a token from written before it hands out a block,
	// and the writer gives the token back once the block is written. So
	// the slot b%ahead of block b is always empty when its worker sends,
	// and a free buffer is always there: no send or receive of a worker
	// blocks, and stopping needs no draining.
	ahead := int64(2 * workers)
	slots := make([]chan []byte, ahead)
	for i := range slots {
		slots[i] = make(chan []byte, 1)
	}
	free := make(chan []byte, ahead)
	written := make(chan struct{}, ahead)
	for range ahead {
		free <- nil
		written <- struct{}{}
	}
	jobs := make(chan int64)
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for b := range jobs {
				buf := <-free
				slots[b%ahead] <- format(buf[:0], b)
			}
		})
	}
	wg.Go(func() {
		defer close(jobs)
		for b := range n {
			select {
			case <-written:
			case <-done:
				return
			}
			select {
			case jobs <- b:
			case <-done:
				return
			}
		}
	})
	var err error
	for b := range n {
		buf := <-slots[b%ahead]
		if _, err = w.Write(buf); err != nil {
			break
		}
		free <- buf
		written <- struct{}{}
	}
	close(done)
	wg.Wait()
	return err
}

// AppendFunc appends the text of value i of a raw value buffer.
type AppendFunc func(dst []byte, vals []byte, i int64) []byte

// Appender returns the function that formats values of type dt so that
// they read back to the same bits: the shortest decimal that rounds to the
// value (strconv 'g', -1) for floats (float16 through its float32 value),
// "inf", "-inf" and "nan" for the special values, and decimal integers.
func Appender(dt arrow.DataType) AppendFunc {
	switch dt.ID() {
	case arrow.FLOAT64:
		return func(dst, vals []byte, i int64) []byte {
			return AppendFloat(dst, *(*float64)(unsafe.Pointer(&vals[i*8])), 64)
		}
	case arrow.FLOAT32:
		return func(dst, vals []byte, i int64) []byte {
			return AppendFloat(dst, float64(*(*float32)(unsafe.Pointer(&vals[i*4]))), 32)
		}
	case arrow.FLOAT16:
		return func(dst, vals []byte, i int64) []byte {
			h := float16.FromBits(*(*uint16)(unsafe.Pointer(&vals[i*2])))
			return AppendFloat(dst, float64(arrowsparse.HalfToFloat32(h)), 32)
		}
	case arrow.INT8:
		return func(dst, vals []byte, i int64) []byte { return strconv.AppendInt(dst, int64(int8(vals[i])), 10) }
	case arrow.INT16:
		return func(dst, vals []byte, i int64) []byte {
			return strconv.AppendInt(dst, int64(*(*int16)(unsafe.Pointer(&vals[i*2]))), 10)
		}
	case arrow.INT32:
		return func(dst, vals []byte, i int64) []byte {
			return strconv.AppendInt(dst, int64(*(*int32)(unsafe.Pointer(&vals[i*4]))), 10)
		}
	case arrow.INT64:
		return func(dst, vals []byte, i int64) []byte {
			return strconv.AppendInt(dst, *(*int64)(unsafe.Pointer(&vals[i*8])), 10)
		}
	case arrow.UINT8:
		return func(dst, vals []byte, i int64) []byte { return strconv.AppendUint(dst, uint64(vals[i]), 10) }
	case arrow.UINT16:
		return func(dst, vals []byte, i int64) []byte {
			return strconv.AppendUint(dst, uint64(*(*uint16)(unsafe.Pointer(&vals[i*2]))), 10)
		}
	case arrow.UINT32:
		return func(dst, vals []byte, i int64) []byte {
			return strconv.AppendUint(dst, uint64(*(*uint32)(unsafe.Pointer(&vals[i*4]))), 10)
		}
	case arrow.UINT64:
		return func(dst, vals []byte, i int64) []byte {
			return strconv.AppendUint(dst, *(*uint64)(unsafe.Pointer(&vals[i*8])), 10)
		}
	}
	panic(arrowsparse.PanicError{Msg: "textparse: no appender for " + dt.String()})
}

// AppendFloat appends the shortest decimal that reads back to f at the given
// bit size, or inf, -inf or nan.
func AppendFloat(dst []byte, f float64, bitSize int) []byte {
	switch {
	case f != f:
		return append(dst, "nan"...)
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	}
	return strconv.AppendFloat(dst, f, 'g', -1, bitSize)
}

// Index returns element i of a raw index buffer of width w (a
// non-negative coordinate).
func Index(b []byte, w int, i int64) uint64 {
	switch w {
	case 1:
		return uint64(b[i])
	case 2:
		return uint64(*(*uint16)(unsafe.Pointer(&b[i*2])))
	case 4:
		return uint64(*(*uint32)(unsafe.Pointer(&b[i*4])))
	}
	return *(*uint64)(unsafe.Pointer(&b[i*8]))
}
