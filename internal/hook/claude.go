package hook

import (
	"github.com/moatdev/moat/internal/call"
)

// claudeCode speaks Claude Code's command hooks: PreToolUse for every tool, PostToolUse
// and UserPromptSubmit.
//
// Claude Code lets a call through when a hook exits with any status but 0 and 2 and
// prints nothing it can parse, so every failure here is an explicit block: exit 2 with
// the reason on stderr (which Claude Code shows the model), and a deny on stdout too.
type claudeCode struct{}

func (claudeCode) Agent() call.Agent { return call.ClaudeCode }

// Claude Code's event names.
const (
	claudePreToolUse       = "PreToolUse"
	claudePostToolUse      = "PostToolUse"
	claudeUserPromptSubmit = "UserPromptSubmit"
)

func (claudeCode) Parse(payload []byte, getenv func(string) string) (Event, error) {
	ev, sh, err := readClaudeShaped(payload, "Claude Code", []eventKind{
		{claudePreToolUse, PreTool}, {claudePostToolUse, PostTool}, {claudeUserPromptSubmit, Prompt},
	})
	if err != nil || ev.Kind == Prompt {
		return ev, err
	}
	c, err := canonical(call.ClaudeCode, sh.tool, sh.input)
	if err != nil {
		return ev, err
	}
	c.Cwd, c.Project, c.Session = ev.Cwd, projectDir(getenv("CLAUDE_PROJECT_DIR")), sh.session
	ev.Call = c
	return ev, nil
}

func (claudeCode) Render(ev Event, a Answer) Output {
	switch ev.Kind {
	case PreTool:
		decision := "allow"
		switch a.Verdict {
		case call.Ask:
			decision = "ask"
		case call.Deny:
			decision = "deny"
		}
		out := map[string]any{
			"hookEventName":            claudePreToolUse,
			"permissionDecision":       decision,
			"permissionDecisionReason": a.Reason,
		}
		if a.Context != "" {
			out["additionalContext"] = a.Context
		}
		return Output{Stdout: mustJSON(map[string]any{"hookSpecificOutput": out})}
	case PostTool, Prompt:
		var out map[string]any
		if a.Block {
			out = map[string]any{"decision": "block", "reason": a.Reason}
		}
		if a.Context != "" {
			if out == nil {
				out = map[string]any{}
			}
			out["hookSpecificOutput"] = map[string]any{"hookEventName": ev.Name, "additionalContext": a.Context}
		}
		if out == nil {
			return Output{}
		}
		return Output{Stdout: mustJSON(out)}
	}
	return claudeCode{}.Fail(ev, "moat cannot answer this event", false)
}

func (claudeCode) Fail(ev Event, reason string, open bool) Output {
	if open {
		msg := "moat: " + reason + "; the policy says fail: open, so this was not checked"
		return Output{Stdout: mustJSON(map[string]any{"systemMessage": msg}), Stderr: msg + "\n"}
	}
	msg := "moat: " + reason + "; failing closed"
	var out map[string]any
	switch ev.Kind {
	case PostTool, Prompt:
		out = map[string]any{"decision": "block", "reason": msg}
	default:
		out = map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName":            claudePreToolUse,
			"permissionDecision":       "deny",
			"permissionDecisionReason": msg,
		}}
	}
	return Output{Stdout: mustJSON(out), Stderr: msg + "\n", Code: 2}
}
