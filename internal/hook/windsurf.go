package hook

import (
	"errors"
	"fmt"
	"strings"

	"github.com/moatdev/moat/internal/call"
)

// windsurf speaks Windsurf's Cascade hooks: pre_run_command, pre_read_code,
// pre_write_code, pre_mcp_tool_use and pre_user_prompt.
//
// Windsurf reads no decision from a hook: only exit status 2 blocks, with stderr shown to
// the agent, and every other status (a crash included) lets the action run. So a block,
// an ask (Windsurf cannot ask the user) and every failure exit 2 with the reason.
type windsurf struct{}

func (windsurf) Agent() call.Agent { return call.Windsurf }

const windsurfUserPrompt = "pre_user_prompt"

func (windsurf) Parse(payload []byte, getenv func(string) string) (Event, error) {
	ev := Event{}
	m, name, err := readPayload(payload, "agent_action_name")
	if err != nil {
		return ev, err
	}
	ev.Name = name
	info, infoOK := m["tool_info"].(map[string]any)
	switch {
	case ev.Name == windsurfUserPrompt:
		ev.Kind = Prompt
		prompt, ok := info["user_prompt"].(string)
		if !ok {
			return ev, errors.New("pre_user_prompt payload without tool_info.user_prompt")
		}
		ev.Text = prompt
		return ev, nil
	case strings.HasPrefix(ev.Name, "pre_"):
		ev.Kind = PreTool
	default:
		return ev, fmt.Errorf("unknown Windsurf hook event %q (moat handles pre_run_command, pre_read_code, pre_write_code, pre_mcp_tool_use and pre_user_prompt)", ev.Name)
	}
	if !infoOK {
		return ev, fmt.Errorf("%s payload: tool_info is not an object", ev.Name)
	}
	if _, known := call.LookupTool(call.Windsurf, ev.Name); !known {
		return ev, fmt.Errorf("unknown Windsurf hook event %q (moat handles pre_run_command, pre_read_code, pre_write_code, pre_mcp_tool_use and pre_user_prompt)", ev.Name)
	}
	c, err := call.Canonicalize(call.Windsurf, ev.Name, info)
	if err != nil {
		return ev, err
	}
	// Only pre_run_command says where it runs; the other events are about absolute
	// paths, and the hook runs in the workspace.
	ev.Cwd = absDir(c.Cwd)
	if c.Class == call.Shell && ev.Cwd == "" {
		return ev, fmt.Errorf("%s payload: tool_info.cwd %q is not an absolute directory", ev.Name, c.Cwd)
	}
	c.Cwd = ev.Cwd
	c.Session, _ = m["trajectory_id"].(string)
	ev.Call = c
	return ev, nil
}

// AskHolds: Windsurf reads no decision from a hook, only exit status 2.
func (windsurf) AskHolds(Event) (bool, string) {
	return false, "Windsurf cannot put a hook's question to you"
}

func (w windsurf) Render(ev Event, a Answer) Output {
	var out Output
	if a.Notice != "" {
		// stdout reaches the user's output panel (show_output), never the model.
		out.Stdout = []byte(a.Notice + "\n")
	}
	switch ev.Kind {
	case PreTool:
		if a = settleAsk(w, ev, a); a.Verdict == call.Deny {
			out.Stderr, out.Code = a.Reason+"\n", 2
		}
		return out
	case Prompt:
		if a.Block {
			out.Stderr, out.Code = a.Reason+"\n", 2
			return out
		}
		if a.Context != "" {
			// Windsurf has no channel to the model but stderr, which it shows only on a
			// block; the warning goes to the user's output panel.
			out.Stdout = append(out.Stdout, a.Context+"\n"...)
		}
		return out
	}
	return w.Fail(ev, "moat cannot answer this event", false)
}

func (windsurf) Fail(ev Event, reason string, open bool) Output {
	if open {
		msg := "moat: " + reason + "; the policy says fail: open, so this was not checked"
		return Output{Stdout: []byte(msg + "\n"), Stderr: msg + "\n"}
	}
	return Output{Stderr: "moat: " + reason + "; failing closed\n", Code: 2}
}
