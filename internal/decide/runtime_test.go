package decide

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/moatdev/moat/internal/call"
)

// The daemon's runtime directories are moat's own: a call that would replace its socket
// or token is self-protection's to deny, whichever candidate the daemon uses.
func TestRuntimeDirIsProtected(t *testing.T) {
	l, _, project := testService(t, testPolicy)
	runtime := filepath.Join(t.TempDir(), "run")
	l.opts.Getenv = withEnv(l.opts.Getenv, map[string]string{"XDG_RUNTIME_DIR": runtime})
	d, err := l.Dirs()
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Runtime) == 0 {
		t.Fatal("no runtime directory")
	}
	ctx := context.Background()
	pol, err := l.Lookup(ctx, Scope{Cwd: project})
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range d.Runtime {
		for _, line := range []string{"rm -rf " + dir, "echo x > " + filepath.Join(dir, "daemon.sock")} {
			res, err := l.Decide(ctx, CallRequest{Policy: pol.Key, Calls: []call.Call{shellCall(t, project, line)}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Decision.Verdict != call.Deny {
				t.Errorf("%s: %s by %s; want deny by self-protection", line, res.Decision.Verdict, res.Decision.Rule)
			}
		}
	}
}

// withEnv is getenv with the variables of extra set.
func withEnv(getenv func(string) string, extra map[string]string) func(string) string {
	return func(k string) string {
		if v, ok := extra[k]; ok {
			return v
		}
		return getenv(k)
	}
}
