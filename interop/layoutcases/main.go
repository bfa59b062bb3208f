// Command layoutcases makes the Go side of the interop suite's check of
// the layouts arrowext's readers verify and its writers rebase (unions,
// run-end encoding, string and list views, structs; nested and sliced),
// with interop/layout_check.py on the pyarrow side:
//
//	layoutcases write DIR   # go_K.arrow and go_K.arrows, one table each
//	layoutcases check DIR   # pyarrow's rewrites, and pyarrow's own table
//
// write writes every table of internal/testing/layouts (each type of
// NestedTypes sliced each way of Cuts, and the table of every layout) with
// WriteIPCFile and WriteIPCStream. layout_check.py rewrite reads each with
// pyarrow, validates it in full and writes it back as py_K.arrow(s). check
// reads those with ReadIPCFile and ReadIPCStream and compares every column
// with the table it wrote, rebuilt; then it reads pyarrow's own table,
// pyown.arrow, and writes it back as go_pyown.arrow for layout_check.py
// compare. Both commands end with "N checked, M failed".
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse/arrowext"
	"github.com/arrowsparse/arrowsparse/internal/testing/layouts"
)

func main() {
	if len(os.Args) != 3 || (os.Args[1] != "write" && os.Args[1] != "check") {
		fmt.Fprintln(os.Stderr, "usage: layoutcases write|check DIR")
		os.Exit(2)
	}
	var err error
	if os.Args[1] == "write" {
		err = write(os.Args[2])
	} else {
		err = check(os.Args[2])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "layoutcases:", err)
		os.Exit(1)
	}
}

// tables returns the tables of the cases, in order, and a function that
// releases them.
func tables(mem memory.Allocator) ([]arrow.Table, func()) {
	var out []arrow.Table
	var cols []arrow.Array
	for _, typ := range layouts.NestedTypes() {
		for _, cut := range layouts.Cuts {
			a := layouts.Sliced(mem, typ, cut[0], cut[1])
			cols = append(cols, a)
			out = append(out, layouts.OneColumn(a))
		}
	}
	tbl, tcols := layouts.Table(mem)
	out = append(out, tbl)
	cols = append(cols, tcols...)
	return out, func() {
		for _, t := range out {
			t.Release()
		}
		for _, c := range cols {
			c.Release()
		}
	}
}

func write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tbls, release := tables(memory.DefaultAllocator)
	defer release()
	for k, tbl := range tbls {
		var f, s bytes.Buffer
		if err := arrowext.WriteIPCFile(&f, tbl); err != nil {
			return fmt.Errorf("case %d (%s): %w", k, tbl.Schema(), err)
		}
		if err := arrowext.WriteIPCStream(&s, tbl); err != nil {
			return fmt.Errorf("case %d (%s): %w", k, tbl.Schema(), err)
		}
		for name, b := range map[string][]byte{fmt.Sprintf("go_%d.arrow", k): f.Bytes(), fmt.Sprintf("go_%d.arrows", k): s.Bytes()} {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				return err
			}
		}
	}
	fmt.Printf("layoutcases: wrote %d tables, as IPC files and streams, to %s\n", len(tbls), dir)
	return nil
}

func check(dir string) error {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	tbls, release := tables(mem)
	checked, failed := 0, 0
	fail := func(format string, args ...any) {
		failed++
		fmt.Printf("FAIL "+format+"\n", args...)
	}
	for k, want := range tbls {
		for _, ext := range []string{".arrow", ".arrows"} {
			checked++
			name := fmt.Sprintf("py_%d%s", k, ext)
			got, err := read(filepath.Join(dir, name), mem)
			if err != nil {
				fail("%s: %v", name, err)
				continue
			}
			if msg := compare(want, got); msg != "" {
				fail("%s (%s): %s", name, want.Schema(), msg)
			}
			got.Release()
		}
	}
	// pyarrow's own table, read and written back for layout_check.py.
	checked++
	if own, err := read(filepath.Join(dir, "pyown.arrow"), mem); err != nil {
		fail("pyown.arrow: %v", err)
	} else {
		var buf bytes.Buffer
		err := arrowext.WriteIPCFile(&buf, own)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, "go_pyown.arrow"), buf.Bytes(), 0o644)
		}
		if err != nil {
			fail("writing pyown.arrow back: %v", err)
		}
		own.Release()
	}
	release()
	if n := mem.CurrentAlloc(); n != 0 {
		fail("%d bytes still allocated", n)
	}
	fmt.Printf("%d checked, %d failed\n", checked, failed)
	return nil
}

// read reads an IPC file (.arrow) or stream (.arrows).
func read(path string, mem memory.Allocator) (arrow.Table, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if filepath.Ext(path) == ".arrows" {
		return arrowext.ReadIPCStream(bytes.NewReader(data), arrowext.WithAllocator(mem))
	}
	return arrowext.ReadIPCFileBytes(data, arrowext.WithAllocator(mem))
}

// compare returns "" if got holds want's columns and values, else what
// differs.
func compare(want, got arrow.Table) string {
	if got.NumCols() != want.NumCols() || got.NumRows() != want.NumRows() {
		return fmt.Sprintf("%d columns of %d rows, want %d of %d", got.NumCols(), got.NumRows(), want.NumCols(), want.NumRows())
	}
	for i := range int(want.NumCols()) {
		w, g := want.Column(i).Data(), got.Column(i).Data()
		if !arrow.TypeEqual(w.DataType(), g.DataType()) {
			return fmt.Sprintf("column %d is %s, want %s", i, g.DataType(), w.DataType())
		}
		if want.NumRows() == 0 {
			continue
		}
		if !array.ChunkedEqual(w, g) {
			return fmt.Sprintf("column %d (%s) differs", i, w.DataType())
		}
	}
	return ""
}
