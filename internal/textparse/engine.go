package textparse

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/arrowsparse/arrowsparse"
)

// Body is how a format parses the body of an input, chunk by chunk.
//
// The engine splits the body into chunks of whole lines and runs, for every
// chunk, Parse on one of the workers, then Place in input order (one call
// at a time), then Copy (in parallel with other Copy and Parse calls, never
// with a grow). A chunk's scratch space S is reused by its worker for the
// next chunk once Copy has returned.
type Body[S any] struct {
	// New returns a worker's scratch space.
	New func() *S
	// Parse parses data, whole lines (the last one lacks its line ending
	// only at the end of the input), into s. It returns the number of
	// lines and of entries; on bad input, a *LineError whose Line is the
	// 0-based index of the bad line within data, with the number of
	// entries before that line (which Place then checks first).
	Parse func(data []byte, s *S) (lines, entries int64, err *LineError)
	// Place reserves the chunk's room in the output, given the number of
	// entries of the chunks before it; it may grow the output through grow,
	// which runs its function while no Copy runs. A *LineError it returns
	// has a Line relative to data, like Parse's; any error stops the run.
	Place func(data []byte, s *S, before int64, grow func(func())) error
	// Copy moves the chunk's entries to the room Place reserved.
	Copy func(s *S)
}

// chunk is a piece of the body: whole lines, or an error at its place in
// the input.
type chunk struct {
	seq  int
	data []byte
	end  int64 // Progress.Bytes once this chunk is consumed
	// err is a source error to report after data's lines: a *LineError
	// whose Line counts from the line after data (0 is that line), or an
	// error reading the input.
	err     error
	release func()
}

// source hands out the chunks of a body.
type source interface {
	// next returns the next chunk for a worker, ok = false when there is
	// none left. w is the worker's own state.
	next(w *worker) (c chunk, ok bool)
	// stop makes next return false from now on and frees what the source
	// holds.
	stop()
}

// worker is a worker goroutine's state that sources may use.
type worker struct {
	buf []byte
}

type engine[S any] struct {
	in *Input
	b  Body[S]

	mu      sync.Mutex
	cond    sync.Cond
	turn    int
	lines   int64 // lines of the input before chunk turn
	entries int64 // entries before chunk turn
	err     error
	stopped atomic.Bool

	growMu sync.RWMutex
}

// Run parses the rest of the input (everything after the lines Line
// returned) with the format's Body, on the configured number of workers.
// It returns the number of entries and the total number of lines of the
// input.
func Run[S any](in *Input, b Body[S]) (entries, lines int64, err error) {
	e := &engine[S]{in: in, b: b, lines: in.lr.line}
	e.cond.L = &e.mu
	src := in.bodySource(e.stopped.Load)
	var wg sync.WaitGroup
	for range in.cfg.Workers {
		wg.Go(func() {
			if err := in.Protect(func() error { e.work(src); return nil }); err != nil {
				e.mu.Lock()
				e.fail(err)
				e.mu.Unlock()
			}
		})
	}
	wg.Wait()
	src.stop()
	if e.err != nil {
		return 0, 0, e.err
	}
	return e.entries, e.lines, nil
}

func (e *engine[S]) fail(err error) {
	if e.err == nil {
		e.err = err
	}
	e.stopped.Store(true)
	e.cond.Broadcast()
}

// lineErr turns a chunk-relative line error into the error to return.
func (e *engine[S]) lineErr(le *LineError, base int64) error {
	le.Line += base + 1
	return e.in.cfg.LineErr(le)
}

func (e *engine[S]) grow(f func()) {
	e.growMu.Lock()
	defer e.growMu.Unlock()
	f()
}

