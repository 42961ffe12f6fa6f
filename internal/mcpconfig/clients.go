// Package mcpconfig rewrites the MCP server entries of agents' configuration files so
// that each server runs through moat's proxy, and restores them exactly.
package mcpconfig

import (
	"path/filepath"

	"github.com/moatdev/moat/internal/agent"
)

// Client is an MCP client whose configuration moat can rewrite: where it keeps its
// servers, and how it writes them.
type Client struct {
	// Name is how moat's commands name the client.
	Name string
	// TOML says the client's files are TOML; otherwise they are JSON, with comments and
	// trailing commas allowed.
	TOML bool

	// The client's files are its MCP places in the agent registry (internal/agent),
	// which the $agent-config path set is made from too: a file `mcp wrap` rewrites is a
	// file self-protection guards. Name is the client's name there.

	// servers are the paths, from the root of a JSON file, of the objects that map
	// server names to entries; "*" stands for every key. A TOML file's servers are
	// always its [mcp_servers.NAME] tables.
	servers [][]string
	// remotes are the keys of a remote server's URL.
	remotes []remote
	// bridged are the other keys of a remote entry that moat's bridge takes over (the
	// headers, the transport's type): they are not written in the stdio entry.
	bridged []string
	// carried are the keys a remote entry may have that mean the same in a stdio entry
	// (timeouts, tool filters, enabled): they are kept, as written. A remote entry with
	// any other key is not wrapped, since moat cannot know what the key would mean.
	carried []string
	// typedStdio says that a stdio entry may say "type": "stdio"; a remote entry that
	// had a type gets that one. Clients that infer the transport get no type.
	typedStdio bool
}

// remote is a key that gives a remote server's URL, and how the client picks the
// transport for it.
type remote struct {
	key string
	// fixed is the transport the key always means ("http" for Streamable HTTP, "sse"
	// for the legacy HTTP+SSE transport); empty when the entry's "type" names it.
	fixed string
	// untyped is the transport of an entry with no "type", when fixed is empty; empty
	// when the client rejects such an entry.
	untyped string
}

// Clients are the MCP clients moat knows, from the client config table in
// agent-protocols.md §6.7. Their files are the registry's documented defaults: a client
// moved by an environment variable (CODEX_HOME, XDG_CONFIG_HOME, APPDATA elsewhere than
// under the home) is not followed, and an agent started with one is a second agent that
// self-protection denies.
var Clients = []Client{
	{
		Name:    "claude-desktop",
		servers: [][]string{{"mcpServers"}},
		// Claude Desktop adds remote servers as connectors, in its own interface; its
		// file holds only commands.
	},
	{
		Name: "claude-code",
		// ~/.claude.json holds the user's servers at the top and each project's
		// "local" servers under projects["/abs/path"].
		servers: [][]string{{"mcpServers"}, {"projects", "*", "mcpServers"}},
		// Claude Code rejects a url without a type; "streamable-http" is an alias.
		remotes:    []remote{{key: "url"}},
		bridged:    []string{"type", "headers"},
		typedStdio: true,
	},
	{
		Name:    "cursor",
		servers: [][]string{{"mcpServers"}},
		// Cursor tries Streamable HTTP first and falls back to SSE by itself.
		remotes:    []remote{{key: "url", untyped: "http"}},
		bridged:    []string{"type", "headers"},
		typedStdio: true,
	},
	{
		Name:    "windsurf",
		servers: [][]string{{"mcpServers"}},
		remotes: []remote{{key: "serverUrl", fixed: "http"}},
		bridged: []string{"headers"},
		carried: []string{"disabled", "disabledTools"},
	},
	{
		Name:    "gemini-cli",
		servers: [][]string{{"mcpServers"}},
		// httpUrl is Streamable HTTP; a url is SSE unless its type says http.
		remotes: []remote{{key: "httpUrl", fixed: "http"}, {key: "url", untyped: "sse"}},
		bridged: []string{"type", "headers"},
		carried: []string{"timeout", "trust", "description", "includeTools", "excludeTools"},
	},
	{
		Name:    "codex",
		TOML:    true,
		remotes: []remote{{key: "url", fixed: "http"}},
		// Codex's own field names (codex-rs/config/src/mcp_types.rs): the bearer token
		// and env_http_headers name environment variables; http_headers are literal.
		bridged: []string{"bearer_token_env_var", "http_headers", "env_http_headers"},
		carried: []string{"enabled", "required", "startup_timeout_sec", "startup_timeout_ms", "tool_timeout_sec",
			"enabled_tools", "disabled_tools", "supports_parallel_tool_calls", "default_tools_approval_mode", "tools", "name"},
	},
	{
		Name: "vscode",
		// VS Code's servers are under "servers", beside an "inputs" array moat leaves.
		servers:    [][]string{{"servers"}},
		remotes:    []remote{{key: "url", untyped: "http"}},
		bridged:    []string{"type", "headers"},
		typedStdio: true,
	},
}

// ForClient returns the client named name.
func ForClient(name string) (Client, bool) {
	for _, c := range Clients {
		if c.Name == name {
			return c, true
		}
	}
	return Client{}, false
}

// Files returns the client's configuration files on the system goos (a GOOS value):
// the user's, under home, then the project's, under project when it is not empty. The
// files need not exist.
func (c Client) Files(home, project, goos string) []string {
	row, _ := agent.Lookup(c.Name)
	var out []string
	for _, f := range row.Files(agent.MCP, agent.Home, goos) {
		out = append(out, filepath.Join(home, filepath.FromSlash(f)))
	}
	if project != "" {
		for _, f := range row.Files(agent.MCP, agent.Project, goos) {
			out = append(out, filepath.Join(project, filepath.FromSlash(f)))
		}
	}
	return out
}
