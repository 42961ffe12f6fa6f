package setup

import (
	"slices"
	"testing"

	"github.com/moatdev/moat/internal/agent"
)

// TestAgentsAreTheRegistrys ties setup's targets to the agent registry: moat sets up the
// hooks of exactly the hooked agents, in the registry's order, and finds every file it
// edits in their rows.
func TestAgentsAreTheRegistrys(t *testing.T) {
	var targets, hooked []string
	for _, a := range Agents {
		targets = append(targets, string(a.Agent))
		if a.ConfigDir() == "" || a.UserFile() == "" || a.ProjectFile() == "" {
			t.Errorf("setup %s: the registry lacks its directory or hook files", a.Agent)
		}
	}
	for _, row := range agent.All() {
		if row.Guard == agent.Hooked {
			hooked = append(hooked, row.Name)
		}
		if _, ok := ForAgent(row.Name); ok != (row.Guard == agent.Hooked) {
			t.Errorf("ForAgent(%s) = %v; the registry says hooked: %v", row.Name, ok, row.Guard == agent.Hooked)
		}
	}
	if !slices.Equal(targets, hooked) {
		t.Errorf("setup knows %q; the registry's hooked agents are %q", targets, hooked)
	}
}
