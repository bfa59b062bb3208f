// Package textparse holds what the mtx and tns packages share.
package textparse
