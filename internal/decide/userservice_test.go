package decide

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/moatdev/moat/internal/call"
)

// The files that choose what the daemon's service runs are moat's own: a call that
// rewrites the unit, adds a drop-in overriding its ExecStart=, or replaces the launchd
// agent is self-protection's to deny.
func TestServiceFilesAreProtected(t *testing.T) {
	l, _, project := testService(t, testPolicy)
	d, err := l.Dirs()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pol, err := l.Lookup(ctx, Scope{Cwd: project})
	if err != nil {
		t.Fatal(err)
	}
	user := filepath.Join(d.Home, ".config", "systemd", "user")
	for _, file := range []string{
		filepath.Join(user, "moat.service"),
		filepath.Join(user, "moat.service.d", "override.conf"),
		filepath.Join(d.Home, "Library", "LaunchAgents", "dev.moat.daemon.plist"),
	} {
		write, err := call.Canonicalize(call.ClaudeCode, "Write", map[string]any{"file_path": file, "content": "x"})
		if err != nil {
			t.Fatal(err)
		}
		write.Cwd = project
		for _, c := range []call.Call{write, shellCall(t, project, "echo x > "+file)} {
			res, err := l.Decide(ctx, CallRequest{Policy: pol.Key, Calls: []call.Call{c}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Decision.Verdict != call.Deny {
				t.Errorf("%s %s: %s by %s; want deny by self-protection", c.Class, file, res.Decision.Verdict, res.Decision.Rule)
			}
		}
	}
}
