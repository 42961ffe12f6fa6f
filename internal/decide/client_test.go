package decide

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/selfguard"
)

// The hook client beside the moat binary (and beside the file a link named moat points
// to) is moat's own: the agent can neither replace nor delete it, nor plant one where
// none is yet, whatever the policy allows.
func TestHookClientIsProtected(t *testing.T) {
	l, _, project := testService(t, testPolicy)
	realDir, linkDir := t.TempDir(), t.TempDir()
	moat := filepath.Join(realDir, "moat")
	if err := os.WriteFile(moat, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(linkDir, "moat")
	if err := os.Symlink(moat, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	l.opts.Executable = func() (string, error) { return link, nil }
	ctx := context.Background()
	pol, err := l.Lookup(ctx, Scope{Cwd: project})
	if err != nil {
		t.Fatal(err)
	}
	write := func(path string) call.Call {
		c, err := call.Canonicalize(call.ClaudeCode, "Write", map[string]any{"file_path": path, "content": "#!/bin/sh\nexit 0\n"})
		if err != nil {
			t.Fatal(err)
		}
		c.Cwd = project
		return c
	}
	for _, client := range []string{selfguard.ClientPath(link), selfguard.ClientPath(moat)} {
		for _, c := range []call.Call{
			write(client),
			shellCall(t, project, "echo 'exit 0' > "+client),
			shellCall(t, project, "cp /bin/true "+client),
			shellCall(t, project, "mv "+client+" /tmp/x"),
			shellCall(t, project, "rm -f "+client),
		} {
			res, err := l.Decide(ctx, CallRequest{Policy: pol.Key, Calls: []call.Call{c}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Decision.Verdict != call.Deny || !strings.HasPrefix(res.Decision.Rule, "self-protection.") {
				t.Errorf("%s %v: %s by %s; want deny by self-protection", c.Tool, c.Args, res.Decision.Verdict, res.Decision.Rule)
			}
		}
	}
	// Beside another binary, the name is nobody's.
	res, err := l.Decide(ctx, CallRequest{Policy: pol.Key, Calls: []call.Call{write(filepath.Join(project, "moat-hook"))}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Decision.Verdict == call.Deny {
		t.Errorf("a moat-hook in the project: %s by %s; want it decided by the policy", res.Decision.Verdict, res.Decision.Rule)
	}
}
