package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/moatdev/moat/internal/call"
)

// cursor speaks Cursor's agent hooks: beforeShellExecution, beforeMCPExecution,
// beforeReadFile, preToolUse and beforeSubmitPrompt.
//
// Cursor lets an action through when a hook crashes or prints no JSON unless the hook
// is configured failClosed, and exit status 2 blocks like a deny; so failures exit 2 with
// a deny on stdout. Messages are written in both spellings Cursor has documented
// (user_message and userMessage), since which one a given version reads is uncertain.
type cursor struct{}

func (cursor) Agent() call.Agent { return call.Cursor }

const (
	cursorShell   = "beforeShellExecution"
	cursorMCP     = "beforeMCPExecution"
	cursorRead    = "beforeReadFile"
	cursorPreTool = "preToolUse"
	cursorPrompt  = "beforeSubmitPrompt"
)

func (cursor) Parse(payload []byte, getenv func(string) string) (Event, error) {
	ev := Event{}
	m, name, err := readPayload(payload, "hook_event_name")
	if err != nil {
		return ev, err
	}
	ev.Name = name
	var roots []string
	if rs, ok := m["workspace_roots"].([]any); ok {
		for _, r := range rs {
			if s, ok := r.(string); ok {
				roots = append(roots, s)
			}
		}
	}
	project := projectDir(append([]string{getenv("CURSOR_PROJECT_DIR")}, roots...)...)
	switch cwd := m["cwd"].(type) {
	case nil:
	case string:
		// Left empty by events that do not run in a directory; a relative one would
		// have to be guessed.
		if cwd != "" && !filepath.IsAbs(cwd) {
			return ev, fmt.Errorf("%s payload: cwd %q is not absolute", name, cwd)
		}
		ev.Cwd = absDir(cwd)
	default:
		return ev, fmt.Errorf("%s payload: cwd is not a string", name)
	}
	if ev.Cwd == "" {
		ev.Cwd = project
	}

	var c call.Call
	switch ev.Name {
	case cursorPrompt:
		ev.Kind = Prompt
		prompt, ok := m["prompt"].(string)
		if !ok {
			return ev, errors.New("beforeSubmitPrompt payload without a prompt")
		}
		ev.Text = prompt
		return ev, nil
	case cursorShell:
		ev.Kind = PreTool
		command, ok := m["command"].(string)
		if !ok {
			return ev, errors.New("beforeShellExecution payload without a command")
		}
		args := map[string]any{"command": command}
		if ev.Cwd != "" {
			args["cwd"] = ev.Cwd
		}
		c, err = call.Canonicalize(call.Cursor, cursorShell, args)
	case cursorRead:
		ev.Kind = PreTool
		path, ok := m["file_path"].(string)
		if !ok {
			return ev, errors.New("beforeReadFile payload without a file_path")
		}
		// The file's content, which Cursor sends along, is not the call's argument.
		c, err = call.Canonicalize(call.Cursor, cursorRead, map[string]any{"file_path": path})
	case cursorMCP:
		ev.Kind = PreTool
		tool, _ := m["tool_name"].(string)
		var input map[string]any
		if input, err = mcpInput(m["tool_input"]); err != nil {
			return ev, err
		}
		c, err = call.Canonicalize(call.Cursor, cursorMCP, map[string]any{"tool_name": tool, "tool_input": input})
		if err == nil {
			// Rules name MCP tools by server; a call whose server cannot be named
			// would pass every rule about it.
			if c.MCP.Server = mcpServer(m); c.MCP.Server == "" {
				err = errors.New("beforeMCPExecution payload names no server (neither url nor command)")
			}
		}
	case cursorPreTool:
		ev.Kind = PreTool
		var tool string
		var input map[string]any
		if tool, input, err = toolFields(m, ev.Name); err != nil {
			return ev, err
		}
		c, err = canonical(call.Cursor, tool, input)
	default:
		return ev, fmt.Errorf("unknown Cursor hook event %q (moat handles beforeShellExecution, beforeMCPExecution, beforeReadFile, preToolUse and beforeSubmitPrompt)", ev.Name)
	}
	if err != nil {
		return ev, err
	}
	switch {
	case filepath.IsAbs(c.Cwd):
		ev.Cwd = filepath.Clean(c.Cwd)
	case c.Cwd != "":
		// Cursor sends absolute directories; a relative one would have to be guessed.
		return ev, fmt.Errorf("%s payload: working directory %q is not absolute", ev.Name, c.Cwd)
	}
	if ev.Cwd == "" {
		return ev, fmt.Errorf("%s payload without an absolute cwd or workspace root", ev.Name)
	}
	c.Cwd = ev.Cwd
	c.Project = project
	c.Session, _ = m["conversation_id"].(string)
	ev.Call = c
	return ev, nil
}

