// Command textfmtcheck is the Go side of the text-format cross-check with
// scipy (interop/textfmt_ref.py); see internal/tools/textcheck.
//
//	textfmtcheck read DIR         read every file of DIR that has a sidecar
//	                              with packages mtx and tns, compare
//	textfmtcheck write SEED DIR   write files and sidecars for the
//	                              reference readers
//
// read prints one FAIL line per mismatch and "N checked, M failed" last,
// and exits 1 on any failure.
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/arrowsparse/arrowsparse/internal/tools/textcheck"
)

func main() {
	switch {
	case len(os.Args) == 3 && os.Args[1] == "read":
		n, fails, err := textcheck.CheckDir(os.Args[2])
		if err != nil {
			fmt.Fprintln(os.Stderr, "textfmtcheck:", err)
			os.Exit(2)
		}
		for _, f := range fails {
			fmt.Println("FAIL", f)
		}
		fmt.Printf("%d checked, %d failed\n", n, len(fails))
		if len(fails) > 0 {
			os.Exit(1)
		}
	case len(os.Args) == 4 && os.Args[1] == "write":
		seed, err := strconv.ParseUint(os.Args[2], 10, 64)
		if err == nil {
			err = os.MkdirAll(os.Args[3], 0o755)
		}
		var n int
		if err == nil {
			n, err = textcheck.WriteCases(os.Args[3], seed)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "textfmtcheck:", err)
			os.Exit(2)
		}
		fmt.Printf("%d written\n", n)
	default:
		fmt.Fprintln(os.Stderr, "usage: textfmtcheck read DIR | textfmtcheck write SEED DIR")
		os.Exit(2)
	}
}
