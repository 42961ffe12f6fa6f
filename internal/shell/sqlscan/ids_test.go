package sqlscan

import (
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
