package par

import (
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWorkers(t *testing.T) {
	assert.Equal(t, 3, Workers(3))
	assert.Equal(t, runtime.GOMAXPROCS(0), Workers(0))
	assert.Equal(t, runtime.GOMAXPROCS(0), Workers(-1))
}

func TestDo(t *testing.T) {
	for _, k := range []int{1, 2, 5} {
		var seen [5]atomic.Int32
		Do(k, func(c int) { seen[c].Add(1) })
		for c := range 5 {
			want := int32(0)
			if c < k {
				want = 1
			}
			assert.Equal(t, want, seen[c].Load(), "k=%d c=%d", k, c)
		}
	}
}
