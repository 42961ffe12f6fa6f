package engine

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/policy"
)

// fakeLimiter counts in memory, by key, with no window: enough to see what the engine
// asks and what it does with the answer.
type fakeLimiter struct {
	used  map[string]int
	count bool // count calls under the limit, as a recording limiter does
	err   error
	keys  []string
	next  time.Time
	// refunds counts the calls taken back.
	refunds int
}

func (f *fakeLimiter) Use(key string, max int, _ time.Duration) (LimitCount, error) {
	f.keys = append(f.keys, key)
	if f.err != nil {
		return LimitCount{}, f.err
	}
	n := f.used[key]
	if n >= max {
		return LimitCount{Used: n, Exceeded: true, Next: f.next}, nil
	}
	if !f.count {
		return LimitCount{Used: n}, nil
	}
	f.used[key] = n + 1
	return LimitCount{Used: n + 1, Counted: true, At: time.Unix(int64(n+1), 0)}, nil
}

func (f *fakeLimiter) Refund(key string, _ time.Time) error {
	f.refunds++
	f.used[key]--
	return nil
}

const limitPolicy = `version: 1
default: allow
rules:
  - id: fetch-rate
    tool: web.fetch
    limit: 2 per 1m
    decision: deny
    reason: too many fetches
  - id: fetch-audit
    tool: web.fetch
    decision: audit
  - id: shell-rate
    tool: shell
    limit: 3 per hour per agent
    decision: ask
`

func fetchCall(t *testing.T, agent call.Agent, session string) call.Call {
	t.Helper()
	tool, args := "WebFetch", map[string]any{"url": "https://example.com/"}
	if agent == call.GeminiCLI {
		tool, args = "web_fetch", map[string]any{"prompt": "summarize https://example.com/"}
	}
	c, err := call.Canonicalize(agent, tool, args)
	if err != nil {
		t.Fatal(err)
	}
	c.Cwd, c.Session = "/ws", session
	return c
}

func TestLimitedRuleAppliesOverTheLimit(t *testing.T) {
	e := newEngine(t, limitPolicy)
	lim := &fakeLimiter{used: map[string]int{}, count: true}
	sess := Session{Limits: lim}
	ctx := context.Background()
	// The first two fetches of a session fall through to the rule below; the third is
	// over the limit and gets the limited rule's decision.
	for i, w := range []want{{call.Audit, "fetch-audit"}, {call.Audit, "fetch-audit"}, {call.Deny, "fetch-rate"}, {call.Deny, "fetch-rate"}} {
		d, _ := e.EvaluateIn(ctx, fetchCall(t, call.ClaudeCode, "s1"), sess, false)
		if d.Verdict != w.verdict || d.Rule != w.rule {
			t.Fatalf("fetch %d: %s by %s; want %s by %s", i+1, d.Verdict, d.Rule, w.verdict, w.rule)
		}
		if d.Verdict == call.Deny && !strings.HasPrefix(d.Reason, "too many fetches (rate limit of 2 per minute per session reached: 2 calls in the last minute") {
			t.Errorf("fetch %d: reason %q", i+1, d.Reason)
		}
	}
	// Another session of the same agent, and the same session id of another agent, have
	// counters of their own.
	for _, c := range []call.Call{fetchCall(t, call.ClaudeCode, "s2"), fetchCall(t, call.GeminiCLI, "s1")} {
		if d, _ := e.EvaluateIn(ctx, c, sess, false); d.Verdict != call.Audit {
			t.Errorf("%s session %s: %s by %s; want its own counter, under the limit", c.Agent, c.Session, d.Verdict, d.Rule)
		}
	}
	want := "/ws/moat.yaml#fetch-rate|session claude-code/s1"
	if lim.keys[0] != want {
		t.Errorf("key %q; want %q", lim.keys[0], want)
	}
}

