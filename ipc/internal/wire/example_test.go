package wire_test

import (
	"fmt"
	"os"

	"github.com/arrowsparse/arrowsparse/ipc/internal/wire"
)

// ExampleParse reads the COO message of spec §7.1 without copying it and
// prints what its metadata says.
func ExampleParse() {
	data, err := os.ReadFile("../../../testdata/interop/golden/coo.arrow")
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := wire.Parse(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := f.Message.Validate(); err != nil {
		fmt.Println(err)
		return
	}
	st := f.Message.SparseTensor
	coo := st.Index.(*wire.COOIndex)
	fmt.Println(f.Message.Version, f.Message.Header, st.Type, len(st.Shape), "dims, nnz", st.NonZeroLength)
	fmt.Println("indices", coo.IndicesType, coo.IndicesStrides, coo.IndicesBuffer, "canonical", coo.IsCanonical)
	fmt.Println("data", st.Data, "body", len(f.Body), "bytes")

	// Re-encoding gives Arrow C++'s bytes back.
	out, err := wire.AppendMessage(nil, f.Message, f.Body)
	fmt.Println(string(out) == string(data), err)
	// Output:
	// V5 SparseTensor float32 2 dims, nnz 3
	// indices int64 [16 8] {0 48} canonical true
	// data {48 16} body 64 bytes
	// true <nil>
}
