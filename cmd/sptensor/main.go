package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/arrowsparse/arrowsparse/internal/describe"
	"github.com/arrowsparse/arrowsparse/ipc"
)

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1 // bad input, failed conversion, I/O error
	exitUsage = 2
)

const usage = `usage:
  sptensor inspect [--json] FILE
  sptensor dump [--json] FILE
  sptensor validate FILE
  sptensor convert [--to coo|csr|csc|csf|gcs|tensor] [--index-type TYPE]
                   [--indptr-type TYPE] [--axis-order 2,0,1]
                   [--dimensions 2,1,0 --partitioning 1] IN OUT
  sptensor pack [--container ipc-file|ipc-stream|parquet] [--column NAME]
                OUT IN...
  sptensor unpack [--column NAME] IN OUTDIR
  sptensor help

FILE, IN and OUT are files holding one Arrow IPC Tensor or SparseTensor
message; "-" is standard input or output. inspect and dump also read
tables of tensor columns (Arrow IPC files and streams, Parquet), as pack
writes them and unpack reads them. Exit status: 0 success, 1 bad
input or failure, 2 usage error. See "go doc ./cmd/sptensor" for details.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// usageError is a command-line mistake: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return usageError{fmt.Sprintf(format, args...)}
}

// run executes one command line and returns the exit status. It never
// panics: a panic from the library is reported as an error (status 1), with
// its stack when SPTENSOR_DEBUG is set.
func run(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "sptensor: internal error: %v\n", r)
			if os.Getenv("SPTENSOR_DEBUG") != "" {
				stderr.Write(debug.Stack())
			}
			code = exitFail
		}
	}()
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	cmd, rest := args[0], args[1:]
	var err error
	switch cmd {
	case "inspect":
		err = cmdInspect(rest, stdout)
	case "dump":
		err = cmdDump(rest, stdout)
	case "validate":
		err = cmdValidate(rest, stdout)
	case "convert":
		err = cmdConvert(rest)
	case "pack":
		err = cmdPack(rest, stdout)
	case "unpack":
		err = cmdUnpack(rest)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		err = usagef("unknown command %q", cmd)
	}
	var ue usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "sptensor %s: %s\n%s", cmd, ue.msg, usage)
		return exitUsage
	case errors.Is(err, errHelp):
		fmt.Fprint(stdout, usage)
		return exitOK
	case errors.Is(err, errReported):
		return exitFail
	default:
		fmt.Fprintf(stderr, "sptensor %s: %s\n", cmd, oneLine(err.Error()))
		return exitFail
	}
}

// errHelp asks for the usage text (status 0).
var errHelp = errors.New("help")

// errReported is a failure already reported on standard output.
var errReported = errors.New("reported")

// oneLine joins the lines of a message.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

// flagSpec lists a command's flags: true for a flag that takes a value.
type flagSpec map[string]bool

// parseFlags separates flags from positional arguments. Flags may come
// before, between or after positional arguments, as --name, -name,
// --name=value or --name value; "--" ends the flags. It returns the flag
// values (booleans as "true") and the positional arguments.
func parseFlags(args []string, spec flagSpec) (map[string]string, []string, error) {
	flags := map[string]string{}
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		name := strings.TrimLeft(a, "-")
		value, hasValue := "", false
		if k := strings.IndexByte(name, '='); k >= 0 {
			name, value, hasValue = name[:k], name[k+1:], true
		}
		if name == "h" || name == "help" {
			return nil, nil, errHelp
		}
		takes, ok := spec[name]
		if !ok {
			return nil, nil, usagef("unknown flag %s", a)
		}
		if _, dup := flags[name]; dup {
			return nil, nil, usagef("flag --%s given twice", name)
		}
		switch {
		case takes && !hasValue:
			if i+1 >= len(args) {
				return nil, nil, usagef("flag --%s needs a value", name)
			}
			i++
			value = args[i]
		case !takes && hasValue:
			b, err := strconv.ParseBool(value)
			if err != nil {
				return nil, nil, usagef("flag --%s takes no value", name)
			}
			value = strconv.FormatBool(b)
		case !takes:
			value = "true"
		}
		flags[name] = value
	}
	return flags, pos, nil
}

// oneFile checks that exactly one positional argument was given.
func oneFile(pos []string) (string, error) {
	if len(pos) != 1 {
		return "", usagef("expected one FILE argument, got %d", len(pos))
	}
	return pos[0], nil
}

// readMessage reads the one message of a file ("-": standard input) with
// every check of the ipc readers. The message must be released.
func readMessage(path string) (*ipc.Message, error) {
	if path == "-" {
		data, err := readStdin()
		if err != nil {
			return nil, err
		}
		return ipc.ParseMessage(data)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		// Devices and pipes cannot be memory-mapped.
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		data, err := io.ReadAll(f)
		if err != nil {
			return nil, err
		}
		return ipc.ParseMessage(data)
	}
	return ipc.ReadFile(path)
}

func cmdInspect(args []string, stdout io.Writer) error {
	flags, pos, err := parseFlags(args, flagSpec{"json": false})
	if err != nil {
		return err
	}
	path, err := oneFile(pos)
	if err != nil {
		return err
	}
	if done, err := inspectTable(path, flags["json"] == "true", stdout); done {
		return err
	}
	m, err := readMessage(path)
	if err != nil {
		return err
	}
	defer m.Release()
	s := describe.Summarize(m)
	if flags["json"] == "true" {
		_, err = stdout.Write(s.JSON())
		return err
	}
	_, err = io.WriteString(stdout, s.Text())
	return err
}

func cmdDump(args []string, stdout io.Writer) error {
	flags, pos, err := parseFlags(args, flagSpec{"json": false})
	if err != nil {
		return err
	}
	path, err := oneFile(pos)
	if err != nil {
		return err
	}
	asJSON := flags["json"] == "true"
	if asJSON {
		// Keep the contract even if the library panics: an error document
		// on standard output (run then reports the panic and exits 1).
		defer func() {
			if r := recover(); r != nil {
				stdout.Write(describe.ErrorJSON(fmt.Errorf("internal error: %v", r)))
				panic(r)
			}
		}()
	}
	c, err := dumpAny(path, asJSON)
	if err != nil {
		if !asJSON {
			return err
		}
		if _, werr := stdout.Write(describe.ErrorJSON(errors.New(oneLine(err.Error())))); werr != nil {
			return werr
		}
		return errReported
	}
	if asJSON {
		_, err = stdout.Write(c.JSON())
		return err
	}
	_, err = io.WriteString(stdout, c.Text())
	return err
}

func dumpContent(path string) (*describe.Content, error) {
	m, err := readMessage(path)
	if err != nil {
		return nil, err
	}
	defer m.Release()
	return describe.FromMessage(m)
}

func cmdValidate(args []string, stdout io.Writer) error {
	_, pos, err := parseFlags(args, flagSpec{})
	if err != nil {
		return err
	}
	path, err := oneFile(pos)
	if err != nil {
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stdout, "invalid: internal error: %s\n", oneLine(fmt.Sprint(r)))
			panic(r)
		}
	}()
	m, err := readMessage(path)
	if err != nil {
		fmt.Fprintf(stdout, "invalid: %s\n", oneLine(err.Error()))
		return errReported
	}
	m.Release()
	return nil
}
