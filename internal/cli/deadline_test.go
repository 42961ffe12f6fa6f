package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/dirs"
	"github.com/moatdev/moat/internal/hook"
	"github.com/moatdev/moat/internal/policy"
)

// TestWithin: the watchdog answers at the deadline whatever the work does, moves it to
// the policy's unless the environment set it, and stops the clock while a person is
// asked.
func TestWithin(t *testing.T) {
	const ms = time.Millisecond
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	hang := func() { <-stop }
	tests := []struct {
		name      string
		limit     time.Duration
		fixed     bool
		work      func(w *watchdog)
		ok        bool
		wantLimit time.Duration
	}{
		{"finishes in time", 500 * ms, false, func(*watchdog) { time.Sleep(10 * ms) }, true, 500 * ms},
		{"hangs", 50 * ms, false, func(*watchdog) { hang() }, false, 50 * ms},
		{"the policy shortens the deadline", 5 * time.Second, false, func(w *watchdog) { w.usePolicy(50 * ms); hang() }, false, 50 * ms},
		{"the policy lengthens the deadline", 50 * ms, false, func(w *watchdog) { w.usePolicy(800 * ms); time.Sleep(150 * ms) }, true, 800 * ms},
		{"a deadline the policy does not set", 50 * ms, false, func(w *watchdog) { w.usePolicy(0); hang() }, false, 50 * ms},
		{"the environment's deadline wins", 50 * ms, true, func(w *watchdog) { w.usePolicy(5 * time.Second); hang() }, false, 50 * ms},
		{"a person's time is not counted", 50 * ms, false, func(w *watchdog) {
			w.holding(true)
			time.Sleep(200 * ms)
			w.holding(false)
		}, true, 50 * ms},
		{"the clock runs again after asking", 50 * ms, false, func(w *watchdog) {
			w.holding(true)
			time.Sleep(10 * ms)
			w.holding(false)
			hang()
		}, false, 50 * ms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWatchdog(tt.limit, tt.fixed)
			start := time.Now()
			got, limit, ok := within(w, func() int { tt.work(w); return 1 })
			took := time.Since(start)
			if ok != tt.ok || limit != tt.wantLimit || ok != (got == 1) {
				t.Errorf("within = %d, %s, %v; want ok %v at %s", got, limit, ok, tt.ok, tt.wantLimit)
			}
			if !ok && (took < tt.wantLimit || took > tt.wantLimit+500*ms) {
				t.Errorf("answered after %s; the deadline was %s", took, tt.wantLimit)
			}
		})
	}
}

// TestHookDeadlineVar reads MOAT_HOOK_DEADLINE.
func TestHookDeadlineVar(t *testing.T) {
	tests := []struct {
		value string
		want  time.Duration
		fixed bool
		err   string
	}{
		{"", defaultHookDeadline, false, ""},
		{"750ms", 750 * time.Millisecond, true, ""},
		{"30s", 30 * time.Second, true, ""},
		{"soon", defaultHookDeadline, false, `MOAT_HOOK_DEADLINE: "soon" is not a duration`},
		{"-1s", defaultHookDeadline, false, "is not between 100ms and 30s"},
		{"31s", defaultHookDeadline, false, "is not between 100ms and 30s"},
	}
	for _, tt := range tests {
		d, fixed, err := hookDeadline(func(string) string { return tt.value })
		if d != tt.want || fixed != tt.fixed || (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%q: %s, %v, %v; want %s, %v, %q", tt.value, d, fixed, err, tt.want, tt.fixed, tt.err)
		}
	}
}

// stuckDecider loads nothing and waits, in deciding or recording, on what never comes (a
// lock another process holds, a disk that does not answer). Failures are recorded by the
// embedded service.
type stuckDecider struct {
	decide.Service
	p                  decide.Policy
	inDecide, inRecord bool
	stop               chan struct{}
	decision           call.Decision
}

func (s stuckDecider) Lookup(context.Context, decide.Scope) (decide.Policy, error) { return s.p, nil }

func (s stuckDecider) Decide(ctx context.Context, req decide.CallRequest) (decide.CallResult, error) {
	if s.inDecide {
		<-s.stop
	}
	if req.Record {
		decide.ReportProgress(ctx, decide.StageRecording)
		if s.inRecord {
			<-s.stop
		}
	}
	res := decide.CallResult{Calls: req.Calls, Decisions: []call.Decision{s.decision}, Decision: s.decision}
	if req.Hook != nil {
		res.Answer = &decide.HookAnswer{Verdict: s.decision.Verdict, Reason: decide.Reason(s.decision)}
	}
	return res, nil
}

func (s stuckDecider) Record(ctx context.Context, _ decide.RecordRequest) error {
	decide.ReportProgress(ctx, decide.StageRecording)
	if s.inRecord {
		<-s.stop
	}
	return nil
}

