package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/approval"
	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/proc"
)

// approvalApp is an app in a fresh HOME, deciding without a daemon, with a clock the
// test moves.
func approvalApp(t *testing.T) (*app, *bytes.Buffer, *bytes.Buffer, *time.Time, string) {
	t.Helper()
	home := t.TempDir()
	project := filepath.Join(home, "proj")
	if err := os.MkdirAll(filepath.Join(project, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	var stdout, stderr bytes.Buffer
	env := Env{
		Stdout: &stdout, Stderr: &stderr,
		Getenv: func(k string) string {
			switch k {
			case "HOME":
				return home
			case envDaemon:
				return "off"
			}
			return ""
		},
		Getwd:      func() (string, error) { return project, nil },
		Now:        func() time.Time { return now },
		Executable: func() (string, error) { return filepath.Join(home, "bin", "moat"), nil },
	}
	return &app{env: env}, &stdout, &stderr, &now, project
}

// codexHook runs moat hook codex on a Codex PreToolUse event running command, and
// returns the permission decision and its reason ("" when moat deferred).
func codexHook(t *testing.T, a *app, stdout *bytes.Buffer, project, command string) (string, string) {
	t.Helper()
	stdout.Reset()
	ev, _ := json.Marshal(map[string]any{
		"session_id": "thr_1", "turn_id": "t1", "cwd": project, "model": "gpt-5", "permission_mode": "default",
		"tool_use_id": "call_1", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": command},
	})
	env := a.env
	env.Stdin = strings.NewReader(string(ev))
	if code := Main([]string{"hook", "codex"}, env); code != 0 {
		t.Fatalf("moat hook codex: exit %d", code)
	}
	if stdout.String() == "" {
		return "", ""
	}
	var out struct {
		HookSpecificOutput struct {
			PermissionDecision       string `json:"permissionDecision"`
			PermissionDecisionReason string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(stdout.String()), &out); err != nil {
		t.Fatalf("hook answer %q: %v", stdout, err)
	}
	return out.HookSpecificOutput.PermissionDecision, out.HookSpecificOutput.PermissionDecisionReason
}

func terminalLineage(int) ([]proc.Process, error) {
	return []proc.Process{
		{Info: proc.Info{PID: 10, Args: []string{"moat", "approve"}}, UID: 1000, Terminal: "/dev/pts/4"},
		{Info: proc.Info{PID: 9, Args: []string{"-bash"}}, UID: 1000, Terminal: "/dev/pts/4"},
	}, nil
}

func agentLineage(int) ([]proc.Process, error) {
	return []proc.Process{
		{Info: proc.Info{PID: 10, Args: []string{"moat", "approve"}}, UID: 1000, Terminal: "/dev/pts/4"},
		{Info: proc.Info{PID: 9, Args: []string{"/bin/sh", "-c", "moat approve"}}, UID: 1000, Terminal: "/dev/pts/4"},
		{Info: proc.Info{PID: 8, Args: []string{"node", "/usr/lib/node_modules/@openai/codex/bin/codex.js"}}, UID: 1000, Terminal: "/dev/pts/4"},
	}, nil
}

// The approval flow in one process: Codex's ask is held, listed, approved from a
// terminal, the identical retry goes ahead once; an approval from under Codex is
// refused; every answer and refusal is recorded.
func TestApprovalFlow(t *testing.T) {
	a, stdout, stderr, now, project := approvalApp(t)
	const secret = "cat ~/.ssh/id_rsa"
	decision, reason := codexHook(t, a, stdout, project, secret)
	if decision != "deny" || !strings.Contains(reason, "moat approve ") {
		t.Fatalf("Codex's ask: %s %q; want a deny saying how to approve", decision, reason)
	}

	stdout.Reset()
	if code := Main([]string{"approvals", "--json"}, a.env); code != 0 {
		t.Fatalf("approvals --json: exit %d: %s", code, stderr)
	}
	var list []approval.Listed
	if err := json.Unmarshal([]byte(stdout.String()), &list); err != nil || len(list) != 1 {
		t.Fatalf("approvals --json: %v, %q", err, stdout)
	}
	id := list[0].ID
	if !strings.Contains(reason, "moat approve "+id) || list[0].Agent != "codex" || list[0].Session != "thr_1" || list[0].Calls[0] != "Bash: "+secret || list[0].Rule != "ask-secrets-read" {
		t.Errorf("listed %+v; reason %q", list[0], reason)
	}
	stdout.Reset()
	*now = now.Add(90 * time.Second)
	Main([]string{"approvals"}, a.env)
	for _, want := range []string{id, "pending", "1m30s", "codex", "thr_1", "call:  Bash: " + secret, "ask-secrets-read"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("approvals does not show %q:\n%s", want, stdout)
		}
	}

	// From under Codex: refused, and recorded.
	if err := a.answerApprovalCmd(t.Context(), id, approval.Once, agentLineage); !strings.Contains(errorText(err), "inside Codex") {
		t.Fatalf("approve from Codex's tree: %v", err)
	}
	if decision, _ := codexHook(t, a, stdout, project, secret); decision != "deny" {
		t.Fatalf("after a refused approval the call went ahead: %q", decision)
	}

	// From a terminal: the identical retry goes ahead, once.
	stdout.Reset()
	if err := a.answerApprovalCmd(t.Context(), id, approval.Once, terminalLineage); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), id+" approved once") {
		t.Errorf("approve said %q", stdout)
	}
	if decision, _ := codexHook(t, a, stdout, project, secret+" "); decision != "deny" {
		t.Errorf("a retry with another argument went ahead: %q", decision)
	}
	if decision, reason := codexHook(t, a, stdout, project, secret); decision == "deny" {
		t.Errorf("the approved retry was refused: %q", reason)
	}
	if decision, _ := codexHook(t, a, stdout, project, secret); decision != "deny" {
		t.Errorf("a second retry went ahead on a once approval: %q", decision)
	}

	d, _ := a.dirs()
	var events []string
	audit.Read(d.AuditLog(), func(r audit.Record) error {
		events = append(events, r.Event+"/"+r.Decision.String()+"/"+r.Rule)
		if r.Event == "approval refused" && !strings.Contains(r.Reason, "inside Codex") {
			t.Errorf("refusal recorded as %q", r.Reason)
		}
		if r.Event == "approval once" && (!strings.Contains(r.Reason, "uid 1000, pid") || !strings.Contains(r.Reason, "/dev/pts/4 (terminal)")) {
			t.Errorf("approval recorded as %q", r.Reason)
		}
		return nil
	})
	want := []string{
		"PreToolUse/ask/ask-secrets-read", "approval refused/deny/approval", "PreToolUse/ask/ask-secrets-read",
		"approval once/allow/approval", "PreToolUse/ask/ask-secrets-read", "PreToolUse/allow/approved", "PreToolUse/ask/ask-secrets-read",
	}
	if strings.Join(events, "\n") != strings.Join(want, "\n") {
		t.Errorf("records:\n%s\nwant:\n%s", strings.Join(events, "\n"), strings.Join(want, "\n"))
	}
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	var ec *exitCode
	if errors.As(err, &ec) && ec.err != nil {
		return ec.err.Error()
	}
	return err.Error()
}

func TestApproveFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"approve", "3f2a", "--always", "--dry-run"}, exitError, "no such approval"},
		{[]string{"approve", "3f2a", "--dry-run"}, exitUsage, "--dry-run goes with --always"},
		{[]string{"approve", "3f2a", "--session", "--always"}, exitUsage, "choose one of"},
		{[]string{"approve", "3f2a", "--once", "--session"}, exitUsage, "choose one of"},
		{[]string{"approve"}, exitUsage, "accepts 1 arg"},
	} {
		a, _, stderr, _, _ := approvalApp(t)
		if code := Main(tt.args, a.env); code != tt.code || !strings.Contains(stderr.String(), tt.err) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tt.args, code, stderr, tt.code, tt.err)
		}
	}
	a, stdout, _, _, _ := approvalApp(t)
	for _, id := range []string{"3f2a", "zz"} {
		if err := a.answerApprovalCmd(t.Context(), id, approval.Denied, terminalLineage); !strings.Contains(errorText(err), "no such approval") {
			t.Errorf("deny %s on an empty queue: %v", id, err)
		}
	}
	if code := Main([]string{"approvals"}, a.env); code != 0 || !strings.Contains(stdout.String(), "No approvals waiting") {
		t.Errorf("approvals on an empty queue: exit %d, %q", code, stdout)
	}
	stdout.Reset()
	if code := Main([]string{"approvals", "--json"}, a.env); code != 0 || strings.TrimSpace(stdout.String()) != "[]" {
		t.Errorf("approvals --json on an empty queue: exit %d, %q", code, stdout)
	}
}
