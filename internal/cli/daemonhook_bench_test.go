package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/moatdev/moat/internal/daemon"
)

// BenchmarkDaemonHookMethod is the daemon's side of one moat-hook call, as
// BenchmarkHookVsFloor (cmd/moat) makes it: a Bash event of Claude Code's, in the JSON
// form, decided and recorded.
func BenchmarkDaemonHookMethod(b *testing.B) {
	home := b.TempDir()
	project := filepath.Join(home, "project")
	if err := os.MkdirAll(filepath.Join(project, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	env := map[string]string{"HOME": home, "PATH": "/usr/bin:/bin"}
	payload := `{"session_id":"s","cwd":"` + project + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"go test ./... && git status"}}`
	params, err := json.Marshal(hookParams{Agent: "claude-code", PayloadJSON: json.RawMessage(payload), Cwd: project, Env: env})
	if err != nil {
		b.Fatal(err)
	}
	_, method, _ := hookDaemon(b, env, home)
	ctx := context.Background()
	peer := daemon.Peer{Local: true, PID: os.Getpid()}
	b.ReportAllocs()
	for b.Loop() {
		res, err := method(ctx, params, peer)
		if err != nil {
			b.Fatal(err)
		}
		if r := res.(hookResult); r.Code != 0 {
			b.Fatalf("answer %+v", r)
		}
	}
}
