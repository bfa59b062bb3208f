package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1 // bad input, failed conversion, I/O error
	exitUsage = 2
)

const usage = `usage:
  sptensor inspect [--json] [--all | --message N] FILE
  sptensor dump [--json] [--message N] FILE
  sptensor validate [--all | --message N] FILE
  sptensor convert [--to coo|csr|csc|csf|gcs|tensor] [--index-type TYPE]
                   [--indptr-type TYPE] [--axis-order 2,0,1]
                   [--dimensions 2,1,0 --partitioning 1] [--message N]
                   [--progress | --quiet] IN OUT
  sptensor pack [--container ipc-file|ipc-stream|parquet] [--column NAME]
                OUT IN...
  sptensor unpack [--column NAME] IN OUTDIR
  sptensor help

FILE, IN and OUT are files of Arrow IPC Tensor or SparseTensor messages;
"-" is standard input or output. convert also reads Matrix Market (.mtx)
and FROSTT (.tns) files, gzipped or not, recognised by their content, and
writes them when OUT ends in .mtx, .tns, .mtx.gz or .tns.gz. A file of
several messages needs --message N (from 0); inspect --all lists them.
inspect and dump also read tables of tensor columns (Arrow IPC files and
streams, Parquet), as pack writes them and unpack reads them.
Exit status: 0 success, 1 bad input or failure, 2 usage error. See
"go doc ./cmd/sptensor".
`

// commands maps each command to its function. A command parses its own
// flags (parseFlags) and returns nil, a usageError (exit status 2),
// errHelp, errReported (exit status 1, already reported) or another error
// (exit status 1, printed on standard error).
var commands = map[string]func(args []string, s *streams) error{
	"inspect":  cmdInspect,
	"dump":     cmdDump,
	"validate": cmdValidate,
	"convert":  cmdConvert,
	"pack":     cmdPack,
	"unpack":   cmdUnpack,
}

// streams are a command's standard input and output streams.
type streams struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// usageError is a command-line mistake: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return usageError{fmt.Sprintf(format, args...)}
}

// alloc is the allocator of every buffer the commands make. Tests replace
// it with a checked allocator to find leaks, error paths included.
var alloc memory.Allocator = memory.DefaultAllocator

// recoverPanics makes run turn a panic into an "internal error" and exit
// status 1, the last resort for users. Tests turn it off, so that a panic
// fails them (a panic is a bug to report, never an answer).
var recoverPanics = true

// run executes one command line, reading standard input from os.Stdin, and
// returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	return runWith(args, &streams{stdin: os.Stdin, stdout: stdout, stderr: stderr})
}

// runWith executes one command line and returns the exit status. A panic
// from the library is reported as an internal error (status 1), with its
// stack when SPTENSOR_DEBUG is set, unless recoverPanics is off.
func runWith(args []string, s *streams) (code int) {
	defer func() {
		if r := recover(); r != nil {
			if !recoverPanics {
				panic(r)
			}
			fmt.Fprintf(s.stderr, "sptensor: internal error (please report it): %v\n", r)
			if os.Getenv("SPTENSOR_DEBUG") != "" {
				s.stderr.Write(debug.Stack())
			}
			code = exitFail
		}
	}()
	if len(args) == 0 {
		fmt.Fprint(s.stderr, usage)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	var err error
	if cmd, ok := commands[name]; ok {
		err = cmd(rest, s)
	} else {
		switch name {
		case "help", "-h", "-help", "--help":
			err = errHelp
		default:
			err = usagef("unknown command %q", name)
		}
	}
	var ue usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(s.stderr, "sptensor %s: %s\n%s", name, ue.msg, usage)
		return exitUsage
	case errors.Is(err, errHelp):
		fmt.Fprint(s.stdout, usage)
		return exitOK
	case errors.Is(err, errReported):
		return exitFail
	default:
		fmt.Fprintf(s.stderr, "sptensor %s: %s\n", name, oneLine(err.Error()))
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

// flags are the parsed flags of a command: values by name, booleans as
// "true" or "false".
type flags map[string]string

// parseFlags separates flags from positional arguments. Flags may come
// before, between or after positional arguments, as --name, -name,
// --name=value or --name value; "--" ends the flags.
func parseFlags(args []string, spec flagSpec) (flags, []string, error) {
	fl := flags{}
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
		if _, dup := fl[name]; dup {
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
		fl[name] = value
	}
	return fl, pos, nil
}

// bool returns a boolean flag.
func (f flags) bool(name string) bool { return f[name] == "true" }

// message returns the --message flag: the index of the message to read,
// or -1 when the flag is absent.
func (f flags) message() (int, error) {
	v, ok := f["message"]
	if !ok {
		return -1, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return 0, usagef("--message %q: expected the index of a message, 0 for the first", v)
	}
	if f.bool("all") {
		return 0, usagef("--message and --all exclude each other")
	}
	return n, nil
}

// oneFile checks that exactly one positional argument was given.
func oneFile(pos []string) (string, error) {
	if len(pos) != 1 {
		return "", usagef("expected one FILE argument, got %d", len(pos))
	}
	return pos[0], nil
}
