package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// doctorReport is what `moat doctor --json` prints.
type doctorReport struct {
	OK       bool   `json:"ok"`
	Status   string `json:"status"`
	Findings []struct {
		ID      string `json:"id"`
		Status  string `json:"status"`
		Message string `json:"message"`
		Fix     string `json:"fix"`
	} `json:"findings"`
}

// inHome runs moat in process with HOME=home, PATH=path and the working directory dir,
// as the built binary, and returns its stdout, stderr and exit code.
func inHome(t *testing.T, home, path, dir string, args ...string) (string, string, int) {
	t.Helper()
	return runInProcess(t, dir, []string{"HOME=" + home, "PATH=" + path}, "", args...)
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func runDoctor(t *testing.T, home, path, dir string) (doctorReport, map[string]string, int) {
	t.Helper()
	out, stderr, code := inHome(t, home, path, dir, "doctor", "--json")
	var rep doctorReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("doctor --json: %v\n%s\n%s", err, out, stderr)
	}
	status := map[string]string{}
	for _, f := range rep.Findings {
		status[f.ID] = f.Status
		if f.Status != "ok" && f.Fix == "" && f.ID != "sandbox.landlock" {
			t.Errorf("%s is %s without a fix: %s", f.ID, f.Status, f.Message)
		}
	}
	return rep, status, code
}

// TestDoctorHealthy sets a home up the way the README says (moat on PATH, hooks for
// every agent, MCP servers wrapped, a user policy, a decision recorded) and expects
// doctor to find nothing wrong.
func TestDoctorHealthy(t *testing.T) {
	home := t.TempDir()
	bin := filepath.Join(home, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(moatBinary(t), filepath.Join(bin, "moat")); err != nil {
		t.Fatal(err)
	}
	path := bin + ":/usr/bin:/bin"
	writeFiles(t, home, map[string]string{
		".claude/settings.json":        "{}\n",
		".cursor/hooks.json":           "{}\n",
		".codeium/windsurf/hooks.json": "{}\n",
		".gemini/settings.json":        "{}\n",
		".codex/hooks.json":            "{}\n",
		".cursor/mcp.json":             `{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "fs-server"]}}}` + "\n",
		".config/moat/moat.yaml":       "version: 1\ndefault: allow\npacks: [recommended]\n",
	})
	for _, args := range [][]string{
		{"setup"},
		{"mcp", "wrap"},
		{"check", "--record", "--", "ls"},
	} {
		if out, stderr, code := inHome(t, home, path, home, args...); code != 0 {
			t.Fatalf("moat %v: exit %d\n%s%s", args, code, out, stderr)
		}
	}
	rep, status, code := runDoctor(t, home, path, home)
	if code != 0 || !rep.OK {
		t.Errorf("doctor exit %d, ok=%v; want 0, true", code, rep.OK)
	}
	for _, f := range rep.Findings {
		if f.Status != "ok" && f.ID != "sandbox.landlock" {
			t.Errorf("%s: %s: %s", f.ID, f.Status, f.Message)
		}
	}
	for _, id := range []string{"moat.binary", "policy", "hooks.claude-code", "hooks.codex", "mcp.cursor.user", "sandbox.landlock", "state.dir", "state.files", "audit.log", "config.policy"} {
		if status[id] == "" {
			t.Errorf("no %s check", id)
		}
	}
	text, _, code := inHome(t, home, path, home, "doctor")
	if code != 0 || !strings.Contains(text, "moat protects you") {
		t.Errorf("doctor: exit %d\n%s", code, text)
	}
}

// TestDoctorBroken breaks one thing per check and expects doctor to name each, with its
// fix, and to exit 1.
func TestDoctorBroken(t *testing.T) {
	home := t.TempDir()
	gone := filepath.Join(home, "old", "moat")
	cursorHooks := `{"version": 1, "hooks": {`
	for i, ev := range []string{"beforeShellExecution", "beforeMCPExecution", "beforeReadFile", "preToolUse", "beforeSubmitPrompt"} {
		if i > 0 {
			cursorHooks += ", "
		}
		cursorHooks += `"` + ev + `": [{"command": "` + gone + ` hook cursor"}]`
	}
	cursorHooks += "}}\n"
	writeFiles(t, home, map[string]string{
		// Installed, without moat's hooks.
		".claude/settings.json": `{"model": "opus"}` + "\n",
		// Hooks that run a moat that is not there any more.
		".cursor/hooks.json": cursorHooks,
		// A server that does not run through moat.
		".cursor/mcp.json": `{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "fs-server"]}}}` + "\n",
		// A server wrapped by a moat that is gone.
		".claude.json": `{"mcpServers": {"gh": {"command": "` + gone + `", "args": ["mcp", "proxy", "--name", "gh", "--", "gh-mcp"]}}}` + "\n",
		// moat's hooks, which Codex has not been told to trust.
		".codex/hooks.json": `{"hooks": {"PreToolUse": [{"matcher": ".*", "hooks": [{"type": "command", "command": "` + moatBinary(t) + ` hook codex"}]}], "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "` + moatBinary(t) + ` hook codex"}]}]}}` + "\n",
		// An invalid user policy.
		".config/moat/moat.yaml": "version: 1\ndefault: maybe\n",
		// A state directory and audit log others can read.
		".local/state/moat/audit.jsonl": `{"time":"2026-01-02T03:04:05Z","class":"shell","tool":"Bash","decision":"deny","latency_ms":0}` + "\n",
	})
	if err := os.Chmod(filepath.Join(home, ".local/state/moat"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(home, ".config/moat/moat.yaml"), 0o666); err != nil {
		t.Fatal(err)
	}
	rep, status, code := runDoctor(t, home, "/usr/bin:/bin", home)
	if code != 1 || rep.OK || rep.Status != "fail" {
		t.Errorf("doctor exit %d, ok=%v, status %s; want 1, false, fail", code, rep.OK, rep.Status)
	}
	want := map[string]string{
		"moat.binary":          "warn",
		"policy":               "fail",
		"hooks.claude-code":    "fail",
		"hooks.cursor":         "fail",
		"hooks.codex":          "fail",
		"mcp.cursor.user":      "warn",
		"mcp.claude-code.user": "warn",
		"state.dir":            "fail",
		"state.files":          "fail",
		"config.policy":        "fail",
		"audit.log":            "ok",
	}
	for id, st := range want {
		if status[id] != st {
			t.Errorf("%s: %q, want %q", id, status[id], st)
		}
	}
	text, _, code := inHome(t, home, "/usr/bin:/bin", home, "doctor")
	for _, s := range []string{
		"FAIL  hooks.claude-code", "fix: moat setup claude-code",
		"run " + gone + ", which is not an executable file", "fix: moat setup --uninstall cursor && moat setup cursor",
		"fix: moat mcp wrap --agent cursor",
		"moat's hooks for codex are installed but not trusted: codex will not run them (PreToolUse in " + filepath.Join(home, ".codex/hooks.json"),
		"fix: moat setup codex   # records the trust",
		"fix: moat mcp unwrap --agent claude-code && moat mcp wrap --agent claude-code",
		"fix: moat validate " + filepath.Join(home, ".config/moat/moat.yaml"),
		"fix: chmod 700 " + filepath.Join(home, ".local/state/moat"),
		"fix: chmod go-w " + filepath.Join(home, ".config/moat/moat.yaml"),
	} {
		if !strings.Contains(text, s) {
			t.Errorf("doctor's text lacks %q:\n%s", s, text)
		}
	}
	if code != 1 {
		t.Errorf("doctor: exit %d, want 1", code)
	}
}
