//go:build !amd64 || purego

package views

// haveNT reports whether transpose8NT and sfence are implemented.
const haveNT = false

func transpose8NT(dst *uint64, dLd int64, src *uint64, sLd int64) {
	panic("views: transpose8NT is not implemented on this platform")
}

func sfence() {}
