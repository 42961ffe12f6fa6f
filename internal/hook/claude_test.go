package hook

import (
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/call"
)

func noEnv(string) string { return "" }

func TestClaudeParse(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		env     map[string]string
		kind    Kind
		class   call.Class
		tool    string
		text    string
		project string
		err     string
	}{
		{name: "Bash", payload: `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls","timeout":120000}}`, kind: PreTool, class: call.Shell, tool: "Bash"},
		{name: "Edit", payload: `{"cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":"/w/a.go","old_string":"x","new_string":"y"}}`, kind: PreTool, class: call.FileEdit, tool: "Edit"},
		{name: "NotebookEdit", payload: `{"cwd":"/w","hook_event_name":"PreToolUse","tool_name":"NotebookEdit","tool_input":{"notebook_path":"/w/n.ipynb","new_source":"x"}}`, kind: PreTool, class: call.FileEdit, tool: "NotebookEdit"},
		{name: "MCP", payload: `{"cwd":"/w","hook_event_name":"PreToolUse","tool_name":"mcp__github__create_issue","tool_input":{"title":"t"}}`, kind: PreTool, class: call.MCP, tool: "mcp__github__create_issue"},
		{name: "unknown tool by native name", payload: `{"cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Workflow","tool_input":{}}`, kind: PreTool, class: call.Other, tool: "Workflow"},
		{name: "project from the environment", payload: `{"cwd":"/w/sub","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, env: map[string]string{"CLAUDE_PROJECT_DIR": "/w"}, kind: PreTool, class: call.Shell, tool: "Bash", project: "/w"},
		{name: "relative project ignored", payload: `{"cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, env: map[string]string{"CLAUDE_PROJECT_DIR": "w"}, kind: PreTool, class: call.Shell, tool: "Bash"},
		{name: "PostToolUse text result", payload: `{"cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"/w/a"},"tool_response":"hello"}`, kind: PostTool, class: call.FileRead, tool: "Read", text: "hello"},
		{name: "PostToolUse object result", payload: `{"cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":{"stdout":"a"}}`, kind: PostTool, class: call.Shell, tool: "Bash", text: `{"stdout":"a"}`},
		{name: "UserPromptSubmit", payload: `{"cwd":"/w","hook_event_name":"UserPromptSubmit","prompt":"hi"}`, kind: Prompt, text: "hi"},
		{name: "unknown fields are ignored", payload: `{"cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"effort":{"level":"high"},"new_field":[1]}`, kind: PreTool, class: call.Shell, tool: "Bash"},

		{name: "not JSON", payload: `rm -rf /`, err: "malformed hook payload"},
		{name: "two values", payload: `{"hook_event_name":"PreToolUse"} {}`, err: "more than one JSON value"},
		{name: "array", payload: `[]`, err: "malformed hook payload"},
		{name: "null", payload: `null`, err: "not a JSON object"},
		{name: "no event", payload: `{"cwd":"/w"}`, err: "without hook_event_name"},
		{name: "unknown event", payload: `{"cwd":"/w","hook_event_name":"Stop"}`, err: `unknown Claude Code hook event "Stop"`},
		{name: "relative cwd", payload: `{"cwd":"w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, kind: PreTool, err: "without an absolute cwd"},
		{name: "no tool name", payload: `{"cwd":"/w","hook_event_name":"PreToolUse","tool_input":{}}`, kind: PreTool, err: "without tool_name"},
		{name: "tool_input a string", payload: `{"cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":"ls"}`, kind: PreTool, err: "is not an object"},
		{name: "prompt missing", payload: `{"cwd":"/w","hook_event_name":"UserPromptSubmit"}`, kind: Prompt, err: "without a prompt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := noEnv
			if tt.env != nil {
				getenv = func(k string) string { return tt.env[k] }
			}
			ev, err := claudeCode{}.Parse([]byte(tt.payload), getenv)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				if ev.Kind != tt.kind {
					t.Errorf("kind %v, want %v (so that Fail answers in the event's shape)", ev.Kind, tt.kind)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ev.Kind != tt.kind || ev.Text != tt.text {
				t.Errorf("kind %v text %q, want %v %q", ev.Kind, ev.Text, tt.kind, tt.text)
			}
			if tt.kind == Prompt {
				return
			}
			if ev.Call.Class != tt.class || ev.Call.Tool != tt.tool || ev.Call.Agent != call.ClaudeCode || ev.Call.Cwd != ev.Cwd || ev.Call.Project != tt.project {
				t.Errorf("call %+v, want class %s tool %s project %q", ev.Call, tt.class, tt.tool, tt.project)
			}
		})
	}
}

func TestClaudeParseOversized(t *testing.T) {
	_, err := claudeCode{}.Parse(make([]byte, MaxPayload+1), noEnv)
	if err == nil || !strings.Contains(err.Error(), "at most") {
		t.Fatalf("error %v", err)
	}
}

func TestClaudeRenderAndFail(t *testing.T) {
	pre := Event{Kind: PreTool, Name: "PreToolUse", Mode: "default"}
	post := Event{Kind: PostTool, Name: "PostToolUse"}
	prompt := Event{Kind: Prompt, Name: "UserPromptSubmit"}
	tests := []struct {
		name   string
		out    Output
		stdout string
		stderr string
		code   int
	}{
		{"allow", claudeCode{}.Render(pre, Answer{Verdict: call.Allow, Reason: "r"}), `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"r"}}`, "", 0},
		{"audit is allow", claudeCode{}.Render(pre, Answer{Verdict: call.Audit, Reason: "r"}), `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"r"}}`, "", 0},
		{"ask", claudeCode{}.Render(pre, Answer{Verdict: call.Ask, Reason: "r"}), `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"r"}}`, "", 0},
		{"deny", claudeCode{}.Render(pre, Answer{Verdict: call.Deny, Reason: "<r>"}), `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"<r>"}}`, "", 0},
		{"post warning", claudeCode{}.Render(post, Answer{Context: "c"}), `{"hookSpecificOutput":{"additionalContext":"c","hookEventName":"PostToolUse"}}`, "", 0},
		{"post quiet", claudeCode{}.Render(post, Answer{}), "", "", 0},
		{"prompt block", claudeCode{}.Render(prompt, Answer{Block: true, Reason: "r"}), `{"decision":"block","reason":"r"}`, "", 0},
		{"fail closed before a tool", claudeCode{}.Fail(pre, "x", false), `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"moat: x; failing closed"}}`, "moat: x; failing closed\n", 2},
		{"fail closed on an unreadable event", claudeCode{}.Fail(Event{}, "x", false), `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"moat: x; failing closed"}}`, "moat: x; failing closed\n", 2},
		{"fail closed after a tool", claudeCode{}.Fail(post, "x", false), `{"decision":"block","reason":"moat: x; failing closed"}`, "moat: x; failing closed\n", 2},
		{"fail open", claudeCode{}.Fail(pre, "x", true), `{"systemMessage":"moat: x; the policy says fail: open, so this was not checked"}`, "moat: x; the policy says fail: open, so this was not checked\n", 0},
	}
	for _, tt := range tests {
		stdout := strings.TrimSuffix(string(tt.out.Stdout), "\n")
		if stdout != tt.stdout || tt.out.Stderr != tt.stderr || tt.out.Code != tt.code {
			t.Errorf("%s: got %q %q %d, want %q %q %d", tt.name, stdout, tt.out.Stderr, tt.out.Code, tt.stdout, tt.stderr, tt.code)
		}
	}
}

func TestForAgent(t *testing.T) {
	if a, ok := ForAgent("claude-code"); !ok || a.Agent() != call.ClaudeCode {
		t.Errorf("ForAgent(claude-code) = %v, %v", a, ok)
	}
	for _, name := range []string{"", "claude", "aider"} {
		if _, ok := ForAgent(name); ok {
			t.Errorf("ForAgent(%q) found an adapter", name)
		}
	}
}

// FuzzParse checks, for every agent, that no payload makes Parse panic, that a tool
// event it accepts has calls whose working directory is absolute when known and whose
// targets (command, path, URL, MCP tool) were read, and that whatever was read can be
// answered with a block. Seeds include every native tool of the table, as its agent sends
// it, with its targets of every shape.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`,
		`{"cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"/w/a"},"tool_response":{"x":[1,2]}}`,
		`{"cwd":"/w","hook_event_name":"UserPromptSubmit","prompt":"hi"}`,
		`{"cwd":"/w","hook_event_name":"PreToolUse","tool_name":"mcp__a__b","tool_input":{"n":1e400}}`,
		`{"hook_event_name":"beforeShellExecution","command":"ls","cwd":"/w","workspace_roots":["/w"]}`,
		`{"hook_event_name":"beforeMCPExecution","tool_name":"t","tool_input":"{\"a\":1}","url":"https://m"}`,
		`{"hook_event_name":"preToolUse","tool_name":"MCP:x","tool_input":{},"cwd":"/w"}`,
		`{"agent_action_name":"pre_run_command","tool_info":{"command_line":"ls","cwd":"/w"}}`,
		`{"agent_action_name":"pre_mcp_tool_use","tool_info":{"mcp_server_name":"s","mcp_tool_name":"t","mcp_tool_arguments":{}}}`,
		`{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":"mcp_a_b","tool_input":{},"mcp_context":{"server_name":"a"}}`,
		`{"hook_event_name":"PreToolUse","hook_event_name":"Stop"}`,
		`{"cwd":"/w","hook_event_name":"PreToolUse","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Add File: a\n+x\n*** End Patch"}}`,
		`[]`, `null`, `{}`, ``,
	} {
		f.Add(seed)
	}
	for _, seed := range argSeeds() {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, payload string) {
		for _, ad := range Adapters {
			ev, err := ad.Parse([]byte(payload), noEnv)
			if err == nil && ev.Kind == PreTool {
				for _, c := range ev.ToolCalls() {
					if c.Cwd != "" && c.Cwd[0] != '/' {
						t.Fatalf("%s accepted a tool event with a relative cwd: %+v", ad.Agent(), ev)
					}
					if why := readTargets(c); why != "" {
						t.Fatalf("%s accepted %s: %+v", ad.Agent(), why, c)
					}
				}
			}
			out := ad.Fail(ev, "x", false)
			if out.Code != 2 && !strings.Contains(string(out.Stdout), `"deny"`) {
				t.Fatalf("%s: Fail did not block: %+v", ad.Agent(), out)
			}
		}
	})
}
