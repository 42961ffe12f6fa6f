package metrics

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/events"
)

// TestExpositionText pins the exact bytes of the text format: HELP and TYPE lines,
// escaping, series sorted by label values, cumulative buckets up to +Inf, sum and count.
func TestExpositionText(t *testing.T) {
	c := newCounter("c_total", `Counts "things", with a \ and a`+"\nnewline.", "a", "b")
	c.inc("z", "1")
	c.inc("a", "2")
	c.inc("a", "2")
	c.inc("a", "10")
	c.inc(`q"b\s`+"\nn", "x")
	c.inc("too few")
	h := newHistogram("h_seconds", "A histogram.", []float64{0.001, 0.5, 1}, "l")
	for _, v := range []float64{0.0005, 0.001, 0.7, 3} {
		h.observe(v, "x")
	}
	h.observe(math.Inf(1), "y")
	empty := newCounter("empty_total", "Nothing counted yet.", "l")
	// Labels are written sorted by name, and series sorted by the values in that order.
	unsorted := newCounter("u_total", "Labels given out of order.", "verdict", "agent")
	unsorted.inc("allow", "b")
	unsorted.inc("deny", "a")
	unsorted.inc("allow", "a")
	plain := newCounter("plain_total", "No labels.")

	var b []byte
	for _, f := range []*family{c, h, empty, plain, unsorted} {
		b = f.appendText(b)
	}
	want := `# HELP c_total Counts "things", with a \\ and a\nnewline.
# TYPE c_total counter
c_total{a="a",b="10"} 1
c_total{a="a",b="2"} 2
c_total{a="q\"b\\s\nn",b="x"} 1
c_total{a="z",b="1"} 1
# HELP h_seconds A histogram.
# TYPE h_seconds histogram
h_seconds_bucket{l="x",le="0.001"} 2
h_seconds_bucket{l="x",le="0.5"} 2
h_seconds_bucket{l="x",le="1"} 3
h_seconds_bucket{l="x",le="+Inf"} 4
h_seconds_sum{l="x"} 3.7015
h_seconds_count{l="x"} 4
h_seconds_bucket{l="y",le="0.001"} 0
h_seconds_bucket{l="y",le="0.5"} 0
h_seconds_bucket{l="y",le="1"} 0
h_seconds_bucket{l="y",le="+Inf"} 1
h_seconds_sum{l="y"} +Inf
h_seconds_count{l="y"} 1
# HELP plain_total No labels.
# TYPE plain_total counter
plain_total 0
# HELP u_total Labels given out of order.
# TYPE u_total counter
u_total{agent="a",verdict="allow"} 1
u_total{agent="a",verdict="deny"} 1
u_total{agent="b",verdict="allow"} 1
`
	if got := string(b); got != want {
		t.Errorf("exposition:\n%s\nwant:\n%s", got, want)
	}
	// And Prometheus reads it as written.
	f := parse(t, bytes.NewReader(b))
	if got := sample(t, f, "c_total", map[string]string{"a": `q"b\s` + "\nn", "b": "x"}).GetCounter().GetValue(); got != 1 {
		t.Errorf("escaped series = %v, want 1", got)
	}
	if got := f["c_total"].GetHelp(); got != `Counts "things", with a \ and a`+"\nnewline." {
		t.Errorf("help read back as %q", got)
	}
}

