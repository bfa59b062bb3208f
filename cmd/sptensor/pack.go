package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/arrowext"
	"github.com/arrowsparse/arrowsparse/internal/sniff"
	"github.com/arrowsparse/arrowsparse/ipc"
)

// cmdPack writes one table whose column holds one row per input message.
func cmdPack(args []string, s *streams) error {
	flags, pos, err := parseFlags(args, flagSpec{"container": true, "column": true})
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return usagef("expected OUT and at least one IN, got %d arguments", len(pos))
	}
	out, ins := pos[0], pos[1:]
	kind := sniff.ArrowFile
	if name, ok := flags["container"]; ok {
		if kind, ok = containerByName(name); !ok {
			return usagef("--container must be ipc-file, ipc-stream or parquet, not %q", name)
		}
	}
	column := "tensor"
	if name, ok := flags["column"]; ok {
		column = name
	}
	mem := alloc
	tensors := make([]arrowsparse.Tensor, len(ins))
	defer func() {
		for _, t := range tensors {
			if t != nil {
				t.Release()
			}
		}
	}()
	for i, in := range ins {
		m, err := readOne(in, s)
		if err != nil {
			return err
		}
		t := m.Tensor
		if i > 0 && t.Format() != tensors[0].Format() {
			m.Release()
			return fmt.Errorf("%s: a %s tensor after %s ones; pack puts tensors of one format in its column", in, t.Format(), tensors[0].Format())
		}
		t.Retain()
		m.Release()
		tensors[i] = t
	}
	col, err := packColumn(mem, tensors)
	if err != nil {
		return err
	}
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: column, Type: col.DataType(), Nullable: true}}, nil)
	tbl := array.NewTableFromSlice(schema, [][]arrow.Array{{col}})
	defer tbl.Release()
	write := func(w io.Writer) error {
		switch kind {
		case sniff.ArrowStream:
			return arrowext.WriteIPCStream(w, tbl, arrowext.WithAllocator(mem))
		case sniff.Parquet:
			return arrowext.WriteParquet(w, tbl, arrowext.WithAllocator(mem))
		}
		return arrowext.WriteIPCFile(w, tbl, arrowext.WithAllocator(mem))
	}
	if out == "-" {
		return write(s.stdout)
	}
	return writeFile(out, write)
}

// packColumn makes the column of pack: arrow.fixed_shape_tensor or
// arrow.variable_shape_tensor for dense tensors, the sparse type of their
// format (its parameters inferred from the tensors) for sparse ones.
func packColumn(mem memory.Allocator, tensors []arrowsparse.Tensor) (arrow.Array, error) {
	if f := tensors[0].Format(); f != arrowsparse.FormatDense {
		return arrowext.NewSparseTensorArray(mem, arrowext.SparseTensorParams{Format: f}, tensors)
	}
	dense := make([]arrowsparse.Dense, len(tensors))
	for i, t := range tensors {
		d, ok := t.(arrowsparse.Dense)
		if !ok {
			return nil, fmt.Errorf("input %d: a %T is not a dense tensor", i, t)
		}
		dense[i] = d
	}
	return arrowext.NewTensorArray(mem, dense)
}

// containerByName is the inverse of containerName.
func containerByName(name string) (sniff.Kind, bool) {
	for c, n := range containerName {
		if n == name {
			return c, true
		}
	}
	return 0, false
}

// readOne reads the one message of a FILE argument, naming the file in
// errors. The message must be released.
func readOne(path string, s *streams) (*ipc.Message, error) {
	in, err := openInput(path, s.stdin)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	return in.Message(0)
}

// writeFile writes path through a temporary file in its directory, renamed
// into place when write succeeds. Errors name path, never the temporary.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("cannot create %s: %w", path, unwrapPath(err))
	}
	tmp := f.Name()
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, unwrapPath(err))
	}
	return nil
}

// unwrapPath drops the path of an *fs.PathError or *os.LinkError, which
// may be a temporary file's.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// cmdUnpack writes each non-null row of a table's tensor column as a Tensor
// message file OUTDIR/ROW.arrow.
func cmdUnpack(args []string, s *streams) error {
	flags, pos, err := parseFlags(args, flagSpec{"column": true})
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("expected IN and OUTDIR, got %d arguments", len(pos))
	}
	path, dir := pos[0], pos[1]
	src, err := openInput(path, s.stdin)
	if err != nil {
		return err
	}
	defer src.Close()
	in := src.name
	tbl, _, err := openTable(src)
	if err != nil {
		return err
	}
	if tbl == nil {
		return fmt.Errorf("%s is not a table file (an Arrow IPC file or stream, or a Parquet file)", in)
	}
	defer tbl.Release()
	cols := tensorColumns(tbl)
	col := -1
	if name, ok := flags["column"]; ok {
		for _, i := range cols {
			if tbl.Schema().Field(i).Name == name {
				col = i
			}
		}
		if col < 0 {
			return fmt.Errorf("%s has no tensor column %q", in, name)
		}
	} else {
		switch len(cols) {
		case 0:
			return fmt.Errorf("%s has no tensor column", in)
		case 1:
			col = cols[0]
		default:
			return usagef("%s has %d tensor columns; choose one with --column", in, len(cols))
		}
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return fmt.Errorf("cannot create %s: %w", dir, unwrapPath(err))
	}
	row := 0
	sparse := arrowext.IsSparse(tbl.Schema().Field(col).Type.(arrow.ExtensionType).ExtensionName())
	for _, ch := range tbl.Column(col).Data().Chunks() {
		for r := range ch.Len() {
			if sparse {
				x, err := arrowext.SparseRow(ch, r)
				if err != nil {
					return fmt.Errorf("row %d: %w", row, err)
				}
				if x != nil {
					err = ipc.WriteFile(filepath.Join(dir, strconv.Itoa(row)+".arrow"), x, ipc.WithAllocator(alloc))
					x.Release()
					if err != nil {
						return err
					}
				}
				row++
				continue
			}
			v, err := arrowext.Row(ch, r)
			if err != nil {
				return fmt.Errorf("row %d: %w", row, err)
			}
			if v != nil {
				err = ipc.WriteFile(filepath.Join(dir, strconv.Itoa(row)+".arrow"), v, ipc.WithAllocator(alloc))
				v.Release()
				if err != nil {
					return err
				}
			}
			row++
		}
	}
	return nil
}
