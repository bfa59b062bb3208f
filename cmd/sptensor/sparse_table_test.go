package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/tools/describe"
	"github.com/arrowsparse/arrowsparse/ipc"
)

// sparseMessages writes SparseTensor messages of format f (two of one
// shape, one of another) to dir and returns their paths.
func sparseMessages(t *testing.T, dir string, f arrowsparse.Format) []string {
	t.Helper()
	mem := memory.NewGoAllocator()
	var paths []string
	shapes := [][]int64{{3, 4, 2}, {3, 4, 2}, {3, 5, 2}}
	for i, shape := range shapes {
		if f == arrowsparse.FormatCSR || f == arrowsparse.FormatCSC {
			shape = shape[:2]
		}
		var coords []int32
		var vals []float32
		for k := range int32(3 + i) {
			for d := range shape {
				coords = append(coords, (k*int32(d+1))%int32(shape[d]))
			}
			vals = append(vals, float32(k)+0.5)
		}
		c, err := coo.FromSlices(mem, shape, coords, coo.RowMajor, vals)
		require.NoError(t, err)
		var x arrowsparse.Tensor = c
		switch f {
		case arrowsparse.FormatCOO:
			x, err = c.Canonicalize(mem, coo.ConvertOptions{})
		case arrowsparse.FormatCSR:
			x, err = gcs.MatrixFromCOO(mem, c, gcs.Rows, gcs.ConvertOptions{})
		case arrowsparse.FormatCSC:
			x, err = gcs.MatrixFromCOO(mem, c, gcs.Cols, gcs.ConvertOptions{})
		case arrowsparse.FormatCSF:
			x, err = csf.FromCOO(mem, c, csf.ConvertOptions{AxisOrder: []int{2, 0, 1}})
		case arrowsparse.FormatGCS:
			mp, merr := gcs.NewMapping(shape, []int{1, 2, 0}, 2)
			require.NoError(t, merr)
			x, err = gcs.FromCOO(mem, c, gcs.ConvertOptions{Mapping: mp})
		}
		require.NoError(t, err)
		c.Release()
		p := filepath.Join(dir, fmt.Sprintf("%s-%d.arrow", f, i))
		require.NoError(t, ipc.WriteFile(p, x))
		x.Release()
		paths = append(paths, p)
	}
	return paths
}

// TestPackUnpackSparse packs SparseTensor messages of every format into
// each container, dumps and inspects the tables, and unpacks them: the
// messages come back with their content.
func TestPackUnpackSparse(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []arrowsparse.Format{arrowsparse.FormatCOO, arrowsparse.FormatCSR, arrowsparse.FormatCSC, arrowsparse.FormatCSF, arrowsparse.FormatGCS} {
		ins := sparseMessages(t, dir, f)
		for _, container := range []string{"ipc-file", "ipc-stream", "parquet"} {
			name := fmt.Sprintf("%s/%s", f, container)
			out := filepath.Join(dir, fmt.Sprintf("%s-%s.table", f, container))
			_, stderr, code := sptensor(t, append([]string{"pack", "--container", container, out}, ins...)...)
			require.Equal(t, 0, code, "%s: %s", name, stderr)

			stdout, _, code := sptensor(t, "inspect", "--json", out)
			require.Equal(t, 0, code, stdout)
			var summary struct {
				Columns []struct {
					Type, Format, ValueType string
					Shape                   []*int64
					Canonical               bool
				} `json:"columns"`
			}
			require.NoError(t, json.Unmarshal([]byte(stdout), &summary), stdout)
			require.Len(t, summary.Columns, 1)
			assert.Equal(t, "arrowsparse."+map[arrowsparse.Format]string{arrowsparse.FormatCOO: "coo", arrowsparse.FormatCSR: "csr", arrowsparse.FormatCSC: "csc", arrowsparse.FormatCSF: "csf", arrowsparse.FormatGCS: "gcs"}[f], summary.Columns[0].Type, name)
			assert.Equal(t, f.String(), summary.Columns[0].Format)
			assert.Nil(t, summary.Columns[0].Shape[1], "%s: the second dimension varies", name)

			stdout, _, code = sptensor(t, "dump", "--json", out)
			require.Equal(t, 0, code, stdout)
			var doc tableDoc
			require.NoError(t, json.Unmarshal([]byte(stdout), &doc), stdout)
			require.Len(t, doc.Columns, 1)
			require.Len(t, doc.Columns[0].Rows, len(ins))
			for i, raw := range doc.Columns[0].Rows {
				got, err := describe.ParseJSON(raw)
				require.NoError(t, err)
				assert.Empty(t, sameContent(contentOf(t, ins[i]), got), "%s row %d", name, i)
			}
			stdout, _, code = sptensor(t, "dump", out)
			require.Equal(t, 0, code, stdout)
			assert.Contains(t, stdout, "row 2: "+f.String())

			udir := filepath.Join(dir, fmt.Sprintf("un-%s-%s", f, container))
			_, stderr, code = sptensor(t, "unpack", out, udir)
			require.Equal(t, 0, code, stderr)
			for i, in := range ins {
				p := filepath.Join(udir, strconv.Itoa(i)+".arrow")
				want, got := contentOf(t, in), contentOf(t, p)
				assert.Equal(t, want.Format, got.Format, name)
				assert.Empty(t, sameContent(want, got), "%s row %d", name, i)
			}
		}
	}
	// tensors of two formats, or dense and sparse, do not share a column
	coos, csrs := sparseMessages(t, dir, arrowsparse.FormatCOO), sparseMessages(t, dir, arrowsparse.FormatCSR)
	_, stderr, code := sptensor(t, "pack", filepath.Join(dir, "mixed.arrow"), coos[0], csrs[0])
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "one format")
}
