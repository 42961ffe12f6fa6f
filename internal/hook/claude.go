package hook

import (
	"fmt"

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

// AskHolds: Claude Code puts a hook's ask to the user in its default and plan modes. In
// bypassPermissions it hands an ask on Write or Edit to its permission pipeline, which
// then allows it; dontAsk and auto answer without the user, and acceptEdits accepts edits
// by itself. A payload without a mode gives no way to know, so the ask is not sent.
func (claudeCode) AskHolds(ev Event) (bool, string) {
	switch ev.Mode {
	case "default", "plan":
		return true, ""
	case "":
		return false, "Claude Code did not say which permission mode it is in, and in some modes it lets an ask through unanswered"
	}
	return false, fmt.Sprintf("Claude Code is in its %s permission mode, where it does not put moat's question to you", ev.Mode)
}

func (c claudeCode) Render(ev Event, a Answer) Output {
	switch ev.Kind {
	case PreTool:
		a = settleAsk(c, ev, a)
		var out map[string]any
		if !a.deferred() {
			decision := "allow"
			switch a.Verdict {
			case call.Ask:
				decision = "ask"
			case call.Deny:
				decision = "deny"
			}
			hso := map[string]any{
				"hookEventName":            claudePreToolUse,
				"permissionDecision":       decision,
				"permissionDecisionReason": a.Reason,
			}
			if a.Context != "" {
				hso["additionalContext"] = a.Context
			}
			out = map[string]any{"hookSpecificOutput": hso}
		}
		return jsonOutput(withNotice(out, "systemMessage", a.Notice))
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
		return jsonOutput(withNotice(out, "systemMessage", a.Notice))
	}
	return c.Fail(ev, "moat cannot answer this event", false)
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
