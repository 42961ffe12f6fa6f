package metrics

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/events"
)

// scrape serves m on a real loopback listener, fetches /metrics as a scraper would and
// parses the text exposition.
func scrape(t *testing.T, m *Metrics) map[string]*dto.MetricFamily {
	t.Helper()
	ln, err := ListenLoopback("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- m.Serve(ctx, ln) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	resp, err := http.Get("http://" + ln.Addr().String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/plain; version=0.0.4; charset=utf-8" {
		t.Fatalf("Content-Type %q, want the text format 0.0.4", ct)
	}
	return parse(t, resp.Body)
}

// parse reads a text exposition with Prometheus's own parser.
func parse(t *testing.T, r io.Reader) map[string]*dto.MetricFamily {
	t.Helper()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(r)
	if err != nil {
		t.Fatalf("parsing the exposition: %v", err)
	}
	return families
}

// gather is m's exposition, written and parsed without a server.
func gather(t *testing.T, m *Metrics) map[string]*dto.MetricFamily {
	t.Helper()
	var b bytes.Buffer
	if err := m.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return parse(t, &b)
}

// sample finds the metric of family name whose labels are exactly labels.
func sample(t *testing.T, families map[string]*dto.MetricFamily, name string, labels map[string]string) *dto.Metric {
	t.Helper()
	f := families[name]
	if f == nil {
		t.Fatalf("no metric family %s", name)
	}
next:
	for _, m := range f.GetMetric() {
		if len(m.GetLabel()) != len(labels) {
			continue
		}
		for _, l := range m.GetLabel() {
			if labels[l.GetName()] != l.GetValue() {
				continue next
			}
		}
		return m
	}
	t.Fatalf("%s has no series %v", name, labels)
	return nil
}

func counter(t *testing.T, families map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	t.Helper()
	return sample(t, families, name, labels).GetCounter().GetValue()
}

func record(verdict call.Verdict, rule, agent, class string, latency time.Duration) events.Decision {
	return events.Decision{Record: audit.Record{Decision: verdict, Rule: rule, Agent: agent, Class: class, Tool: "Bash",
		LatencyMS: float64(latency) / float64(time.Millisecond)}}
}

