//go:build assert

package views

import "github.com/arrowsparse/arrowsparse"

// debugAssert panics with msg if cond is false, in builds with the assert
// tag only (as arrow-go's internal/debug does).
func debugAssert(cond bool, msg string) {
	if !cond {
		panic(arrowsparse.PanicError{Msg: msg})
	}
}
