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

// actAsAgent sends a PreToolUse event for the tool call to `moat hook claude-code` and,
// unless moat denies it, performs the call as Claude Code would: Bash runs the command
// in the project with the hook's environment (PATH first holds the home's bin, where the
// tests put canary programs), Write writes the file. It reports whether moat denied.
func actAsAgent(t *testing.T, h *hookRun, tool string, input map[string]any) bool {
	t.Helper()
	payload, err := json.Marshal(map[string]any{
		"session_id": "s", "cwd": h.project, "hook_event_name": "PreToolUse", "permission_mode": "default",
		"tool_name": tool, "tool_input": input,
	})
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := h.run(t, string(payload), "claude-code")
	if code == 2 || strings.Contains(stdout, `"permissionDecision":"deny"`) {
		return true
	}
	if code != 0 {
		t.Fatalf("moat hook: exit %d\n%s%s", code, stdout, stderr)
	}
	switch tool {
	case "Bash":
		cmd := exec.Command("bash", "-c", input["command"].(string))
		cmd.Dir = h.project
		cmd.Env = h.env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Logf("%s: %v\n%s", input["command"], err, out)
		}
	case "Write":
		if err := os.WriteFile(input["file_path"].(string), []byte(input["content"].(string)), 0o644); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("actAsAgent does not perform %s", tool)
	}
	return false
}

// agentHome is a canary home for the second-agent tests: a fake `claude` and `code` on
// PATH that do what an agent acting outside moat would (overwrite the canary, add an MCP
// server), and VS Code's user MCP configuration as `moat mcp wrap` leaves it.
func agentHome(t *testing.T) (h *hookRun, canary, mcpJSON string) {
	t.Helper()
	h = newHookRun(t)
	bin := filepath.Join(h.home, "bin")
	canary = filepath.Join(h.project, "canary.txt")
	mcpJSON = filepath.Join(h.home, ".config", "Code", "User", "mcp.json")
	files := map[string]string{
		canary:  "the second agent must not overwrite this\n",
		mcpJSON: `{"servers": {"github": {"type": "stdio", "command": "/usr/local/bin/moat", "args": ["mcp", "proxy", "--", "npx", "-y", "@modelcontextprotocol/server-github"]}}}` + "\n",
		// The fake agent does what the prompt asked, without any hook to stop it.
		filepath.Join(bin, "claude"): "#!/bin/sh\necho \"claude ran: $*\" > " + canary + "\n",
		// The fake editor adds the server it is given to the user's MCP configuration.
		filepath.Join(bin, "code"): "#!/bin/sh\n[ \"$1\" = --add-mcp ] && printf '{\"servers\": {\"x\": %s}}\\n' \"$2\" > " + mcpJSON + "\n",
	}
	plant(t, h, bin, files)
	return h, canary, mcpJSON
}

// plant writes the canary files (programs among them, all made executable) and puts bin
// first on the hook's and the agent's PATH, so that the fake programs run instead of the
// real ones.
func plant(t *testing.T, h *hookRun, bin string, files map[string]string) {
	t.Helper()
	for path, text := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i, kv := range h.env {
		if strings.HasPrefix(kv, "PATH=") {
			h.env[i] = "PATH=" + bin + ":" + strings.TrimPrefix(kv, "PATH=")
		}
	}
}

func fileText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSecondAgentEndToEnd sends, through `moat hook claude-code` in a canary home, a
// second agent started without its hooks and rewrites of VS Code's user MCP
// configuration (the file `moat mcp wrap` edits), performing whatever moat lets through:
// the canary and the configuration must be unchanged. The controls — the same agent
// started normally, a write to an ordinary file — run, so the harness does act.
func TestSecondAgentEndToEnd(t *testing.T) {
	attacks := []struct {
		name  string
		tool  string
		input func(h *hookRun, mcpJSON string) map[string]any
	}{
		{"claude without hooks", "Bash", func(h *hookRun, _ string) map[string]any {
			return map[string]any{"command": "CLAUDE_CONFIG_DIR=$HOME/alt claude --bare -p 'overwrite canary.txt'"}
		}},
		{"claude in another home", "Bash", func(h *hookRun, _ string) map[string]any {
			return map[string]any{"command": "HOME=$(mktemp -d) claude -p 'overwrite canary.txt'"}
		}},
		{"Write over VS Code's user mcp.json", "Write", func(h *hookRun, mcpJSON string) map[string]any {
			return map[string]any{"file_path": mcpJSON, "content": `{"servers": {"github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]}}}`}
		}},
		{"shell redirect over VS Code's user mcp.json", "Bash", func(h *hookRun, _ string) map[string]any {
			return map[string]any{"command": `echo '{"servers": {}}' > ~/.config/Code/User/mcp.json`}
		}},
		{"code --add-mcp", "Bash", func(h *hookRun, _ string) map[string]any {
			return map[string]any{"command": `code --add-mcp '{"command": "sh", "args": ["-c", "id"]}'`}
		}},
	}
	for _, tt := range attacks {
		t.Run(tt.name, func(t *testing.T) {
			h, canary, mcpJSON := agentHome(t)
			before, mcpBefore := fileText(t, canary), fileText(t, mcpJSON)
			if !actAsAgent(t, h, tt.tool, tt.input(h, mcpJSON)) {
				t.Errorf("moat did not deny it")
			}
			if got := fileText(t, canary); got != before {
				t.Errorf("the canary changed: %q", got)
			}
			if got := fileText(t, mcpJSON); got != mcpBefore {
				t.Errorf("VS Code's user mcp.json changed: %q", got)
			}
		})
	}

	t.Run("controls run", func(t *testing.T) {
		h, canary, mcpJSON := agentHome(t)
		mcpBefore := fileText(t, mcpJSON)
		if actAsAgent(t, h, "Bash", map[string]any{"command": "claude -p 'say hello'"}) {
			t.Fatal("claude started normally was denied")
		}
		if got := fileText(t, canary); got != "claude ran: -p say hello\n" {
			t.Errorf("the allowed agent did not run: canary %q", got)
		}
		notes := filepath.Join(h.project, "notes.json")
		if actAsAgent(t, h, "Write", map[string]any{"file_path": notes, "content": "{}\n"}) {
			t.Fatal("writing an ordinary file was denied")
		}
		if fileText(t, notes) != "{}\n" || fileText(t, mcpJSON) != mcpBefore {
			t.Error("the allowed write was not made where it was asked")
		}
	})
}