// TestThroughBusAndScrape feeds events through a real bus to the metrics and reads them
// back as Prometheus would.
func TestThroughBusAndScrape(t *testing.T) {
	m := New(Options{Rules: []string{"no-delete"}})
	stuck := events.SinkFunc(func(ctx context.Context, _ events.Event) error { <-ctx.Done(); return ctx.Err() })
	failingAudit := events.SinkFunc(func(_ context.Context, ev events.Event) error {
		if d, ok := ev.(events.Decision); ok && d.Record.Tool == "Write" {
			return errors.New("disk full")
		}
		return nil
	})
	bus, err := events.New(events.Options{OnDrop: m.Dropped},
		events.Lossless("audit", failingAudit), events.Lossy("metrics", m, 1000), events.Lossy("notify", stuck, 1))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	publish := func(ev events.Event) {
		t.Helper()
		if err := bus.Publish(ctx, ev); err != nil && !strings.Contains(err.Error(), "disk full") {
			t.Fatal(err)
		}
	}
	for range 3 {
		publish(record(call.Deny, "no-delete", "claude-code", "shell", 40*time.Microsecond))
	}
	publish(record(call.Allow, call.RuleDefault, "cursor", "file.read", 2*time.Millisecond))
	publish(record(call.Ask, "no-delete", "", "shell", 0))
	write := record(call.Audit, call.RuleDefault, "codex", "file.write", 0)
	write.Record.Tool = "Write"
	publish(write)
	publish(events.PolicyReload{Policy: "/p/moat.yaml"})
	publish(events.PolicyReload{Policy: "/p/moat.yaml", Err: errors.New("line 3: unknown key")})
	publish(events.AuditWriteError{Err: errors.New("lock busy"), Spooled: true})
	publish(events.RoundTrip{Agent: "claude-code", Duration: 3 * time.Millisecond})
	publish(events.RoundTrip{Agent: "claude-code", Duration: 30 * time.Millisecond, Fallback: true})
	closeCtx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	bus.Close(closeCtx) // the stuck sink makes it time out; the metrics have drained by then
	waitDelivered(t, bus, "metrics", 12)

	f := scrape(t, m)
	for _, tc := range []struct {
		labels map[string]string
		want   float64
	}{
		{map[string]string{"verdict": "deny", "rule": "no-delete", "agent": "claude-code", "class": "shell"}, 3},
		{map[string]string{"verdict": "allow", "rule": "default", "agent": "cursor", "class": "file.read"}, 1},
		{map[string]string{"verdict": "ask", "rule": "no-delete", "agent": "none", "class": "shell"}, 1},
		{map[string]string{"verdict": "audit", "rule": "default", "agent": "codex", "class": "file.write"}, 1},
	} {
		if got := counter(t, f, "moat_decisions_total", tc.labels); got != tc.want {
			t.Errorf("moat_decisions_total%v = %v, want %v", tc.labels, got, tc.want)
		}
	}
	h := sample(t, f, "moat_decision_latency_seconds", map[string]string{"class": "shell"}).GetHistogram()
	if h.GetSampleCount() != 4 || h.GetSampleSum() < 119e-6 || h.GetSampleSum() > 121e-6 {
		t.Errorf("shell latency: %d samples summing to %v, want 4 summing to 120µs", h.GetSampleCount(), h.GetSampleSum())
	}
	if b := h.GetBucket()[2]; b.GetUpperBound() != 50e-6 || b.GetCumulativeCount() != 4 {
		t.Errorf("shell latency bucket %v ≤ %v, want all 4 under 50µs", b.GetCumulativeCount(), b.GetUpperBound())
	}
	for _, tc := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"moat_policy_reloads_total", nil, 2},
		{"moat_policy_reload_errors_total", nil, 1},
		// One written outside the bus, one the audit sink failed on.
		{"moat_audit_write_errors_total", nil, 2},
		{"moat_event_sink_errors_total", map[string]string{"sink": "audit", "reason": "error"}, 1},
		{"moat_events_dropped_total", map[string]string{"sink": "notify"}, 0},
	} {
		got := counter(t, f, tc.name, tc.labels)
		if tc.name == "moat_events_dropped_total" {
			// The stuck notification sink holds one event and buffers one: the rest dropped.
			if got < 10 {
				t.Errorf("%s%v = %v, want the events the stuck sink could not take", tc.name, tc.labels, got)
			}
			continue
		}
		if got != tc.want {
			t.Errorf("%s%v = %v, want %v", tc.name, tc.labels, got, tc.want)
		}
	}
	for path, want := range map[string]float64{"daemon": 3e-3, "fallback": 30e-3} {
		h := sample(t, f, "moat_hook_round_trip_seconds", map[string]string{"agent": "claude-code", "path": path}).GetHistogram()
		if h.GetSampleCount() != 1 || h.GetSampleSum() != want {
			t.Errorf("round trip %s: %d samples, sum %v; want 1 of %v", path, h.GetSampleCount(), h.GetSampleSum(), want)
		}
	}
}

// waitDelivered waits until the bus has handed sink n events (the metrics sink drains
// within Close unless Close timed out on another sink first).
func waitDelivered(t *testing.T, bus *events.Bus, sink string, n uint64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		for _, s := range bus.Stats() {
			if s.Name == sink && s.Delivered+s.Dropped >= n {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s was never handed %d events: %+v", sink, n, bus.Stats())
		}
		time.Sleep(time.Millisecond)
	}
}

