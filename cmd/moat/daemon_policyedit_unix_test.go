//go:build unix

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/daemon"
	"github.com/moatdev/moat/internal/daemonenv"
	"github.com/moatdev/moat/internal/decide"
)

const editedPolicy = `version: 1
default: allow
rules:
  - id: deny-rm
    command: "rm **"
    decision: deny
    reason: no deleting here
`

// TestDaemonBrokenPolicyEdit: a policy edit that does not compile keeps the last good
// policy deciding, and is reported by the next decision's reason, by `moat daemon
// status` and by `moat doctor`; a good edit after it is used and clears the report.
func TestDaemonBrokenPolicyEdit(t *testing.T) {
	e := newDaemonEnv(t)
	cfg := filepath.Join(e.home, ".config", "moat")
	if err := os.MkdirAll(cfg, 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(cfg, "moat.yaml")
	if err := os.WriteFile(file, []byte(editedPolicy), 0o600); err != nil {
		t.Fatal(err)
	}
	e.startDaemon(t)
	remote := decide.NewRemote(daemon.DialBound(e.socket(), daemon.BindParams{Env: daemonenv.Capture(e.getenv), Executable: moatBinary(t)}))
	defer remote.Close()
	ctx := context.Background()
	rm := call.Call{Agent: call.ClaudeCode, Class: call.Shell, Tool: "Bash", Args: map[string]any{"command": "rm -rf build"}, Cwd: e.home}
	decideRm := func() call.Decision {
		t.Helper()
		pol, err := remote.Lookup(ctx, decide.Scope{Cwd: e.home})
		if err != nil {
			t.Fatal(err)
		}
		res, err := remote.Decide(ctx, decide.CallRequest{Policy: pol.Key, Event: "PreToolUse", Calls: []call.Call{rm}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Decision
	}
	if d := decideRm(); d.Verdict != call.Deny || d.Rule != "deny-rm" {
		t.Fatalf("before the edit: %+v", d)
	}

	if err := os.WriteFile(file, []byte(editedPolicy+"  - id: [broken\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	status := waitStatus(t, e, func(st statusJSON) bool { return len(st.Problems) > 0 })
	if p := status.Problems[0]; !strings.Contains(p.Error, "moat.yaml") || !strings.Contains(p.InForce, "moat.yaml") {
		t.Errorf("problem reported as %+v", p)
	}
	d := decideRm()
	if d.Verdict != call.Deny || d.Rule != "deny-rm" {
		t.Errorf("after a broken edit the last good policy must decide: %+v", d)
	}
	if !strings.Contains(d.Reason, "moat.yaml") {
		t.Errorf("the next decision's reason does not tell of the broken edit: %q", d.Reason)
	}
	if out, _ := e.moatCmd(t, "daemon", "status"); !strings.Contains(out, "policy edit not used") {
		t.Errorf("daemon status does not report the broken edit:\n%s", out)
	}
	if out, _ := e.moatCmd(t, "doctor"); !strings.Contains(out, "could not use 1 policy edit") {
		t.Errorf("doctor does not report the broken edit:\n%s", out)
	}

	if err := os.WriteFile(file, []byte(strings.Replace(editedPolicy, "decision: deny", "decision: ask", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, e, func(st statusJSON) bool { return len(st.Problems) == 0 })
	if d := decideRm(); d.Verdict != call.Ask {
		t.Errorf("the good edit after the broken one is not used: %+v", d)
	}
}

type statusJSON struct {
	Problems []decide.Problem `json:"problems"`
}

// waitStatus polls the daemon's status until ok holds, for at most 10 s.
func waitStatus(t *testing.T, e daemonEnv, ok func(statusJSON) bool) statusJSON {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, code := e.moatCmd(t, "daemon", "status", "--json")
		var st statusJSON
		if code == 0 && json.Unmarshal([]byte(out), &st) == nil && ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("the daemon's status did not change as expected: %s", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
