package auditdb

import (
	"strings"
	"unicode"
)

// foldKey maps s to a key that two strings share exactly when strings.EqualFold holds for
// them: each rune becomes the smallest rune of its case-folding orbit. The --tool filter
// of `moat logs` compares with EqualFold; SQLite's own NOCASE folds ASCII only.
func foldKey(s string) string {
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, s)
}
