package mcp

import (
	"encoding/json"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/mcp/jsonrpc"
)

// clientAgents names the agent behind each MCP client, by the name the client gives in
// its clientInfo (the initialize request, or the _meta of every request of the
// 2026-07-28 revision), so that decisions are recorded with the agent even when the
// proxy was started without --agent. Names not listed here stay unknown: a guess would
// let a rule meant for one agent apply to another.
var clientAgents = []struct {
	client string
	agent  call.Agent
}{
	{"claude-code", call.ClaudeCode},
	{"cursor-vscode", call.Cursor},
	{"gemini-cli-mcp-client", call.GeminiCLI},
	{"codex-mcp-client", call.Codex},
}

// AgentOfClient returns the agent whose MCP client calls itself name.
func AgentOfClient(name string) (call.Agent, bool) {
	for _, c := range clientAgents {
		if c.client == name {
			return c.agent, true
		}
	}
	return "", false
}

// learnClient notes the agent behind the client of conn from a request that names its
// client: initialize, or any request of the 2026-07-28 revision.
func (conn *Conn) learnClient(m jsonrpc.Message) {
	var name string
	switch {
	case m.Method == "initialize":
		var p struct {
			ClientInfo struct {
				Name string `json:"name"`
			} `json:"clientInfo"`
		}
		if json.Unmarshal(m.Params, &p) != nil {
			return
		}
		name = p.ClientInfo.Name
	case jsonrpc.ProtocolVersion(m.Params) >= modernVersion:
		conn.mu.Lock()
		known := conn.client != ""
		conn.mu.Unlock()
		if known {
			return
		}
		var p struct {
			Meta struct {
				ClientInfo struct {
					Name string `json:"name"`
				} `json:"io.modelcontextprotocol/clientInfo"`
			} `json:"_meta"`
		}
		if json.Unmarshal(m.Params, &p) != nil {
			return
		}
		name = p.Meta.ClientInfo.Name
	default:
		return
	}
	if a, ok := AgentOfClient(name); ok {
		conn.mu.Lock()
		conn.client = a
		conn.mu.Unlock()
	}
}

// agent returns the agent behind the client of conn, or "" when it is not known.
func (conn *Conn) agent() call.Agent {
	conn.mu.Lock()
	defer conn.mu.Unlock()
	return conn.client
}
