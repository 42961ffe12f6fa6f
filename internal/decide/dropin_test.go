package decide

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
)

// TestDropInPack checks a team's own pack end to end through the decision service: the
// user's policy enables it by name from the configuration directory's packs/, an edit of
// the pack's file takes effect at the next decision (its content is part of what the
// compiled policy depends on), and the file is guarded as moat's own.
func TestDropInPack(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home}
	config := filepath.Join(home, ".config", "moat")
	pack := filepath.Join(config, "packs", "team-deploy.yaml")
	if err := mkdirWrite(filepath.Join(config, "moat.yaml"), "version: 1\ndefault: allow\npacks: [team-deploy]\n"); err != nil {
		t.Fatal(err)
	}
	svc := NewLocal(Options{Getenv: func(k string) string { return env[k] }, Write: func(audit.Record) error { return nil }})
	decideShell := func(command string) (call.Verdict, string) {
		t.Helper()
		pol, err := svc.Lookup(context.Background(), Scope{Cwd: home})
		if err != nil {
			t.Fatal(err)
		}
		cl, _ := call.Canonicalize("", string(call.Shell), map[string]any{call.ArgCommand: command})
		cl.Cwd = home
		res, err := svc.Decide(context.Background(), CallRequest{Policy: pol.Key, Calls: []call.Call{cl}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Decision.Verdict, res.Decision.Rule
	}
	for _, tt := range []struct {
		decision string
		want     call.Verdict
		wantRule string
	}{
		{"deny", call.Deny, "team-deploy.no-deploy"},
		{"ask", call.Ask, "team-deploy.no-deploy"},
	} {
		if err := mkdirWrite(pack, "version: 1\npack: team-deploy\nrules:\n  - {id: team-deploy.no-deploy, command: \"deploy **\", decision: "+tt.decision+"}\n"); err != nil {
			t.Fatal(err)
		}
		if got, rule := decideShell("deploy prod"); got != tt.want || rule != tt.wantRule {
			t.Errorf("pack says %s: decision %s (%s), want %s", tt.decision, got, rule, tt.want)
		}
	}
	if got, rule := decideShell("tee " + pack + " < /dev/null"); got != call.Deny {
		t.Errorf("writing the drop-in pack: %s (%s), want deny by self-protection", got, rule)
	}
}
