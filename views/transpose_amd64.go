//go:build !purego

package views

// haveNT reports whether transpose8NT and sfence are implemented.
const haveNT = true

// transpose8NT sets dst[i·dLd + j] = src[j·sLd + i] for i, j < 8, with
// non-temporal stores; sfence must follow before the result is shared. The
// caller guarantees that every address is inside its slice.
//
//go:noescape
func transpose8NT(dst *uint64, dLd int64, src *uint64, sLd int64)

// sfence orders the non-temporal stores of transpose8NT before later
// stores.
func sfence()
