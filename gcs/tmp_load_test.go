package gcs_test

import (
	"testing"

	"github.com/arrowsparse/arrowsparse/coo"
	"github.com/arrowsparse/arrowsparse/internal/benchdata"
)

func loadA(t *testing.T) *coo.Tensor { return benchdata.LoadCOO(t, "a_powerlaw2d") }
