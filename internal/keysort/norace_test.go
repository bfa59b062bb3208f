//go:build !race

package keysort

const raceEnabled = false
