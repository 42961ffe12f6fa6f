package call

import (
	"slices"
	"testing"

	"github.com/moatdev/moat/internal/agent"
)

// TestAgentsAreTheRegistrys ties the agent names code uses to the agent registry: every
// constant is a row, with the guard its comment claims, and the native tool table speaks
// for exactly the agents whose hooks moat answers.
func TestAgentsAreTheRegistrys(t *testing.T) {
	constants := []struct {
		a     Agent
		guard agent.Guard
	}{
		{ClaudeCode, agent.Hooked}, {Cursor, agent.Hooked}, {Windsurf, agent.Hooked}, {GeminiCLI, agent.Hooked}, {Codex, agent.Hooked},
		{Aider, agent.Launched}, {Cline, agent.Launched}, {Continue, agent.Launched}, {CursorAgent, agent.Launched}, {OpenClaw, agent.Launched}, {SWEAgent, agent.Launched},
	}
	for _, c := range constants {
		row, ok := agent.Lookup(string(c.a))
		if !ok || row.Guard != c.guard {
			t.Errorf("agent %s: registry row %v (guard %d), want guard %d", c.a, ok, row.Guard, c.guard)
		}
		if got, ok := ParseAgent(string(c.a)); !ok || got != c.a {
			t.Errorf("ParseAgent(%s) = %s, %v", c.a, got, ok)
		}
	}
	if len(Agents()) != len(constants) {
		t.Errorf("the registry guards %d agents, this package names %d: name the new ones", len(Agents()), len(constants))
	}
	for _, name := range []string{"", "vscode", "claude-desktop", "Claude-Code", "nope"} {
		if _, ok := ParseAgent(name); ok {
			t.Errorf("ParseAgent(%q) accepted a name that is not an agent of calls", name)
		}
	}

	var tabled, hooked []string
	for _, nt := range NativeTools {
		if !slices.Contains(tabled, string(nt.Agent)) {
			tabled = append(tabled, string(nt.Agent))
		}
	}
	for _, row := range agent.Guarded() {
		if row.Guard == agent.Hooked {
			hooked = append(hooked, row.Name)
		}
	}
	if !slices.Equal(tabled, hooked) {
		t.Errorf("the native tool table has tools of %q; the registry's hooked agents are %q (in that order)", tabled, hooked)
	}
}