func TestLimitScopes(t *testing.T) {
	e := newEngine(t, limitPolicy)
	lim := &fakeLimiter{used: map[string]int{}, count: true}
	ctx := context.Background()
	// Per agent: the sessions of one agent share the counter.
	for i, session := range []string{"a", "b", "c", "d"} {
		c := shellCall("ls", "/ws")
		c.Session = session
		d, _ := e.EvaluateIn(ctx, c, Session{Limits: lim}, false)
		over := i >= 3
		if (d.Verdict == call.Ask) != over {
			t.Errorf("shell call %d: %s by %s; over the limit: %v", i+1, d.Verdict, d.Rule, over)
		}
	}
	if got := lim.keys[0]; got != "/ws/moat.yaml#shell-rate|agent claude-code" {
		t.Errorf("key %q", got)
	}
	for _, tt := range []struct {
		scope string
		c     call.Call
		want  string
	}{
		{"class", fetchCall(t, call.GeminiCLI, "x"), "class web.fetch"},
		{"tool", fetchCall(t, call.ClaudeCode, "x"), "tool WebFetch"},
		{"session", fetchCall(t, call.ClaudeCode, ""), "session claude-code/"},
	} {
		src := strings.Replace(limitPolicy, "limit: 2 per 1m", "limit: 2 per 1m per "+tt.scope, 1)
		lim := &fakeLimiter{used: map[string]int{}, count: true}
		newEngine(t, src).EvaluateIn(ctx, tt.c, Session{Limits: lim}, false)
		if len(lim.keys) != 1 || !strings.HasSuffix(lim.keys[0], "|"+tt.want) {
			t.Errorf("per %s: keys %q; want one ending in %q", tt.scope, lim.keys, tt.want)
		}
	}
	// A session id too long for a key is hashed.
	long := fetchCall(t, call.ClaudeCode, strings.Repeat("s", 600))
	e.EvaluateIn(ctx, long, Session{Limits: lim}, false)
	if k := lim.keys[len(lim.keys)-1]; !strings.HasPrefix(k, "sha256:") || len(k) > maxKeyBytes {
		t.Errorf("key of a long session: %q", k)
	}
}

func TestLimitWithoutCountersIsUnder(t *testing.T) {
	// No counters (the policy's own tests): every call is under the limit.
	e := newEngine(t, limitPolicy)
	for range 5 {
		if d := e.Evaluate(context.Background(), fetchCall(t, call.ClaudeCode, "s")); d.Rule != "fetch-audit" {
			t.Fatalf("fetch without counters: %s by %s; want the rule below the limited one", d.Verdict, d.Rule)
		}
	}
}

func TestLimitCounterFailureApplies(t *testing.T) {
	e := newEngine(t, limitPolicy)
	lim := &fakeLimiter{err: errors.New("counters unreadable")}
	d, _ := e.EvaluateIn(context.Background(), fetchCall(t, call.ClaudeCode, "s"), Session{Limits: lim}, false)
	if d.Verdict != call.Deny || d.Rule != "fetch-rate" || !strings.Contains(d.Reason, "rate-limit counter failed, so the rule applies: counters unreadable") {
		t.Errorf("failing counter: %+v; want the limited rule's deny, saying why", d)
	}
}

func TestLimitOnlyAfterConditions(t *testing.T) {
	// A call the rule's conditions do not match is never counted.
	e := newEngine(t, limitPolicy)
	lim := &fakeLimiter{used: map[string]int{}, count: true}
	c := toolCall(t, "Read", map[string]any{"file_path": "/ws/a"}, "/ws")
	e.EvaluateIn(context.Background(), c, Session{Limits: lim}, false)
	if len(lim.keys) != 0 {
		t.Errorf("a read was counted against %q", lim.keys)
	}
}

func TestLimitTrace(t *testing.T) {
	e := newEngine(t, limitPolicy)
	next := time.Date(2026, 11, 26, 12, 0, 30, 0, time.UTC)
	lim := &fakeLimiter{used: map[string]int{"/ws/moat.yaml#fetch-rate|session claude-code/s": 1}, next: next}
	ctx := context.Background()
	// Under the limit, looked at only: the rule does not match, and says so.
	_, tr := e.EvaluateIn(ctx, fetchCall(t, call.ClaudeCode, "s"), Session{Limits: lim}, true)
	rt := triedRule(tr, "fetch-rate")
	if rt.ID != "fetch-rate" || rt.Matched || rt.Limit == nil || rt.Limit.Used != 1 || rt.Limit.Max != 2 || rt.Limit.Counted {
		t.Fatalf("trace of the limited rule: %+v", rt)
	}
	var b bytes.Buffer
	if err := tr.WriteText(&b, nil); err != nil {
		t.Fatal(err)
	}
	if want := "✗ limit: 1 of 2 calls in the last minute (session claude-code/s): under the limit; this call is not counted"; !strings.Contains(b.String(), want) {
		t.Errorf("trace text lacks %q:\n%s", want, b.String())
	}
	// Over the limit: it matches, with when it opens again.
	lim.used["/ws/moat.yaml#fetch-rate|session claude-code/s"] = 2
	d, tr := e.EvaluateIn(ctx, fetchCall(t, call.ClaudeCode, "s"), Session{Limits: lim}, true)
	rt = triedRule(tr, "fetch-rate")
	if d.Rule != "fetch-rate" || !rt.Matched || !rt.Limit.Exceeded || !rt.Limit.Next.Equal(next) {
		t.Fatalf("trace over the limit: %+v, %+v", d, rt)
	}
	b.Reset()
	tr.WriteText(&b, nil)
	if want := "✓ limit: 2 of 2 calls in the last minute (session claude-code/s): over the limit; under it again at 2026-11-26 12:00:30"; !strings.Contains(b.String(), want) {
		t.Errorf("trace text lacks %q:\n%s", want, b.String())
	}
}

