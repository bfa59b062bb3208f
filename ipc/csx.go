package ipc

import (
	"encoding/json"
	"slices"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/csf"
	"github.com/arrowsparse/arrowsparse/gcs"
	"github.com/arrowsparse/arrowsparse/internal/core"
	"github.com/arrowsparse/arrowsparse/ipc/internal/wire"
)

// GCSMetadataKey is the custom_metadata key under which a GCS tensor's N-d
// mapping travels in the CSR/CSC message of its storage (see the package
// documentation).
const GCSMetadataKey = "arrowsparse.gcs"

// gcsMeta is the JSON value stored under GCSMetadataKey.
type gcsMeta struct {
	Version      int      `json:"version"`
	Shape        []int64  `json:"shape"`
	Dimensions   []int    `json:"dimensions"`
	Partitioning []int    `json:"partitioning"`
	DimNames     []string `json:"dim_names"`
}

func decodeCSX(st *wire.SparseTensor, idx *wire.CSXIndex, body *memory.Buffer, out *Message, cfg *readConfig) (arrowsparse.Tensor, error) {
	shape, names := dimsOf(st.Shape)
	axis := gcs.Rows
	if idx.CompressedAxis == wire.AxisColumn {
		axis = gcs.Cols
	}
	indptr := slice(body, idx.IndptrBuffer)
	defer indptr.Release()
	indices := slice(body, idx.IndicesBuffer)
	defer indices.Release()
	values := slice(body, st.Data)
	defer values.Release()
	opts := []gcs.Option{gcs.WithDimNames(names...)}
	if cfg.trusted {
		opts = append(opts, gcs.WithTrusted())
	}
	m, err := gcs.New(st.Type, idx.IndptrType, idx.IndicesType, shape, axis, indptr, indices, values, st.NonZeroLength, opts...)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(out.CustomMetadata, func(kv KeyValue) bool { return kv.Key == GCSMetadataKey })
	if i < 0 {
		return m, nil
	}
	defer m.Release()
	return decodeGCS(m, out.CustomMetadata[i].Value)
}

// decodeGCS restores a GCS tensor from its storage matrix and the JSON
// mapping of the message.
func decodeGCS(m *gcs.Matrix, value string) (arrowsparse.Tensor, error) {
	var g gcsMeta
	if err := json.Unmarshal([]byte(value), &g); err != nil {
		return nil, core.Errorf(arrowsparse.ErrStructure, "ipc: custom metadata %q is not valid JSON: %v", GCSMetadataKey, err)
	}
	if g.Version != 1 {
		return nil, core.Errorf(arrowsparse.ErrStructure, "ipc: custom metadata %q has version %d; this reader knows version 1", GCSMetadataKey, g.Version)
	}
	if len(g.Partitioning) != 1 {
		return nil, core.Errorf(arrowsparse.ErrStructure, "ipc: custom metadata %q has %d partitioning entries; a GCS mapping has exactly 1", GCSMetadataKey, len(g.Partitioning))
	}
	t, err := gcs.NewTensor(g.Shape, g.Dimensions, g.Partitioning[0], m)
	if err != nil {
		return nil, err
	}
	if core.CloneDimNames(g.DimNames) == nil {
		return t, nil
	}
	defer t.Release()
	return t.WithDimNames(g.DimNames...)
}

// encodeCompressed encodes the formats of packages gcs and csf; ok is false
// for other tensors.
func encodeCompressed(t arrowsparse.Tensor, cfg *writeConfig) (m *wire.Message, body [][]byte, release func(), ok bool, err error) {
	switch x := t.(type) {
	case *csf.Tensor:
		m, body, release, err = encodeCSF(x, cfg)
		return m, body, release, true, err
	case *gcs.Matrix:
		m, body, err = encodeCSX(x, x.DimNames(), nil)
		return m, body, func() {}, true, err
	case *gcs.Tensor:
		for k, name := range x.DimNames() {
			if !utf8.ValidString(name) {
				return nil, nil, func() {}, true, core.Errorf(arrowsparse.ErrStructure, "ipc: dim name %d of a GCS tensor is not valid UTF-8 (%q): the N-d names travel as JSON in the custom metadata, which cannot hold it losslessly", k, name)
			}
		}
		g := gcsMeta{Version: 1, Shape: x.Shape(), Dimensions: x.Dims(), Partitioning: []int{x.Partitioning()}, DimNames: x.DimNames()}
		v, jerr := json.Marshal(g)
		if jerr != nil {
			return nil, nil, func() {}, true, core.Errorf(arrowsparse.ErrStructure, "ipc: encoding the GCS mapping: %v", jerr)
		}
		m, body, err = encodeCSX(x.Storage(), nil, []wire.KeyValue{{Key: GCSMetadataKey, Value: string(v)}})
		return m, body, func() {}, true, err
	}
	return nil, nil, nil, false, nil
}

func encodeCSX(x *gcs.Matrix, names []string, meta []wire.KeyValue) (*wire.Message, [][]byte, error) {
	lanes, nnz := x.Lanes(), x.NNZ()
	pt, it := x.IndptrType(), x.IndexType()
	// Arrow C++ checks the lengths of the index tensors against their
	// types, and aborts the reading process when they do not fit.
	if err := checkFits(pt, "the indptr length (compressed dimension + 1)", lanes+1); err != nil {
		return nil, nil, err
	}
	if err := checkFits(it, "the indices length (nnz)", nnz); err != nil {
		return nil, nil, err
	}
	ranges, total, body, err := sparseBody(
		prefix(x.IndptrBuffer(), (lanes+1)*int64(arrowsparse.ByteWidth(pt))),
		prefix(x.IndicesBuffer(), nnz*int64(arrowsparse.ByteWidth(it))),
		prefix(x.ValuesBuffer(), nnz*int64(arrowsparse.ByteWidth(x.DataType()))))
	if err != nil {
		return nil, nil, err
	}
	axis := wire.AxisRow
	if x.Axis() == gcs.Cols {
		axis = wire.AxisColumn
	}
	st := &wire.SparseTensor{
		Type:          x.DataType(),
		Shape:         dims(x.Shape(), names),
		NonZeroLength: nnz,
		Index: &wire.CSXIndex{
			CompressedAxis: axis,
			IndptrType:     pt,
			IndptrBuffer:   ranges[0],
			IndicesType:    it,
			IndicesBuffer:  ranges[1],
		},
		Data: ranges[2],
	}
	return sparseMessage(st, total, meta), body, nil
}
