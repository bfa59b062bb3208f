//go:build race

package keysort

// raceEnabled scales the property tests down under the race detector,
// which makes them some ten times slower.
const raceEnabled = true
