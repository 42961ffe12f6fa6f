package mcpconfig

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/textedit"
)

// remoteLayouts are remote servers in the layouts each rule of bridge.go has a case for,
// by client. Each must be wrapped and come back byte for byte.
var remoteLayouts = map[string][]string{
	"cursor": {
		`{"mcpServers": {"r": {"url": "https://x.example.com/mcp"}}}`,
		`{"mcpServers": {"r": {"url": "https://x.example.com/mcp", "headers": {}}}}`,
		`{"mcpServers": {"r": {"headers": {"A": "b"}, "url": "https://x.example.com/mcp"}}}`,
		`{"mcpServers": {"r": {"type": "http", "url": "https://x.example.com/mcp"}}}`,
		`{"mcpServers": {"r": {"type": "streamableHttp", "url": "https://x.example.com/mcp"}}}`,
		`{"mcpServers": {"r": {"url": "https://${env:HOST}/mcp", "headers": {"Authorization": "Bearer ${env:TOKEN}"}}}}`,
		`{"mcpServers": {"ünï \"q\"": {"url": "https://x.example.com/mcp?q=\u00e9", "headers": {"A": "\"quoted\" \\ back\/slash\ttab"}}}}`,
		`{"mcpServers": {"a": {"url": "https://a.example.com/mcp"}, "b": {"url": "https://b.example.com/mcp"}, "c": {"command": "x"}}}`,
		"{\n  \"mcpServers\": {\n    \"r\": {\n      \"url\": \"https://x.example.com/mcp\", // remote\n      \"headers\": {\n        \"A\": \"b\", /* why */\n      },\n    },\n  },\n}\n",
		"{\"mcpServers\": {\"r\": {\n\"url\": \"https://x.example.com/mcp\"}}}",
		"{\"mcpServers\": {\"r\": {\"url\": \"https://x.example.com/mcp\",\n  \"headers\": {\"A\": \"b\"}}}}",
		"{\r\n\t\"mcpServers\": {\r\n\t\t\"r\": {\r\n\t\t\t\"url\": \"https://x.example.com/mcp\"\r\n\t\t}\r\n\t}\r\n}",
		"\uFEFF{\"mcpServers\": {\"r\": {\"url\": \"https://x.example.com/mcp\"}}}",
	},
	"claude-code": {
		`{"mcpServers": {"r": {"type": "http", "url": "https://x.example.com/mcp", "headers": {"Authorization": "Bearer ${T}"}}}, "projects": {"/p": {"mcpServers": {"r": {"type": "http", "url": "https://y.example.com/mcp"}}}}}`,
		`{"mcpServers": {"r": {"type": "streamable-http", "url": "${BASE:-https://x.example.com}/mcp"}}}`,
	},
	"vscode": {
		`{"inputs": [], "servers": {"r": {"type": "http", "url": "https://x.example.com/mcp", "headers": {"A": "${input:a}"}}}}`,
		`{"servers": {"r": {"url": "http://localhost:1/mcp"}}}`,
	},
	"gemini-cli": {
		`{"mcpServers": {"r": {"httpUrl": "https://x.example.com/mcp", "timeout": 1e3, "trust": true}}}`,
		`{"mcpServers": {"r": {"type": "http", "url": "https://x.example.com/mcp", "headers": {"A": "$B"}}}}`,
	},
	"windsurf": {
		`{"mcpServers": {"r": {"serverUrl": "https://x.example.com/mcp", "disabled": true, "disabledTools": []}}}`,
	},
	"codex": {
		"[mcp_servers.r]\nurl = \"https://x.example.com/mcp\"\n",
		"[mcp_servers.r]\nurl = \"https://x.example.com/mcp\"",
		"[mcp_servers.r]\r\nurl = \"https://x.example.com/mcp\"\r\nenabled = true\r\n",
		"[mcp_servers.r]\nurl = \"https://x.example.com/mcp\" # remote\nbearer_token_env_var = \"T\" # token\n\n# next\n[other]\na = 1\n",
		"[mcp_servers.r]\nurl = '''https://x.example.com/mcp'''\nhttp_headers = { 'A' = 'b\\c' }\n",
		"[mcp_servers.\"r.s\"]\nurl = \"https://x.example.com/mcp\"\n[mcp_servers.'t u']\nurl = \"https://y.example.com/mcp\"\n",
		"[mcp_servers.r]\nurl = \"https://x.example.com/mcp\"\nhttp_headers = { A = \"it's\" }\n",
		"[mcp_servers.r]\nenv_http_headers = { A = \"A_KEY\", B = \"B_KEY\" }\nurl = \"https://x.example.com/mcp\"\ntool_timeout_sec = 60.0\n",
		"\t[mcp_servers.r]\n\t# first\n\turl = \"https://x.example.com/mcp\"\n\t# between\n\tenabled_tools = [\n\t\t\"a\", # a\n\t]\n",
	},
}

