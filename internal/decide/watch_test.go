package decide

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/trust"
)

// policyDenying is a policy that denies commands starting with word, and allows the rest.
func policyDenying(word string) string {
	return fmt.Sprintf("version: 1\ndefault: allow\nrules:\n  - id: deny-%s\n    command: \"%s **\"\n    decision: deny\n    reason: no %s\n", word, word, word)
}

const brokenPolicy = "version: 1\ndefault: allow\nrules:\n  - id: x\n    comand: \"rm **\"\n"

// liveService is a live Local for a fresh HOME whose user policy is text, with a
// project repository to call from; it returns the service, the user policy file and the
// project.
func liveService(t *testing.T, text string, opts Options) (*Local, string, string) {
	t.Helper()
	home := t.TempDir()
	project := filepath.Join(home, "work", "app")
	if err := os.MkdirAll(filepath.Join(project, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	user := filepath.Join(home, ".config", "moat", "moat.yaml")
	if err := mkdirWrite(user, text); err != nil {
		t.Fatal(err)
	}
	opts.Getenv = func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	opts.Now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	opts.Live = true
	return NewLocal(opts), user, project
}

// decideLine looks up the policy for dir and decides line under it.
func decideLine(t *testing.T, l *Local, dir, line string) call.Decision {
	t.Helper()
	ctx := context.Background()
	pol, err := l.Lookup(ctx, Scope{Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	res, err := l.Decide(ctx, CallRequest{Policy: pol.Key, Event: "test", Calls: []call.Call{shellCall(t, dir, line)}})
	if err != nil {
		t.Fatal(err)
	}
	return res.Decision
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLiveKeepsPolicyUntilRefresh(t *testing.T) {
	l, user, dir := liveService(t, policyDenying("rm"), Options{})
	if d := decideLine(t, l, dir, "rm x"); d.Verdict != call.Deny {
		t.Fatalf("rm under the first policy: %s", d.Verdict)
	}
	write(t, user, policyDenying("curl"))
	if d := decideLine(t, l, dir, "rm x"); d.Verdict != call.Deny {
		t.Errorf("before Refresh the policy looked up stays: rm is %s", d.Verdict)
	}
	l.Refresh()
	if d := decideLine(t, l, dir, "rm x"); d.Verdict != call.Allow {
		t.Errorf("after Refresh rm is %s; want allow under the edited policy", d.Verdict)
	}
	if d := decideLine(t, l, dir, "curl x"); d.Verdict != call.Deny {
		t.Errorf("after Refresh curl is %s; want deny", d.Verdict)
	}
	if p := l.Problems(); len(p) != 0 {
		t.Errorf("problems after a good edit: %+v", p)
	}
}

// Without Live, nothing is kept between lookups, as before: each finds the file afresh.
func TestNotLiveFindsAfresh(t *testing.T) {
	l, user, dir := liveService(t, policyDenying("rm"), Options{})
	l = NewLocal(Options{Getenv: l.opts.Getenv, Now: l.opts.Now})
	decideLine(t, l, dir, "rm x")
	write(t, user, policyDenying("curl"))
	if d := decideLine(t, l, dir, "rm x"); d.Verdict != call.Allow {
		t.Errorf("rm after the edit: %s; want allow (found afresh)", d.Verdict)
	}
	write(t, user, brokenPolicy)
	if _, err := l.Lookup(context.Background(), Scope{Cwd: dir}); err == nil {
		t.Error("a broken policy looked up without Live: no error")
	}
	l.Refresh()
	if l.Problems() != nil || l.Inputs() != nil || l.Added() != nil {
		t.Error("a Local that is not live reports live state")
	}
}

func TestBrokenEditKeepsLastGood(t *testing.T) {
	l, user, dir := liveService(t, policyDenying("rm"), Options{})
	decideLine(t, l, dir, "ls")
	write(t, user, brokenPolicy)
	l.Refresh()

	d := decideLine(t, l, dir, "rm x")
	if d.Verdict != call.Deny || d.Rule != "deny-rm" {
		t.Fatalf("rm after a broken edit: %s by %q; want deny by the last good policy", d.Verdict, d.Rule)
	}
	if !strings.Contains(d.Reason, "no rm [moat: a policy change was not applied (") || !strings.Contains(d.Reason, "still enforcing "+user) {
		t.Errorf("first decision's reason %q lacks the notice", d.Reason)
	}
	if d := decideLine(t, l, dir, "rm y"); strings.Contains(d.Reason, "not applied") {
		t.Errorf("the notice is told once per content; again in %q", d.Reason)
	}
	probs := l.Problems()
	if len(probs) != 1 || probs[0].InForce != user || !strings.Contains(probs[0].Error, "comand") || probs[0].Scope.Cwd != dir {
		t.Fatalf("problems %+v; want one, naming the policy in force and the error", probs)
	}

	l.Refresh() // the same broken content: nothing new to tell
	if d := decideLine(t, l, dir, "ls"); strings.Contains(d.Reason, "not applied") {
		t.Errorf("the same broken content told again: %q", d.Reason)
	}
	write(t, user, brokenPolicy+"  - nonsense\n")
	l.Refresh() // another broken content: told again
	if d := decideLine(t, l, dir, "ls"); !strings.Contains(d.Reason, "not applied") {
		t.Errorf("a new broken content not told: %q", d.Reason)
	}

	write(t, user, policyDenying("curl"))
	l.Refresh()
	if p := l.Problems(); len(p) != 0 {
		t.Errorf("problems after the fix: %+v", p)
	}
	if d := decideLine(t, l, dir, "curl x"); d.Verdict != call.Deny || strings.Contains(d.Reason, "not applied") {
		t.Errorf("after the fix curl is %s (%q); want deny, no notice", d.Verdict, d.Reason)
	}
}

// A deleted user policy is what a new process would find: the embedded policy, not the
// deleted one kept, and not an error.
func TestDeletedPolicyIsFoundAsNew(t *testing.T) {
	l, user, dir := liveService(t, policyDenying("rm"), Options{})
	ctx := context.Background()
	decideLine(t, l, dir, "ls")
	if err := os.Remove(user); err != nil {
		t.Fatal(err)
	}
	l.Refresh()
	pol, err := l.Lookup(ctx, Scope{Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := NewLocal(Options{Getenv: l.opts.Getenv, Now: l.opts.Now}).Lookup(ctx, Scope{Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	if pol.Name != fresh.Name || pol.Key != fresh.Key {
		t.Errorf("after deletion %q; a new process finds %q", pol.Name, fresh.Name)
	}
}

// Many edits keep at most the cache's bound compiled, and the policy in force decides
// even when the cache has let it go.
func TestManyEditsBoundedCache(t *testing.T) {
	l, user, dir := liveService(t, policyDenying("rm"), Options{CacheSize: 4})
	decideLine(t, l, dir, "ls")
	for i := range 50 {
		write(t, user, policyDenying(fmt.Sprintf("cmd%d", i)))
		l.Refresh()
	}
	l.mu.Lock()
	n := l.compiled.len()
	l.mu.Unlock()
	if n > 4 {
		t.Errorf("%d compiled policies kept; bound 4", n)
	}
	if d := decideLine(t, l, dir, "cmd49 x"); d.Verdict != call.Deny {
		t.Errorf("the last edit is not in force: %s", d.Verdict)
	}
	// A request that looked up a policy just before a refresh is decided under it.
	pol, err := l.Lookup(context.Background(), Scope{Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	for i := range maxRetired {
		write(t, user, policyDenying(fmt.Sprintf("late%d", i)))
		l.Refresh()
	}
	res, err := l.Decide(context.Background(), CallRequest{Policy: pol.Key, Event: "test", Calls: []call.Call{shellCall(t, dir, "cmd49 x")}})
	if err != nil || res.Decision.Verdict != call.Deny {
		t.Errorf("deciding under the policy a refresh replaced: %v, %v; want deny", res.Decision.Verdict, err)
	}
	write(t, user, policyDenying("cmd49"))
	l.Refresh()
	// Another scope's lookups push the policy in force out of the cache: it still decides.
	ctx := context.Background()
	pol, err = l.Lookup(ctx, Scope{Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		f := filepath.Join(dir, fmt.Sprintf("p%d.yaml", i))
		write(t, f, policyDenying(fmt.Sprintf("other%d", i)))
		if _, err := l.Lookup(ctx, Scope{Cwd: dir, Flag: f}); err != nil {
			t.Fatal(err)
		}
	}
	res, err = l.Decide(ctx, CallRequest{Policy: pol.Key, Event: "test", Calls: []call.Call{shellCall(t, dir, "cmd49 x")}})
	if err != nil {
		t.Fatalf("deciding under the policy in force, out of the cache: %v", err)
	}
	if res.Decision.Verdict != call.Deny {
		t.Errorf("cmd49 is %s; want deny", res.Decision.Verdict)
	}
}

// A trusted project policy edited without trusting it again stays in force as trusted:
// a refresh checks trust as any lookup does.
func TestRefreshKeepsTrustedVersion(t *testing.T) {
	l, _, dir := liveService(t, policyDenying("curl"), Options{})
	proj := filepath.Join(dir, "moat.yaml")
	trusted := policyDenying("rm")
	write(t, proj, trusted)
	d, err := l.Dirs()
	if err != nil {
		t.Fatal(err)
	}
	if err := trust.Open(d.TrustStore()).Trust(proj, []byte(trusted), time.Now()); err != nil {
		t.Fatal(err)
	}
	if v := decideLine(t, l, dir, "rm x").Verdict; v != call.Deny {
		t.Fatalf("rm under the trusted project policy: %s", v)
	}
	write(t, proj, "version: 1\ndefault: allow\n")
	l.Refresh()
	if v := decideLine(t, l, dir, "rm x").Verdict; v != call.Deny {
		t.Errorf("rm after an untrusted edit: %s; want deny by the trusted version", v)
	}
	pol, err := l.Lookup(context.Background(), Scope{Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(pol.Skipped) != 1 || pol.Skipped[0].Status != trust.Changed {
		t.Errorf("skipped %+v; want the changed project policy", pol.Skipped)
	}
	if err := trust.Open(d.TrustStore()).Trust(proj, []byte("version: 1\ndefault: allow\n"), time.Now()); err != nil {
		t.Fatal(err)
	}
	l.Refresh()
	if v := decideLine(t, l, dir, "rm x").Verdict; v != call.Allow {
		t.Errorf("rm once the edit is trusted: %s; want allow", v)
	}
}

func TestInputsOfLiveScopes(t *testing.T) {
	l, user, dir := liveService(t, policyDenying("rm"), Options{})
	select {
	case <-l.Added():
		t.Fatal("added signalled before any lookup")
	default:
	}
	decideLine(t, l, dir, "ls")
	select {
	case <-l.Added():
	default:
		t.Error("a new scope is not signalled")
	}
	in := l.Inputs()
	for _, want := range []string{user, filepath.Join(dir, "moat.yaml")} {
		found := false
		for _, p := range in {
			found = found || p == want
		}
		if !found {
			t.Errorf("inputs %q lack %s", in, want)
		}
	}
}

// Lookups and decisions while edits are refreshed: under -race, the live state is
// guarded; every decision is made by one of the two policies, never an error.
func TestLiveConcurrentRefresh(t *testing.T) {
	l, user, dir := liveService(t, policyDenying("rm"), Options{CacheSize: 2})
	decideLine(t, l, dir, "ls")
	done := make(chan struct{})
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			ctx := context.Background()
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				pol, err := l.Lookup(ctx, Scope{Cwd: dir})
				if err == nil {
					_, err = l.Decide(ctx, CallRequest{Policy: pol.Key, Event: "test", Calls: []call.Call{shellCall(t, dir, "rm x")}})
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := range 20 {
		write(t, user, policyDenying([]string{"rm", "curl", "wget"}[i%3]))
		l.Refresh()
		l.Problems()
		l.Inputs()
		time.Sleep(5 * time.Millisecond) // a refresh follows a debounce in use
	}
	close(done)
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func BenchmarkLookup(b *testing.B) {
	for _, live := range []bool{false, true} {
		b.Run(fmt.Sprintf("live=%v", live), func(b *testing.B) {
			l, _, dir := liveService(&testing.T{}, policyDenying("rm"), Options{})
			l = NewLocal(Options{Getenv: l.opts.Getenv, Now: l.opts.Now, Live: live})
			ctx := context.Background()
			for b.Loop() {
				if _, err := l.Lookup(ctx, Scope{Cwd: dir}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestRefreshTellsReloads(t *testing.T) {
	type reload struct {
		policy string
		failed bool
	}
	var got []reload
	l, user, dir := liveService(t, policyDenying("rm"), Options{Reloaded: func(p string, err error) {
		got = append(got, reload{p, err != nil})
	}})
	decideLine(t, l, dir, "ls")
	l.Refresh() // nothing changed: nothing to tell
	write(t, user, policyDenying("curl"))
	l.Refresh()
	write(t, user, brokenPolicy)
	l.Refresh()
	l.Refresh() // the same refused change: told once
	want := []reload{{user, false}, {user, true}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("reloads %v; want %v", got, want)
	}
}
