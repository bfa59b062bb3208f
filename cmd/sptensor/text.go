package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/sniff"
	"github.com/arrowsparse/arrowsparse/mtx"
	"github.com/arrowsparse/arrowsparse/tns"
)

// textFormat names the text formats: Matrix Market and FROSTT.
type textFormat int8

const (
	notText textFormat = iota
	mtxText
	tnsText
)

// textOf says whether an input holds a Matrix Market or FROSTT file,
// gzipped or not: by its content, and for gzip input by what its first
// decompressed bytes hold (or, failing that, its name: .mtx.gz, .tns.gz).
func textOf(in *input) (textFormat, error) {
	k, err := in.Kind()
	if err != nil {
		return notText, err
	}
	switch k {
	case sniff.MatrixMarket:
		return mtxText, nil
	case sniff.FROSTT:
		return tnsText, nil
	case sniff.Gzip:
		if t := textByName(in.path); t != notText {
			return t, nil
		}
		switch inner, err := gzipKind(in); {
		case err != nil:
			return notText, err
		case inner == sniff.MatrixMarket:
			return mtxText, nil
		case inner == sniff.FROSTT:
			return tnsText, nil
		}
	}
	return notText, nil
}

// textByName returns the text format a file name says: .mtx or .tns, with
// or without .gz.
func textByName(path string) textFormat {
	p := strings.TrimSuffix(strings.ToLower(path), ".gz")
	switch {
	case strings.HasSuffix(p, ".mtx"):
		return mtxText
	case strings.HasSuffix(p, ".tns"):
		return tnsText
	}
	return notText
}

// gzipKind returns what the first decompressed bytes of a gzip input hold.
func gzipKind(in *input) (sniff.Kind, error) {
	var r io.Reader
	if in.br != nil {
		b, err := in.br.Peek(1 << 16)
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return sniff.Unknown, err
		}
		r = strings.NewReader(string(b))
	} else {
		f, err := os.Open(in.path)
		if err != nil {
			return sniff.Unknown, err
		}
		defer f.Close()
		r = f
	}
	zr, err := gzip.NewReader(r)
	if err != nil {
		return sniff.Unknown, nil
	}
	b := make([]byte, sniff.PrefixLen)
	n, _ := io.ReadFull(zr, b)
	return sniff.Detect(b[:n]), nil
}

// readText reads a Matrix Market or FROSTT input: a coordinate file as a
// COO tensor, a Matrix Market array file as a dense view. progress, if not
// nil, is called as the input is consumed. The result must be released.
func readText(in *input, tf textFormat, progress func(bytes, total, entries int64)) (arrowsparse.Tensor, error) {
	var mopts []mtx.ReadOption
	var topts []tns.ReadOption
	mopts = append(mopts, mtx.WithAllocator(alloc))
	topts = append(topts, tns.WithAllocator(alloc))
	if progress != nil {
		mopts = append(mopts, mtx.WithProgress(func(p mtx.Progress) { progress(p.Bytes, p.Total, p.Entries) }))
		topts = append(topts, tns.WithProgress(func(p tns.Progress) { progress(p.Bytes, p.Total, p.Entries) }))
	}
	if tf == tnsText {
		if in.br != nil {
			return tns.Read(in.br, topts...)
		}
		return tns.ReadFile(in.path, topts...)
	}
	var m *mtx.Matrix
	var err error
	if in.br != nil {
		m, err = mtx.Read(in.br, mopts...)
	} else {
		m, err = mtx.ReadFile(in.path, mopts...)
	}
	if err != nil {
		return nil, err
	}
	defer m.Release()
	t := m.Tensor()
	t.Retain()
	return t, nil
}

// writeText writes t as a Matrix Market or FROSTT file (gzipped when the
// name ends in .gz). A Matrix Market file holds a COO tensor (a coordinate
// file) or a dense one (an array file); a FROSTT file a COO tensor; other
// formats go through COO first.
func writeText(path string, t arrowsparse.Tensor, tf textFormat) error {
	x, isCOO := t.(*coo.Tensor)
	if !isCOO && (tf == tnsText || t.Format() != arrowsparse.FormatDense) {
		c, err := convert(alloc, t, &convertOpts{to: "coo"})
		if err != nil {
			return err
		}
		defer c.Release()
		t, x = c, c.(*coo.Tensor)
	}
	if tf == tnsText {
		return tns.WriteFile(path, x, tns.WithAllocator(alloc))
	}
	return mtx.WriteFile(path, t, mtx.WithAllocator(alloc))
}

// progressBar returns a callback drawing a progress bar of bytes and
// entries on w, and a function that ends it; nil, and a no-op, when show
// is false.
func progressBar(w io.Writer, show bool, name string) (func(bytes, total, entries int64), func()) {
	if !show {
		return nil, func() {}
	}
	p := mpb.New(mpb.WithOutput(w), mpb.WithRefreshRate(150*time.Millisecond), mpb.WithAutoRefresh())
	var entries int64
	bar := p.New(0, mpb.BarStyle(),
		mpb.PrependDecorators(
			decor.Name(name+" ", decor.WCSyncSpaceR),
			decor.Counters(decor.SizeB1024(0), "% .1f / % .1f"),
		),
		mpb.AppendDecorators(
			decor.Any(func(decor.Statistics) string { return fmt.Sprintf(" %d entries ", entries) }),
			decor.AverageSpeed(decor.SizeB1024(0), "% .1f"),
			decor.Name(" "),
			decor.AverageETA(decor.ET_STYLE_GO),
		),
	)
	update := func(bytes, total, n int64) {
		if total > 0 && bar.Current() == 0 {
			bar.SetTotal(total, false)
		}
		entries = n
		bar.SetCurrent(bytes)
	}
	done := func() {
		bar.SetTotal(-1, true)
		p.Wait()
	}
	return update, done
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// inspectText prints the header of a Matrix Market file (without reading
// its body), or says that a FROSTT file has none; it reports false for
// other inputs.
func inspectText(in *input, asJSON bool, s *streams) (bool, error) {
	tf, err := textOf(in)
	if err != nil || tf == notText {
		return false, err
	}
	doc := map[string]any{"path": in.name}
	if tf == tnsText {
		doc["format"] = "FROSTT"
		doc["header"] = nil
	} else {
		var h mtx.Header
		if in.br != nil {
			h, err = mtx.ReadHeader(in.br)
		} else {
			h, err = mtx.ReadHeaderFile(in.path)
		}
		if err != nil {
			return true, err
		}
		doc["format"] = "MatrixMarket"
		doc["layout"] = h.Layout.String()
		doc["field"] = h.Field.String()
		doc["symmetry"] = h.Symmetry.String()
		doc["shape"] = []int64{h.Rows, h.Cols}
		doc["entries"] = h.Entries
		doc["comments"] = len(h.Comments)
	}
	if asJSON {
		b, err := json.Marshal(doc)
		if err != nil {
			return true, err
		}
		_, err = s.stdout.Write(append(b, '\n'))
		return true, err
	}
	if tf == tnsText {
		_, err = fmt.Fprintf(s.stdout, "FROSTT tensor file %s: no header (the shape is the largest coordinates, found by reading the body)\n", in.name)
		return true, err
	}
	_, err = fmt.Fprintf(s.stdout, "Matrix Market file %s\nlayout:   %s\nfield:    %s\nsymmetry: %s\nshape:    %v\nentries:  %d\ncomments: %d lines\n",
		in.name, doc["layout"], doc["field"], doc["symmetry"], doc["shape"], doc["entries"], doc["comments"])
	return true, err
}
