package watch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/decide"
)

func policyDenying(word string) string {
	return fmt.Sprintf("version: 1\ndefault: allow\nrules:\n  - id: deny-%s\n    command: \"%s **\"\n    decision: deny\n    reason: no %s\n", word, word, word)
}

// env is a live Local for a fresh HOME, watched, with a repository to call from.
type env struct {
	t     *testing.T
	local *decide.Local
	w     *Watcher
	home  string
	user  string // the user's policy file
	dir   string // the repository
}

func newEnv(t *testing.T, userPolicy string) *env {
	t.Helper()
	return newEnvWith(t, func(e *env) {
		if userPolicy != "" {
			e.write(e.user, userPolicy)
		}
	})
}

// newEnvWith is newEnv with the files set up by setup before the first lookup.
func newEnvWith(t *testing.T, setup func(*env)) *env {
	t.Helper()
	home := t.TempDir()
	dir := filepath.Join(home, "work", "app")
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, home: home, dir: dir, user: filepath.Join(home, ".config", "moat", "moat.yaml")}
	setup(e)
	e.local = decide.NewLocal(decide.Options{
		Getenv: func(k string) string {
			if k == "HOME" {
				return home
			}
			return ""
		},
		Live: true,
	})
	e.verdict("ls") // the scope is looked up before watching starts, as the entry points do
	var refreshes atomic.Int32
	w, err := Start(e.local, Options{Debounce: 20 * time.Millisecond, Warn: func(s string) { t.Log(s) }, Refreshed: func() { refreshes.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	// The refresh Start begins with is done before the test edits anything, so that
	// only the watch can see the edits.
	e.eventually("the first refresh", func() bool { return refreshes.Load() > 0 })
	e.w = w
	t.Cleanup(func() { w.Close() })
	return e
}

func (e *env) write(path, text string) {
	e.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// decision decides the shell command line in the repository.
func (e *env) decision(line string) call.Decision {
	e.t.Helper()
	ctx := context.Background()
	pol, err := e.local.Lookup(ctx, decide.Scope{Cwd: e.dir})
	if err != nil {
		e.t.Fatal(err)
	}
	c, err := call.Canonicalize(call.ClaudeCode, "Bash", map[string]any{"command": line})
	if err != nil {
		e.t.Fatal(err)
	}
	c.Cwd = e.dir
	res, err := e.local.Decide(ctx, decide.CallRequest{Policy: pol.Key, Event: "test", Calls: []call.Call{c}})
	if err != nil {
		e.t.Fatal(err)
	}
	return res.Decision
}

func (e *env) verdict(line string) call.Verdict { return e.decision(line).Verdict }

// eventually waits until cond holds.
func (e *env) eventually(what string, cond func() bool) {
	e.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			e.t.Fatalf("timed out waiting: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestEditApplies(t *testing.T) {
	tests := []struct {
		name string
		edit func(e *env, text string)
	}{
		{"written in place", func(e *env, text string) { e.write(e.user, text) }},
		{"renamed over", func(e *env, text string) {
			tmp := filepath.Join(filepath.Dir(e.user), ".moat.yaml.swp")
			e.write(tmp, text)
			if err := os.Rename(tmp, e.user); err != nil {
				t.Fatal(err)
			}
		}},
		{"deleted and created again", func(e *env, text string) {
			if err := os.Remove(e.user); err != nil {
				t.Fatal(err)
			}
			e.write(e.user, text)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, policyDenying("rm"))
			if v := e.verdict("rm x"); v != call.Deny {
				t.Fatalf("rm under the first policy: %s", v)
			}
			tt.edit(e, policyDenying("curl"))
			e.eventually("curl denied after the edit", func() bool { return e.verdict("curl x") == call.Deny })
			if v := e.verdict("rm x"); v != call.Allow {
				t.Errorf("rm after the edit: %s", v)
			}
			tt.edit(e, policyDenying("wget"))
			e.eventually("a second edit applies", func() bool { return e.verdict("wget x") == call.Deny })
		})
	}
}

// A policy created where there was none, in a directory that did not exist yet.
func TestPolicyCreated(t *testing.T) {
	e := newEnv(t, "")
	if v := e.verdict("touch /tmp/x"); v == call.Deny {
		t.Fatalf("touch under the embedded policy: %s", v)
	}
	e.write(e.user, policyDenying("touch"))
	e.eventually("the new user policy applies", func() bool { return e.verdict("touch /tmp/x") == call.Deny })
	// A project policy (untrusted) changes nothing, but is seen: the lookup reports it.
	e.write(filepath.Join(e.dir, "moat.yaml"), policyDenying("ls"))
	e.eventually("the untrusted project policy is reported", func() bool {
		pol, err := e.local.Lookup(context.Background(), decide.Scope{Cwd: e.dir})
		return err == nil && len(pol.Skipped) == 1
	})
	if v := e.verdict("ls"); v != call.Allow {
		t.Errorf("ls under an untrusted project policy: %s", v)
	}
}

func TestBrokenEditKeepsPolicy(t *testing.T) {
	e := newEnv(t, policyDenying("rm"))
	e.write(e.user, "version: 1\nrules: [\n")
	e.eventually("the broken edit is reported", func() bool { return len(e.local.Problems()) == 1 })
	d := e.decision("rm x")
	if d.Verdict != call.Deny || !strings.Contains(d.Reason, "a policy change was not applied") {
		t.Errorf("rm after a broken edit: %s, %q; want deny with the notice", d.Verdict, d.Reason)
	}
	e.write(e.user, policyDenying("curl"))
	e.eventually("the fix applies", func() bool { return len(e.local.Problems()) == 0 && e.verdict("curl x") == call.Deny })
}

func TestCloseEndsGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 5 {
		e := newEnv(t, policyDenying("rm"))
		if err := e.w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := e.w.Close(); err != nil {
			t.Fatalf("a second Close: %v", err)
		}
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines after Close; %d before\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

func TestStartNeedsLive(t *testing.T) {
	l := decide.NewLocal(decide.Options{Getenv: func(string) string { return "" }})
	if w, err := Start(l, Options{}); err == nil {
		w.Close()
		t.Error("watching a Local that is not live: no error")
	}
}

// A policy rewritten without pause is still refreshed: the wait for quiet is bounded.
func TestEndlessWritesRefreshed(t *testing.T) {
	e := newEnv(t, policyDenying("rm"))
	deadline := time.Now().Add(2 * time.Second) // 100 debounce periods of 20ms
	for e.verdict("curl x") != call.Deny {
		if time.Now().After(deadline) {
			t.Fatal("a policy rewritten every few milliseconds was never refreshed")
		}
		e.write(e.user, policyDenying("curl"))
		time.Sleep(5 * time.Millisecond)
	}
}
