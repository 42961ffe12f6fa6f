package cli

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	commonv1 "go.opentelemetry.io/proto/otlp/common/v1"
	logsv1 "go.opentelemetry.io/proto/otlp/logs/v1"
	"google.golang.org/protobuf/proto"

	"github.com/moatdev/moat/internal/daemon"
	"github.com/moatdev/moat/internal/fleet"
)

// fakeCollector keeps the log records an OTLP/HTTP client posts to it.
type fakeCollector struct {
	mu      sync.Mutex
	logs    []*logsv1.ResourceLogs
	metrics int
	apiKey  string
}

func (c *fakeCollector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	zr, err := gzip.NewReader(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	body, _ := io.ReadAll(zr)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.apiKey = r.Header.Get("X-Api-Key")
	switch r.URL.Path {
	case "/v1/logs":
		var m logsv1.LogsData
		if err := proto.Unmarshal(body, &m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		c.logs = append(c.logs, m.ResourceLogs...)
	case "/v1/metrics":
		c.metrics++
	default:
		http.NotFound(w, r)
	}
}

func attrsOf(kvs []*commonv1.KeyValue) map[string]string {
	out := map[string]string{}
	for _, kv := range kvs {
		switch v := kv.GetValue().GetValue().(type) {
		case *commonv1.AnyValue_StringValue:
			out[kv.GetKey()] = v.StringValue
		case *commonv1.AnyValue_IntValue:
			out[kv.GetKey()] = strconv.FormatInt(v.IntValue, 10)
		}
	}
	return out
}

func writeFleet(t *testing.T, home, text string) {
	t.Helper()
	dir := filepath.Join(home, ".config", "moat")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, fleet.FileName), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// An environment whose fleet.yaml has otlp: exports each decision recorded through its
// bus, numbered as its JSONL log numbered it, under the fleet's machine name and id, and
// says so in the daemon's status; one without exports nothing.
func TestRecorderOTLPExport(t *testing.T) {
	c := &fakeCollector{}
	srv := httptest.NewServer(c)
	defer srv.Close()
	home := t.TempDir()
	writeFleet(t, home, "machine: ci-box-3\notlp:\n  endpoint: "+srv.URL+"\n  headers:\n    X-Api-Key: hunter2\n  interval: 1s\n")
	rec, _, log := newRecorder(t, home, 0)
	rs := sampleRecords()
	for _, r := range rs {
		if err := rec.write(r); err != nil {
			t.Fatal(err)
		}
	}
	rec.close() // flushes the export
	st := rec.status(t.Context())
	if st.OTLP == nil || st.OTLP.Endpoint != srv.URL || st.OTLP.Exported != uint64(len(rs)) || st.OTLP.Failing {
		t.Fatalf("status %+v; want %d exported to %s", st.OTLP, len(rs), srv.URL)
	}
	a, _, _ := testApp(home)
	d, _ := a.dirs()
	id, err := fleet.MachineID(d)
	if err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.apiKey != "hunter2" || c.metrics == 0 {
		t.Errorf("header %q, %d metric exports", c.apiKey, c.metrics)
	}
	exported := map[string]bool{} // seq/rule
	for _, rl := range c.logs {
		res := attrsOf(rl.GetResource().GetAttributes())
		if res["host.name"] != "ci-box-3" || res["host.id"] != id || res["service.name"] != "moat" || res["moat.agent"] == "" {
			t.Errorf("resource %v", res)
		}
		for _, lr := range rl.ScopeLogs[0].LogRecords {
			at := attrsOf(lr.Attributes)
			if at["moat.agent"] != res["moat.agent"] {
				t.Errorf("record of agent %q under resource of %q", at["moat.agent"], res["moat.agent"])
			}
			exported[at["moat.seq"]+"/"+at["moat.rule"]] = true
		}
	}
	logged := logRecords(t, home)
	if len(exported) != len(logged) {
		t.Fatalf("exported %d records, the log holds %d: %v", len(exported), len(logged), exported)
	}
	for _, r := range logged {
		if k := strconv.FormatUint(r.Seq, 10) + "/" + r.Rule; !exported[k] {
			t.Errorf("record %s of the log was not exported with its number: %v", k, exported)
		}
	}
	var out bytes.Buffer
	writeSinkStatus(&out, &daemon.SinkStatus{Audit: []daemon.AuditStatus{st}})
	if !strings.Contains(out.String(), "otlp       "+srv.URL+" (6 exported, 0 dropped") {
		t.Errorf("status text:\n%s", out.String())
	}
	if strings.Contains(log.String()+out.String(), "hunter2") {
		t.Errorf("a header's value was shown:\n%s\n%s", log, out.String())
	}
}

func TestRecorderOTLPOff(t *testing.T) {
	for _, tc := range []struct {
		name, fleet string
		wantErr     string // in the status; "" for no export at all
	}{
		{name: "no fleet.yaml"},
		{name: "no otlp section", fleet: "machine: m\n"},
		{name: "a broken fleet.yaml", fleet: "otlp:\n  endpoint: http://collector.example:4318\n", wantErr: "plain http to another machine"},
		{name: "a missing ca_file", fleet: "otlp:\n  endpoint: https://127.0.0.1:1\n  ca_file: nowhere.pem\n", wantErr: "ca_file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			if tc.fleet != "" {
				writeFleet(t, home, tc.fleet)
			}
			rec, _, log := newRecorder(t, home, 0)
			for _, r := range sampleRecords() {
				if err := rec.write(r); err != nil {
					t.Fatalf("a decision was not recorded: %v", err)
				}
			}
			st := rec.status(t.Context())
			for _, s := range st.Sinks {
				if s.Name == sinkOTLP {
					t.Errorf("an otlp sink without an export")
				}
			}
			switch {
			case tc.wantErr == "" && st.OTLP != nil:
				t.Errorf("status %+v without otlp:", st.OTLP)
			case tc.wantErr != "" && (st.OTLP == nil || !st.OTLP.Failing || !strings.Contains(st.OTLP.LastError, tc.wantErr)):
				t.Errorf("status %+v; want an error with %q", st.OTLP, tc.wantErr)
			case tc.wantErr != "" && !strings.Contains(log.String(), tc.wantErr):
				t.Errorf("the daemon's log does not say why:\n%s", log)
			}
		})
	}
}

