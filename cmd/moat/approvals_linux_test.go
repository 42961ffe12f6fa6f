package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/agent"
	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/proc"
)

// TestApprovalEndToEnd is issue 21's acceptance, with the real daemon and the real
// binary: an ask from Codex (which cannot ask) is held as a pending approval; moat
// approve from a terminal lets the identical retry through once, and a second retry is
// refused again; a retry with one argument changed is refused; moat approve run inside
// a process named like an agent is refused and recorded.
func TestApprovalEndToEnd(t *testing.T) {
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("no script(1) to give moat approve a terminal")
	}
	if self, err := proc.Lineage(os.Getpid()); err == nil {
		for _, p := range self {
			if a, ok := agent.ByProcess(p.Args); ok {
				t.Skipf("the test runs inside %s, from which no approval is taken", a.Title)
			}
		}
	}
	e := newDaemonEnv(t)
	e.env = append(e.env, "SHELL=/bin/sh")
	template, err := os.ReadFile(filepath.Join("..", "..", "internal", "policy", "templates", "recommended.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// The recommended policy, without desktop notifications in a test.
	userPolicy := filepath.Join(e.home, ".config", "moat", "moat.yaml")
	os.MkdirAll(filepath.Dir(userPolicy), 0o700)
	if err := os.WriteFile(userPolicy, append(template, []byte("\napprovals: {notify: false}\n")...), 0o600); err != nil {
		t.Fatal(err)
	}
	project := filepath.Join(e.home, "project")
	os.MkdirAll(filepath.Join(project, ".git"), 0o755)
	e.startDaemon(t)

	codex := func(command string) (decision, reason string) {
		t.Helper()
		ev, _ := json.Marshal(map[string]any{
			"session_id": "thr_1", "turn_id": "t1", "cwd": project, "model": "gpt-5", "permission_mode": "default",
			"tool_use_id": "call_1", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": command},
		})
		cmd := exec.Command(moatBinary(t), "hook", "codex")
		cmd.Env, cmd.Dir, cmd.Stdin = e.env, project, bytes.NewReader(ev)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("moat hook codex: %v", err)
		}
		if len(out) == 0 {
			return "", ""
		}
		var ans struct {
			H struct {
				D string `json:"permissionDecision"`
				R string `json:"permissionDecisionReason"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal(out, &ans); err != nil {
			t.Fatalf("hook answer %s: %v", out, err)
		}
		return ans.H.D, ans.H.R
	}
	// inTerminal runs line in a new pseudo-terminal, as a user at a terminal does.
	inTerminal := func(line string) (string, int) {
		t.Helper()
		cmd := exec.Command(script, "-qec", line, "/dev/null")
		cmd.Env, cmd.Dir = e.env, e.home
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return strings.ReplaceAll(string(out), "\r\n", "\n"), code
	}

	const secret = "cat ~/.ssh/id_rsa"
	decision, reason := codex(secret)
	m := regexp.MustCompile("`moat approve ([0-9a-f]{4,})`").FindStringSubmatch(reason)
	if decision != "deny" || m == nil {
		t.Fatalf("Codex's ask: %s %q; want a deny naming moat approve ID", decision, reason)
	}
	id := m[1]
	if out, code := e.moatCmd(t, "approvals", "--json"); code != 0 || !strings.Contains(out, `"id": "`+id+`"`) || !strings.Contains(out, `"state": "pending"`) {
		t.Fatalf("approvals --json: exit %d\n%s", code, out)
	}

	// Inside a process named like an agent (a copy of sh named codex), with a terminal.
	fakeAgent := filepath.Join(t.TempDir(), "codex")
	sh, _ := os.ReadFile("/bin/sh")
	if err := os.WriteFile(fakeAgent, sh, 0o755); err != nil {
		t.Fatal(err)
	}
	out, code := inTerminal(fakeAgent + " -c '" + moatBinary(t) + " approve " + id + "'")
	if code == 0 || !strings.Contains(out, "inside Codex") {
		t.Fatalf("moat approve under codex: exit %d\n%s", code, out)
	}
	if decision, _ := codex(secret); decision != "deny" {
		t.Fatalf("the refused approval let the call through: %q", decision)
	}

	// From a terminal.
	out, code = inTerminal(moatBinary(t) + " approve " + id)
	if code != 0 || !strings.Contains(out, id+" approved once") {
		t.Fatalf("moat approve from a terminal: exit %d\n%s", code, out)
	}
	if decision, _ := codex(secret + " "); decision != "deny" {
		t.Errorf("a retry with its argument changed went ahead: %q", decision)
	}
	if decision, reason := codex(secret); decision == "deny" {
		t.Errorf("the approved retry was refused: %s", reason)
	}
	if decision, _ := codex(secret); decision != "deny" {
		t.Errorf("a second retry went ahead on a once approval: %q", decision)
	}

	// Every answer and refusal is in the audit log, with who and how.
	var refused, approved bool
	log := filepath.Join(e.home, ".local", "state", "moat", "audit.jsonl")
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && !(refused && approved); time.Sleep(50 * time.Millisecond) {
		refused, approved = false, false
		audit.Read(log, func(r audit.Record) error {
			refused = refused || r.Event == "approval refused" && strings.Contains(r.Reason, "inside Codex")
			approved = approved || r.Event == "approval once" && strings.Contains(r.Reason, "(terminal)") && strings.Contains(r.Reason, "/dev/pts/")
			return nil
		})
	}
	if !refused || !approved {
		data, _ := os.ReadFile(log)
		t.Errorf("audit log: refusal recorded %v, approval recorded %v:\n%s", refused, approved, data)
	}
}
