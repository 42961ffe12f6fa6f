package call

import (
	"cmp"
	"slices"
)

// FindingKinds is the catalog of every finding id analysis can report, sorted by id. It is
// assembled from one list per analyzer so that each analyzer's kinds live beside each other;
// tests keep the ids unique and every analyzer's ids catalogued.
var FindingKinds = catalog(analysisKinds, shellKinds, secretKinds, unicodeKinds, injectionKinds, mcpKinds, toolKinds, selfKinds, plantedKinds)

// catalog runs at every start of moat, so it allocates the catalog once at its final size
// rather than growing it list by list.
func catalog(lists ...[]FindingKind) []FindingKind {
	all := slices.Concat(lists...)
	slices.SortFunc(all, func(a, b FindingKind) int { return cmp.Compare(a.ID, b.ID) })
	return all
}

// analysisKinds are findings about the input itself rather than what it would do.
var analysisKinds = []FindingKind{
	{ID: "input.too-large", Category: "analysis", Severity: Medium, Summary: "an argument is larger than moat analyses; it was not inspected in full"},
}
