package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPWrapUnwrap wraps the MCP servers of four agents' configs on a temporary HOME
// through the built binary, checks that the wrapped servers run through moat's proxy
// (remote ones through its stdio bridge) and that nothing else changed, and that unwrap
// restores each file byte for byte.
func TestMCPWrapUnwrap(t *testing.T) {
	home := t.TempDir()
	bin := moatBinary(t)
	// wrap writes the binary's path with links resolved.
	realBin, err := filepath.EvalSymlinks(bin)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		".cursor/mcp.json": `{
  // the user's comment stays
  "mcpServers": {
    "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/p"], "env": {"DEBUG": "1"}},
    "remote": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${env:MCP_TOKEN}"}}
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

[mcp_servers.figma]
url = "https://mcp.figma.com/mcp"   # remote
bearer_token_env_var = "FIGMA_TOKEN"
`,
		".claude.json": `{
  "numStartups": 3,
  "mcpServers": {
    "sentry": {
      "type": "http",
      "url": "https://mcp.sentry.dev/mcp",
      "headers": {
        "Authorization": "Bearer ${SENTRY_TOKEN}"
      }
    },
    "linear": {
      "type": "sse",
      "url": "https://mcp.linear.app/sse"
    }
  }
}
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
		return runInProcess(t, home, []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}, "", args...)
	}
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(home, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}

	out, stderr, code := run("mcp", "wrap", "--dry-run")
	if code != 0 || !strings.Contains(out, "would change") || !strings.Contains(out, `+      "mcp",`) && !strings.Contains(out, `"mcp", "proxy"`) ||
		!strings.Contains(out, `+      "args": ["mcp", "proxy", "--name", "sentry", "--stdio", "--upstream-env", "MOAT_MCP_UPSTREAM"],`) {
		t.Errorf("dry run: exit %d\n%s\n%s", code, out, stderr)
	}
	// --json with --dry-run: the remote server is reported wrapped, and in the diff.
	out, stderr, code = run("mcp", "wrap", "--dry-run", "--json", "--agent", "claude-code")
	var dry struct {
		Changes []string `json:"changes"`
		Diff    string   `json:"diff"`
		Written bool     `json:"written"`
	}
	if err := json.Unmarshal([]byte(out), &dry); err != nil || code != 0 || dry.Written ||
		!slices.Contains(dry.Changes, "mcpServers.sentry (line 4): wrapped (HTTP, through moat's stdio bridge)") ||
		!slices.Contains(dry.Changes, `mcpServers.linear (line 11): skipped: it uses the "sse" transport; moat's bridge speaks Streamable HTTP only`) ||
		!strings.Contains(dry.Diff, `+        "MOAT_MCP_UPSTREAM": "{\"url\":\"https://mcp.sentry.dev/mcp\",\"headers\":{\"Authorization\":\"Bearer ${SENTRY_TOKEN}\"}}",`) {
		t.Errorf("dry run --json: exit %d, %v\n%s\n%s", code, err, out, stderr)
	}
	// A server the user wants left alone, such as one the agent signs in to with OAuth.
	out, stderr, code = run("mcp", "wrap", "--dry-run", "--agent", "claude-code", "--skip", "sentry")
	if code != 0 || !strings.Contains(out, "mcpServers.sentry (line 4): skipped: left as it is, as asked") || strings.Contains(out, "would change") {
		t.Errorf("--skip: exit %d\n%s\n%s", code, out, stderr)
	}
	// A credential written in a header is masked in the diff, which terminals and CI
	// logs keep.
	token := "ghp_R8sT2vXq9LmN4bP7cK1wZ6yH3jF5dG0aE8uQ"
	leaky := `{"mcpServers": {"gh": {"httpUrl": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer ` + token + `"}}}}` + "\n"
	if err := os.WriteFile(filepath.Join(home, ".gemini/settings.json"), []byte(leaky), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"--json", "--dry-run"} {
		out, stderr, code = run("mcp", "wrap", "--dry-run", format, "--agent", "gemini-cli")
		if code != 0 || strings.Contains(out, token) || !strings.Contains(out, "REDACTED") || !strings.Contains(out, "MOAT_MCP_UPSTREAM") {
			t.Errorf("the diff shows the credential (%s): exit %d\n%s\n%s", format, code, out, stderr)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".gemini/settings.json"), []byte(files[".gemini/settings.json"]), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code = run("mcp", "wrap", "--dry-run", "--agent", "cursor", "--stdio-only")
	if code != 0 || !strings.Contains(out, "mcpServers.remote (line 5): skipped: left as it is, as asked") || !strings.Contains(out, "mcpServers.filesystem (line 4): wrapped") {
		t.Errorf("--stdio-only: exit %d\n%s\n%s", code, out, stderr)
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
	for _, want := range []string{
		"mcpServers.remote (line 5): wrapped (HTTP, through moat's stdio bridge)",
		"mcp_servers.figma (line 9): wrapped (HTTP, through moat's stdio bridge)",
		`mcpServers.linear (line 11): skipped: it uses the "sse" transport`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("wrap did not report %q:\n%s", want, out)
		}
	}
	cursor := read(".cursor/mcp.json")
	if !strings.Contains(cursor, `"args": ["mcp","proxy","--name","filesystem","--","npx", "-y", "@modelcontextprotocol/server-filesystem", "/home/me/p"]`) && !strings.Contains(cursor, `"mcp", "proxy", "--name", "filesystem", "--", "npx"`) {
		t.Errorf("cursor's server does not run through the proxy:\n%s", cursor)
	}
	for _, kept := range []string{"// the user's comment stays", `"env": {"DEBUG": "1"}`, `"theme": "dark",`} {
		if !strings.Contains(cursor, kept) {
			t.Errorf("wrap lost %q:\n%s", kept, cursor)
		}
	}
	if !strings.Contains(cursor, `"remote": {"command": "`+realBin) || !strings.Contains(cursor, `"MOAT_MCP_ORIGINAL": "{\"url\": \"https://mcp.example.com/mcp\", `) {
		t.Errorf("cursor's remote server does not run moat's bridge:\n%s", cursor)
	}
	codex := read(".codex/config.toml")
	if !strings.Contains(codex, "# the server") || !strings.Contains(codex, `"--name", "github", "--", "github-mcp"`) && !strings.Contains(codex, `"--name","github","--","github-mcp"`) ||
		!strings.Contains(codex, `env = { MOAT_MCP_UPSTREAM = '{"url":"https://mcp.figma.com/mcp","headers":{"Authorization":"Bearer ${FIGMA_TOKEN}"}}'`) ||
		!strings.Contains(codex, "\nenv_vars = [\"FIGMA_TOKEN\"]\n") {
		t.Errorf("codex:\n%s", codex)
	}
	// The remote server of Claude Code is a stdio server now: this moat, its bridge, and
	// the server's URL and headers in the variable the bridge reads.
	var claude struct {
		MCPServers map[string]struct {
			Type    string            `json:"type"`
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
			URL     string            `json:"url"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(read(".claude.json")), &claude); err != nil {
		t.Fatal(err)
	}
	sentry := claude.MCPServers["sentry"]
	var upstream struct {
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	}
	if err := json.Unmarshal([]byte(sentry.Env["MOAT_MCP_UPSTREAM"]), &upstream); err != nil || sentry.Type != "stdio" || sentry.URL != "" ||
		sentry.Command != realBin || strings.Join(sentry.Args, " ") != "mcp proxy --name sentry --stdio --upstream-env MOAT_MCP_UPSTREAM" ||
		upstream.URL != "https://mcp.sentry.dev/mcp" || upstream.Headers["Authorization"] != "Bearer ${SENTRY_TOKEN}" || len(upstream.Headers) != 1 {
		t.Errorf("claude code's remote server: %+v, upstream %+v (%v)", sentry, upstream, err)
	}
	if linear := claude.MCPServers["linear"]; linear.Type != "sse" || linear.Command != "" {
		t.Errorf("the SSE server was changed: %+v", linear)
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

	if _, stderr, code := run("mcp", "wrap", "--agent", "cursr"); code != 64 || !strings.Contains(stderr, `unknown agent "cursr" (did you mean "cursor"?)`) {
		t.Errorf("unknown agent: exit %d, %s", code, stderr)
	}
}

// remoteMCPServer serves a Go SDK server on the Streamable HTTP transport that wants
// the credentials TestMCPWrapRemoteRuns's configs give, and notes the calls it gets.
func remoteMCPServer(t *testing.T) (url string, seen func() string) {
	var mu sync.Mutex
	var calls []string
	note := func(s string) {
		mu.Lock()
		calls = append(calls, s)
		mu.Unlock()
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "remote", Version: "v0"}, nil)
	type text struct {
		Text string `json:"text"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "Echoes the text."}, func(_ context.Context, _ *mcp.CallToolRequest, in text) (*mcp.CallToolResult, any, error) {
		note("echo " + in.Text)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	mcp.AddTool(server, &mcp.Tool{Name: "delete_everything", Description: "Deletes everything (a canary: it only counts)."}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		note("delete_everything")
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deleted"}}}, nil, nil
	})
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret-token" || r.Header.Get("X-Region") != `eu "west"` {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		sdk.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp", func() string {
		mu.Lock()
		defer mu.Unlock()
		return strings.Join(calls, ",")
	}
}

// wrappedEntry is what the agent starts for a wrapped server.
type wrappedEntry struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	EnvVars []string          // Codex's env_vars
}

// codexEntry reads the one server wrap wrote into a Codex config, in the layout wrap
// writes (one key a line; strings and arrays of strings that JSON reads alike).
func codexEntry(t *testing.T, text string) wrappedEntry {
	t.Helper()
	var e wrappedEntry
	for _, line := range strings.Split(text, "\n") {
		key, val, _ := strings.Cut(line, " = ")
		var err error
		switch key {
		case "command":
			err = json.Unmarshal([]byte(val), &e.Command)
		case "args":
			err = json.Unmarshal([]byte(val), &e.Args)
		case "env_vars":
			err = json.Unmarshal([]byte(val), &e.EnvVars)
		case "env":
			up, ok := strings.CutPrefix(val, "{ MOAT_MCP_UPSTREAM = '")
			up, _, ok2 := strings.Cut(up, "'")
			if !ok || !ok2 {
				t.Fatalf("env: %s", val)
			}
			e.Env = map[string]string{"MOAT_MCP_UPSTREAM": up}
		}
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	return e
}

// TestMCPWrapRemoteRuns wraps a remote server of Claude Code's config and of Codex's,
// then starts the wrapped entry as each agent would (its command and arguments; its env
// on top of the agent's, which Codex filters down to a few variables and those named by
// env_vars) and talks MCP to it: the bridge reaches the server with the entry's
// headers, ${VAR} in them expanded by moat, allowed calls go through and a denied one
// never reaches the server. Unwrap then restores the file byte for byte.
func TestMCPWrapRemoteRuns(t *testing.T) {
	bin := moatBinary(t)
	for _, tc := range []struct {
		agent, file, text string
		entry             func(t *testing.T, text string) wrappedEntry
		env               func(agentEnv []string, e wrappedEntry) []string
	}{
		{
			agent: "claude-code", file: ".claude.json",
			text: `{
  "mcpServers": {
    "remote": {
      "type": "http",
      "url": "URL",
      "headers": {
        "Authorization": "Bearer ${REMOTE_TOKEN}",
        "X-Region": "eu \"west\""
      }
    }
  }
}
`,
			entry: func(t *testing.T, text string) wrappedEntry {
				var cfg struct {
					MCPServers map[string]wrappedEntry `json:"mcpServers"`
				}
				if err := json.Unmarshal([]byte(text), &cfg); err != nil {
					t.Fatal(err)
				}
				return cfg.MCPServers["remote"]
			},
			// Claude Code passes its whole environment; ${REMOTE_TOKEN} is left for
			// moat to expand.
			env: func(agentEnv []string, _ wrappedEntry) []string { return agentEnv },
		},
		{
			agent: "codex", file: ".codex/config.toml",
			text: `model = "o4"

[mcp_servers.remote]
url = "URL"
bearer_token_env_var = "REMOTE_TOKEN"
http_headers = { "X-Region" = "eu \"west\"" }
`,
			entry: codexEntry,
			env: func(agentEnv []string, e wrappedEntry) []string {
				var out []string
				for _, kv := range agentEnv {
					name, _, _ := strings.Cut(kv, "=")
					if name == "HOME" || name == "PATH" || slices.Contains(e.EnvVars, name) {
						out = append(out, kv)
					}
				}
				return out
			},
		},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			url, seen := remoteMCPServer(t)
			home := t.TempDir()
			original := strings.Replace(tc.text, "URL", url, 1)
			policy := "version: 1\ndefault: allow\nrules:\n  - id: no-deleting\n    tool: mcp:remote/delete_*\n    decision: deny\n    reason: not for agents\n"
			for name, text := range map[string]string{tc.file: original, ".config/moat/moat.yaml": policy} {
				p := filepath.Join(home, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			moat := func(args ...string) {
				t.Helper()
				cmd := exec.Command(bin, args...)
				cmd.Dir = home
				cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("moat %s: %v\n%s", strings.Join(args, " "), err, out)
				}
			}
			moat("mcp", "wrap", "--agent", tc.agent)
			data, err := os.ReadFile(filepath.Join(home, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			entry := tc.entry(t, string(data))
			if entry.Command == "" {
				t.Fatalf("not wrapped:\n%s", data)
			}

			agentEnv := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "REMOTE_TOKEN=s3cret-token", "UNRELATED=1"}
			cmd := exec.Command(entry.Command, entry.Args...)
			cmd.Dir = home
			cmd.Env = tc.env(agentEnv, entry)
			for k, v := range entry.Env {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v0"}, nil)
			sess, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatalf("connecting to the wrapped entry: %v\n%s", err, stderr.String())
			}
			res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}})
			if err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "hello" {
				t.Errorf("echo through the wrapped entry: %+v, %v\n%s", res, err, stderr.String())
			}
			res, err = sess.CallTool(ctx, &mcp.CallToolParams{Name: "delete_everything", Arguments: map[string]any{}})
			if err != nil || !res.IsError {
				t.Errorf("delete_everything was not refused: %+v, %v", res, err)
			}
			sess.Close()
			if got := seen(); got != "echo hello" {
				t.Errorf("the server saw %q, want only the allowed call", got)
			}

			moat("mcp", "unwrap", "--agent", tc.agent)
			if data, _ := os.ReadFile(filepath.Join(home, tc.file)); string(data) != original {
				t.Errorf("unwrap did not restore the file:\n%s", data)
			}
		})
	}
}