// TestLabelsAreBounded: values outside the known sets are folded to "other", so the
// number of series cannot grow with what agents or policy edits send.
func TestLabelsAreBounded(t *testing.T) {
	m := New(Options{Rules: []string{"known"}, MaxRules: 3})
	for _, tc := range []struct {
		name                        string
		ev                          events.Decision
		verdict, rule, agent, class string
	}{
		{"known everything", record(call.Deny, "known", "gemini-cli", "mcp", 0), "deny", "known", "gemini-cli", "mcp"},
		{"agent without hooks", record(call.Deny, "known", "aider", "mcp", 0), "deny", "known", "aider", "mcp"},
		{"unknown agent", record(call.Deny, "known", "evil-agent-42", "shell", 0), "deny", "known", "other", "shell"},
		{"unknown class", record(call.Deny, "known", "codex", "shell.exec", 0), "deny", "known", "codex", "other"},
		{"invalid verdict", record(0, "known", "codex", "shell", 0), "other", "known", "codex", "shell"},
		{"reserved rule past the cap", record(call.Deny, call.RuleFailClosed, "codex", "shell", 0), "deny", "fail-closed", "codex", "shell"},
		{"new rule within the cap", record(call.Deny, "r2", "codex", "shell", 0), "deny", "r2", "codex", "shell"},
		{"another within the cap", record(call.Deny, "r3", "codex", "shell", 0), "deny", "r3", "codex", "shell"},
		{"rule past the cap", record(call.Deny, "r4", "codex", "shell", 0), "deny", "other", "codex", "shell"},
		{"a seen rule keeps its label", record(call.Deny, "r2", "codex", "shell", 0), "deny", "r2", "codex", "shell"},
		{"overlong rule", record(call.Deny, strings.Repeat("x", 200), "codex", "shell", 0), "deny", "other", "codex", "shell"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := totalDecisions(t, m, tc.verdict, tc.rule, tc.agent, tc.class)
			if err := m.Handle(context.Background(), tc.ev); err != nil {
				t.Fatal(err)
			}
			if after := totalDecisions(t, m, tc.verdict, tc.rule, tc.agent, tc.class); after != before+1 {
				t.Errorf("series {%s %s %s %s} went %v → %v, want one more", tc.verdict, tc.rule, tc.agent, tc.class, before, after)
			}
		})
	}
}

