package otlp

import (
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	logsv1 "go.opentelemetry.io/proto/otlp/logs/v1"
	metricsv1 "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/protobuf/proto"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
)

// collector is a fake OTLP/HTTP collector: it answers each request with the next of its
// scripted answers (then 200) and keeps what it accepted.
type collector struct {
	t       *testing.T
	mu      sync.Mutex
	answers map[string][]func(http.ResponseWriter) // by path
	logs    []*logsv1.LogsData
	metrics []*metricsv1.MetricsData
	tries   map[string]int
	headers http.Header
	block   chan struct{} // when set, requests wait for it
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if c.block != nil {
		<-c.block
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tries[r.URL.Path]++
	c.headers = r.Header.Clone()
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/x-protobuf" || r.Header.Get("Content-Encoding") != "gzip" {
		c.t.Errorf("%s %s with Content-Type %q, Content-Encoding %q", r.Method, r.URL.Path, r.Header.Get("Content-Type"), r.Header.Get("Content-Encoding"))
	}
	if as := c.answers[r.URL.Path]; len(as) > 0 {
		c.answers[r.URL.Path] = as[1:]
		as[0](w)
		return
	}
	zr, err := gzip.NewReader(r.Body)
	if err != nil {
		c.t.Errorf("gzip: %v", err)
		return
	}
	body, err := io.ReadAll(zr)
	if err != nil {
		c.t.Errorf("read: %v", err)
	}
	switch r.URL.Path {
	case "/otlp/v1/logs":
		var m logsv1.LogsData
		if err := proto.Unmarshal(body, &m); err != nil {
			c.t.Errorf("logs: %v", err)
		}
		c.logs = append(c.logs, &m)
	case "/otlp/v1/metrics":
		var m metricsv1.MetricsData
		if err := proto.Unmarshal(body, &m); err != nil {
			c.t.Errorf("metrics: %v", err)
		}
		c.metrics = append(c.metrics, &m)
	default:
		c.t.Errorf("request to %s", r.URL.Path)
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
}

func (c *collector) logRecords() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, l := range c.logs {
		for _, rl := range l.ResourceLogs {
			for _, sl := range rl.ScopeLogs {
				n += len(sl.LogRecords)
			}
		}
	}
	return n
}

func status(code int, header ...string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(code)
		io.WriteString(w, "refused: "+http.StatusText(code))
	}
}

func startCollector(t *testing.T, answers map[string][]func(http.ResponseWriter)) (*collector, string) {
	c := &collector{t: t, answers: answers, tries: map[string]int{}}
	if c.answers == nil {
		c.answers = map[string][]func(http.ResponseWriter){}
	}
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	return c, srv.URL + "/otlp"
}