func TestRemoteLayoutsRoundTrip(t *testing.T) {
	for name, texts := range remoteLayouts {
		c := client(t, name)
		for _, text := range texts {
			wrapped, changes, err := c.Wrap(text, moatBin, Options{})
			if err != nil {
				t.Errorf("%s %q: %v", name, text, err)
				continue
			}
			for _, ch := range changes {
				if ch.Skipped || ch.Already || !ch.HTTP && !slices.Contains(texts, text) {
					t.Errorf("%s %q: %s", name, text, ch)
				}
			}
			if wrapped == text {
				t.Errorf("%s %q: nothing wrapped", name, text)
			}
			checkArgv(t, c, text, wrapped)
			if json.Valid([]byte(text)) && !json.Valid([]byte(wrapped)) {
				t.Errorf("%s %q: strict JSON wrapped to invalid JSON %q", name, text, wrapped)
			}
			if c.TOML {
				if _, err := parseTOML(wrapped); err != nil {
					t.Errorf("%s %q: wrapped to %q, which does not parse: %v", name, text, wrapped, err)
				}
			}
			again, changes2, err := c.Wrap(wrapped, moatBin, Options{})
			if err != nil || again != wrapped {
				t.Errorf("%s %q: wrapping twice gave %q (%v)", name, text, again, err)
			}
			for _, ch := range changes2 {
				if !ch.Already {
					t.Errorf("%s %q: second wrap: %s", name, text, ch)
				}
			}
			back, restored, err := c.Unwrap(wrapped)
			if err != nil || back != text {
				t.Errorf("%s %q: wrapped to %q and unwrapped to %q (%v)", name, text, wrapped, back, err)
			}
			for _, ch := range restored {
				if ch.Reason != "" || ch.Skipped {
					t.Errorf("%s %q: %s", name, text, ch)
				}
			}
		}
	}
}

