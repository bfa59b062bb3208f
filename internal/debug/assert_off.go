//go:build !assert

package debug

// Assert panics with msg if cond is false. Without the assert build tag it
// does nothing and costs nothing.
func Assert(cond bool, msg string) {}
