package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/arrowsparse/arrowsparse/internal/sniff"
	"github.com/arrowsparse/arrowsparse/ipc"
)

// input is a FILE argument opened for reading: a path, or "-" for standard
// input. Every command opens its files through it, so that they all read
// standard input, pipes and regular files alike, and can tell what a file
// holds (Kind) before choosing a reader.
type input struct {
	path string        // as given
	name string        // for messages: the path, or "standard input"
	f    *os.File      // an opened pipe or device, closed by Close
	br   *bufio.Reader // the stream of standard input, a pipe or a device
}

// openInput opens a FILE argument. A regular file is opened by its readers
// (ipc.OpenFile maps it); standard input, a pipe or a device is opened now
// and buffered, so that its first bytes can be looked at and then read
// again. Close the input when done.
func openInput(path string, stdin io.Reader) (*input, error) {
	if path == "-" {
		return &input{path: path, name: "standard input", br: bufio.NewReaderSize(stdin, 1<<16)}, nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	switch {
	case st.IsDir():
		return nil, fmt.Errorf("%s is a directory, not a file", path)
	case st.Mode().IsRegular():
		return &input{path: path, name: path}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &input{path: path, name: path, f: f, br: bufio.NewReaderSize(f, 1<<16)}, nil
}

// Close closes a pipe or device the input opened.
func (in *input) Close() error {
	if in.f == nil {
		return nil
	}
	err := in.f.Close()
	in.f = nil
	return err
}

// Kind returns what the input's first bytes say it holds, without
// consuming them.
func (in *input) Kind() (sniff.Kind, error) {
	if in.br != nil {
		b, err := in.br.Peek(sniff.PrefixLen)
		if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
			return sniff.Unknown, err
		}
		return sniff.Detect(b), nil
	}
	f, err := os.Open(in.path)
	if err != nil {
		return sniff.Unknown, err
	}
	defer f.Close()
	b := make([]byte, sniff.PrefixLen)
	n, err := io.ReadFull(f, b)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return sniff.Unknown, err
	}
	return sniff.Detect(b[:n]), nil
}

// Reader returns the input's bytes from the start, for readers of other
// kinds of files. It may be called once; close it when done (that does not
// close standard input).
func (in *input) Reader() (io.ReadCloser, error) {
	if in.br != nil {
		return io.NopCloser(in.br), nil
	}
	return os.Open(in.path)
}

// Messages returns a reader of the tensor messages of the input, with every
// check of package ipc: a regular file is memory-mapped, anything else read
// as a stream. It may be called once. Release the reader when done.
func (in *input) Messages() (*ipc.Reader, error) {
	if in.br != nil {
		return ipc.NewReader(in.br, ipc.WithAllocator(alloc)), nil
	}
	return ipc.OpenFile(in.path, ipc.WithAllocator(alloc))
}

// Message returns message sel of the input (sel from 0), or, for sel < 0,
// its only message: a file of several messages is then an error that
// counts them and names --message. An index beyond the last message is a
// usage error. The message must be released by the caller.
func (in *input) Message(sel int) (*ipc.Message, error) {
	r, err := in.Messages()
	if err != nil {
		return nil, err
	}
	defer r.Release()
	if sel >= 0 {
		for i := 0; ; i++ {
			m, err := r.Next()
			if err == io.EOF {
				return nil, usagef("--message %d: %s holds %s", sel, in.name, plural(i, "message"))
			}
			if err != nil || i == sel {
				return m, err
			}
			m.Release()
		}
	}
	m, err := r.Next()
	if err == io.EOF {
		return nil, fmt.Errorf("%s holds no message (it is empty or starts with an end-of-stream marker)", in.name)
	}
	if err != nil {
		return nil, err
	}
	more, err := r.Next()
	if err == io.EOF {
		return m, nil
	}
	m.Release()
	if err != nil {
		return nil, err
	}
	more.Release()
	n := 2
	for {
		x, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s holds at least %d messages; choose one with --message N, list them with `sptensor inspect --all`", in.name, n)
		}
		x.Release()
		n++
	}
	return nil, fmt.Errorf("%s holds %d messages; choose one with --message N (0 to %d), list them with `sptensor inspect --all`", in.name, n, n-1)
}

// plural returns "1 message", "2 messages".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
