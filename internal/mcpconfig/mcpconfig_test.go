package mcpconfig

import (
	"encoding/json"
	"errors"
	"github.com/rogpeppe/go-internal/diff"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func client(t testing.TB, name string) Client {
	t.Helper()
	c, ok := ForClient(name)
	if !ok {
		t.Fatalf("no client %q", name)
	}
	return c
}

// layouts are single entries in every layout of command and args that Wrap has a
// rule for, and the corner cases of those rules. Each must come back byte for byte.
var layouts = map[string][]string{
	"cursor": {
		`{"mcpServers": {"s": {"command": "x"}}}`,
		`{"mcpServers": {"s": {"command": "x", "args": []}}}`,
		`{"mcpServers": {"s": {"command": "x","args":[]}}}`,
		`{"mcpServers": {"s": {"args": [], "command": "x"}}}`,
		`{"mcpServers": {"s": {"command": "x", "args": [ ]}}}`,
		"{\"mcpServers\": {\"s\": {\"command\": \"x\", \"args\": [\n]}}}",
		`{"mcpServers": {"s": {"command": "x", "args": [ /* none */ ]}}}`,
		`{"mcpServers": {"s": {"command": "x", "args": ["a"]}}}`,
		`{"mcpServers": {"s": {"command": "x", "args": [ "a"]}}}`,
		`{"mcpServers": {"s": {"command": "x", "args": ["a",]}}}`,
		"{\"mcpServers\": {\"s\": {\"command\": \"x\", \"args\": [\n  \"a\",\n  \"b\"\n]}}}",
		"{\"mcpServers\": {\"s\": {\"command\": \"x\", \"args\": [\r\n\t\t\"a\"\r\n\t]}}}",
		"{\"mcpServers\": {\"s\": {\"command\": \"x\", \"args\": [ // the args\n  \"a\"\n]}}}",
		"{\"mcpServers\": {\"s\": {\"command\": \"x\", \"args\": [\n  // the args\n  \"a\"\n]}}}",
		"{\"mcpServers\": {\"s\": {\"command\": \"x\" // run x\n}}}",
		"{\"mcpServers\": {\"s\": {\"command\": \"x\" /* run x */, \"env\": {}}}}",
		`{"mcpServers": {"s": {"command": "x",}}}`,
		`{"mcpServers": {"s": {"command": "C:\\tools\\x.exe", "args": ["\u0041", "a\/b"]}}}`,
		`{"mcpServers": {"s": {"command": "\u0078"}}}`,
		`{"mcpServers": {"s p a c e": {"command": "x"}, "qu\"ote": {"command": "y"}, "": {"command": "z"}, "--": {"command": "w", "args": ["--"]}}}`,
		`{"mcpServers": {"ünï": {"command": "x"}, "a\u0000b": {"command": "y"}}}`,
		// Arguments that look like moat's, of a command that is not moat.
		`{"mcpServers": {"s": {"command": "npx", "args": ["mcp", "proxy", "--name", "s", "--", "npx"]}}}`,
		`{"mcpServers": {"s": {"command": "npx", "args":["mcp","proxy","--name","s","--","npx"]}}}`,
		`{"mcpServers": {"s": {"command": "npx", "args": ["mcp", "proxy", "--name", "s", "--", "npx", "y"]}}}`,
		// A command that is moat, doing something else.
		`{"mcpServers": {"s": {"command": "/opt/moat", "args": ["check", "ls"]}}}`,
		"\uFEFF{\"mcpServers\": {\"s\": {\"command\": \"x\"}}}",
		`{"mcpServers": {"s": {"command": "x"}, "s": {"command": "y", "args": ["z"]}}}`,
		"// leading comment\n{\"mcpServers\": {\"s\": {\"command\": \"x\"}}} // trailing\n",
		"{\n  \"mcpServers\": {\n    \"s\": {\n      \"command\": \"x\"\n    }\n  }\n}\n",
		"{\r\n\t\"mcpServers\": {\r\n\t\t\"s\": {\r\n\t\t\t\"command\": \"x\", // run x\r\n\t\t\t\"env\": {}\r\n\t\t}\r\n\t}\r\n}",
		"{\"mcpServers\": {\"s\": {\n\"command\": \"x\"}}}",
		"{\"mcpServers\": {\"s\": {\n  \"command\": \"x\",\n  \"args\": []\n}}}",
		"{\"mcpServers\": {\"s\": {\"command\": \"x\", \"args\": [\n  // the args\n  \"a\"\n]}}}",
	},
	"codex": {
		"[mcp_servers.s]\ncommand = \"x\"\n",
		"[mcp_servers.s]\ncommand = \"x\"",
		"[mcp_servers.s]\ncommand = \"x\"\r\n",
		"[mcp_servers.s]\r\ncommand = \"x\"",
		"[mcp_servers.s]\ncommand = \"x\" # run x\nenv = { A = \"1\" }\n",
		"[mcp_servers.s]\ncommand = \"x\"\nargs = []\n",
		"[mcp_servers.s]\nargs = []\ncommand = \"x\"\n",
		"[mcp_servers.s]\ncommand = \"x\"\nargs = [\n]\n",
		"[mcp_servers.s]\ncommand = \"x\"\nargs = [\"a\", 'b', \"\"\"c\"\"\", '''d''']\n",
		"[mcp_servers.s]\ncommand = \"x\"\nargs = [\n  \"a\", # first\n  \"b\",\n]\n",
		"[mcp_servers.s]\ncommand = \"x\"\nargs = [ # the args\n  \"a\",\n]\n",
		"[mcp_servers.s]\ncommand = '''\nx'''\n",
		"[mcp_servers.s]\ncommand = \"\"\"x\\\n   y\"\"\"\nargs = [\"a\"]\n",
		"[mcp_servers.s]\ncommand = \"C:\\\\x\\\\srv.exe\"\n",
		"[mcp_servers.\"s.t\"]\ncommand = \"x\"\n[mcp_servers.'u v']\ncommand = \"y\"\n",
		"[ mcp_servers . s ]\ncommand = \"x\"\n",
		"\t[mcp_servers.s]\n\tcommand = \"x\"\n\t[mcp_servers.s.env]\n\tA = \"[not a table]\"\n",
		"[mcp_servers.s]\ncommand = \"npx\"\nargs = [\"mcp\",\"proxy\",\"--name\",\"s\",\"--\",\"npx\"]\n",
		"a = \"\"\"\n[mcp_servers.fake]\ncommand = \"no\"\n\"\"\"\n[mcp_servers.s]\ncommand = \"x\"\n",
	},
}

func TestLayoutsRoundTrip(t *testing.T) {
	for name, texts := range layouts {
		c := client(t, name)
		for _, text := range texts {
			wrapped, changes, err := c.Wrap(text, moatBin, Options{})
			if err != nil {
				t.Errorf("%q: %v", text, err)
				continue
			}
			for _, ch := range changes {
				if ch.Skipped || ch.Already {
					t.Errorf("%q: %s", text, ch)
				}
			}
			if len(changes) == 0 {
				t.Errorf("%q: no server found", text)
			}
			checkArgv(t, c, text, wrapped)
			again, _, err := c.Wrap(wrapped, moatBin, Options{})
			if err != nil || again != wrapped {
				t.Errorf("%q: wrapping twice gave %q (%v)", text, again, err)
			}
			back, restored, err := c.Unwrap(wrapped)
			if err != nil || back != text {
				t.Errorf("%q: wrapped to %q and unwrapped to %q (%v)", text, wrapped, back, err)
			}
			for _, ch := range restored {
				if ch.Reason != "" {
					t.Errorf("%q: %s", text, ch)
				}
			}
		}
	}
}

// TestStrictJSONStaysStrict: what a client with a strict parser (Claude Desktop,
// Claude Code) could read, it can still read after wrapping.
func TestStrictJSONStaysStrict(t *testing.T) {
	c := client(t, "claude-code")
	for _, text := range layouts["cursor"] {
		if !json.Valid([]byte(text)) {
			continue
		}
		wrapped, _, err := c.Wrap(strings.Replace(text, "mcpServers", "mcpServers", 1), moatBin, Options{})
		if err != nil || !json.Valid([]byte(wrapped)) {
			t.Errorf("%q wrapped to invalid JSON %q (%v)", text, wrapped, err)
		}
	}
}

func TestAlreadyWrapped(t *testing.T) {
	for _, text := range []string{
		`{"mcpServers": {"s": {"command": "/usr/local/bin/moat", "args": ["mcp", "proxy", "--name", "s", "--", "x"]}}}`,
		`{"mcpServers": {"s": {"command": "/other/place/moat", "args": ["mcp", "proxy", "--name", "t", "--", "x"]}}}`,
		`{"mcpServers": {"s": {"command": "C:\\moat\\MOAT.EXE", "args": ["mcp", "proxy", "--", "x"]}}}`,
		`{"mcpServers": {"s": {"command": "moat", "args": ["mcp", "proxy", "--name=s", "--future=1", "--", "x"]}}}`,
		`{"mcpServers": {"s": {"command": "/bin/moat", "args": ["mcp", "proxy", "--upstream", "https://x"]}}}`,
		`{"mcpServers": {"s": {"command": "/bin/moat", "args": ["mcp", "proxy", "--name", "s", "--stdio", "--upstream-env", "X"]}}}`,
		`{"mcpServers": {"s": {"command": "/bin/moat", "args": ["mcp", "proxy", "--stdio", "--upstream-env=X"], "env": {"X": "{}"}}}}`,
	} {
		c := client(t, "cursor")
		out, changes, err := c.Wrap(text, moatBin, Options{})
		if err != nil || out != text || len(changes) != 1 || !changes[0].Already {
			t.Errorf("%q: got %q %v %v", text, out, changes, err)
		}
	}
}

func TestUnwrapHandWritten(t *testing.T) {
	c := client(t, "cursor")
	for _, tc := range []struct{ in, want, reason string }{
		{
			`{"mcpServers": {"s": {"command": "/bin/moat", "args": ["mcp", "proxy", "--name=s", "--", "x", "-y"]}}}`,
			`{"mcpServers": {"s": {"command": "x", "args": ["-y"]}}}`, reasonLayout,
		},
		{
			`{"mcpServers": {"s": {"command": "/bin/moat", "args": ["mcp", "proxy", "--agent", "cursor", "--policy", "/p.yaml", "--name", "s", "--", "x", "a"]}}}`,
			`{"mcpServers": {"s": {"command": "x", "args": ["a"]}}}`, reasonLayout,
		},
		{
			`{"mcpServers": {"s": {"command": "/bin/moat", "args": ["mcp", "proxy", "--", "x"]}}}`,
			`{"mcpServers": {"s": {"command": "x", "args": []}}}`, reasonLayout,
		},
		{
			`{"mcpServers": {"s": {"command": "/bin/moat", "args": ["mcp", "proxy", "--upstream", "https://x"]}}}`,
			`{"mcpServers": {"s": {"command": "/bin/moat", "args": ["mcp", "proxy", "--upstream", "https://x"]}}}`,
			"it runs through moat, but moat cannot tell which command it wraps",
		},
		{
			`{"mcpServers": {"s": {"command": "/bin/moat", "args": ["mcp", "proxy", "--name", "s", "--"]}}}`,
			`{"mcpServers": {"s": {"command": "/bin/moat", "args": ["mcp", "proxy", "--name", "s", "--"]}}}`,
			"it runs through moat, but moat cannot tell which command it wraps",
		},
	} {
		got, changes, err := c.Unwrap(tc.in)
		if err != nil || got != tc.want || len(changes) != 1 || changes[0].Reason != tc.reason {
			t.Errorf("Unwrap(%q) = %q %v %v\nwant %q, reason %q", tc.in, got, changes, err, tc.want, tc.reason)
		}
	}
}

// TestUnwrapReformatted: Claude Code rewrites ~/.claude.json with JSON.stringify(…,
// null, 2). The commands and arguments still come back, in the new layout.
func TestUnwrapReformatted(t *testing.T) {
	c := client(t, "claude-code")
	input := readFile(t, "testdata/golden/claude-code/claude.json")
	wrapped, _, err := c.Wrap(input, moatBin, Options{})
	if err != nil {
		t.Fatal(err)
	}
	reformat := func(s string) string {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatal(err)
		}
		out, _ := json.MarshalIndent(v, "", "  ")
		return string(out) + "\n"
	}
	back, changes, err := c.Unwrap(reformat(wrapped))
	if err != nil {
		t.Fatal(err)
	}
	// A remote server's entry comes back as it was written, in the old layout, so the
	// file is compared by value; the servers' command lines are checked exactly.
	if want := reformat(input); reformat(back) != want {
		t.Errorf("unwrapping the reformatted file:\n%s", diff.Diff("want", []byte(want), "unwrapped", []byte(reformat(back))))
	}
	if !strings.Contains(back, `"args": [
            "-y",
            "@modelcontextprotocol/server-postgres",`) {
		t.Errorf("the stdio server's arguments did not keep the new layout:\n%s", back)
	}
	http := 0
	for _, ch := range changes {
		switch {
		case ch.Skipped:
			t.Errorf("%s", ch)
		case ch.HTTP:
			http++
		case ch.Reason != reasonLayout:
			t.Errorf("%s: the change does not say the layout was not restored", ch)
		}
	}
	if http != 1 {
		t.Errorf("%d remote servers restored, want 1: %v", http, changes)
	}
}

