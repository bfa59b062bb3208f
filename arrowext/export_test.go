package arrowext

// SetListLimit lowers the number of elements above which the writers use
// a LargeList, for tests; it returns a function that restores it.
func SetListLimit(n int64) (restore func()) {
	old := listLimit
	listLimit = n
	return func() { listLimit = old }
}
