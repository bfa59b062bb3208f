package ipc

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/ipc/internal/wire"
)

// readFileHint ends the error of ReadFile for a file of several messages.
const readFileHint = "ReadFile reads a file of one message: read a sequence with OpenFile or NewReader " +
	"(`sptensor inspect --all` lists the messages and --message N picks one)"

// ReadFile reads the one message of the file at path. A regular file is
// memory-mapped (read-only, on Unix) and decoded without copying: the
// tensor's buffers are slices of the mapping, which is unmapped when the
// last of them is released, and the file must not be truncated while the
// tensor is alive. Anything else (a pipe, a device such as /dev/stdin, a
// file whose size the system reports as 0) is read as NewReader reads, into
// buffers from the allocator of WithAllocator and within the limits of
// WithMaxMetadataSize and WithMaxBodySize.
//
// A file of several messages is an error that says how many it holds (or,
// for a pipe, that it holds more than one); read those with OpenFile. Every
// error names the file; one for a file that holds something else than
// tensor messages (an Arrow IPC file or stream, Parquet, gzip, text) says
// what it holds and what reads it. The returned message must be released
// by the caller.
func ReadFile(path string, opts ...ReadOption) (*Message, error) {
	cfg := newReadConfig(opts)
	buf, f, err := openInput(path)
	if err != nil {
		return nil, err
	}
	if buf != nil {
		defer buf.Release()
		return parseOne(buf, cfg, path, readFileHint)
	}
	defer f.Close()
	rd := &Reader{stream: wire.NewReader(f, cfg.wire()...), cfg: cfg, name: path}
	rd.refCount.Store(1)
	defer rd.Release()
	m, err := rd.Next()
	if err == io.EOF {
		return nil, core.Errorf(arrowsparse.ErrBufferSize, "ipc: %s: no message: the file is empty or starts with an end-of-stream marker", path)
	}
	if err != nil {
		return nil, err
	}
	m2, err := rd.Next()
	switch {
	case err == io.EOF:
		return m, nil
	case err == nil:
		m2.Release()
		err = core.Errorf(arrowsparse.ErrBufferSize, "ipc: %s holds more than one message; %s", path, readFileHint)
	}
	m.Release()
	return nil, err
}

// OpenFile returns a Reader of the sequence of messages in the file at
// path. A regular file is memory-mapped and read without copying, as
// ReadFile reads it; the mapping lives until the reader is released and
// every tensor read from it is released. Anything else (a pipe, a device)
// is read as NewReader reads. Release the reader when done: that closes the
// file. Errors name the file, and the message (index and offset) that
// failed when it is not the first.
func OpenFile(path string, opts ...ReadOption) (*Reader, error) {
	buf, f, err := openInput(path)
	if err != nil {
		return nil, err
	}
	var rd *Reader
	if buf != nil {
		rd = NewBufferReader(buf, opts...)
		buf.Release()
	} else {
		rd = NewReader(f, opts...)
		rd.closer = f
	}
	rd.name = path
	return rd, nil
}

// openInput opens the file at path for reading. A regular file of
// non-zero size is memory-mapped (buf, which the caller releases); anything
// else, or a file that cannot be mapped, is returned open (f, which the
// caller closes) to be read as a stream.
func openInput(path string) (buf *memory.Buffer, f *os.File, err error) {
	f, err = os.Open(path)
	if err != nil {
		return nil, nil, &message{msg: "ipc: " + err.Error(), err: err}
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, &message{msg: "ipc: " + err.Error(), err: err}
	}
	if st.IsDir() {
		f.Close()
		return nil, nil, &message{
			msg: fmt.Sprintf("ipc: %s is a directory, not a file of tensor messages", path),
			err: &fs.PathError{Op: "read", Path: path, Err: syscall.EISDIR},
		}
	}
	if !st.Mode().IsRegular() || st.Size() == 0 {
		return nil, f, nil
	}
	buf, err = mapFile(f, st.Size())
	if err != nil {
		return nil, f, nil
	}
	f.Close()
	return buf, nil, nil
}

