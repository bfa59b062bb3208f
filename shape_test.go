package arrowsparse

import (
	"errors"
	"slices"
	"testing"
)

// A shape without elements has strides even when the products of its
// dimensions overflow: no element is addressed through them.
func TestRowMajorStridesEmptyOverflow(t *testing.T) {
	big := int64(1736164148113840152)
	st, err := RowMajorStrides([]int64{48, big, big, 0})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{big, big, 1, 1}; !slices.Equal(st, want) {
		t.Fatalf("strides %v, want %v", st, want)
	}
	if _, err := RowMajorStrides([]int64{48, big, big, 1}); !errors.Is(err, ErrOverflow) {
		t.Fatalf("non-empty overflowing shape: err %v, want ErrOverflow", err)
	}
}
