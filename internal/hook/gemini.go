package hook

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/proc"
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
	// dir_path is relative to the session's directory, unless absolute.
	c.Cwd = within(ev.Cwd, c.Cwd)
	c.Project = projectDir(getenv("GEMINI_PROJECT_DIR"), getenv("CLAUDE_PROJECT_DIR"))
	c.Session = sh.session
	ev.Call = c
	return ev, nil
}

// AskHolds: Gemini CLI puts a hook's ask to the user even in its yolo mode. Run headless
// it leaves the call pending and tells the model nothing; its payload does not say
// which it is, so the hook command asks Headless, and the environment (NonInteractive).
func (geminiCLI) AskHolds(Event) (bool, string) { return true, "" }

// Headless reports why the Gemini CLI among a hook's ancestors runs without anyone to
// answer, or "" when it does not or no Gemini CLI is found. Gemini decides it so itself:
// headless with -p/--prompt, or when its standard input or output is not a terminal
// (CI=true, which it also honours, reaches the hook as its environment).
func (geminiCLI) Headless(ancestors []proc.Info) string {
	for _, p := range ancestors {
		script := slices.IndexFunc(p.Args, isGeminiScript)
		if script < 0 {
			continue
		}
		args := p.Args[script+1:]
		switch {
		case slices.ContainsFunc(args, func(a string) bool {
			return a == "-p" || a == "--prompt" || strings.HasPrefix(a, "--prompt=")
		}):
			return "Gemini CLI runs headless (-p), where it leaves an ask unanswered"
		case !p.StdinTTY || !p.StdoutTTY:
			return "Gemini CLI runs without a terminal, where it leaves an ask unanswered"
		}
		return ""
	}
	return ""
}

// isGeminiScript reports whether a command-line argument is Gemini CLI's program: the
// gemini command, or the script of the @google/gemini-cli package that node runs.
func isGeminiScript(arg string) bool {
	return filepath.Base(arg) == "gemini" || strings.Contains(arg, "/gemini-cli/")
}

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
