// Package mtx reads and writes Matrix Market files (.mtx), the text format
// of the NIST Matrix Market and the SuiteSparse Matrix Collection.
package mtx
