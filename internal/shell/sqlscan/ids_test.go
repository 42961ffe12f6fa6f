package sqlscan

import (
	"testing"

	"github.com/moatdev/moat/internal/call"
)

// TestIDsCatalogued keeps the ids this package reports in the catalogue of findings.
func TestIDsCatalogued(t *testing.T) {
	for _, id := range []string{IDDrop, IDUnboundedWrite, IDRedisConfig} {
		if _, ok := call.LookupFinding(id); !ok {
			t.Errorf("finding id %q is not catalogued in internal/call", id)
		}
	}
}