// TestUnwrapKeepsLaterEdits: what the user changed in a wrapped entry stays changed.
func TestUnwrapKeepsLaterEdits(t *testing.T) {
	c := client(t, "vscode")
	in := "{\n  \"servers\": {\n    \"s\": {\n      \"command\": \"x\",\n      \"args\": [\"a\"]\n    }\n  }\n}\n"
	wrapped, _, err := c.Wrap(in, moatBin, Options{})
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(wrapped, `"args"`, `"env": {"NEW": "1"},`+"\n      \"args\"", 1)
	back, _, err := c.Unwrap(edited)
	want := strings.Replace(in, `"args"`, `"env": {"NEW": "1"},`+"\n      \"args\"", 1)
	if err != nil || back != want {
		t.Errorf("got %q, want %q (%v)", back, want, err)
	}
}

func TestSkipped(t *testing.T) {
	for _, tc := range []struct{ client, text, reason string }{
		{"cursor", `{"mcpServers": {"s": {"command": 1}}}`, "its command is not a string"},
		{"cursor", `{"mcpServers": {"s": {"command": ""}}}`, "its command is empty"},
		{"cursor", `{"mcpServers": {"s": {"command": "x", "command": "y"}}}`, "it gives command more than once"},
		{"cursor", `{"mcpServers": {"s": {"command": "x", "args": "-y"}}}`, "its args is not an array"},
		{"cursor", `{"mcpServers": {"s": {"command": "x", "args": [], "args": []}}}`, "it gives args more than once"},
		{"cursor", `{"mcpServers": {"s": {"command": "x", "args": [1]}}}`, "its args hold 1, which is not a string"},
		{"cursor", `{"mcpServers": {"s": {"command": "x", "type": "http"}}}`, `its type is "http", not stdio, yet it has a command`},
		{"cursor", `{"mcpServers": {"s": {"command": "x", "url": "https://x"}}}`, "it has both a command and a url"},
		{"cursor", `{"mcpServers": {"s": {}}}`, "it has neither a command nor a url"},
		{"cursor", `{"mcpServers": {"s": []}}`, "the entry is not an object"},
		{"cursor", `{"mcpServers": []}`, "mcpServers is a array, not an object of servers"},
		{"cursor", `{"mcpServers": {"s": {"url": 5}}}`, "its url is not a string"},
		{"cursor", `{"mcpServers": {"s": {"url": "https://x", "type": 1}}}`, "its type is not a string"},
		{"claude-code", `{"mcpServers": {"s": {"url": "https://x"}}}`, "it has a url but no type, which claude-code rejects"},
		{"gemini-cli", `{"mcpServers": {"s": {"url": "https://x"}}}`, `it uses the "sse" transport (a url without "type": "http"); moat's bridge speaks Streamable HTTP only`},
		{"claude-desktop", `{"mcpServers": {"s": {"url": "https://x"}}}`, "it has no command"},
		{"codex", "mcp_servers = 1\n", "mcp_servers is not a table"},
		{"codex", "mcp_servers = { a = { command = \"x\" } }\n", "it is written as an inline table; moat edits only [mcp_servers.NAME] tables"},
		{"codex", "mcp_servers.a = { command = \"x\" }\n", "it is written as an inline table; moat edits only [mcp_servers.NAME] tables"},
		{"codex", "mcp_servers.a.command = \"x\"\n", "it is written as dotted keys; moat edits only [mcp_servers.NAME] tables"},
		{"codex", "[mcp_servers.a]\ncommand = \"x\"\n[mcp_servers]\na.args = []\n", "the server is defined more than once"},
		{"codex", "[mcp_servers.a]\ncommand = \"x\"\n[mcp_servers.a]\nargs = []\n", "the server is defined more than once"},
	} {
		c := client(t, tc.client)
		out, changes, err := c.Wrap(tc.text, moatBin, Options{})
		if err != nil || out != tc.text || len(changes) != 1 || !changes[0].Skipped || changes[0].Reason != tc.reason {
			t.Errorf("%s %q: got %q %v %v, want the reason %q", tc.client, tc.text, out, changes, err, tc.reason)
		}
	}
}

