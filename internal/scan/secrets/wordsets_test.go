package secrets

import (
	"slices"
	"testing"

	"github.com/moatdev/moat/internal/scan/textmatch"
)

func TestWordSetsAreSorted(t *testing.T) {
	for name, set := range map[string]textmatch.WordSet{
		"passwordNameParts": passwordNameParts, "keyNameStops": keyNameStops,
		"envNameStops": envNameStops, "notSecretNameParts": notSecretNameParts,
	} {
		if !slices.IsSorted(set) || len(slices.Compact(slices.Clone(set))) != len(set) {
			t.Errorf("%s: a WordSet must be sorted, without duplicates, for Has to find its words", name)
		}
	}
}
