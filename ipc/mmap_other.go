//go:build !unix

package ipc

import (
	"os"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// mapFile reads the whole file where memory mapping is not available.
func mapFile(path string) (*memory.Buffer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return memory.NewBufferBytes(b), nil
}