// TestHostileLabels: label values come from policies (rule ids) and from daemon clients
// (method names); whatever they hold, the exposition stays one that Prometheus parses,
// and reads back the value that was counted.
func TestHostileLabels(t *testing.T) {
	m := New(Options{})
	hostile := []string{
		`quote"d`,
		`back\slash`,
		"new\nline",
		`end\`,
		`"} 1` + "\n" + `moat_fake_total 99`,
		"\\n literally",
		"ünïcödé ✓",
	}
	for _, v := range hostile {
		m.Request(v, time.Millisecond, nil)
		m.Handle(context.Background(), record(call.Deny, v, "codex", "shell", 0))
	}
	// Invalid UTF-8 is never a label value of its own: it is counted as other.
	m.Request("bad\xffutf8", time.Millisecond, nil)
	m.Handle(context.Background(), record(call.Deny, "bad\xc3(", "codex", "shell", 0))

	var b bytes.Buffer
	if err := m.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	f := parse(t, &b)
	if _, ok := f["moat_fake_total"]; ok {
		t.Errorf("a label value injected a metric:\n%s", b.String())
	}
	for _, v := range hostile {
		if got := sample(t, f, "moat_daemon_request_seconds", map[string]string{"method": v, "outcome": "ok"}).GetHistogram().GetSampleCount(); got != 1 {
			t.Errorf("method %q: %d requests, want 1", v, got)
		}
		if got := counter(t, f, "moat_decisions_total", map[string]string{"verdict": "deny", "rule": v, "agent": "codex", "class": "shell"}); got != 1 {
			t.Errorf("rule %q: %v decisions, want 1", v, got)
		}
	}
	if got := sample(t, f, "moat_daemon_request_seconds", map[string]string{"method": "other", "outcome": "ok"}).GetHistogram().GetSampleCount(); got != 1 {
		t.Errorf("invalid UTF-8 method: %d requests as other, want 1", got)
	}
	if got := counter(t, f, "moat_decisions_total", map[string]string{"verdict": "deny", "rule": "other", "agent": "codex", "class": "shell"}); got != 1 {
		t.Errorf("invalid UTF-8 rule: %v decisions as other, want 1", got)
	}
}

// TestInvalidUTF8Written: should a value with invalid UTF-8 reach a family, the bad
// bytes are written as U+FFFD, so the scraper still reads the whole exposition.
func TestInvalidUTF8Written(t *testing.T) {
	c := newCounter("c_total", "Help with a bad byte \xff.", "l")
	c.inc("a\xffb\xc3")
	f := parse(t, bytes.NewReader(c.appendText(nil)))
	if got := counter(t, f, "c_total", map[string]string{"l": "a\uFFFDb\uFFFD"}); got != 1 {
		t.Errorf("c_total = %v, want 1", got)
	}
}

// TestSchema: the families keep the names, types, labels and buckets dashboards and
// alerts were written against.
func TestSchema(t *testing.T) {
	m := New(Options{})
	ctx := context.Background()
	m.Handle(ctx, record(call.Deny, "r", "codex", "shell", time.Millisecond))
	m.Handle(ctx, events.RoundTrip{Agent: "codex", Duration: time.Millisecond})
	m.Handle(ctx, events.SinkError{Sink: "s", Err: errors.New("x")})
	m.Dropped("s", nil)
	m.Request("decide", time.Millisecond, nil)
	m.BundleRefused("rollback")
	f := gather(t, m)
	for _, tc := range []struct {
		name    string
		typ     dto.MetricType
		labels  []string
		buckets []float64
	}{
		{"moat_decisions_total", dto.MetricType_COUNTER, []string{"agent", "class", "rule", "verdict"}, nil},
		{"moat_decision_latency_seconds", dto.MetricType_HISTOGRAM, []string{"class"},
			[]float64{10e-6, 25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 50e-3, 100e-3, 250e-3, 1}},
		{"moat_hook_round_trip_seconds", dto.MetricType_HISTOGRAM, []string{"agent", "path"},
			[]float64{250e-6, 500e-6, 1e-3, 2e-3, 5e-3, 10e-3, 20e-3, 50e-3, 100e-3, 250e-3, 500e-3, 1, 2.5}},
		{"moat_policy_reloads_total", dto.MetricType_COUNTER, nil, nil},
		{"moat_policy_reload_errors_total", dto.MetricType_COUNTER, nil, nil},
		{"moat_audit_write_errors_total", dto.MetricType_COUNTER, nil, nil},
		{"moat_event_sink_errors_total", dto.MetricType_COUNTER, []string{"reason", "sink"}, nil},
		{"moat_events_dropped_total", dto.MetricType_COUNTER, []string{"sink"}, nil},
		{"moat_daemon_request_seconds", dto.MetricType_HISTOGRAM, []string{"method", "outcome"},
			[]float64{25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 100e-3, 250e-3, 1}},
		{"moat_audit_shipped_total", dto.MetricType_COUNTER, nil, nil},
		{"moat_audit_ship_failures_total", dto.MetricType_COUNTER, nil, nil},
		{"moat_audit_ship_refused_total", dto.MetricType_COUNTER, nil, nil},
		{"moat_audit_ship_backlog", dto.MetricType_GAUGE, nil, nil},
		{"moat_policy_bundle_serial", dto.MetricType_GAUGE, nil, nil},
		{"moat_policy_bundles_refused_total", dto.MetricType_COUNTER, []string{"reason"}, nil},
	} {
		fam := f[tc.name]
		if fam == nil {
			t.Errorf("no family %s", tc.name)
			continue
		}
		if fam.GetType() != tc.typ || fam.GetHelp() == "" || len(fam.GetMetric()) != 1 {
			t.Errorf("%s: type %v, help %q, %d series; want %v, a help text, 1 series", tc.name, fam.GetType(), fam.GetHelp(), len(fam.GetMetric()), tc.typ)
			continue
		}
		s := fam.GetMetric()[0]
		var labels []string
		for _, l := range s.GetLabel() {
			labels = append(labels, l.GetName())
		}
		slices.Sort(labels)
		if !slices.Equal(labels, tc.labels) {
			t.Errorf("%s: labels %v, want %v", tc.name, labels, tc.labels)
		}
		var bounds []float64
		for _, b := range s.GetHistogram().GetBucket() {
			bounds = append(bounds, b.GetUpperBound())
		}
		if tc.buckets != nil {
			tc.buckets = append(tc.buckets, math.Inf(1)) // the parser lists +Inf too
		}
		if !slices.Equal(bounds, tc.buckets) {
			t.Errorf("%s: buckets %v, want %v", tc.name, bounds, tc.buckets)
		}
	}
	if len(f) != 15 {
		t.Errorf("%d families, want 15", len(f))
	}
}

