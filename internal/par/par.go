// Package par runs the parallel phases of the kernels: a fixed number of
// workers, each given its own index, with no work stealing, so that every
// result depends only on how the work was split, never on scheduling.
package par

import (
	"runtime"
	"sync"
)

// Do runs f(0), …, f(k-1), on k goroutines when k > 1, and returns when all
// have returned.
func Do(k int, f func(c int)) {
	if k == 1 {
		f(0)
		return
	}
	var wg sync.WaitGroup
	for c := range k {
		wg.Go(func() { f(c) })
	}
	wg.Wait()
}

// Workers resolves the Workers field of the module's option structs: n if n
// is positive, and runtime.GOMAXPROCS(0) (every core) otherwise.
func Workers(n int) int {
	if n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}
