package gcs_test

import "github.com/apache/arrow-go/v18/arrow"

// Short names for the types the tests use most.
var (
	i32 = arrow.PrimitiveTypes.Int32
	i64 = arrow.PrimitiveTypes.Int64
	f64 = arrow.PrimitiveTypes.Float64
)
