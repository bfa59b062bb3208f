package ipc

// ReadFile memory-maps the file at path (read-only, on Unix) and decodes
// the one message it holds without copying: the tensor's buffers are slices
// of the mapping, which is unmapped when the last of them is released. The
// file must not be truncated while the tensor is alive. The returned
// message must be released by the caller.
func ReadFile(path string, opts ...ReadOption) (*Message, error) {
	buf, err := mapFile(path)
	if err != nil {
		return nil, err
	}
	defer buf.Release()
	return ParseBuffer(buf, opts...)
}

// OpenFile memory-maps the file at path and returns a Reader of the
// sequence of messages it holds, zero-copy as ReadFile. Close the reader
// when done; the mapping lives until the reader is closed and every tensor
// read from it is released.
func OpenFile(path string, opts ...ReadOption) (*Reader, error) {
	buf, err := mapFile(path)
	if err != nil {
		return nil, err
	}
	defer buf.Release()
	return NewBufferReader(buf, opts...), nil
}