func (e *engine[S]) work(src source) {
	s := e.b.New()
	w := &worker{}
	for {
		c, ok := src.next(w)
		if !ok {
			return
		}
		var lines, n int64
		var perr *LineError
		if len(c.data) > 0 && !e.stopped.Load() {
			lines, n, perr = e.b.Parse(c.data, s)
		}
		placed, failed := e.sequence(c, s, lines, n, perr)
		c.release()
		if failed {
			return
		}
		if placed {
			e.growMu.RLock()
			e.b.Copy(s)
			e.growMu.RUnlock()
		}
	}
}

// sequence does a chunk's in-order step, holding mu (released by a defer,
// so that a fault on a mapped input cannot leave it locked): the error of
// the first bad line, Place, progress. It reports whether the chunk was
// placed (to be copied) and whether the run has failed.
func (e *engine[S]) sequence(c chunk, s *S, lines, n int64, perr *LineError) (placed, failed bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for e.turn != c.seq && !e.stopped.Load() {
		e.cond.Wait()
	}
	if e.stopped.Load() {
		return false, true
	}
	switch {
	case perr != nil:
		// The entries before the bad line may be wrong in a way
		// found only in order (too many of them): that comes first.
		if n > 0 {
			if err := e.b.Place(c.data, s, e.entries, e.grow); err != nil {
				var le *LineError
				if errors.As(err, &le) {
					err = e.lineErr(le, e.lines)
				}
				e.fail(err)
				break
			}
		}
		e.fail(e.lineErr(perr, e.lines))
	default:
		if n > 0 {
			if err := e.b.Place(c.data, s, e.entries, e.grow); err != nil {
				var le *LineError
				if errors.As(err, &le) {
					err = e.lineErr(le, e.lines)
				}
				e.fail(err)
				break
			}
			placed = true
		}
		if c.err != nil {
			var le *LineError
			if errors.As(c.err, &le) {
				e.fail(e.lineErr(le, e.lines+lines))
			} else {
				e.fail(e.in.ioErr(c.err))
			}
		}
	}
	if e.err == nil {
		e.lines += lines
		e.entries += n
		e.turn++
		if p := e.in.cfg.Progress; p != nil {
			p(Progress{Bytes: c.end, Total: e.in.total, Entries: e.entries})
		}
		e.cond.Broadcast()
	}
	return placed, e.err != nil
}

// bodySource returns the source of the body's chunks.
func (in *Input) bodySource(stopped func() bool) source {
	cfg := in.cfg
	switch in.kind {
	case kindMem:
		body := in.data[in.lr.pos:]
		base := int64(in.lr.pos)
		s := &splitSource{size: int64(len(body)), maxLine: int64(cfg.MaxLine), base: base}
		s.chunkSize = chunkSizeFor(s.size, cfg)
		s.n = int((s.size + s.chunkSize - 1) / s.chunkSize)
		s.window = func(_ *worker, lo, hi int64) ([]byte, error) { return body[lo:hi], nil }
		if in.unmap != nil {
			// A mapped file: once a chunk is parsed, its pages leave the
			// process's resident set, which stays the output plus the
			// chunks in flight.
			s.drop = func(lo, hi int64) { dropPages(in.data, base+lo, base+hi) }
		}
		return s
	case kindReaderAt:
		base := in.lr.consumed()
		s := &splitSource{size: in.size - base, maxLine: int64(cfg.MaxLine), base: base}
		s.chunkSize = chunkSizeFor(s.size, cfg)
		s.n = int((s.size + s.chunkSize - 1) / s.chunkSize)
		s.window = func(w *worker, lo, hi int64) ([]byte, error) { return s.readWindow(in.ra, w, lo, hi) }
		return s
	}
	return newStreamSource(in, stopped)
}

// chunkSizeFor picks the chunk size for a body of the given size: small
// enough to give every worker several chunks, within [64 KiB, ChunkSize].
func chunkSizeFor(size int64, cfg *Config) int64 {
	c := size / int64(cfg.Workers*8)
	c = max(c, minChunkSize)
	c = min(c, int64(cfg.ChunkSize))
	return max(c, 1)
}

