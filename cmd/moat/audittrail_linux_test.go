package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLaunchHookSpoolsWithLockHeld: inside `moat launch` the hooks cannot create files in
// the protected state directory, so with the audit lock held outside, a hook's record goes
// to the shared spool the launch made beforehand; a hook outside merges it afterwards.
func TestLaunchHookSpoolsWithLockHeld(t *testing.T) {
	requireLandlock(t)
	e := newLaunchEnv(t, "")
	state := filepath.Join(e.home, ".local", "state", "moat")
	event := filepath.Join(t.TempDir(), "event.json")
	mustWrite(t, event, `{"session_id":"inside","cwd":"`+e.ws+`","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf ~"}}`)
	release := takeAuditLock(t, state)
	script := fmt.Sprintf(`%q hook claude-code < %q`, moatBinary(t), event)
	out, stderr, code := e.launch(t, "--profile", "none", "--", "sh", "-c", script)
	if !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(stderr, "audit.jsonl.spool.shared") {
		t.Fatalf("hook inside with the lock held: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	release()

	cmd := exec.Command(moatBinary(t), "hook", "claude-code")
	cmd.Env, cmd.Dir = e.env, e.ws
	cmd.Stdin = strings.NewReader(`{"session_id":"outside","cwd":"` + e.ws + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`)
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(state, "audit.jsonl"))
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if err != nil || len(lines) != 2 || !strings.Contains(lines[0], `"session":"inside"`) || !strings.Contains(lines[1], `"session":"outside"`) {
		t.Errorf("the log after the merge: %v\n%s", err, data)
	}
}
