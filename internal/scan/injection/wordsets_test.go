package injection

import (
	"slices"
	"testing"
)

func TestWordSetsAreSorted(t *testing.T) {
	if set := notImperative; !slices.IsSorted(set) || len(slices.Compact(slices.Clone(set))) != len(set) {
		t.Errorf("notImperative: a WordSet must be sorted, without duplicates, for Has to find its words")
	}
}
