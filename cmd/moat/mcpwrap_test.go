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

// TestMCPWrapUnwrap wraps the MCP servers of three agents' configs on a temporary HOME
// through the built binary, checks that the wrapped servers run through moat's proxy and
// that nothing else changed, and that unwrap restores each file byte for byte.
func TestMCPWrapUnwrap(t *testing.T) {
	home := t.TempDir()
	bin := moatBinary(t)
	files := map[string]string{
		".cursor/mcp.json": `{
  // the user's comment stays
  "mcpServers": {
    "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/p"], "env": {"DEBUG": "1"}},
    "remote": {"url": "https://mcp.example.com/mcp"}
  },
  "theme": "dark",
}
`,
		".codex/config.toml": `# Codex settings
model = "o4"

[mcp_servers.github]
command = "github-mcp"   # the server
args = ["stdio"]
env = { GITHUB_TOKEN_FILE = "/home/me/.gh" }
`,
		".gemini/settings.json": `{"theme": "Default", "mcpServers": {"memory": {"command": "mcp-server-memory", "timeout": 30000, "trust": false}}}
`,
	}
	for name, text := range files {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) (string, string, int) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = home
		cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), errb.String(), code
	}
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(home, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}

	out, stderr, code := run("mcp", "wrap", "--dry-run")
	if code != 0 || !strings.Contains(out, "would change") || !strings.Contains(out, `+      "mcp",`) && !strings.Contains(out, `"mcp", "proxy"`) {
		t.Errorf("dry run: exit %d\n%s\n%s", code, out, stderr)
	}
	for name, text := range files {
		if read(name) != text {
			t.Errorf("--dry-run changed %s", name)
		}
	}

	out, stderr, code = run("mcp", "wrap")
	if code != 0 {
		t.Fatalf("wrap: exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(out, "remote") || !strings.Contains(out, "skipped") {
		t.Errorf("the HTTP server was not reported as skipped:\n%s", out)
	}
	cursor := read(".cursor/mcp.json")
	if !strings.Contains(cursor, `"args": ["mcp","proxy","--name","filesystem","--","npx", "-y", "@modelcontextprotocol/server-filesystem", "/home/me/p"]`) && !strings.Contains(cursor, `"mcp", "proxy", "--name", "filesystem", "--", "npx"`) {
		t.Errorf("cursor's server does not run through the proxy:\n%s", cursor)
	}
	for _, kept := range []string{"// the user's comment stays", `"env": {"DEBUG": "1"}`, `"theme": "dark",`, `"remote": {"url": "https://mcp.example.com/mcp"}`} {
		if !strings.Contains(cursor, kept) {
			t.Errorf("wrap lost %q:\n%s", kept, cursor)
		}
	}
	codex := read(".codex/config.toml")
	if !strings.Contains(codex, "# the server") || !strings.Contains(codex, `"--name", "github", "--", "github-mcp"`) && !strings.Contains(codex, `"--name","github","--","github-mcp"`) {
		t.Errorf("codex:\n%s", codex)
	}
	// The rewritten command is this moat: the argv of each server is moat's proxy.
	var gemini struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(read(".gemini/settings.json")), &gemini); err != nil {
		t.Fatal(err)
	}
	if m := gemini.MCPServers["memory"]; filepath.Base(m.Command) != "moat" || strings.Join(m.Args, " ") != "mcp proxy --name memory -- mcp-server-memory" {
		t.Errorf("gemini's server: %+v", m)
	}
	for name := range files {
		if _, err := os.Stat(filepath.Join(home, name+".moat-backup")); err != nil {
			t.Errorf("no backup of %s: %v", name, err)
		}
	}

	// Wrapping again changes nothing.
	before := map[string]string{}
	for name := range files {
		before[name] = read(name)
	}
	if out, _, code := run("mcp", "wrap"); code != 0 || strings.Contains(out, "changed;") {
		t.Errorf("second wrap: exit %d\n%s", code, out)
	}
	for name := range files {
		if read(name) != before[name] {
			t.Errorf("a second wrap changed %s", name)
		}
	}

	out, stderr, code = run("mcp", "unwrap", "--json")
	if code != 0 {
		t.Fatalf("unwrap: exit %d\n%s\n%s", code, out, stderr)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r struct {
			File    string `json:"file"`
			Written bool   `json:"written"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.File == "" {
			t.Errorf("--json line %q: %v", line, err)
		}
	}
	for name, text := range files {
		if got := read(name); got != text {
			t.Errorf("unwrap did not restore %s byte for byte:\n%s\nwant:\n%s", name, got, text)
		}
	}

	if _, stderr, code := run("mcp", "wrap", "--agent", "cursr"); code != 1 || !strings.Contains(stderr, `unknown agent "cursr"`) {
		t.Errorf("unknown agent: exit %d, %s", code, stderr)
	}
}