func triedRule(tr *Trace, id string) RuleTrace {
	for _, r := range tr.Units[0].Tried {
		if r.ID == id {
			return r
		}
	}
	return RuleTrace{}
}

// A call that passes a limit but is denied after all (by a later rule here) never runs,
// and is taken back from the counter; an allowed or audited one stays counted.
func TestDeniedCallsAreRefunded(t *testing.T) {
	src := strings.Replace(limitPolicy, "  - id: fetch-audit\n", `  - id: deny-evil
    tool: web.fetch
    args: {url: {glob: "*evil*"}}
    decision: deny
  - id: fetch-audit
`, 1)
	e := newEngine(t, src)
	lim := &fakeLimiter{used: map[string]int{}, count: true}
	ctx := context.Background()
	evil := fetchCall(t, call.ClaudeCode, "s")
	evil.Args["url"] = "https://evil.example/"
	for range 5 {
		if d, _ := e.EvaluateIn(ctx, evil, Session{Limits: lim}, false); d.Rule != "deny-evil" {
			t.Fatalf("evil fetch: %s by %s; want deny-evil", d.Verdict, d.Rule)
		}
	}
	if lim.refunds != 5 {
		t.Errorf("%d of 5 denied calls taken back", lim.refunds)
	}
	for i, w := range []string{"fetch-audit", "fetch-audit", "fetch-rate"} {
		if d, _ := e.EvaluateIn(ctx, fetchCall(t, call.ClaudeCode, "s"), Session{Limits: lim}, false); d.Rule != w {
			t.Errorf("fetch %d after the denied ones: %s by %s; want %s", i+1, d.Verdict, d.Rule, w)
		}
	}
	// Calls over the limit were never counted, so there is nothing to take back.
	if lim.refunds != 5 {
		t.Errorf("%d refunds; want still 5", lim.refunds)
	}
}

// A limited rule that two layers hold from the same file (a pack or a shared policy both
// extend) has one counter, and each call counts once against it: the limit is the one
// the file writes, not half of it.
func TestLimitInTwoLayersCountsOnce(t *testing.T) {
	var layers []policy.Layer
	for _, kind := range []string{"project", "user"} {
		p, err := policy.Load("/ws/shared.yaml", []byte(limitPolicy), testHost())
		if err != nil {
			t.Fatal(err)
		}
		layers = append(layers, policy.Layer{Kind: kind, Policy: p})
	}
	p, _, err := policy.Combine(layers)
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(p, Options{Host: testHost()})
	if err != nil {
		t.Fatal(err)
	}
	lim := &fakeLimiter{used: map[string]int{}, count: true}
	ctx := context.Background()
	for i, w := range []want{{call.Audit, "fetch-audit"}, {call.Audit, "fetch-audit"}, {call.Deny, "fetch-rate"}} {
		d, _ := e.EvaluateIn(ctx, fetchCall(t, call.ClaudeCode, "s1"), Session{Limits: lim}, false)
		if d.Verdict != w.verdict || d.Rule != w.rule {
			t.Fatalf("fetch %d: %s by %s; want %s by %s (counter at %v)", i+1, d.Verdict, d.Rule, w.verdict, w.rule, lim.used)
		}
	}
	if n := lim.used["/ws/shared.yaml#fetch-rate|session claude-code/s1"]; n != 2 {
		t.Errorf("counter at %d after two calls under the limit; want 2", n)
	}
}
