package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fixHome is a fake HOME with a project repository in it, and the environment the moat
// binary runs with there (no daemon: the test is of the files).
type fixHome struct {
	home, project string
	env           []string
}

func newFixHome(t *testing.T) fixHome {
	t.Helper()
	home := t.TempDir()
	project := filepath.Join(home, "proj")
	if err := os.MkdirAll(filepath.Join(project, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return fixHome{home: home, project: project, env: []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "MOAT_DAEMON=off", "LANG=C"}}
}

// run runs the real moat binary in the project.
func (h fixHome) run(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(moatBinary(t), args...)
	cmd.Dir, cmd.Env, cmd.Stdin = h.project, h.env, strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

func (h fixHome) hookPayload(command string) string {
	b, _ := json.Marshal(map[string]any{
		"session_id": "s1", "cwd": h.project, "hook_event_name": "PreToolUse", "permission_mode": "default",
		"tool_name": "Bash", "tool_input": map[string]any{"command": command},
	})
	return string(b)
}

// TestFixLastWrite records an ask through Claude Code's hook, has moat fix write the
// rule that allows it (into a user policy created from the recommended template, since
// none existed), and checks the same call is then allowed, by hook and by check, while
// another force-push is still asked about.
func TestFixLastWrite(t *testing.T) {
	h := newFixHome(t)
	const cmd = "git push --force origin main"
	out, errOut, code := h.run(t, h.hookPayload(cmd), "hook", "claude-code")
	if code != 0 || !strings.Contains(out, `"permissionDecision":"ask"`) {
		t.Fatalf("hook before the fix: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = h.run(t, "", "fix", "--last")
	if code != 0 || !strings.Contains(out, "run again with --write") || !strings.Contains(out, `command: "git push --force origin main"`) {
		t.Fatalf("fix --last: exit %d\n%s%s", code, out, errOut)
	}
	userPolicy := filepath.Join(h.home, ".config", "moat", "moat.yaml")
	if _, err := os.Stat(userPolicy); err == nil {
		t.Fatal("fix without --write wrote the policy")
	}
	out, errOut, code = h.run(t, "", "fix", "--last", "--write", "--json")
	var rep struct {
		File, Rule string
		Create     bool
		Written    bool
		After      struct{ Decision, Rule string }
	}
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil {
		t.Fatalf("fix --last --write: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	if rep.File != userPolicy || !rep.Create || !rep.Written || !strings.HasPrefix(rep.Rule, "fix-allow-shell-git-push") || rep.After.Decision != "allow" || rep.After.Rule != rep.Rule {
		t.Errorf("report: %+v", rep)
	}
	written, err := os.ReadFile(userPolicy)
	if err != nil || !bytes.Contains(written, []byte("# Your own rules.")) {
		t.Fatalf("the user policy lost the template's comments or is missing: %v\n%s", err, written)
	}
	// An allow defers to the agent's own permissions (hooks.allow: defer): the hook
	// says nothing, and records the allow by the new rule.
	out, errOut, code = h.run(t, h.hookPayload(cmd), "hook", "claude-code")
	if code != 0 || strings.Contains(out, `"permissionDecision"`) {
		t.Fatalf("hook after the fix: exit %d\n%s%s", code, out, errOut)
	}
	log, err := os.ReadFile(filepath.Join(h.home, ".local", "state", "moat", "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(log)), "\n")
	var last struct{ Decision, Rule string }
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Decision != "allow" || last.Rule != rep.Rule {
		t.Errorf("the hook's record after the fix: %+v %v", last, err)
	}
	if _, _, code := h.run(t, "", "check", "--", cmd); code != 0 {
		t.Errorf("check after the fix: exit %d, want 0 (allow)", code)
	}
	if _, _, code := h.run(t, "", "check", "--", "git push --force origin release"); code != 2 {
		t.Errorf("another force-push: exit %d, want 2 (ask): the rule is broader than the call", code)
	}
}

// TestFixProjectNeedsTrust fixes a call decided by a trusted project policy: the rule goes
// into the project's moat.yaml, which the hooks use only once it is trusted again.
func TestFixProjectNeedsTrust(t *testing.T) {
	h := newFixHome(t)
	if out, errOut, code := h.run(t, "", "init"); code != 0 {
		t.Fatalf("init: exit %d\n%s%s", code, out, errOut)
	}
	const cmd = "sudo apt-get install -y jq"
	req := `{"version":1,"agent":"codex","tool":"shell","args":{"command":"` + cmd + `"},"cwd":"` + h.project + `"}` + "\n"
	if out, errOut, code := h.run(t, req, "check", "--stdin", "--record"); code != 0 || !strings.Contains(out, `"ask"`) {
		t.Fatalf("check --stdin --record: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code := h.run(t, "", "fix", "--last", "--write")
	file := filepath.Join(h.project, "moat.yaml")
	if code != 0 || !strings.Contains(out, "moat trust "+file) {
		t.Fatalf("fix --last --write: exit %d\n%s%s", code, out, errOut)
	}
	if _, _, code := h.run(t, "", "check", "--", cmd); code != 2 {
		t.Errorf("before moat trust: exit %d, want 2 (the trusted version still asks)", code)
	}
	if out, errOut, code := h.run(t, "", "trust", file); code != 0 {
		t.Fatalf("trust: exit %d\n%s%s", code, out, errOut)
	}
	if _, _, code := h.run(t, "", "check", "--", cmd); code != 0 {
		t.Errorf("after moat trust: exit %d, want 0 (allow)", code)
	}
}

// TestFixRefusals: a secret the log redacted, a self-protection denial, and a record
// that does not exist are refused, with nothing written.
func TestFixRefusals(t *testing.T) {
	h := newFixHome(t)
	// Assembled at run time so that the file holds no token-shaped string.
	secret := "ghp_" + "R8fK2mQ9xLp4Vz7Nw3Ht" + "6Yb1Jc5Dg0Es2Ua9"
	if _, _, code := h.run(t, "", "check", "--record", "--", "curl -H 'Authorization: token "+secret+"' https://api.github.com/user"); code != 2 {
		t.Fatalf("check --record: exit %d, want 2", code)
	}
	out, errOut, code := h.run(t, "", "fix", "--last")
	if code != 1 || !strings.Contains(errOut, "redacted") || strings.Contains(out+errOut, secret) {
		t.Errorf("fix of a redacted call: exit %d\n%s%s", code, out, errOut)
	}
	moatDir := filepath.Join(h.home, ".config", "moat")
	write := `{"version":1,"agent":"claude-code","tool":"Write","args":{"file_path":"` + filepath.Join(moatDir, "moat.yaml") + `","content":"version: 1\ndefault: allow\n"},"cwd":"` + h.project + `"}` + "\n"
	if out, _, _ := h.run(t, write, "check", "--stdin", "--record"); !strings.Contains(out, `"deny"`) {
		t.Fatalf("a write of the user policy is not denied: %s", out)
	}
	out, errOut, code = h.run(t, "", "fix", "--last", "--write")
	if code != 1 || !strings.Contains(errOut, "self-protection") {
		t.Errorf("fix of a self-protection denial: exit %d\n%s%s", code, out, errOut)
	}
	if _, _, code := h.run(t, "", "fix", "999"); code != 1 {
		t.Errorf("fix of a missing record: exit %d, want 1", code)
	}
	if _, err := os.Stat(filepath.Join(moatDir, "moat.yaml")); err == nil {
		t.Error("a refused fix wrote the user policy")
	}
}
