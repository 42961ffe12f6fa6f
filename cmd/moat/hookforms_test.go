package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// claudeEvent is a Claude Code PreToolUse event in permission mode mode.
func claudeEvent(mode, tool, input string) string {
	return `{"session_id":"s1","transcript_path":"/tmp/t.jsonl","cwd":"$PROJECT","permission_mode":"` + mode + `","hook_event_name":"PreToolUse","tool_name":"` + tool + `","tool_input":` + input + `}`
}

// TestHookAnswerForms runs the hooks in the modes and environments that decide the form
// of an answer: an ask reaches Claude Code only in its default and plan modes and no
// agent in a non-interactive run; an allow is silence unless the policy says explicit.
func TestHookAnswerForms(t *testing.T) {
	h := newHookRun(t)
	gitHook := `{"file_path":"$PROJECT/.git/hooks/pre-commit","content":"#!/bin/sh\n"}`
	tests := []struct {
		name, agent, payload string
		env                  []string
		wantDecision         string // the decision the agent reads, "" for silence
		wantInReason         string
	}{
		{"Claude Code default mode: ask", "claude-code", claudeEvent("default", "Write", gitHook), nil, `"permissionDecision":"ask"`, ""},
		{"Claude Code plan mode: ask", "claude-code", claudeEvent("plan", "Write", gitHook), nil, `"permissionDecision":"ask"`, ""},
		{"Claude Code bypassPermissions: deny", "claude-code", claudeEvent("bypassPermissions", "Write", gitHook), nil, `"permissionDecision":"deny"`, "bypassPermissions permission mode"},
		{"Claude Code dontAsk: deny", "claude-code", claudeEvent("dontAsk", "Write", gitHook), nil, `"permissionDecision":"deny"`, "dontAsk permission mode"},
		{"Claude Code acceptEdits: deny", "claude-code", claudeEvent("acceptEdits", "Write", gitHook), nil, `"permissionDecision":"deny"`, "acceptEdits permission mode"},
		{"Claude Code under CI: deny", "claude-code", claudeEvent("default", "Write", gitHook), []string{"CI=true"}, `"permissionDecision":"deny"`, "CI is set"},
		{"MOAT_NONINTERACTIVE=0 overrides CI", "claude-code", claudeEvent("default", "Write", gitHook), []string{"CI=true", "MOAT_NONINTERACTIVE=0"}, `"permissionDecision":"ask"`, ""},
		{"Gemini CLI: ask", "gemini-cli", `{"session_id":"s","cwd":"$PROJECT","hook_event_name":"BeforeTool","tool_name":"write_file","tool_input":` + gitHook + `}`, nil, `"decision":"ask"`, ""},
		{"headless Gemini CLI (CI=true): deny with the reason", "gemini-cli", `{"session_id":"s","cwd":"$PROJECT","hook_event_name":"BeforeTool","tool_name":"write_file","tool_input":` + gitHook + `}`, []string{"CI=true"}, `"decision":"deny"`, "It waits for the user's approval"},
		{"MOAT_NONINTERACTIVE=1: deny", "gemini-cli", `{"session_id":"s","cwd":"$PROJECT","hook_event_name":"BeforeTool","tool_name":"write_file","tool_input":` + gitHook + `}`, []string{"MOAT_NONINTERACTIVE=1"}, `"decision":"deny"`, "MOAT_NONINTERACTIVE is set"},
		{"Claude Code, no rule matched: silence", "claude-code", claudeEvent("default", "Write", `{"file_path":"$HOME/Documents/notes.txt","content":"x"}`), nil, "", ""},
		{"Claude Code bypass, no rule matched: silence", "claude-code", claudeEvent("bypassPermissions", "Bash", `{"command":"go version"}`), nil, "", ""},
		{"Gemini CLI, no rule matched: silence", "gemini-cli", `{"session_id":"s","cwd":"$PROJECT","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"go version"}}`, nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			saved := h.env
			h.env = append(append([]string(nil), h.env...), tt.env...)
			defer func() { h.env = saved }()
			stdout, stderr, code := h.run(t, tt.payload, tt.agent)
			if code != 0 {
				t.Fatalf("exit %d; stderr %s", code, stderr)
			}
			if tt.wantDecision == "" {
				if stdout != "" {
					t.Errorf("want silence (the agent's own permissions decide), got %s", stdout)
				}
				return
			}
			if !strings.Contains(stdout, tt.wantDecision) || !strings.Contains(stdout, tt.wantInReason) {
				t.Errorf("want %s with %q in the reason, got %s", tt.wantDecision, tt.wantInReason, stdout)
			}
		})
	}
}

