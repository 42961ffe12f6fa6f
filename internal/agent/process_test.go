package agent

import "testing"

func TestByProcess(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"codex"}, "codex"},
		{[]string{"/usr/local/bin/codex", "exec", "hi"}, "codex"},
		{[]string{"node", "/usr/lib/node_modules/@openai/codex/bin/codex.js"}, "codex"},
		{[]string{"/usr/bin/node", "--no-warnings", "/opt/claude-code/cli.js"}, ""},
		{[]string{"node", "/home/u/.npm/bin/claude"}, "claude-code"},
		{[]string{"claude"}, "claude-code"},
		{[]string{"gemini"}, "gemini-cli"},
		{[]string{"bash"}, ""},
		{[]string{"node", "server.js"}, ""},
		{nil, ""},
	}
	for _, tt := range tests {
		a, ok := ByProcess(tt.args)
		if got := a.Name; got != tt.want || ok != (tt.want != "") {
			t.Errorf("ByProcess(%q) = %q, %v; want %q", tt.args, got, ok, tt.want)
		}
	}
}
