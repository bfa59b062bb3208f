//go:build !amd64 || purego

package views

import "github.com/arrowsparse/arrowsparse"

// haveNT reports whether transpose8NT and sfence are implemented.
const haveNT = false

// transpose8NT is never called where haveNT is false.
func transpose8NT(dst *uint64, dLd int64, src *uint64, sLd int64) {
	panic(arrowsparse.PanicError{Msg: "views: unreachable: transpose8NT without non-temporal stores"})
}

func sfence() {}
