package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// canaryPolicy denies one harmless command by a rule of its own, so that an answer shows
// which policy decided it. The hooks only decide: nothing is run.
const canaryPolicy = "version: 1\npacks: [recommended]\nrules:\n  - id: project-canary\n    tool: shell\n    command: \"echo moat-canary\"\n    decision: deny\n"

// trustedProject writes policy as the project's moat.yaml and trusts it.
func trustedProject(t *testing.T, h *hookRun, policy string) string {
	t.Helper()
	file := filepath.Join(h.project, "moat.yaml")
	mustWriteFile(t, file, policy)
	if _, stderr, code := h.moat(t, "", "trust"); code != 0 {
		t.Fatalf("moat trust: %s", stderr)
	}
	return file
}

// TestChangedTrustedPolicyStaysInForce: once a trusted project policy is edited, the
// version the user trusted keeps deciding (a rule only it has still denies), never a
// fallback; without a kept copy of that version the hook fails closed.
func TestChangedTrustedPolicyStaysInForce(t *testing.T) {
	h := newHookRun(t)
	file := trustedProject(t, h, canaryPolicy)
	// The edit drops the rule and allows everything.
	mustWriteFile(t, file, "version: 1\ndefault: allow\n")
	canary := claudeEvent("default", "Bash", `{"command":"echo moat-canary"}`)

	stdout, stderr, code := h.run(t, canary, "claude-code")
	if code != 0 || !strings.Contains(stdout, `"permissionDecision":"deny"`) || !strings.Contains(stdout, "rule project-canary") {
		t.Errorf("the trusted version's rule no longer decides: exit %d %s %s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "moat keeps enforcing the version you trusted") {
		t.Errorf("no notice of the change: %s", stdout)
	}
	out, _, _ := h.moat(t, "", "status")
	if !strings.Contains(out, file+" (as you trusted it, sha256 ") || !strings.Contains(out, "changed since you trusted it; moat keeps enforcing the version you trusted") {
		t.Errorf("moat status does not say the trusted version is in force:\n%s", out)
	}
	if out, _, code := h.moat(t, "", "check", "--", "echo", "moat-canary"); code == 0 || !strings.Contains(out, "project-canary") {
		t.Errorf("moat check: exit %d\n%s", code, out)
	}

	// Without the copy of the trusted version, nothing is guessed: the hook fails closed.
	copies, err := filepath.Glob(filepath.Join(h.home, ".local", "state", "moat", "trusted", "*"))
	if err != nil || len(copies) != 1 {
		t.Fatalf("trusted copies: %v %v", copies, err)
	}
	if err := os.Remove(copies[0]); err != nil {
		t.Fatal(err)
	}
	stdout, _, code = h.run(t, claudeEvent("default", "Bash", `{"command":"go version"}`), "claude-code")
	if code != 2 || !strings.Contains(stdout, "no copy of the version you trusted") || !strings.Contains(stdout, "failing closed") {
		t.Errorf("missing trusted copy: exit %d %s", code, stdout)
	}
}

// TestCallOutsideProjectKeepsProjectPolicy: a call whose directory is outside the
// repository (cd /tmp, Cursor's working_directory, Windsurf's cwd) is still decided by the
// session project's trusted policy.
func TestCallOutsideProjectKeepsProjectPolicy(t *testing.T) {
	h := newHookRun(t)
	trustedProject(t, h, canaryPolicy)
	outside := t.TempDir()
	expand := func(s string) string { return strings.ReplaceAll(s, "$OUTSIDE", outside) }
	tests := []struct {
		name, agent, payload string
		env                  []string
		denied               func(string, int) bool
	}{
		{"Claude Code after cd, with CLAUDE_PROJECT_DIR", "claude-code",
			`{"session_id":"s","cwd":"$OUTSIDE","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"echo moat-canary"}}`,
			[]string{"CLAUDE_PROJECT_DIR=$PROJECT"}, jsonDeny(`"permissionDecision":"deny"`)},
		{"Cursor preToolUse with working_directory outside", "cursor",
			`{"conversation_id":"c","hook_event_name":"preToolUse","tool_name":"Shell","tool_input":{"command":"echo moat-canary","working_directory":"$OUTSIDE"},"cwd":"$OUTSIDE","workspace_roots":["$PROJECT"]}`,
			nil, jsonDeny(`"permission":"deny"`)},
		{"Cursor beforeShellExecution with cwd outside", "cursor",
			`{"conversation_id":"c","hook_event_name":"beforeShellExecution","command":"echo moat-canary","cwd":"$OUTSIDE","workspace_roots":["$PROJECT"]}`,
			nil, jsonDeny(`"permission":"deny"`)},
		{"Windsurf pre_run_command with cwd outside", "windsurf",
			`{"trajectory_id":"t","agent_action_name":"pre_run_command","tool_info":{"command_line":"echo moat-canary","cwd":"$OUTSIDE"}}`,
			nil, func(out string, code int) bool { return code == 2 }},
		{"Gemini CLI with GEMINI_PROJECT_DIR", "gemini-cli",
			`{"session_id":"s","cwd":"$OUTSIDE","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"echo moat-canary"}}`,
			[]string{"GEMINI_PROJECT_DIR=$PROJECT"}, jsonDeny(`"decision":"deny"`)},
		{"Codex with CODEX_PROJECT_DIR", "codex",
			`{"session_id":"s","cwd":"$OUTSIDE","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"echo moat-canary"}}`,
			[]string{"CODEX_PROJECT_DIR=$PROJECT"}, jsonDeny(`"permissionDecision":"deny"`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			saved := h.env
			defer func() { h.env = saved }()
			h.env = append([]string(nil), h.env...)
			for _, e := range tt.env {
				h.env = append(h.env, h.expand(e))
			}
			stdout, stderr, code := h.run(t, expand(tt.payload), tt.agent)
			if !tt.denied(stdout, code) || !strings.Contains(stdout+stderr, "rule project-canary") {
				t.Errorf("not decided by the project's policy: exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
		})
	}
	// The control: without a project directory, a call outside is not the project's.
	stdout, _, _ := h.run(t, expand(`{"session_id":"s","cwd":"$OUTSIDE","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"echo moat-canary"}}`), "claude-code")
	if strings.Contains(stdout, "project-canary") {
		t.Errorf("without CLAUDE_PROJECT_DIR the call outside was decided by the project's policy: %s", stdout)
	}
}

func jsonDeny(field string) func(string, int) bool {
	return func(out string, _ int) bool { return strings.Contains(out, field) }
}

// TestSymlinkedPolicyDoesNotBorrowTrust: a moat.yaml that links into another, trusted
// project is not trusted through the link, and `moat trust` refuses it.
func TestSymlinkedPolicyDoesNotBorrowTrust(t *testing.T) {
	h := newHookRun(t)
	other := filepath.Join(h.home, "other")
	mustWriteFile(t, filepath.Join(other, ".git", "HEAD"), "ref: x\n")
	otherPolicy := filepath.Join(other, "moat.yaml")
	mustWriteFile(t, otherPolicy, canaryPolicy)
	if _, stderr, code := h.moat(t, "", "trust", otherPolicy); code != 0 {
		t.Fatalf("moat trust %s: %s", otherPolicy, stderr)
	}
	link := filepath.Join(h.project, "moat.yaml")
	if err := os.Symlink(otherPolicy, link); err != nil {
		t.Fatal(err)
	}
	stdout, _, _ := h.run(t, claudeEvent("default", "Bash", `{"command":"echo moat-canary"}`), "claude-code")
	if strings.Contains(stdout, "project-canary") {
		t.Errorf("the link borrowed the other project's trust: %s", stdout)
	}
	if !strings.Contains(stdout, "outside the repository") {
		t.Errorf("no notice about the link: %s", stdout)
	}
	_, stderr, code := h.moat(t, "", "trust")
	if code != 1 || !strings.Contains(stderr, "not trusting "+link+": it is a symbolic link to "+otherPolicy+", outside the repository") {
		t.Errorf("moat trust of the link: exit %d, %s", code, stderr)
	}
}

// TestNonRegularUserPolicyDenies: a dangling link, a device or a directory in place of the
// user policy is a failure every agent's hook answers closed, never the embedded policy.
func TestNonRegularUserPolicyDenies(t *testing.T) {
	kinds := []struct {
		name  string
		make  func(path string) error
		inErr string
	}{
		{"dangling link", func(p string) error { return os.Symlink(p+".moved", p) }, "which does not exist"},
		{"device", func(p string) error { return os.Symlink(os.DevNull, p) }, "device"},
		{"directory", func(p string) error { return os.Mkdir(p, 0o700) }, "directory"},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			h := newHookRun(t)
			user := filepath.Join(h.home, ".config", "moat", "moat.yaml")
			if err := os.MkdirAll(filepath.Dir(user), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := k.make(user); err != nil {
				t.Fatal(err)
			}
			// A call the embedded policy would let run: only the failure blocks it.
			stdout, stderr, code := h.run(t, claudeEvent("default", "Bash", `{"command":"go version"}`), "claude-code")
			if code != 2 || !strings.Contains(stdout, `"permissionDecision":"deny"`) || !strings.Contains(stdout, "cannot load the policy") || !strings.Contains(stdout, k.inErr) {
				t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
			if _, stderr, code := h.moat(t, "", "validate"); code != 1 || !strings.Contains(stderr, k.inErr) {
				t.Errorf("moat validate: exit %d, %s", code, stderr)
			}
		})
	}
}