func record(i int) audit.Record {
	return audit.Record{Time: time.Now(), Agent: "codex", Class: "shell", Tool: "shell", Decision: call.Allow, Reason: "allowed", LatencyMS: 0.1, Seq: uint64(i + 1)}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

func TestExporter(t *testing.T) {
	tests := []struct {
		name        string
		answers     map[string][]func(http.ResponseWriter)
		records     int
		batch       int
		wantReqs    int // log requests that reached the handler
		wantExport  uint64
		wantDropped uint64
		wantErr     string // in Status.LastError after the run
	}{
		{name: "batched by size", records: 5, batch: 2, wantReqs: 3, wantExport: 5},
		{name: "one batch by time", records: 3, batch: 100, wantReqs: 1, wantExport: 3},
		{name: "retried after 503 and 429, honouring Retry-After",
			answers: map[string][]func(http.ResponseWriter){"/otlp/v1/logs": {status(503, "Retry-After", "0"), status(429, "Retry-After", "0")}},
			records: 2, batch: 2, wantReqs: 3, wantExport: 2, wantErr: "429 Too Many Requests"},
		{name: "a refusal is not retried: the batch is dropped",
			answers: map[string][]func(http.ResponseWriter){"/otlp/v1/logs": {status(400)}},
			records: 2, batch: 2, wantReqs: 1, wantDropped: 2, wantErr: "400 Bad Request: refused: Bad Request"},
		{name: "retries run out",
			answers: map[string][]func(http.ResponseWriter){"/otlp/v1/logs": {status(502), status(502), status(502), status(502), status(502), status(502)}},
			records: 1, batch: 1, wantReqs: 2, wantDropped: 1, wantErr: "502 Bad Gateway"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, url := startCollector(t, tt.answers)
			var logged []string
			var mu sync.Mutex
			e, err := New(Options{
				Endpoint: url, Headers: map[string]string{"X-Api-Key": "hunter2"}, Identity: testIdentity,
				BatchSize: tt.batch, BatchWait: 50 * time.Millisecond, Interval: time.Hour, RetryFor: 800 * time.Millisecond,
				Log: func(s string) { mu.Lock(); logged = append(logged, s); mu.Unlock() },
			})
			if err != nil {
				t.Fatal(err)
			}
			for i := range tt.records {
				if !e.Offer(record(i)) {
					t.Fatalf("record %d dropped", i)
				}
			}
			waitFor(t, "the exports", func() bool {
				st := e.Status()
				return st.Exported+st.Dropped == uint64(tt.records)
			})
			if err := e.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			st := e.Status()
			if st.Exported != tt.wantExport || st.Dropped != tt.wantDropped {
				t.Errorf("exported %d, dropped %d; want %d, %d", st.Exported, st.Dropped, tt.wantExport, tt.wantDropped)
			}
			if got := c.tries["/otlp/v1/logs"]; got != tt.wantReqs {
				t.Errorf("%d log requests, want %d", got, tt.wantReqs)
			}
			if c.logRecords() != int(tt.wantExport) {
				t.Errorf("the collector holds %d records, want %d", c.logRecords(), tt.wantExport)
			}
			if !strings.Contains(st.LastError, tt.wantErr) || (tt.wantErr == "") != (st.LastError == "") {
				t.Errorf("last error %q, want %q", st.LastError, tt.wantErr)
			}
			if st.Failing {
				t.Errorf("failing after the metrics were exported at Close")
			}
			if c.headers.Get("X-Api-Key") != "hunter2" {
				t.Errorf("the header was not sent: %v", c.headers)
			}
			// Close exported the metrics a last time.
			if len(c.metrics) == 0 || st.MetricExports == 0 {
				t.Errorf("no metrics exported at Close")
			}
			mu.Lock()
			defer mu.Unlock()
			for _, l := range logged {
				if strings.Contains(l, "hunter2") {
					t.Errorf("a header's value was logged: %s", l)
				}
			}
		})
	}
}

// A collector that does not answer never slows Offer: past the queue, records are
// dropped and counted, and Close gives up when its context ends.
func TestExporterQueueBounded(t *testing.T) {
	c, url := startCollector(t, nil)
	c.block = make(chan struct{})
	e, err := New(Options{Endpoint: url, BatchSize: 1, QueueSize: 4, Interval: time.Hour, Identity: testIdentity})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	accepted := 0
	for i := range 1000 {
		if e.Offer(record(i)) {
			accepted++
		}
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("1000 offers took %v", took)
	}
	// One record in flight, four queued.
	if accepted > 5 {
		t.Errorf("%d records accepted with a queue of 4", accepted)
	}
	if st := e.Status(); st.Dropped != uint64(1000-accepted) {
		t.Errorf("dropped %d, want %d", st.Dropped, 1000-accepted)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := e.Close(ctx); err == nil {
		t.Error("Close returned nil with the collector stuck")
	}
	close(c.block)
	if e.Offer(record(0)) {
		t.Error("a closed exporter took a record")
	}
}

// Metrics are exported every Interval, cumulatively.
func TestExporterMetricsInterval(t *testing.T) {
	c, url := startCollector(t, nil)
	e, err := New(Options{Endpoint: url, Interval: 30 * time.Millisecond, BatchWait: 10 * time.Millisecond, Identity: testIdentity})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	for i := range 3 {
		e.Offer(record(i))
	}
	waitFor(t, "metrics with three decisions", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, m := range c.metrics {
			for _, rm := range m.ResourceMetrics {
				for _, sm := range rm.ScopeMetrics {
					for _, mt := range sm.Metrics {
						if mt.Name == "moat.decisions" && mt.GetSum().DataPoints[0].GetAsInt() == 3 {
							return true
						}
					}
				}
			}
		}
		return false
	})
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"3", 3 * time.Second, true},
		{"0", 0, true},
		{"-1", 0, false},
		{"86400", maxBackoff, true},
		{now.Add(5 * time.Second).Format(http.TimeFormat), 5 * time.Second, true},
		{now.Add(-5 * time.Second).Format(http.TimeFormat), 0, true},
		{"soon", 0, false},
	} {
		if got, ok := retryAfter(tt.in, now); got != tt.want || ok != tt.ok {
			t.Errorf("retryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestNewRefusesBadEndpoint(t *testing.T) {
	for _, ep := range []string{"", "collector:4318", "ftp://x/"} {
		if _, err := New(Options{Endpoint: ep}); err == nil {
			t.Errorf("New accepted endpoint %q", ep)
		}
	}
}

// answerWith is a collector's 200 with body as its protobuf answer.
func answerWith(body []byte) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(body)
	}
}