func TestRemoteSkipped(t *testing.T) {
	for _, tc := range []struct{ client, text, reason string }{
		{"cursor", `{"mcpServers": {"s": {"url": "https://x", "url": "https://y"}}}`, "it gives url more than once"},
		{"cursor", `{"mcpServers": {"s": {"url": ""}}}`, "its url is not a string"},
		{"cursor", `{"mcpServers": {"s": {"url": "x.example.com/mcp"}}}`, "its url is not an http or https URL"},
		{"cursor", `{"mcpServers": {"s": {"url": "https://x", "headers": {"A B": "x"}}}}`, `its header name "A B" is not one HTTP allows`},
		{"cursor", `{"mcpServers": {"s": {"url": "https://x", "headers": {"": "x"}}}}`, `its header name "" is not one HTTP allows`},
		{"cursor", `{"mcpServers": {"s": {"url": "https://x", "headers": {"A": "x\r\nB: y"}}}}`, "its header A holds a line break"},
		{"cursor", `{"mcpServers": {"s": {"url": "https://x", "headers": {"A": null}}}}`, "its header A is not a string"},
		{"cursor", `{"mcpServers": {"s": {"url": "https://x", "headers": "A: b"}}}`, "its headers is not an object of headers"},
		{"cursor", `{"mcpServers": {"s": {"url": "https://x", "env": {"A": "b"}}}}`, "it has env, which moat does not know how to carry into a stdio entry"},
		{"cursor", "{\"mcpServers\": {\"s\": {\"url\": \"https://x\", \"headers\": {\"A\": \"\xff\"}}}}", "it holds bytes that are not UTF-8, which moat could not keep to restore it"},
		{"cursor", `{"mcpServers": {"s": {"type": "sse", "url": "https://x"}}}`, `it uses the "sse" transport; moat's bridge speaks Streamable HTTP only`},
		{"vscode", `{"servers": {"s": {"type": "http", "url": "https://x", "dev": {}}}}`, "it has dev, which moat does not know how to carry into a stdio entry"},
		{"windsurf", `{"mcpServers": {"s": {"serverUrl": "https://x", "url": "https://x"}}}`, "it has url, which moat does not know how to carry into a stdio entry"},
		{"gemini-cli", `{"mcpServers": {"s": {"httpUrl": "https://x", "targetAudience": "a"}}}`, "it signs in with targetAudience, which moat's bridge cannot do"},
		{"codex", "[mcp_servers.s]\nurl = \"https://${HOST}/mcp\"\n", "Codex uses its url as written, and moat's bridge would expand the ${…} in it"},
		{"codex", "[mcp_servers.s]\nurl = \"https://x\"\nbearer_token_env_var = 1\n", "its bearer_token_env_var is not a string"},
		{"codex", "[mcp_servers.s]\nurl = \"https://x\"\nenv_http_headers = { A = \"1X\" }\n", `its A names "1X", which is not an environment variable's name`},
		{"codex", "[mcp_servers.s]\nurl = \"https://x\"\nhttp_headers = \"A: b\"\n", "its http_headers is not a table of headers"},
		{"codex", "[mcp_servers.s]\nurl = \"https://x\"\nbearer_token_env_var = \"T\"\nhttp_headers = { authorization = \"Basic x\" }\n", "it gives the header authorization more than once"},
		{"codex", "[mcp_servers.s]\nurl = \"https://x\"\nhttp_headers.A = \"b\"\n", "it has http_headers.A, which moat does not know how to carry into a stdio entry"},
		{"codex", "[mcp_servers.s]\nurl = \"https://x\"\noauth_resource = \"https://x\"\n", "it signs in with oauth_resource, which moat's bridge cannot do"},
		{"codex", "[mcp_servers.s]\nurl = \"https://x\"\n[mcp_servers.s.tools.t]\napproval_mode = \"approve\"\n", "its tools.t is written as a table of its own ([mcp_servers.s.tools.t]); moat wraps a remote server written in one table"},
	} {
		c := client(t, tc.client)
		out, changes, err := c.Wrap(tc.text, moatBin, Options{})
		if err != nil || out != tc.text || len(changes) != 1 || !changes[0].Skipped || !changes[0].HTTP || changes[0].Reason != tc.reason {
			t.Errorf("%s %q: got %q %v %v, want the reason %q", tc.client, tc.text, out, changes, err, tc.reason)
		}
	}
}

// upstreamOf decodes the MOAT_MCP_UPSTREAM and env_vars of the one server of text, as
// the bridge and Codex would.
func upstreamOf(t *testing.T, c Client, text string) (url string, headers map[string]string, envVars []string) {
	t.Helper()
	entries, sx, err := c.entries(text)
	if err != nil || len(entries) != 1 {
		t.Fatalf("%q: %v %v", text, entries, err)
	}
	v := entries[0].val
	env, _ := v.Member("env")
	if env == nil {
		t.Fatalf("%q has no env", text)
	}
	up, _ := env.Member(upstreamEnv)
	s, ok := stringOf(text, sx, up)
	if !ok {
		t.Fatalf("%q: no %s", text, upstreamEnv)
	}
	var u struct {
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&u); err != nil {
		t.Fatalf("%s = %q: %v", upstreamEnv, s, err)
	}
	if ev, _ := v.Member("env_vars"); ev != nil {
		envVars = argsOf(text, sx, ev)
	}
	return u.URL, u.Headers, envVars
}

func TestRemoteUpstream(t *testing.T) {
	for _, tc := range []struct {
		client, text, url string
		headers           map[string]string
		envVars           []string
	}{
		{
			"cursor", `{"mcpServers": {"s": {"url": "https://x.example.com/mcp?a=1&b=\u00e9"}}}`,
			"https://x.example.com/mcp?a=1&b=é", nil, nil,
		},
		{
			"claude-code", `{"mcpServers": {"s": {"type": "http", "url": "https://x.example.com/mcp", "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}", "X-Other": "a \"b\" \\ c"}}}}`,
			"https://x.example.com/mcp", map[string]string{"Authorization": "Bearer ${GITHUB_TOKEN}", "X-Other": `a "b" \ c`}, nil,
		},
		{
			"codex", "[mcp_servers.s]\nurl = \"https://x.example.com/mcp\"\nbearer_token_env_var = \"TOKEN\"\nhttp_headers = { \"X-Region\" = \"eu\", Quote = \"it's\" }\nenv_http_headers = { \"X-Key\" = \"KEY\", \"X-Again\" = \"TOKEN\" }\n",
			"https://x.example.com/mcp",
			map[string]string{"Authorization": "Bearer ${TOKEN}", "X-Region": "eu", "Quote": "it's", "X-Key": "${KEY}", "X-Again": "${TOKEN}"},
			[]string{"TOKEN", "KEY"},
		},
	} {
		c := client(t, tc.client)
		wrapped, _, err := c.Wrap(tc.text, moatBin, Options{})
		if err != nil {
			t.Fatal(err)
		}
		url, headers, envVars := upstreamOf(t, c, wrapped)
		if url != tc.url || !reflect.DeepEqual(headers, tc.headers) || !slices.Equal(envVars, tc.envVars) {
			t.Errorf("%s %q:\nwrapped to %s\ngot %q %q %q\nwant %q %q %q", tc.client, tc.text, wrapped, url, headers, envVars, tc.url, tc.headers, tc.envVars)
		}
	}
}