// TestConcurrent counts from many goroutines while others scrape: every event is
// counted once, and (under -race) no access is unguarded.
func TestConcurrent(t *testing.T) {
	m := New(Options{})
	const workers, each = 8, 500
	ctx := context.Background()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				m.Handle(ctx, record(call.Deny, fmt.Sprint("rule-", i%10), "claude-code", "shell", time.Duration(i)*time.Microsecond))
				m.Handle(ctx, events.PolicyReload{})
				m.Request(fmt.Sprint("method-", w), time.Millisecond, nil)
				m.Dropped("notify", nil)
			}
		})
	}
	for range 2 {
		wg.Go(func() {
			for range 50 {
				if err := m.WriteText(&bytes.Buffer{}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	f := gather(t, m)
	var decisions, latency float64
	for _, s := range f["moat_decisions_total"].GetMetric() {
		decisions += s.GetCounter().GetValue()
	}
	for _, s := range f["moat_decision_latency_seconds"].GetMetric() {
		latency += float64(s.GetHistogram().GetSampleCount())
	}
	if decisions != workers*each || latency != workers*each {
		t.Errorf("%v decisions, %v latencies; want %d each", decisions, latency, workers*each)
	}
	if got := counter(t, f, "moat_policy_reloads_total", nil); got != workers*each {
		t.Errorf("%v reloads, want %d", got, workers*each)
	}
	if got := counter(t, f, "moat_events_dropped_total", map[string]string{"sink": "notify"}); got != workers*each {
		t.Errorf("%v dropped, want %d", got, workers*each)
	}
	for w := range workers {
		h := sample(t, f, "moat_daemon_request_seconds", map[string]string{"method": fmt.Sprint("method-", w), "outcome": "ok"}).GetHistogram()
		if h.GetSampleCount() != each || h.GetBucket()[len(h.GetBucket())-1].GetCumulativeCount() != each {
			t.Errorf("method-%d: %d requests, want %d", w, h.GetSampleCount(), each)
		}
	}
	if strings.Contains(fmt.Sprint(f), "NaN") {
		t.Error("a NaN in the exposition")
	}
}
