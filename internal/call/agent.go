package call

// Agent names the coding agent that makes a call. The set is closed so that a policy that
// names an agent with a typo is an error rather than a rule that never matches.
type Agent string

// Agents with native hooks.
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

// Agents lists every agent moat knows, hooked ones first.
var Agents = []Agent{ClaudeCode, Cursor, Windsurf, GeminiCLI, Codex, Aider, Cline, Continue, CursorAgent, OpenClaw, SWEAgent}

// ParseAgent returns the agent named s, or false when moat knows no such agent.
func ParseAgent(s string) (Agent, bool) {
	for _, a := range Agents {
		if string(a) == s {
			return a, true
		}
	}
	return "", false
}
