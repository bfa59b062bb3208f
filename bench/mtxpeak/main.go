//go:build unix

// Command mtxpeak times one read or one write of a Matrix Market file with
// package mtx, for bench/run.sh (MTX=1) and bench/mtx_anchors.py pairs.
//
//	mtxpeak read FILE.mtx WORKERS         read once; print the time and the
//	                                      process's peak resident memory
//	                                      next to the file and output sizes
//	mtxpeak write FILE.mtx WORKERS OUT    read FILE (untimed), then time
//	                                      writing it to OUT
//
// The last field of the output line is the time in seconds.
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
	if len(os.Args) < 4 || os.Args[1] == "write" && len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: mtxpeak read FILE.mtx WORKERS | mtxpeak write FILE.mtx WORKERS OUT")
		os.Exit(2)
	}
	path := os.Args[2]
	w, _ := strconv.Atoi(os.Args[3])
	st, err := os.Stat(path)
	check(err)
	var before syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	start := time.Now()
	m, err := mtx.ReadFile(path, mtx.WithWorkers(w))
	check(err)
	secs := time.Since(start).Seconds()
	defer m.Release()
	if os.Args[1] == "write" {
		out := os.Args[4]
		start = time.Now()
		check(mtx.WriteFile(out, m.COO, mtx.WithWorkers(w)))
		secs = time.Since(start).Seconds()
		ost, err := os.Stat(out)
		check(err)
		fmt.Printf("arrowsparse write: workers=%d file=%.0fMB %.0fMB/s %.3f\n", w, float64(ost.Size())/1e6, float64(ost.Size())/secs/1e6, secs)
		return
	}
	t := m.COO
	size := t.CoordsBuffer().Len() + t.ValuesBuffer().Len()
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	fmt.Printf("arrowsparse read: workers=%d file=%.0fMB output=%.0fMB peakRSS=%.0fMB (before reading %.0fMB) %.0fMB/s %.3f\n",
		w, float64(st.Size())/1e6, float64(size)/1e6, float64(ru.Maxrss)/1e3, float64(before.Maxrss)/1e3, float64(st.Size())/secs/1e6, secs)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "mtxpeak:", err)
		os.Exit(1)
	}
}
