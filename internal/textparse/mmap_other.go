//go:build !unix

package textparse

import (
	"errors"
	"os"
)

// mapFile is not available: OpenFile reads with ReadAt instead.
func mapFileOS(*os.File, int64) ([]byte, func() error, error) {
	return nil, nil, errors.ErrUnsupported
}

// dropPages does nothing where files are not mapped.
func dropPages([]byte, int64, int64) {}