// The OTLP lines of moat daemon status say what the collector rejected of accepted
// exports, beside the counts and the failures.
func TestWriteOTLPStatus(t *testing.T) {
	at := time.Date(2026, 11, 27, 1, 2, 3, 0, time.UTC)
	for _, tc := range []struct {
		name string
		st   *daemon.OTLPStatus
		want []string
		not  []string
	}{
		{"working", &daemon.OTLPStatus{Endpoint: "https://otel.example", Exported: 9, MetricExports: 2},
			[]string{"otlp       https://otel.example (9 exported, 0 dropped, 2 metric exports)\n"}, []string{"rejected", "failing", "error"}},
		{"a partial success", &daemon.OTLPStatus{Endpoint: "https://otel.example", Exported: 7, Dropped: 2, Rejected: 2, LastRejection: "the collector rejected 2 log records: too long"},
			[]string{"(7 exported, 2 dropped", "otlp       2 rejected; last: the collector rejected 2 log records: too long\n"}, []string{"failing"}},
		{"failing", &daemon.OTLPStatus{Endpoint: "https://otel.example", Failing: true, LastError: "503", LastErrorAt: at},
			[]string{"otlp       failing: 503\n"}, []string{"rejected"}},
		{"an old error", &daemon.OTLPStatus{Endpoint: "https://otel.example", LastError: "503", LastErrorAt: at},
			[]string{"otlp       last error (2026-11-27 01:02:03): 503\n"}, nil},
	} {
		var b bytes.Buffer
		writeOTLPStatus(&b, tc.st)
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: no %q in:\n%s", tc.name, w, &b)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(b.String(), n) {
				t.Errorf("%s: %q in:\n%s", tc.name, n, &b)
			}
		}
	}
}
