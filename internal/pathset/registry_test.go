package pathset

import (
	"path"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/agent"
)

// TestRegistryPlacesAreProtected checks that every place of every agent in the registry,
// on every system, is in $agent-config, and names the VS Code user MCP files that `moat
// mcp wrap` edits on Linux, macOS and Windows, so that losing one from the registry fails
// here too: it was once edited and not protected.
func TestRegistryPlacesAreProtected(t *testing.T) {
	set, err := Resolve(AgentConfig, Host{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	concrete := func(p agent.Place) string {
		rel := strings.ReplaceAll(p.Path, "*", "work")
		if p.Tree {
			rel += "/x.json"
		}
		switch p.Root {
		case agent.Home:
			return path.Join(home, rel)
		case agent.Project:
			return path.Join("/srv/app", rel)
		}
		return rel
	}
	n := 0
	for _, row := range agent.All() {
		for _, p := range row.Places {
			n++
			if f := concrete(p); !member(t, set, f) {
				t.Errorf("%s: %s (%s) is not in %s", row.Name, f, p.Why, AgentConfig)
			}
		}
	}
	for _, f := range []string{
		"~/.config/Code/User/mcp.json",
		"~/Library/Application Support/Code/User/mcp.json",
		"~/AppData/Roaming/Code/User/mcp.json",
		"/srv/app/.vscode/mcp.json",
	} {
		if p := Expand(f, home); !member(t, set, p) {
			t.Errorf("VS Code's MCP file %s is not in %s", p, AgentConfig)
		}
	}
	if n < 40 {
		t.Errorf("only %d places in the registry: the walk lost some", n)
	}

	instr, err := Resolve(AgentInstructions, Host{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range agent.Instructions() {
		f := strings.Replace(strings.TrimSuffix(p.Pattern, "/**")+"/x.md", "**/", "/srv/app/", 1)
		if !strings.HasSuffix(p.Pattern, "/**") {
			f = strings.Replace(p.Pattern, "**/", "/srv/app/", 1)
		}
		if !member(t, instr, f) {
			t.Errorf("%s (%s) is not in %s", f, p.Why, AgentInstructions)
		}
	}
}
