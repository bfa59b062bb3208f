package arrowext

// SetListLimit lowers the number of elements above which the writers use
// a LargeList, for tests; it returns a function that restores it.
func SetListLimit(n int64) (restore func()) {
	old := listLimit
	listLimit = n
	return func() { listLimit = old }
}

// SetFlatReader turns ReadParquet's flat reader on or off, for tests that
// compare it with pqarrow; it returns a function that restores it.
func SetFlatReader(on bool) (restore func()) {
	old := noFlatReader
	noFlatReader = !on
	return func() { noFlatReader = old }
}

// ParsePageHeader exposes the flat reader's page header parser to the
// fuzz target.
func ParsePageHeader(b []byte) (n int, short bool) {
	_, n, short = parsePageHeader(b)
	return n, short
}

// FlatReads is the number of files ReadParquet's flat reader has read.
func FlatReads() int64 { return flatReads.Load() }