// A collector that accepts an export but rejects part of it (an OTLP partial success) is
// not sent the rejected part again; what it rejected is counted as dropped, and what it
// said is in the status and the log. An answer that cannot be read is said too.
func TestExporterPartialSuccess(t *testing.T) {
	for _, tt := range []struct {
		name               string
		logs, metrics      []byte
		exported, rejected uint64
		last               string
	}{
		{name: "log records rejected", logs: exportResponse(2, "attribute value too long", false), exported: 3, rejected: 2,
			last: "the collector rejected 2 log records: attribute value too long"},
		{name: "metric data points rejected", metrics: exportResponse(4, "", false), exported: 5,
			last: "the collector rejected 4 metric data points"},
		{name: "a warning", logs: exportResponse(0, "deprecated", false), exported: 5,
			last: "the collector accepted the log records with a warning: deprecated"},
		{name: "an answer that cannot be read", logs: []byte{0x0a, 0x09}, exported: 5,
			last: "the collector accepted the log records, but its answer could not be read: truncated protobuf message"},
		{name: "a rejection larger than the batch", logs: exportResponse(99, "", false), exported: 0, rejected: 5,
			last: "the collector rejected 99 log records"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			answers := map[string][]func(http.ResponseWriter){}
			if tt.logs != nil {
				answers["/otlp/v1/logs"] = []func(http.ResponseWriter){answerWith(tt.logs)}
			}
			if tt.metrics != nil {
				answers["/otlp/v1/metrics"] = []func(http.ResponseWriter){answerWith(tt.metrics)}
			}
			c, url := startCollector(t, answers)
			var logged []string
			var mu sync.Mutex
			e, err := New(Options{Endpoint: url, Identity: testIdentity, BatchSize: 5, BatchWait: 50 * time.Millisecond, Interval: time.Hour,
				Log: func(s string) { mu.Lock(); logged = append(logged, s); mu.Unlock() }})
			if err != nil {
				t.Fatal(err)
			}
			for i := range 5 {
				e.Offer(record(i))
			}
			waitFor(t, "the export", func() bool { st := e.Status(); return st.Exported+st.Dropped == 5 })
			if err := e.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			st := e.Status()
			if st.Exported != tt.exported || st.Rejected != tt.rejected || st.Dropped != tt.rejected || st.LastRejection != tt.last {
				t.Errorf("status %+v; want exported %d, rejected and dropped %d, last rejection %q", st, tt.exported, tt.rejected, tt.last)
			}
			if got := c.tries["/otlp/v1/logs"]; got != 1 {
				t.Errorf("%d log requests, want 1: an accepted export is not sent again", got)
			}
			if st.LastError != "" || st.Failing {
				t.Errorf("a partial success is no failure: %+v", st)
			}
			mu.Lock()
			defer mu.Unlock()
			if !slices.ContainsFunc(logged, func(l string) bool { return strings.Contains(l, tt.last) }) {
				t.Errorf("the log does not say %q: %q", tt.last, logged)
			}
		})
	}
}