// TestHookAllowExplicit: under hooks.allow: explicit, a call an allow rule matched is
// answered allow, and one only the default allowed is still silence.
func TestHookAllowExplicit(t *testing.T) {
	h := newHookRun(t)
	policy := filepath.Join(h.home, "explicit.yaml")
	mustWriteFile(t, policy, "version: 1\ndefault: allow\nhooks: {allow: explicit}\nrules:\n  - id: allow-go\n    tool: shell\n    command: \"go *\"\n    decision: allow\n")
	h.env = append(h.env, "MOAT_POLICY="+policy)
	stdout, _, _ := h.run(t, claudeEvent("default", "Bash", `{"command":"go version"}`), "claude-code")
	if !strings.Contains(stdout, `"permissionDecision":"allow"`) || !strings.Contains(stdout, "rule allow-go") {
		t.Errorf("allow rule under hooks.allow: explicit: %s", stdout)
	}
	if stdout, _, _ := h.run(t, claudeEvent("default", "Bash", `{"command":"make"}`), "claude-code"); stdout != "" {
		t.Errorf("default allow under hooks.allow: explicit: want silence, got %s", stdout)
	}
}

// TestHookFailuresRecorded: a failure blocks and is recorded as one, with the reason,
// agent and event, and moat logs --failures finds it.
func TestHookFailuresRecorded(t *testing.T) {
	h := newHookRun(t)
	if _, _, code := h.run(t, `{"hook_event_name":"PreToolUse","tool_name":`, "claude-code"); code != 2 {
		t.Fatalf("malformed event: exit %d, want 2", code)
	}
	broken := filepath.Join(h.home, "broken.yaml")
	mustWriteFile(t, broken, "version: 1\ndefault: sometimes\n")
	saved := h.env
	h.env = append(append([]string(nil), h.env...), "MOAT_POLICY="+broken)
	stdout, _, _ := h.run(t, `{"session_id":"s","cwd":"$PROJECT","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`, "gemini-cli")
	h.env = saved
	if !strings.Contains(stdout, `"decision":"deny"`) {
		t.Fatalf("invalid policy: %s", stdout)
	}
	// A decision that is no failure is not listed.
	h.run(t, claudeEvent("default", "Bash", `{"command":"go version"}`), "claude-code")

	out, stderr, code := h.moat(t, "", "logs", "--failures", "--json")
	if code != 0 {
		t.Fatalf("moat logs --failures: exit %d: %s", code, stderr)
	}
	var recs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%v: %q", err, line)
		}
		recs = append(recs, r)
	}
	if len(recs) != 2 {
		t.Fatalf("want 2 failure records, got %d:\n%s", len(recs), out)
	}
	want := []struct{ agent, event, reason string }{
		{"claude-code", "", "malformed hook payload"},
		{"gemini-cli", "BeforeTool", "cannot load the policy"},
	}
	for i, w := range want {
		r := recs[i]
		if r["failure"] != true || r["decision"] != "deny" || r["rule"] != "fail-closed" || r["agent"] != w.agent ||
			(w.event != "" && r["event"] != w.event) || !strings.Contains(r["reason"].(string), w.reason) {
			t.Errorf("record %d: %v; want a fail-closed deny of %s with %q", i, r, w.agent, w.reason)
		}
	}
}

