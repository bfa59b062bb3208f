// Command mtxpeak reads a Matrix Market file once and prints the peak
// resident memory of the process next to the size of the file and of the
// output, for bench/run.sh's memory check.
//
//	go run ./bench/mtxpeak FILE.mtx WORKERS
package main

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/arrowsparse/arrowsparse/mtx"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: mtxpeak FILE.mtx WORKERS")
		os.Exit(2)
	}
	w, _ := strconv.Atoi(os.Args[2])
	st, err := os.Stat(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var before syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	start := time.Now()
	m, err := mtx.ReadFile(os.Args[1], mtx.WithWorkers(w))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	secs := time.Since(start).Seconds()
	t := m.COO
	out := t.CoordsBuffer().Len() + t.ValuesBuffer().Len()
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	fmt.Printf("mtxpeak: workers=%d file=%.0fMB output=%.0fMB peakRSS=%.0fMB (before reading %.0fMB) %.2fs\n",
		w, float64(st.Size())/1e6, float64(out)/1e6, float64(ru.Maxrss)/1e3, float64(before.Maxrss)/1e3, secs)
	m.Release()
}
