package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/arrowsparse/arrowsparse/internal/tools/describe"
	"github.com/arrowsparse/arrowsparse/ipc"
)

// maxDumpElements bounds the elements dump lists for a dense tensor: the
// C++ peer's limit. Tests lower it.
var maxDumpElements int64 = describe.MaxDenseValues

// withInputMessage calls f with message sel of an open input (see
// input.Message), released afterwards.
func withInputMessage(in *input, sel int, f func(m *ipc.Message) error) error {
	m, err := in.Message(sel)
	if err != nil {
		return err
	}
	defer m.Release()
	return f(m)
}

// withMessage opens FILE and calls f with message sel of it (see
// input.Message), released afterwards.
func withMessage(path string, sel int, s *streams, f func(in *input, m *ipc.Message) error) error {
	in, err := openInput(path, s.stdin)
	if err != nil {
		return err
	}
	defer in.Close()
	m, err := in.Message(sel)
	if err != nil {
		return err
	}
	defer m.Release()
	return f(in, m)
}

func cmdInspect(args []string, s *streams) error {
	fl, pos, err := parseFlags(args, flagSpec{"json": false, "all": false, "message": true})
	if err != nil {
		return err
	}
	path, err := oneFile(pos)
	if err != nil {
		return err
	}
	sel, err := fl.message()
	if err != nil {
		return err
	}
	if fl.bool("all") {
		return inspectAll(path, fl.bool("json"), s)
	}
	in, err := openInput(path, s.stdin)
	if err != nil {
		return err
	}
	defer in.Close()
	if done, err := inspectText(in, fl.bool("json"), s); done || err != nil {
		return err
	}
	if done, err := inspectTable(in, fl.bool("json"), s); done || err != nil {
		return err
	}
	return withInputMessage(in, sel, func(m *ipc.Message) error {
		sum := describe.Summarize(m)
		if fl.bool("json") {
			_, err := s.stdout.Write(sum.JSON())
			return err
		}
		_, err := io.WriteString(s.stdout, sum.Text())
		return err
	})
}

// inspectAll lists the messages of a file: index, offset, size, kind and
// format, value type, shape and nnz. An invalid message ends the list with
// its error (status 1).
func inspectAll(path string, asJSON bool, s *streams) error {
	in, err := openInput(path, s.stdin)
	if err != nil {
		return err
	}
	defer in.Close()
	r, err := in.Messages()
	if err != nil {
		return err
	}
	defer r.Release()
	var briefs []describe.Summary
	var failed error
	for i := 0; ; i++ {
		off := r.Offset()
		m, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			failed = err
			break
		}
		briefs = append(briefs, describe.Brief(m, i, off))
		m.Release()
	}
	if asJSON {
		if _, err := s.stdout.Write(describe.ListJSON(briefs, failed)); err != nil {
			return err
		}
		if failed != nil {
			return errReported
		}
		return nil
	}
	tw := tabwriter.NewWriter(s.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "index\toffset\tbytes\tkind\tformat\tvalue type\tshape\tnnz")
	for _, b := range briefs {
		cells := make([]string, len(b))
		for i, f := range b {
			cells[i] = f.Text
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if failed == nil && len(briefs) == 0 {
		fmt.Fprintf(s.stdout, "(%s holds no message)\n", in.name)
	}
	return failed
}

func cmdDump(args []string, s *streams) error {
	fl, pos, err := parseFlags(args, flagSpec{"json": false, "message": true})
	if err != nil {
		return err
	}
	path, err := oneFile(pos)
	if err != nil {
		return err
	}
	sel, err := fl.message()
	if err != nil {
		return err
	}
	asJSON := fl.bool("json")
	if asJSON {
		// Keep the contract even if the library panics: an error document
		// on standard output (run then reports the panic and exits 1).
		defer func() {
			if r := recover(); r != nil {
				s.stdout.Write(describe.ErrorJSON(fmt.Errorf("internal error: %v", r)))
				panic(r)
			}
		}()
	}
	out := bufio.NewWriterSize(s.stdout, 1<<16)
	err = func() error {
		in, err := openInput(path, s.stdin)
		if err != nil {
			return err
		}
		defer in.Close()
		if done, err := dumpTable(in, asJSON, &streams{stdin: s.stdin, stdout: out, stderr: s.stderr}); done {
			if err != nil {
				return err
			}
			if err := out.Flush(); err != nil {
				return writeError{err}
			}
			return nil
		}
		return withInputMessage(in, sel, func(m *ipc.Message) error {
			c, err := describe.Describe(m, maxDumpElements)
			if err != nil {
				return err
			}
			// From here on only writing can fail.
			if asJSON {
				err = c.WriteJSON(out)
			} else {
				err = c.WriteText(out)
			}
			if err != nil {
				return writeError{err}
			}
			return nil
		})
	}()
	var we writeError
	switch {
	case err == nil || errors.As(err, &we) || !asJSON:
		return err
	case errors.As(err, new(usageError)):
		return err
	}
	if _, werr := s.stdout.Write(describe.ErrorJSON(errors.New(oneLine(err.Error())))); werr != nil {
		return werr
	}
	return errReported
}

// writeError is a failure to write the output.
type writeError struct{ err error }

func (e writeError) Error() string { return "writing the output: " + e.err.Error() }
func (e writeError) Unwrap() error { return e.err }

func cmdValidate(args []string, s *streams) error {
	fl, pos, err := parseFlags(args, flagSpec{"all": false, "message": true})
	if err != nil {
		return err
	}
	path, err := oneFile(pos)
	if err != nil {
		return err
	}
	sel, err := fl.message()
	if err != nil {
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(s.stdout, "invalid: internal error: %s\n", oneLine(fmt.Sprint(r)))
			panic(r)
		}
	}()
	if fl.bool("all") {
		err = validateAll(path, s)
	} else {
		err = withMessage(path, sel, s, func(*input, *ipc.Message) error { return nil })
	}
	if err == nil || errors.As(err, new(usageError)) {
		return err
	}
	fmt.Fprintf(s.stdout, "invalid: %s\n", oneLine(err.Error()))
	return errReported
}

// validateAll reads every message of a file.
func validateAll(path string, s *streams) error {
	in, err := openInput(path, s.stdin)
	if err != nil {
		return err
	}
	defer in.Close()
	r, err := in.Messages()
	if err != nil {
		return err
	}
	defer r.Release()
	n := 0
	for m, err := range r.All() {
		if err != nil {
			return err
		}
		m.Release()
		n++
	}
	if n == 0 {
		return fmt.Errorf("%s holds no message (it is empty or starts with an end-of-stream marker)", in.name)
	}
	return nil
}
