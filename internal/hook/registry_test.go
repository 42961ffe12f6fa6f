package hook

import (
	"slices"
	"testing"

	"github.com/moatdev/moat/internal/agent"
)

// TestAdaptersAreTheRegistrys ties the adapters to the agent registry: one adapter per
// hooked agent, in the registry's order, and ForAgent finds each by its registry name and
// nothing else (an agent guarded without hooks, an MCP client, an unknown name).
func TestAdaptersAreTheRegistrys(t *testing.T) {
	var adapters, hooked []string
	for _, ad := range Adapters {
		adapters = append(adapters, string(ad.Agent()))
	}
	for _, row := range agent.All() {
		if row.Guard == agent.Hooked {
			hooked = append(hooked, row.Name)
		}
		ad, ok := ForAgent(row.Name)
		if ok != (row.Guard == agent.Hooked) {
			t.Errorf("ForAgent(%s) found an adapter: %v; the registry says hooked: %v", row.Name, ok, row.Guard == agent.Hooked)
		}
		if ok && string(ad.Agent()) != row.Name {
			t.Errorf("ForAgent(%s) = the adapter of %s", row.Name, ad.Agent())
		}
	}
	if !slices.Equal(adapters, hooked) {
		t.Errorf("adapters speak for %q; the registry's hooked agents are %q", adapters, hooked)
	}
	if _, ok := ForAgent("moat"); ok {
		t.Error("ForAgent found an adapter for a name the registry does not have")
	}
}
