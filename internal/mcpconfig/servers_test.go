package mcpconfig

import (
	"reflect"
	"testing"
)

func TestServers(t *testing.T) {
	cursor, _ := ForClient("cursor")
	text := `{
  // comment
  "mcpServers": {
    "fs": {"command": "npx", "args": ["-y", "server-fs", "/p"], "env": {"DEBUG": "1"}},
    "remote": {"url": "https://mcp.example.com/mcp"},
    "broken": {"args": ["x"]}
  }
}`
	wrapped, _, err := cursor.Wrap(text, "/usr/local/bin/moat", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Server{
		{Name: "fs", Command: "npx", Args: []string{"-y", "server-fs", "/p"}, Env: map[string]string{"DEBUG": "1"}},
		{Name: "remote", URL: "https://mcp.example.com/mcp"},
		{Name: "broken", Skipped: "it has no command"},
	}
	for _, in := range []string{text, wrapped} {
		got, err := cursor.Servers(in)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Servers:\n got %+v\nwant %+v", got, want)
		}
	}

	codex, _ := ForClient("codex")
	got, err := codex.Servers("[mcp_servers.gh]\ncommand = \"github-mcp\"\nargs = [\"stdio\"]\n")
	if err != nil || len(got) != 1 || got[0].Command != "github-mcp" || !reflect.DeepEqual(got[0].Args, []string{"stdio"}) {
		t.Errorf("codex servers: %+v, %v", got, err)
	}
}
