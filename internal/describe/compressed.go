package describe

import (
	as "github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/ipc"
)

// fromCompressed describes CSR, CSC, GCS and CSF tensors.
func fromCompressed(c *Content, t as.Tensor, m *ipc.Message) error {
	return errUnknown
}

func summarizeCompressed(s *Summary, t as.Tensor, m *ipc.Message) {}