func totalDecisions(t *testing.T, m *Metrics, verdict, rule, agent, class string) float64 {
	t.Helper()
	if f := gather(t, m)["moat_decisions_total"]; f != nil {
		for _, s := range f.GetMetric() {
			got := map[string]string{}
			for _, l := range s.GetLabel() {
				got[l.GetName()] = l.GetValue()
			}
			if got["verdict"] == verdict && got["rule"] == rule && got["agent"] == agent && got["class"] == class {
				return s.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// TestIndependent: two Metrics share nothing (there is no registry, global or other),
// so a test's or a second daemon's counts never land in another's.
func TestIndependent(t *testing.T) {
	a, b := New(Options{}), New(Options{})
	a.Handle(context.Background(), record(call.Deny, "x", "codex", "shell", 0))
	a.Handle(context.Background(), events.PolicyReload{})
	if got := counter(t, gather(t, a), "moat_policy_reloads_total", nil); got != 1 {
		t.Errorf("a counted %v reloads, want 1", got)
	}
	fb := gather(t, b)
	if f := fb["moat_decisions_total"]; f != nil {
		t.Errorf("b has decisions it never saw: %v", f)
	}
	if got := counter(t, fb, "moat_policy_reloads_total", nil); got != 0 {
		t.Errorf("b counted %v reloads, want 0", got)
	}
}

func TestListenLoopback(t *testing.T) {
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:0", true},
		{"localhost:0", true},
		{"127.0.0.2:0", true},
		{"[::1]:0", true},
		{"[::ffff:127.0.0.1]:0", true},
		{"0.0.0.0:0", false},
		{":0", false},
		{"[::]:0", false},
		{"192.168.1.10:0", false},
		{"example.com:0", false},
		{"127.0.0.1", false},
		{"[fe80::1%lo]:0", false},
	} {
		t.Run(tc.addr, func(t *testing.T) {
			ln, err := ListenLoopback(tc.addr)
			if ln != nil {
				ln.Close()
			}
			if !tc.ok {
				if err == nil {
					t.Fatalf("ListenLoopback(%q) listened on %v", tc.addr, ln.Addr())
				}
				if !strings.Contains(err.Error(), "loopback") && !strings.Contains(err.Error(), "port") {
					t.Errorf("error %q does not say why", err)
				}
				return
			}
			if err != nil {
				if strings.Contains(tc.addr, "::") && strings.Contains(err.Error(), "cannot assign") {
					t.Skip("no IPv6 loopback here")
				}
				t.Fatal(err)
			}
		})
	}
}

func ExampleListenLoopback() {
	_, err := ListenLoopback("0.0.0.0:9464")
	fmt.Println(err)
	// Output: metrics: listen address "0.0.0.0:9464" is not a loopback address (use 127.0.0.1 or [::1])
}

// BenchmarkHandle is the cost of counting one decision.
func BenchmarkHandle(b *testing.B) {
	m := New(Options{})
	ev := record(call.Deny, "no-delete", "claude-code", "shell", 40*time.Microsecond)
	ctx := context.Background()
	for b.Loop() {
		m.Handle(ctx, ev)
	}
}

// BenchmarkPublish is what publishing a decision costs its publisher, with a lossless
// sink that stores nothing and the metrics behind a buffer.
func BenchmarkPublish(b *testing.B) {
	m := New(Options{})
	bus, err := events.New(events.Options{OnDrop: m.Dropped},
		events.Lossless("audit", events.SinkFunc(func(context.Context, events.Event) error { return nil })),
		events.Lossy("metrics", m, 4096))
	if err != nil {
		b.Fatal(err)
	}
	ev := record(call.Deny, "no-delete", "claude-code", "shell", 40*time.Microsecond)
	ctx := context.Background()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			bus.Publish(ctx, ev)
		}
	})
	b.StopTimer()
	bus.Close(ctx)
	for _, s := range bus.Stats() {
		if s.Name == "metrics" {
			b.ReportMetric(float64(s.Dropped)/float64(s.Dropped+s.Delivered), "dropped/op")
		}
	}
}

// The daemon's requests are observed by method and outcome; a second audit sink's
// failures count as audit write errors.
func TestRequestsAndAuditSinks(t *testing.T) {
	m := New(Options{AuditSinks: []string{"audit-db"}})
	m.Request("decide", 2*time.Millisecond, nil)
	m.Request("decide", 3*time.Millisecond, errors.New("bad params"))
	m.Request("", time.Millisecond, nil)
	for i := range maxMethods + 5 {
		m.Request(fmt.Sprint("made-up-", i), time.Millisecond, nil)
	}
	m.Handle(context.Background(), events.SinkError{Sink: "audit-db", Event: "decision", Err: errors.New("database is locked")})
	m.Handle(context.Background(), events.SinkError{Sink: "notify", Event: "decision", Err: errors.New("no display")})
	f := scrape(t, m)
	for _, tc := range []struct {
		method, outcome string
		want            uint64
	}{
		{"decide", "ok", 1},
		{"decide", "error", 1},
		{"seed", "ok", 1},
		{"other", "ok", 7}, // "decide" and "seed" took two of the bounded values
	} {
		h := sample(t, f, "moat_daemon_request_seconds", map[string]string{"method": tc.method, "outcome": tc.outcome}).GetHistogram()
		if h.GetSampleCount() != tc.want {
			t.Errorf("requests %s/%s: %d, want %d", tc.method, tc.outcome, h.GetSampleCount(), tc.want)
		}
	}
	if got := counter(t, f, "moat_audit_write_errors_total", nil); got != 1 {
		t.Errorf("moat_audit_write_errors_total = %v, want 1 (the database's failure, not the notifier's)", got)
	}
}
