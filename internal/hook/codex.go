package hook

import (
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/patch"
)

// codex speaks Codex's command hooks: PreToolUse for Bash, apply_patch (split into one
// call per file) and mcp__server__tool, and UserPromptSubmit.
//
// Codex lets a call through when a hook allows without rewriting it, asks, prints an
// empty reason or exits with any status but 0 and 2; so an allow is exit 0 with nothing
// on stdout, an ask is a deny whose reason says approval is needed, and every failure is
// a deny with a non-empty reason and exit 2.
type codex struct{}

func (codex) Agent() call.Agent { return call.Codex }

const (
	codexPreToolUse       = "PreToolUse"
	codexUserPromptSubmit = "UserPromptSubmit"
	codexApplyPatch       = "apply_patch"
)

func (codex) Parse(payload []byte, getenv func(string) string) (Event, error) {
	ev, sh, err := readClaudeShaped(payload, "Codex", []eventKind{
		{codexPreToolUse, PreTool}, {codexUserPromptSubmit, Prompt},
	})
	if err != nil || ev.Kind == Prompt {
		return ev, err
	}
	tool, input := sh.tool, sh.input
	project := projectDir(getenv("CODEX_PROJECT_DIR"))
	finish := func(c call.Call) call.Call {
		// Bash may say where it runs (workdir), relative to the session's directory.
		c.Agent, c.Cwd, c.Project, c.Session = call.Codex, within(ev.Cwd, c.Cwd), project, sh.session
		return c
	}
	if tool == codexApplyPatch {
		args, err := call.ReadArgs(call.Codex, codexApplyPatch, input)
		if err != nil {
			return ev, err
		}
		text, _ := args["command"].(string)
		// Codex's tool takes its own format only: a diff it would refuse is not read as one.
		changes, err := patch.ParseApplyPatch(text, ev.Cwd)
		if err != nil {
			return ev, err
		}
		for _, ch := range changes {
			for _, c := range patchCalls(ch) {
				ev.Calls = append(ev.Calls, finish(c))
			}
		}
		ev.Call = ev.Calls[0]
		return ev, nil
	}
	c, err := canonical(call.Codex, tool, input)
	if err != nil {
		return ev, err
	}
	ev.Call = finish(c)
	return ev, nil
}

// patchCalls turns one file's change into moat's calls: an added file is a write, an
// update an edit that puts in the added lines (and, when it moves the file, a write of
// the new path and a delete of the old), a deleted file a delete.
func patchCalls(ch patch.Change) []call.Call {
	mk := func(class call.Class, args map[string]any) call.Call {
		c, err := call.Canonicalize(call.Codex, string(class), args)
		if err != nil {
			// The class names are moat's own; Canonicalize accepts them with any args.
			c = call.Call{Class: class, Args: args}
		}
		c.Tool = codexApplyPatch
		return c
	}
	switch ch.Op {
	case patch.Add:
		return []call.Call{mk(call.FileWrite, map[string]any{call.ArgPath: ch.Path, call.ArgContent: ch.Added})}
	case patch.Delete:
		return []call.Call{mk(call.FileDelete, map[string]any{call.ArgPath: ch.Path})}
	}
	if ch.MoveTo == "" {
		return []call.Call{mk(call.FileEdit, map[string]any{call.ArgPath: ch.Path, call.ArgNew: ch.Added})}
	}
	return []call.Call{
		mk(call.FileWrite, map[string]any{call.ArgPath: ch.MoveTo, call.ArgContent: ch.Added}),
		mk(call.FileDelete, map[string]any{call.ArgPath: ch.Path}),
	}
}

// AskHolds: Codex takes no ask from a hook (it counts one as a failed hook and runs the
// call).
func (codex) AskHolds(Event) (bool, string) {
	return false, "Codex cannot put a hook's question to you"
}

// Render: Codex has no explicit allow without a rewrite of the call, so every call moat
// lets run is silence, and a notice for the user has no channel (a field Codex does not
// know would fail the hook, and a failed hook lets the call run).
func (cx codex) Render(ev Event, a Answer) Output {
	switch ev.Kind {
	case PreTool:
		if a = settleAsk(cx, ev, a); a.Verdict == call.Deny {
			return codexDeny(a.Reason)
		}
		return Output{}
	case Prompt:
		if a.Block {
			return Output{Stdout: mustJSON(map[string]any{"decision": "block", "reason": a.Reason})}
		}
		return Output{}
	}
	return cx.Fail(ev, "moat cannot answer this event", false)
}

// codexDeny is a PreToolUse deny; Codex ignores a deny without a reason, so there always
// is one.
func codexDeny(reason string) Output {
	if reason == "" {
		reason = "moat: denied"
	}
	return Output{Stdout: mustJSON(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName":            codexPreToolUse,
		"permissionDecision":       "deny",
		"permissionDecisionReason": reason,
	}})}
}

func (codex) Fail(ev Event, reason string, open bool) Output {
	if open {
		// Codex shows nothing a hook prints when it allows; the warning goes to stderr.
		return Output{Stderr: "moat: " + reason + "; the policy says fail: open, so this was not checked\n"}
	}
	msg := "moat: " + reason + "; failing closed"
	out := codexDeny(msg)
	if ev.Kind == Prompt {
		out.Stdout = mustJSON(map[string]any{"decision": "block", "reason": msg})
	}
	out.Stderr, out.Code = msg+"\n", 2
	return out
}