// TestUnwrapEditedRemote: a wrapped remote server whose entry was changed since is left
// as it is, with the reason, since restoring the copy would undo the change; a change
// of layout, of the server's key or of moat's path is no change.
func TestUnwrapEditedRemote(t *testing.T) {
	c := client(t, "cursor")
	in := "{\n  \"mcpServers\": {\n    \"s\": {\n      \"url\": \"https://x.example.com/mcp\",\n      \"headers\": {\"A\": \"b\"}\n    }\n  }\n}\n"
	wrapped, _, err := c.Wrap(in, moatBin, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const changed = "it was changed since moat wrapped it, and restoring MOAT_MCP_ORIGINAL would undo the change: edit it by hand, or restore the file from its .moat-backup"
	original := `"MOAT_MCP_ORIGINAL": ` + textedit.Quote("{\n      \"url\": \"https://x.example.com/mcp\",\n      \"headers\": {\"A\": \"b\"}\n    }")
	if !strings.Contains(wrapped, original) {
		t.Fatalf("the wrapped entry does not hold %s:\n%s", original, wrapped)
	}
	for _, tc := range []struct {
		name, old, new, reason string
	}{
		{"the URL", `\"url\":\"https://x.example.com/mcp\"`, `\"url\":\"https://y.example.com/mcp\"`, changed},
		{"a header", `\"A\":\"b\"}`, `\"A\":\"c\"}`, changed},
		{"a new key", `"command":`, `"disabled": true, "command":`, changed},
		{"a new variable", `"MOAT_MCP_UPSTREAM":`, `"DEBUG": "1", "MOAT_MCP_UPSTREAM":`, changed},
		{"the arguments", `"--stdio", `, `"--stdio", "--policy", "/p.yaml", `, changed},
		{"no original", original, `"X": "1"`, "it runs moat's bridge, but its env has no MOAT_MCP_ORIGINAL to restore it from"},
		{"a broken original", original, `"MOAT_MCP_ORIGINAL": "{"`, "MOAT_MCP_ORIGINAL does not hold a server entry moat can read"},
		{"a local original", original, `"MOAT_MCP_ORIGINAL": "{\"command\": \"x\"}"`, "MOAT_MCP_ORIGINAL holds an entry moat would not wrap (it has no url)"},
		{"a key", `"s": {`, `"renamed": {`, ""},
		{"moat's path", moatBin, "/opt/moat/bin/moat", ""},
		{"the layout", "\n      \"args\"", " \"args\"", ""},
	} {
		edited := strings.Replace(wrapped, tc.old, tc.new, 1)
		if edited == wrapped {
			t.Fatalf("%s: %q is not in the wrapped text", tc.name, tc.old)
		}
		back, changes, err := c.Unwrap(edited)
		if err != nil || len(changes) != 1 || !changes[0].HTTP {
			t.Errorf("%s: %v %v", tc.name, changes, err)
			continue
		}
		if tc.reason != "" {
			if back != edited || !changes[0].Skipped || changes[0].Reason != tc.reason {
				t.Errorf("%s: Unwrap gave %q, %s; want it left, saying %q", tc.name, back, changes[0], tc.reason)
			}
			continue
		}
		want := in
		if tc.name == "a key" {
			want = strings.Replace(in, `"s": {`, `"renamed": {`, 1)
		}
		if back != want || changes[0].Skipped {
			t.Errorf("%s: Unwrap gave %q, %s; want %q", tc.name, back, changes[0], want)
		}
	}
}

// TestRemoteServers: Servers gives a wrapped remote server as the remote server it was,
// even when it cannot be restored.
func TestRemoteServers(t *testing.T) {
	c := client(t, "vscode")
	in := `{"servers": {"r": {"type": "http", "url": "https://x.example.com/mcp"}}}`
	wrapped, _, err := c.Wrap(in, moatBin, Options{})
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(wrapped, `"type": "stdio"`, `"type": "stdio", "dev": {}`, 1)
	want := []Server{{Name: "r", URL: "https://x.example.com/mcp"}}
	for _, text := range []string{in, wrapped, edited} {
		got, err := c.Servers(text)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Servers(%q) = %+v, %v", text, got, err)
		}
	}
	broken := strings.Replace(edited, upstreamEnv, "OTHER", 1)
	got, err := c.Servers(broken)
	if err != nil || len(got) != 1 || got[0].Skipped == "" || got[0].Command != "" {
		t.Errorf("Servers(%q) = %+v, %v", broken, got, err)
	}
}

