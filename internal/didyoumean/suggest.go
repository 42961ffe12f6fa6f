// Package didyoumean finds the known name nearest to a mistyped one, for the "did you mean"
// hints of every place a name is given: agents, tools, packs, profiles, templates, keys.
package didyoumean

import (
	"fmt"
	"strings"
)

// maxDistance is the largest edit distance still taken for a typo.
const maxDistance = 2

// Closest returns the known name nearest to s (ignoring case) when it is a likely typo of
// it, and false when none is near enough.
func Closest(s string, known []string) (string, bool) {
	best, bestDist := "", maxDistance+1
	ls := strings.ToLower(s)
	for _, k := range known {
		if d := distance(ls, strings.ToLower(k)); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best, best != ""
}

// Hint returns ` (did you mean "x"?)` when a known name is near s, "" otherwise.
func Hint(s string, known []string) string {
	if best, ok := Closest(s, known); ok {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}

// distance is the Levenshtein distance between a and b, in runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