// WriteFile writes the message of t, as WriteTensor writes it, to the file
// at path, atomically: into a new temporary file in the same directory,
// synced to stable storage and renamed over path, so that a reader sees the
// old file or the new one, never a part. On error path is left as it was
// and the temporary file is removed; errors name path, never the temporary
// file. An existing file keeps its permissions, a new one gets 0666 less the
// umask; a symbolic link is followed. A path that names a device or a named
// pipe (such as /dev/stdout) is written directly.
func WriteFile(path string, t arrowsparse.Tensor, opts ...WriteOption) error {
	return WriteFileSeq(path, []arrowsparse.Tensor{t}, opts...)
}

// WriteFileSeq is WriteFile for a sequence: it writes the messages of ts
// one after another, without an end-of-stream marker, as successive calls
// of Arrow C++'s WriteSparseTensor leave them; OpenFile and NewReader read
// them back. No tensor is no message: an empty file.
func WriteFileSeq(path string, ts []arrowsparse.Tensor, opts ...WriteOption) error {
	return writeAtomic(path, func(w io.Writer) error {
		for _, t := range ts {
			if _, err := WriteTensor(w, t, opts...); err != nil {
				return err
			}
		}
		return nil
	})
}

// writeAtomic writes a file through a temporary file renamed into place.
func writeAtomic(path string, write func(io.Writer) error) error {
	target := path
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if real, err := filepath.EvalSymlinks(path); err == nil {
			target = real
		}
	}
	perm, keepPerm := fs.FileMode(0o666), false
	if fi, err := os.Stat(target); err == nil {
		switch {
		case fi.IsDir():
			return &message{
				msg: fmt.Sprintf("ipc: %s is a directory", path),
				err: &fs.PathError{Op: "write", Path: path, Err: syscall.EISDIR},
			}
		case !fi.Mode().IsRegular():
			return writeDirect(path, target, write)
		}
		perm, keepPerm = fi.Mode().Perm(), true
	}
	f, tmp, err := createTemp(target, perm)
	if err != nil {
		return fileError(err, path, tmp)
	}
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fileError(err, path, tmp)
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	if err := write(bw); err != nil {
		return fail(err)
	}
	if err := bw.Flush(); err != nil {
		return fail(err)
	}
	if keepPerm {
		if err := f.Chmod(perm); err != nil {
			return fail(err)
		}
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fileError(err, path, tmp)
	}
	if err := os.Rename(tmp, target); err != nil {
		os.Remove(tmp)
		return fileError(err, path, tmp)
	}
	// Make the rename durable; some systems cannot sync a directory, and
	// the data is safe either way.
	if d, err := os.Open(filepath.Dir(target)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// writeDirect writes a device or named pipe in place.
func writeDirect(path, target string, write func(io.Writer) error) error {
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return fileError(err, path, "")
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return fileError(err, path, target)
}

// createTemp creates a new file next to target, named after it, with the
// given permissions (less the umask).
func createTemp(target string, perm fs.FileMode) (*os.File, string, error) {
	dir, base := filepath.Split(target)
	for range 100 {
		name := filepath.Join(dir, "."+base+".tmp"+strconv.FormatUint(rand.Uint64()%1e9, 10))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", &fs.PathError{Op: "create", Path: target, Err: fs.ErrExist}
}

// fileError rewrites an error of writing path (through the temporary file
// tmp, or the target of a symbolic link) so that it names path and never
// tmp, keeping its category; nil stays nil.
func fileError(err error, path, tmp string) error {
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &le):
		err = &fs.PathError{Op: "rename", Path: path, Err: le.Err}
	case errors.As(err, &pe):
		err = &fs.PathError{Op: pe.Op, Path: path, Err: pe.Err}
	}
	msg := strings.TrimPrefix(err.Error(), "ipc: ")
	if tmp != "" {
		msg = strings.ReplaceAll(msg, tmp, path)
	}
	if !strings.Contains(msg, path) {
		msg = path + ": " + msg
	}
	return &message{msg: "ipc: " + msg, err: err}
}
