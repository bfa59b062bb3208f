// Package tns reads and writes FROSTT files (.tns).
package tns