// TestIgnoredProjectPolicyIsLoud: an edit to a trusted moat.yaml leaves the version the
// user trusted in force; the user hears it once per change through the agent, and
// validate, test and trust --diff say it too.
func TestIgnoredProjectPolicyIsLoud(t *testing.T) {
	h := newHookRun(t)
	file := filepath.Join(h.project, "moat.yaml")
	mustWriteFile(t, file, "version: 1\ndefault: ask\n")
	if _, stderr, code := h.moat(t, "", "trust"); code != 0 {
		t.Fatalf("moat trust: %s", stderr)
	}
	call := claudeEvent("default", "Bash", `{"command":"go version"}`)
	if stdout, _, _ := h.run(t, call, "claude-code"); strings.Contains(stdout, "systemMessage") {
		t.Fatalf("trusted policy: unexpected notice %s", stdout)
	}
	mustWriteFile(t, file, "version: 1\ndefault: ask\nrules:\n  - id: allow-go\n    tool: shell\n    command: \"go *\"\n    decision: allow\n")

	stdout, _, _ := h.run(t, call, "claude-code")
	if !strings.Contains(stdout, `"systemMessage":"moat: project policy `+file+` changed since you trusted it; moat keeps enforcing the version you trusted`) {
		t.Errorf("first call after the edit: want a notice for the user, got %s", stdout)
	}
	if !strings.Contains(stdout, `"permissionDecision":"ask"`) || !strings.Contains(stdout, "rule default") {
		t.Errorf("first call after the edit: want the trusted version's ask, got %s", stdout)
	}
	if stdout, _, _ := h.run(t, call, "claude-code"); strings.Contains(stdout, "systemMessage") {
		t.Errorf("second call: the notice is given once per change, got %s", stdout)
	}
	for _, args := range [][]string{{"validate"}, {"test"}} {
		_, stderr, _ := h.moat(t, "", args...)
		if !strings.Contains(stderr, "the hooks do not use this file as it is now: project policy "+file+" changed since you trusted it; moat keeps enforcing the version you trusted") {
			t.Errorf("moat %s: stderr %q does not say the hooks keep the trusted version", args[0], stderr)
		}
	}
	out, _, code := h.moat(t, "", "trust", "--diff")
	if code != 1 || !strings.Contains(out, "+  - id: allow-go") || !strings.Contains(out, "(trusted)") {
		t.Errorf("moat trust --diff: exit %d\n%s", code, out)
	}
	if out, _, code := h.moat(t, "", "trust"); code != 0 || !strings.Contains(out, "+  - id: allow-go") {
		t.Errorf("moat trust of a changed file shows the change first: exit %d\n%s", code, out)
	}
	if out, _, code := h.moat(t, "", "trust", "--diff"); code != 0 || !strings.Contains(out, "trusted as it is") {
		t.Errorf("moat trust --diff after trusting: exit %d\n%s", code, out)
	}
	// A further change is a new notice.
	mustWriteFile(t, file, "version: 1\ndefault: deny\n")
	if stdout, _, _ := h.run(t, call, "claude-code"); !strings.Contains(stdout, "systemMessage") {
		t.Errorf("after a second change: want a new notice, got %s", stdout)
	}
}

func mustWriteFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestMCPHookRecordsNameTheTool: every agent's MCP event is recorded with its server and
// tool, whatever the agent calls the event, and moat logs --tool finds them by it.
func TestMCPHookRecordsNameTheTool(t *testing.T) {
	h := newHookRun(t)
	events := []struct{ agent, payload string }{
		{"claude-code", claudeEvent("default", "mcp__github__create_issue", `{"title":"t"}`)},
		{"cursor", `{"hook_event_name":"beforeMCPExecution","tool_name":"create_issue","tool_input":"{\"title\":\"t\"}","command":"github","cwd":"$PROJECT","workspace_roots":["$PROJECT"]}`},
		{"windsurf", `{"agent_action_name":"pre_mcp_tool_use","tool_info":{"mcp_server_name":"github","mcp_tool_name":"create_issue","mcp_tool_arguments":{"title":"t"}}}`},
		{"gemini-cli", `{"session_id":"s","cwd":"$PROJECT","hook_event_name":"BeforeTool","tool_name":"mcp_github_create_issue","tool_input":{"title":"t"},"mcp_context":{"server_name":"github","tool_name":"create_issue"}}`},
		{"codex", `{"session_id":"s","cwd":"$PROJECT","hook_event_name":"PreToolUse","tool_name":"mcp__github__create_issue","tool_input":{"title":"t"}}`},
	}
	for _, e := range events {
		if _, stderr, code := h.run(t, e.payload, e.agent); code != 0 {
			t.Fatalf("%s: exit %d: %s", e.agent, code, stderr)
		}
	}
	out, stderr, code := h.moat(t, "", "logs", "--json", "--tool", "mcp:github/create_issue")
	if code != 0 {
		t.Fatalf("moat logs: %s", stderr)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r struct{ Agent, MCP string }
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%v: %q", err, line)
		}
		if r.MCP != "mcp:github/create_issue" {
			t.Errorf("%s: mcp %q", r.Agent, r.MCP)
		}
		seen[r.Agent] = true
	}
	for _, e := range events {
		if !seen[e.agent] {
			t.Errorf("no record of %s's MCP call names the tool:\n%s", e.agent, out)
		}
	}
}