// splitSource cuts a body of known size into chunks at line boundaries:
// chunk k covers the lines that start in [k·C, (k+1)·C). Each worker finds
// the boundaries of its own chunk, so chunks are cut in parallel; window
// returns the body bytes [lo, hi), by slicing memory or reading a file.
type splitSource struct {
	size      int64 // body size
	base      int64 // offset of the body in the input
	chunkSize int64
	maxLine   int64
	n         int
	k         atomic.Int64
	window    func(w *worker, lo, hi int64) ([]byte, error)
	drop      func(lo, hi int64) // optional: done with body bytes [lo, hi)
}

func (s *splitSource) stop() { s.k.Store(int64(s.n)) }

// firstLineStart returns the offset of the first line that starts at or
// after p; -1 if that line start is more than maxLine bytes away (the line
// around p is too long). It reads a little at a time: lines are short.
func (s *splitSource) firstLineStart(w *worker, p int64) (int64, error) {
	if p <= 0 {
		return 0, nil
	}
	if p >= s.size {
		return s.size, nil
	}
	limit := min(s.size, p+s.maxLine)
	from := p - 1
	for step := int64(4 << 10); ; step *= 8 {
		hi := min(limit, from+step)
		b, err := s.window(w, from, hi)
		if err != nil {
			return 0, err
		}
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			return from + int64(i) + 1, nil
		}
		if hi == s.size {
			return s.size, nil
		}
		if hi == limit {
			return -1, nil
		}
		from = hi
	}
}

func (s *splitSource) next(w *worker) (chunk, bool) {
	k := s.k.Add(1) - 1
	if k >= int64(s.n) {
		return chunk{}, false
	}
	c := chunk{seq: int(k), release: func() {}}
	lo, hi := k*s.chunkSize, min((k+1)*s.chunkSize, s.size)
	c.end = s.base + hi
	start, err := s.firstLineStart(w, lo)
	if err != nil {
		c.err = err
		return c, true
	}
	if start < 0 {
		// Inside a line that started in an earlier chunk and is too long:
		// that chunk reports it first.
		c.err = NewLineError(arrowsparse.ErrSyntax, 0, "line is longer than %d bytes", s.maxLine)
		return c, true
	}
	end, err := s.firstLineStart(w, hi)
	if err != nil {
		c.err = err
		return c, true
	}
	if end < 0 {
		// The line that crosses hi is too long: parse the lines before it,
		// then report it.
		b, err := s.window(w, start, hi)
		if err != nil {
			c.err = err
			return c, true
		}
		c.data = b[:bytes.LastIndexByte(b, '\n')+1]
		c.err = NewLineError(arrowsparse.ErrSyntax, 0, "line is longer than %d bytes", s.maxLine)
		return c, true
	}
	if end > start {
		c.data, c.err = s.window(w, start, end)
		if s.drop != nil {
			c.release = func() { s.drop(start, end) }
		}
	}
	return c, true
}

// readWindow returns body bytes [lo, hi) read into the worker's buffer.
func (s *splitSource) readWindow(ra io.ReaderAt, w *worker, lo, hi int64) ([]byte, error) {
	n := int(hi - lo)
	if cap(w.buf) < n {
		w.buf = make([]byte, n, n+n/4)
	}
	b := w.buf[:n]
	m, err := ra.ReadAt(b, s.base+lo)
	if m == n {
		return b, nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF // the file shrank while being read
	}
	return nil, err
}

// streamSource reads a stream on one goroutine and hands out chunks of
// whole lines, through a fixed pool of buffers.
type streamSource struct {
	ch   chan chunk
	pool chan []byte
	done chan struct{}
	once sync.Once
	wg   sync.WaitGroup
}

// streamBuffers is the number of chunk buffers beyond one per worker.
const streamBuffers = 2