func TestCanon(t *testing.T) {
	same := [][2]string{
		{`{"a": 1, "b": [true, "x"]}`, "{\n  \"b\": [true, \"\\u0078\"], // b\n  \"a\": 1.0\n}"},
		{`{"a": 1e3}`, `{"a": 1000}`},
	}
	for _, p := range same {
		a, _ := parseJSON(p[0])
		b, _ := parseJSON(p[1])
		if canon(p[0], jsonSyntax{}, a) != canon(p[1], jsonSyntax{}, b) {
			t.Errorf("%q and %q differ", p[0], p[1])
		}
	}
	a, _ := parseJSON(`{"a": "1"}`)
	b, _ := parseJSON(`{"a": 1}`)
	if canon(`{"a": "1"}`, jsonSyntax{}, a) == canon(`{"a": 1}`, jsonSyntax{}, b) {
		t.Error("a string and a number are alike")
	}
}

// TestWrapFileRemote: the file functions carry the remote servers through, backup and
// all, as for stdio ones.
func TestWrapFileRemote(t *testing.T) {
	c := client(t, "codex")
	path := t.TempDir() + "/config.toml"
	in := []byte("[mcp_servers.r]\nurl = \"https://x.example.com/mcp\"\nbearer_token_env_var = \"T\"\n")
	if err := os.WriteFile(path, in, 0o600); err != nil {
		t.Fatal(err)
	}
	read := func(name string) []byte {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	res, err := c.WrapFile(path, moatBin, Options{})
	if err != nil || !res.Written || len(res.Changes) != 1 || !res.Changes[0].HTTP {
		t.Fatalf("%+v %v", res, err)
	}
	if !bytes.Equal(read(res.Backup), in) {
		t.Error("the backup is not the old file")
	}
	if _, err := c.UnwrapFile(path, Options{}); err != nil || !bytes.Equal(read(path), in) {
		t.Errorf("not restored: %q %v", read(path), err)
	}
}

func TestWrapLeavesAsked(t *testing.T) {
	c := client(t, "cursor")
	text := `{"mcpServers": {"oauth": {"url": "https://o.example.com/mcp"}, "keyed": {"url": "https://k.example.com/mcp", "headers": {"A": "b"}}, "local": {"command": "x"}}}`
	for _, tc := range []struct {
		opts    Options
		wrapped []string
	}{
		{Options{}, []string{"oauth", "keyed", "local"}},
		{Options{Skip: []string{"oauth"}}, []string{"keyed", "local"}},
		{Options{Skip: []string{"local", "keyed"}}, []string{"oauth"}},
		{Options{StdioOnly: true}, []string{"local"}},
		{Options{StdioOnly: true, Skip: []string{"local"}}, nil},
	} {
		out, changes, err := c.Wrap(text, moatBin, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		var wrapped []string
		for _, ch := range changes {
			switch {
			case !ch.Skipped:
				wrapped = append(wrapped, ch.Server)
			case ch.Reason != reasonAsked:
				t.Errorf("%+v: %s", tc.opts, ch)
			}
		}
		if !slices.Equal(wrapped, tc.wrapped) {
			t.Errorf("%+v: wrapped %q, want %q", tc.opts, wrapped, tc.wrapped)
		}
		if back, _, _ := c.Unwrap(out); back != text {
			t.Errorf("%+v: not restored: %q", tc.opts, back)
		}
	}
}
