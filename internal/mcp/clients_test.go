package mcp

import (
	"context"
	"io"
	"testing"

	"github.com/moatdev/moat/internal/call"
)

// TestClientAgent: the agent behind a client is learnt from the clientInfo of its
// initialize (or of a 2026-07-28 request), and every call and record carries it.
func TestClientAgent(t *testing.T) {
	for _, tt := range []struct {
		name, first string
		want        call.Agent
	}{
		{"legacy initialize", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-code","version":"2.1.328"}}}`, call.ClaudeCode},
		{"2026-07-28 _meta", `{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"codex-mcp-client","version":"0.169.0"}}}}`, call.Codex},
		{"an unknown client", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"clientInfo":{"name":"some-client"}}}`, ""},
		{"no clientInfo", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var decided, recorded []call.Agent
			p := &Proxy{Server: "srv", Log: io.Discard,
				Decide: func(_ context.Context, c call.Call) call.Decision {
					decided = append(decided, c.Agent)
					return call.Decision{Verdict: call.Allow, Rule: "default"}
				},
				Record: func(_ RecordKind, c call.Call, _ call.Decision) { recorded = append(recorded, c.Agent) }}
			p.Send = (&fakeServer{t: t, p: p, tools: append(toolsNamed("echo"), poisonedTool)}).send
			p.FromClient(context.Background(), []byte(tt.first))
			p.FromServer([]byte(`{"jsonrpc":"2.0","id":0,"result":{}}`))
			callTool(p, 1, "echo")
			callTool(p, 2, "weather")
			if len(decided) != 1 || decided[0] != tt.want {
				t.Errorf("decided with agents %q, want %q", decided, tt.want)
			}
			if len(recorded) != 2 || recorded[0] != tt.want || recorded[1] != tt.want {
				t.Errorf("recorded agents %q, want %q for the hidden tool and the refused call", recorded, tt.want)
			}
		})
	}
	for _, c := range clientAgents {
		if a, ok := AgentOfClient(c.client); !ok || a != c.agent {
			t.Errorf("AgentOfClient(%q) = %q, %v", c.client, a, ok)
		}
		if _, ok := call.ParseAgent(string(c.agent)); !ok {
			t.Errorf("%s names an agent moat does not know: %q", c.client, c.agent)
		}
	}
}