func newStreamSource(in *Input, stopped func() bool) *streamSource {
	cfg := in.cfg
	nbuf := cfg.Workers + streamBuffers
	s := &streamSource{ch: make(chan chunk), pool: make(chan []byte, nbuf), done: make(chan struct{})}
	prefix := in.lr.rest()
	// A buffer holds a chunk and the start of the next line (up to the
	// longest line allowed), and the bytes read with the header.
	size := max(cfg.ChunkSize+cfg.MaxLine+1, len(prefix)+1)
	for range nbuf {
		s.pool <- nil // allocated on first use
	}
	r := in.lr.r
	if in.lr.eof {
		r = eofReader{}
	}
	s.wg.Go(func() {
		defer close(s.ch)
		s.produce(in, r, prefix, size, stopped)
	})
	return s
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

func (s *streamSource) get(size int) ([]byte, bool) {
	select {
	case b := <-s.pool:
		if b == nil {
			b = make([]byte, size)
		}
		return b, true
	case <-s.done:
		return nil, false
	}
}

func (s *streamSource) emit(c chunk, buf []byte) bool {
	if buf != nil {
		c.release = func() { s.pool <- buf }
	} else {
		c.release = func() {}
	}
	select {
	case s.ch <- c:
		return true
	case <-s.done:
		return false
	}
}

func (s *streamSource) produce(in *Input, r io.Reader, prefix []byte, size int, stopped func() bool) {
	chunkSize, maxLine := in.cfg.ChunkSize, in.cfg.MaxLine
	buf, ok := s.get(size)
	if !ok {
		return
	}
	n := copy(buf, prefix)
	eof := false
	seq := 0
	progress := func() int64 {
		if in.count != nil {
			return in.count.n
		}
		return 0
	}
	for !stopped() {
		// Fill to the chunk size, and further until a line ends or the
		// line is too long.
		var rerr error
		for !eof && (n < chunkSize || bytes.IndexByte(buf[:n], '\n') < 0 && n <= maxLine) {
			m, err := r.Read(buf[n:])
			n += m
			if err == io.EOF {
				eof = true
			} else if err != nil {
				rerr = err
				break
			}
		}
		if rerr != nil {
			s.emit(chunk{seq: seq, err: rerr, end: progress()}, buf)
			return
		}
		if eof {
			if n > 0 {
				c := chunk{seq: seq, data: buf[:n], end: progress()}
				if n > maxLine && bytes.IndexByte(buf[:n], '\n') < 0 {
					c = chunk{seq: seq, err: NewLineError(arrowsparse.ErrSyntax, 0, "line is longer than %d bytes", maxLine), end: progress()}
				} else if last := bytes.LastIndexByte(buf[:n], '\n'); n-last-1 > maxLine {
					c.data = buf[:last+1]
					c.err = NewLineError(arrowsparse.ErrSyntax, 0, "line is longer than %d bytes", maxLine)
				}
				s.emit(c, buf)
			} else {
				s.pool <- buf
			}
			return
		}
		last := bytes.LastIndexByte(buf[:n], '\n')
		if last < 0 || n-last-1 > maxLine {
			c := chunk{seq: seq, data: buf[:last+1], end: progress(),
				err: NewLineError(arrowsparse.ErrSyntax, 0, "line is longer than %d bytes", maxLine)}
			s.emit(c, buf)
			return
		}
		next, ok := s.get(size)
		if !ok {
			return
		}
		m := copy(next, buf[last+1:n])
		if !s.emit(chunk{seq: seq, data: buf[:last+1], end: progress()}, buf) {
			return
		}
		seq++
		buf, n = next, m
	}
}

func (s *streamSource) next(*worker) (chunk, bool) {
	c, ok := <-s.ch
	return c, ok
}

func (s *streamSource) stop() {
	s.once.Do(func() { close(s.done) })
	// Drain so that the producer can finish.
	for c := range s.ch {
		c.release()
	}
	s.wg.Wait()
}
