//go:build !unix

package ipc

import (
	"errors"
	"os"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// mapFile reports that memory mapping is not available here: the caller
// reads the file instead.
func mapFile(*os.File, int64) (*memory.Buffer, error) {
	return nil, errors.ErrUnsupported
}