// TestHookDeadline: a hook whose decider is stuck answers in the agent's failure form
// on the deadline (the policy's, unless MOAT_HOOK_DEADLINE sets one), names what it was
// doing, and records the timeout as a failure.
func TestHookDeadline(t *testing.T) {
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	deny := call.Decision{Verdict: call.Deny, Rule: "r", Reason: "no"}
	tests := []struct {
		name      string
		env       map[string]string
		policy    time.Duration
		dec       stuckDecider
		want      string
		wantAfter time.Duration
	}{
		{"stuck deciding, the policy's deadline", nil, 300 * time.Millisecond,
			stuckDecider{inDecide: true}, "deadline of 300ms: moat was still deciding", 300 * time.Millisecond},
		{"stuck recording, the policy's deadline", nil, 200 * time.Millisecond,
			stuckDecider{inRecord: true, decision: deny}, "deadline of 200ms: moat was still recording the decision", 200 * time.Millisecond},
		{"MOAT_HOOK_DEADLINE wins over the policy", map[string]string{envHookDeadline: "250ms"}, 5 * time.Second,
			stuckDecider{inDecide: true}, "deadline of 250ms: moat was still deciding", 250 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, _, _ := guardApp(t, guardPolicy, tt.env)
			a.env.Stdin = strings.NewReader(`{"session_id":"s","cwd":"/","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`)
			p := decide.Policy{Name: "stuck.yaml", Fail: policy.FailOpen, Hooks: policy.DefaultHooks}
			p.Hooks.Deadline = tt.policy
			tt.dec.p, tt.dec.stop, tt.dec.Service = p, stop, a.local(nil)
			ad, _ := hook.ForAgent("claude-code")
			start := time.Now()
			out, finish := a.answerHookWith(context.Background(), ad, "", tt.dec)
			finish()
			took := time.Since(start)
			// A timeout is never the policy's fail: open: nothing was decided in time.
			if out.Code != 2 || !strings.Contains(string(out.Stdout), `"permissionDecision":"deny"`) || !strings.Contains(string(out.Stdout), tt.want) {
				t.Errorf("answer: exit %d, %s; want the failure form saying %q", out.Code, out.Stdout, tt.want)
			}
			if took < tt.wantAfter || took > tt.wantAfter+recordGrace+500*time.Millisecond {
				t.Errorf("answered after %s", took)
			}
			d, err := dirs.FromEnv(a.env.Getenv)
			if err != nil {
				t.Fatal(err)
			}
			log, err := os.ReadFile(d.AuditLog())
			if err != nil || !strings.Contains(string(log), `"failure":true`) || !strings.Contains(string(log), tt.want) {
				t.Errorf("the timeout is not recorded (%v):\n%s", err, log)
			}
		})
	}
}

// TestGuardDeadline: a guarded command whose decision is stuck is refused on the
// deadline; the time a person takes to answer an ask is not counted.
func TestGuardDeadline(t *testing.T) {
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	p := decide.Policy{Name: "p.yaml", Fail: policy.FailOpen, Hooks: policy.DefaultHooks}
	env := map[string]string{envHookDeadline: "200ms"}

	a, stderr, _ := guardApp(t, guardPolicy, env)
	stuck := stuckDecider{Service: a.local(nil), p: p, stop: stop, inDecide: true}
	deps := guardDeps{service: stuck}
	start := time.Now()
	if a.guard(context.Background(), guardOptions{event: eventRun, deps: deps}, "true") {
		t.Error("a command whose decision is stuck ran")
	}
	if took := time.Since(start); took > 200*time.Millisecond+recordGrace+500*time.Millisecond {
		t.Errorf("refused after %s", took)
	}
	if !strings.Contains(stderr.String(), "no decision within the deadline of 200ms: moat was still deciding") {
		t.Errorf("stderr %q", stderr)
	}

	// An ask the user takes longer than the deadline to answer still runs once approved.
	a, stderr, _ = guardApp(t, guardPolicy, env)
	ask := stuckDecider{Service: a.local(nil), p: p, stop: stop, decision: call.Decision{Verdict: call.Ask, Rule: "r"}}
	tty := &fakeTTY{Reader: slowReader{r: strings.NewReader("y\n"), delay: 400 * time.Millisecond}}
	deps = guardDeps{
		service: ask,
		openTTY: func() (io.ReadWriteCloser, error) { return tty, nil },
	}
	if !a.guard(context.Background(), guardOptions{event: eventRun, deps: deps}, "true") {
		t.Errorf("an ask approved after the deadline did not run: %s", stderr)
	}
}

// slowReader is a person who takes delay to start typing.
type slowReader struct {
	r     io.Reader
	delay time.Duration
}

func (s slowReader) Read(p []byte) (int, error) {
	time.Sleep(s.delay)
	return s.r.Read(p)
}

// The buffered stderr of work that outlived its waiter drops what comes after the flush.
func TestLockedBufferDropsLateWrites(t *testing.T) {
	var out bytes.Buffer
	b := &lockedBuffer{}
	b.Write([]byte("early\n"))
	b.flush(&out)
	b.Write([]byte("late\n"))
	if out.String() != "early\n" {
		t.Errorf("got %q", out.String())
	}
}
