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

func (geminiCLI) Render(ev Event, a Answer) Output {
	switch ev.Kind {
	case PreTool:
		decision := "allow"
		switch a.Verdict {
		case call.Ask:
			decision = "ask"
		case call.Deny:
			decision = "deny"
		}
		return Output{Stdout: mustJSON(map[string]any{"decision": decision, "reason": a.Reason})}
	case PostTool, Prompt:
		out := map[string]any{}
		if a.Block {
			out["decision"], out["reason"] = "deny", a.Reason
		}
		if a.Context != "" {
			out["hookSpecificOutput"] = map[string]any{"hookEventName": ev.Name, "additionalContext": a.Context}
		}
		if len(out) == 0 {
			return Output{}
		}
		return Output{Stdout: mustJSON(out)}
	}
	return geminiCLI{}.Fail(ev, "moat cannot answer this event", false)
}

func (geminiCLI) Fail(ev Event, reason string, open bool) Output {
	if open {
		msg := "moat: " + reason + "; the policy says fail: open, so this was not checked"
		return Output{Stdout: mustJSON(map[string]any{"systemMessage": msg}), Stderr: msg + "\n"}
	}
	msg := "moat: " + reason + "; failing closed"
	return Output{Stdout: mustJSON(map[string]any{"decision": "deny", "reason": msg}), Stderr: msg + "\n"}
}