// mcpInput reads beforeMCPExecution's tool_input, documented as a JSON string holding an
// object and sometimes sent as the object itself.
func mcpInput(v any) (map[string]any, error) {
	switch v := v.(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		return v, nil
	case string:
		if strings.TrimSpace(v) == "" {
			return map[string]any{}, nil
		}
		in, err := decodeObject([]byte(v))
		if err != nil {
			return nil, fmt.Errorf("beforeMCPExecution tool_input: %w", err)
		}
		return in, nil
	}
	b, _ := json.Marshal(v)
	return nil, fmt.Errorf("beforeMCPExecution tool_input is neither an object nor a JSON string: %.80s", b)
}

// mcpServer names the server of a beforeMCPExecution call by what Cursor says of it: its
// URL, or the command that starts it.
func mcpServer(m map[string]any) string {
	if u, _ := m["url"].(string); u != "" {
		return u
	}
	c, _ := m["command"].(string)
	return c
}

// AskHolds: Cursor enforces an ask on beforeShellExecution and beforeMCPExecution;
// preToolUse and beforeReadFile accept one without asking anyone.
func (cursor) AskHolds(ev Event) (bool, string) {
	if ev.Name == cursorPreTool || ev.Name == cursorRead {
		return false, "Cursor does not ask the user on " + ev.Name
	}
	return true, ""
}

func (cu cursor) Render(ev Event, a Answer) Output {
	switch ev.Kind {
	case PreTool:
		a = settleAsk(cu, ev, a)
		out := map[string]any{}
		msg := a.Reason
		if a.deferred() {
			// No permission at all: Cursor's own settings decide.
			msg = ""
		} else {
			permission := "allow"
			switch a.Verdict {
			case call.Deny:
				permission = "deny"
			case call.Ask:
				permission = "ask"
			}
			out["permission"] = permission
		}
		return Output{Stdout: mustJSON(cursorMessage(out, joinNotice(a.Notice, msg)))}
	case Prompt:
		out := map[string]any{"continue": !a.Block}
		msg := a.Context
		if a.Block {
			msg = a.Reason
		}
		return Output{Stdout: mustJSON(cursorMessage(out, joinNotice(a.Notice, msg)))}
	}
	return cu.Fail(ev, "moat cannot answer this event", false)
}

// joinNotice puts a notice for the user before a message, in the one message field
// Cursor has.
func joinNotice(notice, msg string) string {
	switch {
	case notice == "":
		return msg
	case msg == "":
		return notice
	}
	return notice + "\n" + msg
}

// cursorMessage adds msg to out for the user and the agent, in both spellings.
func cursorMessage(out map[string]any, msg string) map[string]any {
	if msg != "" {
		out["user_message"], out["agent_message"] = msg, msg
		out["userMessage"], out["agentMessage"] = msg, msg
	}
	return out
}

func (cursor) Fail(ev Event, reason string, open bool) Output {
	if open {
		msg := "moat: " + reason + "; the policy says fail: open, so this was not checked"
		return Output{Stdout: mustJSON(cursorMessage(map[string]any{}, msg)), Stderr: msg + "\n"}
	}
	msg := "moat: " + reason + "; failing closed"
	out := map[string]any{"permission": "deny"}
	if ev.Kind == Prompt {
		out = map[string]any{"continue": false}
	}
	return Output{Stdout: mustJSON(cursorMessage(out, msg)), Stderr: msg + "\n", Code: 2}
}
