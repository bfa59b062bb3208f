package describe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/internal/core"
)

// ParseJSON reads a document of the interop schema (a sidecar, or what
// read-json printed). An error document ({"error": ...}) is returned as an
// error.
func ParseJSON(data []byte) (*Content, error) {
	var doc struct {
		Error          *string             `json:"error"`
		Kind           string              `json:"kind"`
		Format         string              `json:"format"`
		ValueType      string              `json:"value_type"`
		IndexType      string              `json:"index_type"`
		IndptrType     string              `json:"indptr_type"`
		Shape          []int64             `json:"shape"`
		DimNames       []string            `json:"dim_names"`
		NNZ            int64               `json:"nnz"`
		IsCanonical    bool                `json:"is_canonical"`
		IndicesStrides []int64             `json:"indices_strides"`
		AxisOrder      []int               `json:"axis_order"`
		Dimensions     []int               `json:"dimensions"`
		Partitioning   []int               `json:"partitioning"`
		Strides        []int64             `json:"strides"`
		Entries        [][]json.RawMessage `json:"entries"`
		DenseValues    []json.RawMessage   `json:"dense_values"`
		Note           string              `json:"_note"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("describe: %w", err)
	}
	if doc.Error != nil {
		return nil, fmt.Errorf("%s", *doc.Error)
	}
	c := &Content{
		Format:         doc.Format,
		ValueType:      TypeByName(doc.ValueType),
		Shape:          doc.Shape,
		DimNames:       core.CloneDimNames(doc.DimNames),
		NNZ:            doc.NNZ,
		IsCanonical:    doc.IsCanonical,
		IndicesStrides: doc.IndicesStrides,
		AxisOrder:      doc.AxisOrder,
		Dimensions:     doc.Dimensions,
		Partitioning:   doc.Partitioning,
		Strides:        doc.Strides,
		Note:           doc.Note,
	}
	if c.Shape == nil {
		c.Shape = []int64{}
	}
	if c.ValueType == nil {
		return nil, fmt.Errorf("describe: unknown value type %q", doc.ValueType)
	}
	if doc.Kind == "dense" {
		c.Format = "TENSOR"
		for i, raw := range doc.DenseValues {
			x, err := ParseValue(c.ValueType, raw)
			if err != nil {
				return nil, fmt.Errorf("describe: dense_values[%d]: %w", i, err)
			}
			c.DenseValues = append(c.DenseValues, x)
		}
		return c, nil
	}
	if c.IndexType = TypeByName(doc.IndexType); c.IndexType == nil {
		return nil, fmt.Errorf("describe: unknown index type %q", doc.IndexType)
	}
	if doc.IndptrType != "" {
		if c.IndptrType = TypeByName(doc.IndptrType); c.IndptrType == nil {
			return nil, fmt.Errorf("describe: unknown indptr type %q", doc.IndptrType)
		}
	}
	nd := len(c.Shape)
	c.Entries = NewEntries(nd, int64(len(doc.Entries)))
	coords := make([]int64, nd)
	for i, e := range doc.Entries {
		if len(e) != nd+1 {
			return nil, fmt.Errorf("describe: entries[%d] has %d items for %d dimensions", i, len(e), nd)
		}
		for k := range nd {
			v, err := strconv.ParseInt(string(bytes.TrimSpace(e[k])), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("describe: entries[%d][%d]: %w", i, k, err)
			}
			coords[k] = v
		}
		x, err := ParseValue(c.ValueType, e[nd])
		if err != nil {
			return nil, fmt.Errorf("describe: entries[%d]: %w", i, err)
		}
		c.Entries.Append(x, coords...)
	}
	return c, nil
}

// ParseValue reads one JSON value of the schema (a number, or a string
// holding an integer, "NaN", "Infinity" or "-Infinity") as bits of type
// dt. Integers wrap to the type's width; floats are rounded to it.
func ParseValue(dt arrow.DataType, raw json.RawMessage) (uint64, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		s = string(bytes.TrimSpace(raw))
	}
	if isFloat(dt) {
		var d float64
		switch s {
		case "NaN":
			d = math.NaN()
		case "Infinity":
			d = math.Inf(1)
		case "-Infinity":
			d = math.Inf(-1)
		default:
			var err error
			if d, err = strconv.ParseFloat(s, 64); err != nil {
				return 0, fmt.Errorf("not a number: %q", s)
			}
		}
		return FloatBits(dt, d), nil
	}
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f != math.Trunc(f) {
			return 0, fmt.Errorf("not an integer: %q", s)
		}
		n, _ = new(big.Float).SetFloat64(f).Int(nil)
	}
	mask := new(big.Int).SetUint64(widthMask(arrowsparse.ByteWidth(dt)))
	return new(big.Int).And(n, mask).Uint64(), nil
}
