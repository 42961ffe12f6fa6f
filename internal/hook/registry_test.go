package hook

import (
	"slices"
	"testing"

	"github.com/moatdev/moat/internal/agent"
	"github.com/moatdev/moat/internal/setup"
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

// TestSetupRegistersHandledEvents ties the events `moat setup` registers moat's hook for
// to the events each adapter reads: an event the adapter did not know would fail every
// call of that kind (closed).
func TestSetupRegistersHandledEvents(t *testing.T) {
	for _, a := range setup.Agents {
		ad, ok := ForAgent(string(a.Agent))
		if !ok {
			t.Errorf("setup installs hooks for %s, which has no adapter", a.Agent)
			continue
		}
		for _, name := range append(slices.Clone(a.Events), "NoSuchEvent") {
			// The event's name under each agent's key; the rest of the payload is
			// missing, so Parse fails, but only after it knows the event.
			payload := `{"hook_event_name":"` + name + `","agent_action_name":"` + name + `"}`
			ev, _ := ad.Parse([]byte(payload), func(string) string { return "" })
			switch known := ev.Kind != Unknown; {
			case name == "NoSuchEvent" && known:
				t.Errorf("%s: the adapter takes an event it does not handle (%s)", a.Agent, name)
			case name != "NoSuchEvent" && !known:
				t.Errorf("%s: setup registers moat for %s, which the adapter does not handle", a.Agent, name)
			}
		}
	}
}
