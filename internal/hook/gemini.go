package hook

import (
	"github.com/moatdev/moat/internal/call"
)

// geminiCLI speaks Gemini CLI's command hooks: BeforeTool, AfterTool and BeforeAgent
// (the user's prompt).
//
// Gemini CLI reads a hook's stdout as JSON whatever its exit status, and lets the call
// through when there is none (a crash, a timeout); so every answer, failures included, is
// a JSON decision on stdout with exit status 0, as its source recommends.
type geminiCLI struct{}

func (geminiCLI) Agent() call.Agent { return call.GeminiCLI }

const (
	geminiBeforeTool  = "BeforeTool"
	geminiAfterTool   = "AfterTool"
	geminiBeforeAgent = "BeforeAgent"
)

func (geminiCLI) Parse(payload []byte, getenv func(string) string) (Event, error) {
	ev, sh, err := readClaudeShaped(payload, "Gemini CLI", []eventKind{
		{geminiBeforeTool, PreTool}, {geminiAfterTool, PostTool}, {geminiBeforeAgent, Prompt},
	})
	if err != nil || ev.Kind == Prompt {
		return ev, err
	}
	c, err := canonical(call.GeminiCLI, sh.tool, sh.input)
	if err != nil {
		return ev, err
	}
	// mcp_<server>_<tool> cannot say where a server name with underscores ends; the MCP
	// context, when present, does.
	if mc, ok := sh.fields["mcp_context"].(map[string]any); ok && c.MCP != nil {
		if server, _ := mc["server_name"].(string); server != "" {
			c.MCP.Server = server
		}
		if tool, _ := mc["tool_name"].(string); tool != "" {
			c.MCP.Tool = tool
		}
	}
	if c.Cwd == "" {
		c.Cwd = ev.Cwd
	}
	c.Project = projectDir(getenv("GEMINI_PROJECT_DIR"), getenv("CLAUDE_PROJECT_DIR"))
	c.Session = sh.session
	ev.Call = c
	return ev, nil
}

// AskHolds: Gemini CLI puts a hook's ask to the user even in its yolo mode. Run headless
// (-p) it waits for an answer that never comes; its payload does not say so, which is
// why a non-interactive run is told by the environment (see the hook command).
func (geminiCLI) AskHolds(Event) (bool, string) { return true, "" }

func (g geminiCLI) Render(ev Event, a Answer) Output {
	switch ev.Kind {
	case PreTool:
		a = settleAsk(g, ev, a)
		var out map[string]any
		if !a.deferred() {
			decision := "allow"
			switch a.Verdict {
			case call.Ask:
				decision = "ask"
			case call.Deny:
				decision = "deny"
			}
			out = map[string]any{"decision": decision, "reason": a.Reason}
		}
		return jsonOutput(withNotice(out, "systemMessage", a.Notice))
	case PostTool, Prompt:
		var out map[string]any
		if a.Block {
			out = map[string]any{"decision": "deny", "reason": a.Reason}
		}
		if a.Context != "" {
			if out == nil {
				out = map[string]any{}
			}
			out["hookSpecificOutput"] = map[string]any{"hookEventName": ev.Name, "additionalContext": a.Context}
		}
		return jsonOutput(withNotice(out, "systemMessage", a.Notice))
	}
	return g.Fail(ev, "moat cannot answer this event", false)
}

func (geminiCLI) Fail(ev Event, reason string, open bool) Output {
	if open {
		msg := "moat: " + reason + "; the policy says fail: open, so this was not checked"
		return Output{Stdout: mustJSON(map[string]any{"systemMessage": msg}), Stderr: msg + "\n"}
	}
	msg := "moat: " + reason + "; failing closed"
	return Output{Stdout: mustJSON(map[string]any{"decision": "deny", "reason": msg}), Stderr: msg + "\n"}
}