func TestWrapRefuses(t *testing.T) {
	c := client(t, "cursor")
	for _, moat := range []string{"", "moat", "bin/moat", "/usr/bin/moat-2", "/usr/bin/guard"} {
		if _, _, err := c.Wrap(`{}`, moat, Options{}); err == nil {
			t.Errorf("Wrap accepted the moat path %q", moat)
		}
	}
	for _, moat := range []string{`C:\Program Files\moat\moat.exe`, `/opt/moat`} {
		if _, _, err := c.Wrap(`{}`, moat, Options{}); err != nil {
			t.Errorf("Wrap(%q): %v", moat, err)
		}
	}
}

func TestEmptyAndServerless(t *testing.T) {
	for _, c := range Clients {
		for _, text := range []string{"", "\n", "  // nothing\n"} {
			if c.TOML {
				text = strings.ReplaceAll(text, "//", "#")
			}
			out, changes, err := c.Wrap(text, moatBin, Options{})
			if err != nil || out != text || len(changes) != 0 {
				t.Errorf("%s: Wrap(%q) = %q, %v, %v", c.Name, text, out, changes, err)
			}
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		client, text string
		line, col    int
	}{
		{"cursor", `{"a": }`, 1, 7},
		{"cursor", "{\n  \"a\": 1\n  \"b\": 2\n}", 3, 3},
		{"cursor", "{\"a\": [1 2]}", 1, 10},
		{"cursor", "{\"a\": tru}", 1, 7},
		{"cursor", "{\"a\": \"x}", 1, 7},
		{"cursor", "{\"a\": \"\\q\"}", 1, 8},
		{"cursor", "{} /* open", 1, 4},
		{"cursor", "[]", 1, 1},
		{"cursor", "{} {}", 1, 4},
		{"cursor", "{a: 1}", 1, 2},
		{"cursor", strings.Repeat("[", 1000), 1, 514},
		{"codex", "a = ", 1, 5},
		{"codex", "[mcp_servers.a\ncommand = \"x\"", 1, 15},
		{"codex", "a = \"x\" b = 1", 1, 9},
		{"codex", "a = [1, 2", 1, 10},
		{"codex", "a = \"\"\"x", 1, 5},
		{"codex", "a = 'x\n'", 1, 5},
		{"codex", "a = \"\\q\"", 1, 6},
		{"codex", "= 1", 1, 1},
		{"codex", "a = {b = 1", 1, 11},
		{"codex", "a = 1\r", 1, 6},
	} {
		c := client(t, tc.client)
		_, _, err := c.Wrap(tc.text, moatBin, Options{})
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line != tc.line || pe.Col != tc.col {
			t.Errorf("%s %q: %v, want an error at %d:%d", tc.client, tc.text, err, tc.line, tc.col)
		}
		if _, _, err := c.Unwrap(tc.text); !errors.As(err, &pe) {
			t.Errorf("%s %q: Unwrap: %v", tc.client, tc.text, err)
		}
	}
}

func TestUnquoteTOML(t *testing.T) {
	for raw, want := range map[string]string{
		`"a\tb\u00e9\U0001F600\x41\e"`: "a\tbé😀A\x1b",
		`'C:\x'`:                       `C:\x`,
		"'''\nline\n'''":               "line\n",
		"\"\"\"\r\na \\\n   b\"\"\"":   "a b",
		`""""a"""""`:                   `"a""`,
	} {
		if got, ok := unquoteTOML(raw); !ok || got != want {
			t.Errorf("unquoteTOML(%q) = %q, %v, want %q", raw, got, ok, want)
		}
	}
}

func TestFiles(t *testing.T) {
	want := map[string]map[string][]string{
		"claude-desktop": {
			"darwin":  {"/h/Library/Application Support/Claude/claude_desktop_config.json"},
			"linux":   {"/h/.config/Claude/claude_desktop_config.json"},
			"windows": {"/h/AppData/Roaming/Claude/claude_desktop_config.json"},
		},
		"claude-code": {"linux": {"/h/.claude.json", "/p/.mcp.json"}},
		"cursor":      {"darwin": {"/h/.cursor/mcp.json", "/p/.cursor/mcp.json"}},
		"windsurf":    {"linux": {"/h/.codeium/windsurf/mcp_config.json"}},
		"gemini-cli":  {"linux": {"/h/.gemini/settings.json", "/p/.gemini/settings.json"}},
		"codex":       {"linux": {"/h/.codex/config.toml", "/p/.codex/config.toml"}},
		"vscode": {
			"linux":   {"/h/.config/Code/User/mcp.json", "/p/.vscode/mcp.json"},
			"darwin":  {"/h/Library/Application Support/Code/User/mcp.json", "/p/.vscode/mcp.json"},
			"windows": {"/h/AppData/Roaming/Code/User/mcp.json", "/p/.vscode/mcp.json"},
		},
	}
	for _, c := range Clients {
		w, ok := want[c.Name]
		if !ok {
			t.Errorf("no expected files for %s", c.Name)
		}
		for goos, files := range w {
			got := c.Files("/h", "/p", goos)
			for i := range got {
				got[i] = filepath.ToSlash(got[i])
			}
			if !slices.Equal(got, files) && !slices.Equal(got, files[:1]) {
				t.Errorf("%s on %s: %q, want %q", c.Name, goos, got, files)
			}
			for _, f := range c.Files("/h", "", goos) {
				if !strings.HasPrefix(filepath.ToSlash(f), "/h/") {
					t.Errorf("%s: project file %s without a project", c.Name, f)
				}
			}
		}
	}
}
