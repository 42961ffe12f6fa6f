package call

import (
	"sync"

	"github.com/moatdev/moat/internal/agent"
)

// Agent names the coding agent that makes a call. The set is closed so that a policy that
// names an agent with a typo is an error rather than a rule that never matches; it is the
// agent registry's (internal/agent) agents whose calls moat decides.
type Agent string

// Agents with native hooks. Each is a registry row (a test ties them); the constants are
// for the code that speaks one agent's protocol.
const (
	ClaudeCode Agent = "claude-code"
	Cursor     Agent = "cursor"
	Windsurf   Agent = "windsurf"
	GeminiCLI  Agent = "gemini-cli"
	Codex      Agent = "codex"
)

// Agents guarded without hooks (through the guarded shell, `moat run` or the sandbox).
const (
	Aider       Agent = "aider"
	Cline       Agent = "cline"
	Continue    Agent = "continue"
	CursorAgent Agent = "cursor-agent"
	OpenClaw    Agent = "openclaw"
	SWEAgent    Agent = "swe-agent"
)

// agents is the registry's list, made on first use: moat starts once per tool call.
var agents = sync.OnceValue(func() []Agent {
	rows := agent.Guarded()
	out := make([]Agent, len(rows))
	for i, r := range rows {
		out[i] = Agent(r.Name)
	}
	return out
})

// Agents lists every agent moat knows, hooked ones first. The slice is shared: do not
// modify it.
func Agents() []Agent { return agents() }

// ParseAgent returns the agent named s, or false when moat knows no such agent.
func ParseAgent(s string) (Agent, bool) {
	if row, ok := agent.Lookup(s); ok && row.Guard != 0 {
		return Agent(row.Name), true
	}
	return "", false
}
