package ipc

import (
	"errors"
	"fmt"
	"strings"

	"github.com/arrowsparse/arrowsparse/internal/sniff"
	"github.com/arrowsparse/arrowsparse/ipc/internal/wire"
)

// foreignInput is the error for an input that holds something else than
// tensor messages, such as a table or a text file: what its first bytes say
// it is, and the error the reader met.
type foreignInput struct {
	kind sniff.Kind
	err  error // the framing or decoding error, which carries the category
}

func (e *foreignInput) Error() string { return "ipc: the input " + e.kind.Explain() }

func (e *foreignInput) Unwrap() error { return e.err }

// explainFraming returns the error of a message whose framing failed to
// read: when head (the first bytes of the message, as far as available)
// say what the input holds instead, an error saying so; err otherwise.
func explainFraming(err error, head []byte) error {
	if k := sniff.Detect(head[:min(len(head), sniff.PrefixLen)]); k.Foreign() {
		return &foreignInput{kind: k, err: err}
	}
	return err
}

// notTensor returns the error for a message of another kind than Tensor
// and SparseTensor: a Schema, DictionaryBatch or RecordBatch message opens
// or continues an Arrow IPC stream, which holds a table.
func notTensor(h wire.HeaderKind, err error) error {
	switch h {
	case wire.HeaderSchema, wire.HeaderDictionaryBatch, wire.HeaderRecordBatch:
		return &foreignInput{kind: sniff.ArrowStream, err: err}
	}
	return err
}

// message is an error whose text a reader rewrote to say where the input
// failed; it unwraps to the original error.
type message struct {
	msg string
	err error
}

func (e *message) Error() string { return e.msg }
func (e *message) Unwrap() error { return e.err }

// inputError finishes an error of a reader: it names the file (name, empty
// for inputs that are not files) and, after the first message, the index
// and offset of the message that failed. The category of err is kept.
func inputError(err error, name string, index int, offset int64) error {
	if err == nil || (name == "" && index == 0) {
		return err
	}
	var f *foreignInput
	if errors.As(err, &f) {
		subject := name
		if index > 0 {
			subject = fmt.Sprintf("the data at offset %d (after %s)", offset, plural(index, "message"))
			if name != "" {
				subject = name + ": " + subject
			}
		}
		return &message{msg: "ipc: " + subject + " " + f.kind.Explain(), err: err}
	}
	prefix := "ipc: "
	if name != "" {
		prefix += name + ": "
	}
	if index > 0 {
		prefix += fmt.Sprintf("message %d at offset %d: ", index, offset)
	}
	return &message{msg: prefix + strings.TrimPrefix(err.Error(), "ipc: "), err: err}
}

// plural returns "1 message", "2 messages".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
