package sqlscan

import (
	"strings"
	"testing"
)

// TestIDsCatalogued keeps the ids this package reports in the catalogue of findings.
func TestIDsCatalogued(t *testing.T) {
	for _, id := range []string{IDDrop, IDUnboundedWrite, IDRedisConfig, IDServerReach} {
		if _, ok := Kinds.Lookup(id); !ok {
			t.Errorf("finding id %q is not declared in Kinds", id)
		}
	}
}

// Every word reachesServer looks for fits the buffer reachWord lowers it into.
func TestReachWordsFit(t *testing.T) {
	for w := range reachWords() {
		if len(w) > maxReachWord {
			t.Errorf("%q is longer than maxReachWord (%d)", w, maxReachWord)
		}
		if reachWord(strings.ToUpper(w)) != reachWords()[w] {
			t.Errorf("%q is not found in upper case", w)
		}
	}
}
