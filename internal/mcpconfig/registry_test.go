package mcpconfig

import (
	"slices"
	"testing"

	"github.com/moatdev/moat/internal/agent"
)

// TestClientsAreTheRegistrys ties the clients `mcp wrap` knows to the agent registry:
// exactly the rows with MCP places, each with a user file on every system.
func TestClientsAreTheRegistrys(t *testing.T) {
	var clients, rows []string
	for _, c := range Clients {
		clients = append(clients, c.Name)
	}
	for _, row := range agent.All() {
		if !slices.ContainsFunc(row.Places, func(p agent.Place) bool { return p.Role == agent.MCP }) {
			continue
		}
		rows = append(rows, row.Name)
		for _, goos := range []string{"linux", "darwin", "windows", "freebsd"} {
			if len(row.Files(agent.MCP, agent.Home, goos)) == 0 {
				t.Errorf("%s has no user MCP file on %s", row.Name, goos)
			}
		}
	}
	slices.Sort(clients)
	slices.Sort(rows)
	if !slices.Equal(clients, rows) {
		t.Errorf("mcp wrap knows %q; the registry's rows with MCP files are %q", clients, rows)
	}
}
