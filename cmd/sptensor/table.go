package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/arrowsparse/arrowsparse/arrowext"
	"github.com/arrowsparse/arrowsparse/internal/describe"
)

// container is the kind of a file, detected by content.
type container int

const (
	containerMessage   container = iota // one Tensor or SparseTensor message
	containerIPCFile                    // Arrow IPC file (ARROW1 … ARROW1)
	containerIPCStream                  // Arrow IPC stream (a Schema message first)
	containerParquet                    // Parquet (PAR1 … PAR1)
)

var containerNames = map[container]string{
	containerMessage:   "message",
	containerIPCFile:   "ipc-file",
	containerIPCStream: "ipc-stream",
	containerParquet:   "parquet",
}

// messageHeaderSchema is the MessageHeader of a Schema message (Message.fbs).
const messageHeaderSchema = 1

// detect tells a table file from a tensor message by its first bytes: the
// magic of an IPC file or a Parquet file, or else the header type of the
// first IPC message (a Schema message starts a stream). Anything else is
// left to the message reader, which reports what is wrong with it.
func detect(head []byte) container {
	switch {
	case bytes.HasPrefix(head, []byte("ARROW1")):
		return containerIPCFile
	case bytes.HasPrefix(head, []byte("PAR1")):
		return containerParquet
	}
	if firstMessageHeader(head) == messageHeaderSchema {
		return containerIPCStream
	}
	return containerMessage
}

// firstMessageHeader returns the header type of the IPC message at the
// start of b (with the continuation marker or the legacy 4-byte prefix),
// or -1 when b does not start with a readable message.
func firstMessageHeader(b []byte) (h int) {
	defer func() {
		if recover() != nil { // the flatbuffers accessors panic on bad offsets
			h = -1
		}
	}()
	if len(b) < 8 {
		return -1
	}
	n, start := binary.LittleEndian.Uint32(b), 4
	if n == 0xFFFFFFFF {
		n, start = binary.LittleEndian.Uint32(b[4:]), 8
	}
	if n < 8 || uint64(start)+uint64(n) > uint64(len(b)) {
		return -1
	}
	fb := b[start : start+int(n)]
	t := flatbuffers.Table{Bytes: fb, Pos: flatbuffers.GetUOffsetT(fb)}
	if o := t.Offset(6); o != 0 { // field 1 of Message: header_type
		return int(t.GetByte(t.Pos + flatbuffers.UOffsetT(o)))
	}
	return 0
}

// headSize is how much of a file detect needs: the magic, or the first
// message's metadata.
const headSize = 1 << 16

// readHead returns the first bytes of a file: enough for detect.
func readHead(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, headSize)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	head = head[:n]
	if n >= 8 && binary.LittleEndian.Uint32(head) == 0xFFFFFFFF {
		// A message whose metadata is longer than the head: read it whole.
		if m := binary.LittleEndian.Uint32(head[4:]); uint64(m)+8 > uint64(n) && m < 1<<26 {
			more := make([]byte, int(m)+8-n)
			k, _ := io.ReadFull(f, more)
			head = append(head, more[:k]...)
		}
	}
	return head, nil
}

// readTable reads a table file of a detected container; data is the whole
// file when it has been read already.
func readTable(path string, c container, data []byte) (arrow.Table, error) {
	if data == nil {
		var err error
		if data, err = os.ReadFile(path); err != nil {
			return nil, err
		}
	}
	mem := memory.DefaultAllocator
	switch c {
	case containerIPCFile:
		return arrowext.ReadIPCFileBytes(data, arrowext.WithAllocator(mem))
	case containerIPCStream:
		return arrowext.ReadIPCStream(bytes.NewReader(data), arrowext.WithAllocator(mem))
	case containerParquet:
		return arrowext.ReadParquet(bytes.NewReader(data), arrowext.WithAllocator(mem))
	}
	return nil, fmt.Errorf("not a table file")
}

// tensorColumns returns the indices of the columns of a table that hold
// tensors of this package's extension types.
func tensorColumns(tbl arrow.Table) []int {
	var out []int
	for i, f := range tbl.Schema().Fields() {
		if ext, ok := f.Type.(arrow.ExtensionType); ok && arrowext.Implements(ext.ExtensionName()) {
			out = append(out, i)
		}
	}
	return out
}

// tableJSON returns the dump --json document of a table: its tensor
// columns, each with its rows.
func tableJSON(tbl arrow.Table) ([]byte, error) {
	var cols []describe.TableColumn
	defer func() {
		for _, c := range cols {
			for _, v := range c.Rows {
				if v != nil {
					v.Release()
				}
			}
		}
	}()
	for _, i := range tensorColumns(tbl) {
		f := tbl.Schema().Field(i)
		cols = append(cols, describe.TableColumn{Name: f.Name, Type: f.Type.(arrow.ExtensionType).ExtensionName()})
		c := &cols[len(cols)-1]
		for _, ch := range tbl.Column(i).Data().Chunks() {
			for r := range ch.Len() {
				v, err := arrowext.Row(ch, r)
				if err != nil {
					return nil, fmt.Errorf("column %q: %w", f.Name, err)
				}
				c.Rows = append(c.Rows, v)
			}
		}
	}
	return describe.TableJSON(cols)
}

