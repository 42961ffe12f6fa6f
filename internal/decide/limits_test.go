package decide

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/ratelimit"
)

const limitedPolicy = `version: 1
default: allow
rules:
  - id: touch-rate
    command: "touch **"
    limit: 2 per 1h
    decision: deny
    reason: two touches an hour
`

// limitedService is a Local for a fresh HOME whose rate-limit counters are kept in its
// state directory, at a fixed time.
func limitedService(t *testing.T, home string) *Local {
	t.Helper()
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	now := func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	return NewLocal(Options{Getenv: getenv, Now: now, Limits: ratelimit.Files{Now: now}})
}

// Calls that are recorded count against a limit, and the one over it gets the rule's
// decision; calls only looked at read the counter and leave it as it is. Two services
// (two processes) of one user share the counters.
func TestDecideCountsLimits(t *testing.T) {
	home := t.TempDir()
	file := filepath.Join(home, "policy.yaml")
	if err := os.WriteFile(file, []byte(limitedPolicy), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	decide := func(l *Local, record, explain bool) CallResult {
		t.Helper()
		pol, err := l.Lookup(ctx, Scope{Flag: file, Cwd: home})
		if err != nil {
			t.Fatal(err)
		}
		c := shellCall(t, home, "touch x")
		c.Session = "s1"
		res, err := l.Decide(ctx, CallRequest{Policy: pol.Key, Calls: []call.Call{c}, Record: record, Explain: explain})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first, second := limitedService(t, home), limitedService(t, home)
	// Looked at, any number of times: nothing is counted.
	for range 3 {
		if res := decide(first, false, false); res.Decision.Verdict != call.Allow {
			t.Fatalf("a call only looked at: %s by %s", res.Decision.Verdict, res.Decision.Rule)
		}
	}
	steps := []struct {
		svc    *Local
		record bool
		want   call.Verdict
	}{
		{first, true, call.Allow},
		{second, false, call.Allow}, // one of two used: still under
		{second, true, call.Allow},
		{first, false, call.Deny}, // the counter is full, as the other service left it
		{first, true, call.Deny},
		{second, true, call.Deny},
	}
	for i, st := range steps {
		res := decide(st.svc, st.record, false)
		if res.Decision.Verdict != st.want {
			t.Fatalf("step %d: %s by %s; want %s", i, res.Decision.Verdict, res.Decision.Rule, st.want)
		}
	}
	res := decide(first, false, true)
	if res.Decision.Rule != "touch-rate" || !strings.Contains(res.Decision.Reason, "rate limit of 2 per hour per session reached: 2 calls in the last hour") {
		t.Errorf("decision over the limit: %+v", res.Decision)
	}
	var found bool
	for _, r := range res.Trace.Units[0].Tried {
		if r.ID == "touch-rate" && r.Limit != nil && r.Limit.Used == 2 && r.Limit.Exceeded && !r.Limit.Counted {
			found = true
		}
	}
	if !found {
		t.Errorf("the trace does not show the counter: %+v", res.Trace.Units[0].Tried)
	}
	if _, err := os.Stat(ratelimit.File(filepath.Join(home, ".local", "state", "moat"))); err != nil {
		t.Errorf("the counters are not in the user's state directory: %v", err)
	}
}

// A service without counters (Options.Limits nil) has every call under every limit.
func TestDecideWithoutLimits(t *testing.T) {
	l, file, project := testService(t, limitedPolicy)
	ctx := context.Background()
	pol, err := l.Lookup(ctx, Scope{Flag: file, Cwd: project})
	if err != nil {
		t.Fatal(err)
	}
	for range 4 {
		res, err := l.Decide(ctx, CallRequest{Policy: pol.Key, Calls: []call.Call{shellCall(t, project, "touch x")}, Record: true})
		if err != nil || res.Decision.Verdict != call.Allow {
			t.Fatalf("Decide = %+v, %v; want allow", res.Decision, err)
		}
	}
}

// A recorded call denied after passing a limit (here, by another command of its line) is
// taken back from the counter in the state directory: only calls that run count.
func TestDecideRefundsDeniedCalls(t *testing.T) {
	home := t.TempDir()
	file := filepath.Join(home, "policy.yaml")
	src := limitedPolicy + "  - {id: no-rm, command: \"rm **\", decision: deny}\n"
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	l := limitedService(t, home)
	pol, err := l.Lookup(ctx, Scope{Flag: file, Cwd: home})
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range []struct {
		line string
		want string
	}{
		{"touch a; rm b", "no-rm"},
		{"touch a; rm b", "no-rm"},
		{"touch a; rm b", "no-rm"},
		{"touch a", call.RuleDefault},
		{"touch a", call.RuleDefault},
		{"touch a", "touch-rate"},
	} {
		res, err := l.Decide(ctx, CallRequest{Policy: pol.Key, Calls: []call.Call{shellCall(t, home, st.line)}, Record: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Decision.Rule != st.want {
			t.Errorf("step %d, %s: %s by %s; want rule %s", i, st.line, res.Decision.Verdict, res.Decision.Rule, st.want)
		}
	}
}
