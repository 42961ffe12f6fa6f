//go:build unix

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLinkThenWriteEndToEnd plays a two-call attack through `moat hook claude-code` in a
// canary home: the first call makes another name for a protected file (moat asks, and
// the test performs it as a user who approved would), the second writes through that
// name. moat must deny the second call, and the protected file must be unchanged. A
// write to an ordinary file through the same harness runs, so the harness does act.
func TestLinkThenWriteEndToEnd(t *testing.T) {
	attacks := []struct {
		name      string
		protected string // relative to the canary home
		link      string // the first call, in the project
		tool      string // the second call
		input     func(h *hookRun) map[string]any
	}{
		{
			name: "hard link to the project policy", protected: "project/moat.yaml",
			link: "ln moat.yaml notes.txt", tool: "Bash",
			input: func(*hookRun) map[string]any { return map[string]any{"command": "echo 'default: allow' > notes.txt"} },
		},
		{
			name: "symbolic link to the hook settings", protected: ".claude/settings.json",
			link: "ln -s ~/.claude/settings.json s.json", tool: "Write",
			input: func(h *hookRun) map[string]any {
				return map[string]any{"file_path": filepath.Join(h.project, "s.json"), "content": "{}"}
			},
		},
		{
			name: "hard link to the hook settings, edited in place", protected: ".claude/settings.json",
			link: "ln ~/.claude/settings.json h.json", tool: "Bash",
			input: func(*hookRun) map[string]any { return map[string]any{"command": "sed -i 's/protected/x/' h.json"} },
		},
		{
			name: "symbolic link to moat's configuration directory", protected: ".config/moat/trust.json",
			link: "ln -s ~/.config/moat cfg", tool: "Bash",
			input: func(*hookRun) map[string]any { return map[string]any{"command": "echo '{}' > cfg/trust.json"} },
		},
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			h := newHookRun(t)
			const text = "protected: do not change\n"
			files := []string{"project/moat.yaml", ".claude/settings.json", ".config/moat/trust.json"}
			for _, f := range files {
				p := filepath.Join(h.home, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			// Call 1: the link. moat asks about it; a user who approves lets it run.
			stdout, stderr, code := h.run(t, hookEvent(t, h, "Bash", map[string]any{"command": a.link}), "claude-code")
			if !strings.Contains(stdout, `"permissionDecision":"ask"`) || !strings.Contains(stdout, "ask-link-to-protected") {
				t.Fatalf("making the link: want an ask, got exit %d\n%s%s", code, stdout, stderr)
			}
			bash(t, h, a.link)
			// Call 2: the write through the link.
			if !actAsAgent(t, h, a.tool, a.input(h)) {
				t.Errorf("the write through the link was not denied")
			}
			if got := fileText(t, filepath.Join(h.home, a.protected)); got != text {
				t.Errorf("%s changed: %q", a.protected, got)
			}
		})
	}
	t.Run("control", func(t *testing.T) {
		h := newHookRun(t)
		notes := filepath.Join(h.project, "notes.txt")
		bash(t, h, "echo old > other.txt && ln other.txt notes.txt")
		if actAsAgent(t, h, "Bash", map[string]any{"command": "echo new > notes.txt"}) {
			t.Fatal("a write to a hard link of an ordinary file was denied")
		}
		if got := fileText(t, notes); got != "new\n" {
			t.Fatalf("the harness did not perform the write: %q", got)
		}
	})
}

func hookEvent(t *testing.T, h *hookRun, tool string, input map[string]any) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{
		"session_id": "s", "cwd": h.project, "hook_event_name": "PreToolUse", "permission_mode": "default",
		"tool_name": tool, "tool_input": input,
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// bash runs line in the canary project, as the agent's shell would once it is allowed.
func bash(t *testing.T, h *hookRun, line string) {
	t.Helper()
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir = h.project
	cmd.Env = h.env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
}
