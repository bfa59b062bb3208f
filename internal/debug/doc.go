// Package debug holds the module's debug assertions, compiled in only under
// the assert build tag (go test -tags assert), as arrow-go's internal/debug
// does. Every Release of a reference-counted type asserts that the count
// did not go below zero.
package debug