// tableText returns the text dump of a table: each tensor column's rows in
// NumPy's layout.
func tableText(tbl arrow.Table) (string, error) {
	var b strings.Builder
	for _, i := range tensorColumns(tbl) {
		f := tbl.Schema().Field(i)
		fmt.Fprintf(&b, "column %s: %s, %d rows\n", describe.QuoteString(f.Name), f.Type, tbl.NumRows())
		row := 0
		for _, ch := range tbl.Column(i).Data().Chunks() {
			for r := range ch.Len() {
				v, err := arrowext.Row(ch, r)
				if err != nil {
					return "", fmt.Errorf("column %q: %w", f.Name, err)
				}
				if v == nil {
					fmt.Fprintf(&b, "row %d: null\n", row)
				} else {
					fmt.Fprintf(&b, "row %d: shape %v\n%s\n", row, v.Shape(), v.String())
					v.Release()
				}
				row++
			}
		}
	}
	return b.String(), nil
}

// tableSummary describes a table for inspect: the container, the number of
// rows, and each column's name and type, with the tensor types' parameters.
func tableSummary(tbl arrow.Table, c container, asJSON bool) string {
	var b strings.Builder
	if asJSON {
		fmt.Fprintf(&b, "{\n  \"container\": %s,\n  \"num_rows\": %d,\n  \"columns\": [", describe.QuoteString(containerNames[c]), tbl.NumRows())
	} else {
		fmt.Fprintf(&b, "container: %s\nrows: %d\ncolumns: %d\n", containerNames[c], tbl.NumRows(), tbl.NumCols())
	}
	for i, f := range tbl.Schema().Fields() {
		name, params := f.Type.String(), ""
		nulls := tbl.Column(i).Data().NullN()
		if ext, ok := f.Type.(arrow.ExtensionType); ok {
			name, params = ext.ExtensionName(), ext.Serialize()
		}
		if asJSON {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "\n    {\"name\": %s, \"type\": %s", describe.QuoteString(f.Name), describe.QuoteString(name))
			switch t := f.Type.(type) {
			case *arrowext.FixedShapeTensorType:
				fmt.Fprintf(&b, ", \"metadata\": %s, \"value_type\": %s, \"shape\": ", describe.QuoteString(params), describe.QuoteString(describe.TypeName(t.ValueType())))
				b.WriteString(describe.IntsJSON(t.LogicalShape()))
				b.WriteString(", \"dim_names\": ")
				b.WriteString(describe.NamesJSON(t.LogicalDimNames()))
			case *arrowext.VariableShapeTensorType:
				fmt.Fprintf(&b, ", \"metadata\": %s, \"value_type\": %s, \"ndim\": %d, \"dim_names\": ", describe.QuoteString(params), describe.QuoteString(describe.TypeName(t.ValueType())), t.NumDims())
				b.WriteString(describe.NamesJSON(t.LogicalDimNames()))
			}
			fmt.Fprintf(&b, ", \"null_count\": %d}", nulls)
			continue
		}
		fmt.Fprintf(&b, "column %d: %s %s", i, describe.QuoteString(f.Name), name)
		if params != "" {
			fmt.Fprintf(&b, " %s", params)
		}
		fmt.Fprintf(&b, ", %d nulls\n", nulls)
	}
	if asJSON {
		b.WriteString("\n  ]\n}\n")
	}
	return b.String()
}

// stdinData caches standard input, read whole the first time it is needed:
// detecting a file's kind reads it, and the message reader reads it again.
var stdinData []byte

// readStdin returns the whole of standard input.
func readStdin() ([]byte, error) {
	if stdinData != nil {
		return stdinData, nil
	}
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		return nil, err
	}
	stdinData = data
	return data, nil
}

// openTable reads a table file (an IPC file, an IPC stream or a Parquet
// file, detected by content). For a file of another kind, such as a tensor
// message, it returns a nil table and no error. The table must be
// released by the caller.
func openTable(path string) (arrow.Table, container, error) {
	var head, data []byte
	var err error
	if path == "-" {
		if data, err = readStdin(); err != nil {
			return nil, 0, err
		}
		head = data
	} else if head, err = readHead(path); err != nil {
		return nil, 0, err
	}
	c := detect(head)
	if c == containerMessage {
		return nil, c, nil
	}
	tbl, err := readTable(path, c, data)
	return tbl, c, err
}

// tableDump is the prepared dump of a table.
type tableDump struct {
	json []byte
	text string
}

func (d tableDump) JSON() []byte { return d.json }
func (d tableDump) Text() string { return d.text }

// dumper is what dump prints: the content of a message or of a table.
type dumper interface {
	JSON() []byte
	Text() string
}

// dumpAny returns the content of a message file or a table file.
func dumpAny(path string, asJSON bool) (dumper, error) {
	tbl, _, err := openTable(path)
	if err != nil {
		return nil, err
	}
	if tbl == nil {
		c, err := dumpContent(path)
		if err != nil {
			return nil, err
		}
		return c, nil
	}
	defer tbl.Release()
	var d tableDump
	if asJSON {
		d.json, err = tableJSON(tbl)
	} else {
		d.text, err = tableText(tbl)
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

// inspectTable prints the summary of a table file and reports true, or
// reports false for a file of another kind.
func inspectTable(path string, asJSON bool, stdout io.Writer) (bool, error) {
	tbl, c, err := openTable(path)
	if err != nil || tbl == nil {
		return err != nil, err
	}
	defer tbl.Release()
	_, err = io.WriteString(stdout, tableSummary(tbl, c, asJSON))
	return true, err
}
