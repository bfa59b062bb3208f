package wire_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/ipc/internal/wire"
)

// craftedOutcome is what the wire layer does with a crafted message: the
// stage that rejects it ("" for none) and the error category.
type craftedOutcome struct {
	stage string // "decode" (Parse/ReadMessage), "validate" or ""
	kind  error
}

// craftedOutcomes lists, for every crafted message, where the wire layer
// rejects it and why; the rules come from the spec (§1.4, §3, §4, §5), not
// from the file names.
var craftedOutcomes = map[string]craftedOutcome{
	"coo_1d":                  {},
	"coo_bad_strides":         {"validate", arrowsparse.ErrShape},      // neither row- nor column-major
	"coo_beyond_body":         {"validate", arrowsparse.ErrBufferSize}, // data ends past the body
	"coo_bodylen_short":       {"validate", arrowsparse.ErrBufferSize}, // bodyLength shorter than the buffers
	"coo_bool_values":         {"decode", arrowsparse.ErrUnsupportedType},
	"coo_data_misaligned":     {"validate", arrowsparse.ErrAlignment}, // data.offset % 8 != 0
	"coo_half_values":         {},
	"coo_idx_bitwidth24":      {"decode", arrowsparse.ErrUnsupportedType},
	"coo_idx_too_small":       {"validate", arrowsparse.ErrBufferSize}, // indicesBuffer < N·ndim·w
	"coo_int8_idx":            {},
	"coo_neg_nnz":             {"decode", arrowsparse.ErrShape},
	"coo_neg_shape":           {"decode", arrowsparse.ErrShape},
	"coo_ok_nostrides":        {},
	"coo_ok_unpadded_lengths": {},
	"coo_uint32_idx":          {},
	"coo_uint64_idx":          {"validate", arrowsparse.ErrUnsupportedType},
	"coo_utf8_values":         {"decode", arrowsparse.ErrUnsupportedType},
	"coo_v3":                  {"decode", arrowsparse.ErrStructure},
	"coo_zero_dim_strides":    {},
	"coo_zero_nnz_strides88":  {},
	"csc_ok":                  {},
	"csf_1d":                  {"validate", arrowsparse.ErrShape},
	"csf_2d_identity":         {},
	"csf_int32_elements":      {},
	"csf_ok_elements":         {},
	"csf_uint64":              {"validate", arrowsparse.ErrUnsupportedType},
	"csr_3d":                  {"validate", arrowsparse.ErrShape},
	"csr_axis_bad":            {"decode", arrowsparse.ErrStructure},
	"csr_indptr_small":        {"validate", arrowsparse.ErrBufferSize}, // indptrBuffer < (rows+1)·w
	"csr_ok":                  {},
	"csr_uint64":              {"validate", arrowsparse.ErrUnsupportedType},
	"eos":                     {"decode", arrowsparse.ErrStructure}, // one message wanted, end-of-stream found
	"t_0d":                    {},
	"t_align8":                {},
	"t_date":                  {"decode", arrowsparse.ErrUnsupportedType},
	"t_float16":               {},
	"t_legacy":                {},
	"t_nostrides_2d":          {},
	"t_ok":                    {},
	"t_strides_mismatch":      {"decode", arrowsparse.ErrShape},
	"t_zero":                  {},
}

func TestCrafted(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(interop, "crafted", "expected.json"))
	require.NoError(t, err)
	var verdicts map[string]string
	require.NoError(t, json.Unmarshal(raw, &verdicts))
	files := corpusFiles(t, "crafted")
	require.Len(t, files, len(verdicts))
	require.Len(t, craftedOutcomes, len(verdicts))

	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".arrow")
		t.Run(name, func(t *testing.T) {
			verdict, ok := verdicts[name]
			require.True(t, ok, "no verdict in expected.json")
			want, ok := craftedOutcomes[name]
			require.True(t, ok, "no outcome in craftedOutcomes")
			// Every message the wire layer accepts must be valid; every one it
			// rejects invalid.
			assert.Equal(t, verdict == "valid", want.stage == "", "outcome disagrees with expected.json verdict %q", verdict)

			data, err := os.ReadFile(path)
			require.NoError(t, err)

			f, err := wire.Parse(data)
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			sf, serr := wire.ReadMessage(bytes.NewReader(data), wire.WithAllocator(mem))
			if want.stage == "decode" {
				require.Error(t, err)
				require.Error(t, serr)
				checkKind(t, err, want.kind)
				checkKind(t, serr, want.kind)
				return
			}
			require.NoError(t, err)
			require.NoError(t, serr)
			defer sf.Release()
			assert.Equal(t, f.Message, sf.Message)
			assert.Equal(t, name == "t_legacy", f.Legacy)

			err = f.Message.Validate()
			if want.stage == "validate" {
				require.Error(t, err)
				checkKind(t, err, want.kind)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, len(data), f.Size)

			// Accepted messages round-trip through the encoder (the bytes
			// differ: these were laid out by hand, not by Arrow C++).
			out, err := wire.AppendMessage(nil, f.Message, f.Body)
			require.NoError(t, err)
			g, err := wire.Parse(out)
			require.NoError(t, err)
			assert.Equal(t, f.Message, g.Message)
			assert.Equal(t, f.Body, g.Body)
		})
	}
}

// checkKind asserts that err belongs to the category kind and to Arrow's
// matching error.
func checkKind(t *testing.T, err, kind error) {
	t.Helper()
	require.ErrorIs(t, err, kind, "error: %v", err)
	assert.True(t, errors.Is(err, arrow.ErrInvalid) || errors.Is(err, arrow.ErrType) || errors.Is(err, arrow.ErrIndex), "error %v wraps no Arrow category", err)
	t.Logf("rejected: %v", err)
}
