package gcs_test

import (
	"sync"
	"testing"
	"time"
)

func TestTmpBW(t *testing.T) {
	a := make([]float64, 21<<20) // 168 MB
	for i := range a {
		a[i] = 1
	}
	sum := func(s []float64) float64 {
		var x0, x1, x2, x3 float64
		for i := 0; i+4 <= len(s); i += 4 {
			x0 += s[i]
			x1 += s[i+1]
			x2 += s[i+2]
			x3 += s[i+3]
		}
		return x0 + x1 + x2 + x3
	}
	for _, w := range []int{1, 2, 1, 2} {
		best := time.Hour
		for r := 0; r < 20; r++ {
			t0 := time.Now()
			var wg sync.WaitGroup
			for c := range w {
				wg.Add(1)
				go func() { defer wg.Done(); sink[c] = sum(a[len(a)*c/w : len(a)*(c+1)/w]) }()
			}
			wg.Wait()
			best = min(best, time.Since(t0))
		}
		t.Logf("workers %d: %v (%.1f GB/s)", w, best, float64(len(a)*8)/best.Seconds()/1e9)
	}
}

var sink [8]float64
