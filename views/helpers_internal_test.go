package views

import "github.com/arrowsparse/arrowsparse"

// data returns Elements[T](v) for a view whose type the test knows.
func data[T arrowsparse.Value](v *View) []T {
	s, err := Values[T](v)
	if err != nil {
		panic(err)
	}
	return s
}
