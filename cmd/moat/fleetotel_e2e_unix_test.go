//go:build linux || darwin

package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	commonv1 "go.opentelemetry.io/proto/otlp/common/v1"
	logsv1 "go.opentelemetry.io/proto/otlp/logs/v1"
	metricsv1 "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/protobuf/proto"

	"github.com/moatdev/moat/internal/testbin"
)

// fleetHookCalls are hook events of two agents, with the decision the recommended
// policy records for each.
var fleetHookCalls = []struct {
	agent, payload, decision string
}{
	{"claude-code", `{"session_id":"s1","cwd":"$PROJECT","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"go test ./..."}}`, "allow"},
	{"claude-code", `{"session_id":"s1","cwd":"$PROJECT","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf ~"}}`, "deny"},
	{"claude-code", `{"session_id":"s1","cwd":"$PROJECT","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"$HOME/.ssh/id_rsa"}}`, "ask"},
	{"codex", `{"session_id":"thr_1","turn_id":"t1","cwd":"$PROJECT","model":"gpt-5","permission_mode":"default","tool_use_id":"call_1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf ~"}}`, "deny"},
}

// hookThroughDaemon answers each of fleetHookCalls through the built moat-hook, which
// the running daemon of e serves, and returns the decisions counted by verdict.
func (e daemonEnv) hookThroughDaemon(t *testing.T) map[string]int {
	t.Helper()
	project := filepath.Join(e.home, "project")
	if err := os.MkdirAll(project, 0o700); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	for _, c := range fleetHookCalls {
		payload := strings.NewReplacer("$PROJECT", project, "$HOME", e.home).Replace(c.payload)
		cmd := exec.Command(moatHook.Path(t), c.agent)
		cmd.Env, cmd.Dir = e.env, project
		testbin.Run(t, cmd, strings.NewReader(payload))
		want[c.decision]++
	}
	return want
}

// requireTool returns the path of an external program a test needs: a test without it
// is skipped, and fails under CI, whose .ci/run installs it.
func requireTool(t *testing.T, env, name string) string {
	t.Helper()
	path := os.Getenv(env)
	if path == "" && env == "" {
		path, _ = exec.LookPath(name)
	}
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed (.ci/run installs it)", name)
		}
		t.Skipf("%s is not installed", name)
	}
	return path
}

// loopbackPort is a TCP port free on 127.0.0.1 when it returns.
func loopbackPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startServer runs a server program until the test ends, and waits until addr accepts
// connections.
func startServer(t *testing.T, name, addr string, cmd *exec.Cmd) *syncWriter {
	t.Helper()
	out := &syncWriter{w: &bytes.Buffer{}}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return out
		}
		select {
		case <-done:
			t.Fatalf("%s ended: %v; its output:\n%s", name, cmd.ProcessState, out.String())
		default:
		}
	}
	t.Fatalf("%s did not listen on %s; its output:\n%s", name, addr, out.String())
	return nil
}

// otlpSink is the test's own OTLP/HTTP server, where the collector forwards what it
// received.
type otlpSink struct {
	mu      sync.Mutex
	logs    []*logsv1.ResourceLogs
	metrics []*metricsv1.ResourceMetrics
}

func (s *otlpSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	data, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.URL.Path {
	case "/v1/logs":
		var m logsv1.LogsData
		if err := proto.Unmarshal(data, &m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.logs = append(s.logs, m.ResourceLogs...)
	case "/v1/metrics":
		var m metricsv1.MetricsData
		if err := proto.Unmarshal(data, &m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.metrics = append(s.metrics, m.ResourceMetrics...)
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
}

func otlpAttrs(kvs []*commonv1.KeyValue) map[string]string {
	out := map[string]string{}
	for _, kv := range kvs {
		switch v := kv.GetValue().GetValue().(type) {
		case *commonv1.AnyValue_StringValue:
			out[kv.GetKey()] = v.StringValue
		case *commonv1.AnyValue_IntValue:
			out[kv.GetKey()] = strconv.FormatInt(v.IntValue, 10)
		case *commonv1.AnyValue_BoolValue:
			out[kv.GetKey()] = strconv.FormatBool(v.BoolValue)
		}
	}
	return out
}

// decisionsSeen are the log records received, counted by agent and decision
// ("claude-code/deny"), and the newest figures of the metrics: decisions by agent and
// decision, and the latency histogram's count by agent.
func (s *otlpSink) decisionsSeen(t *testing.T, hostID string) (logs, counters map[string]int, latency map[string]uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	logs, counters, latency = map[string]int{}, map[string]int{}, map[string]uint64{}
	for _, rl := range s.logs {
		res := otlpAttrs(rl.GetResource().GetAttributes())
		for k, v := range map[string]string{"service.name": "moat", "host.name": "e2e-box", "host.id": hostID} {
			if res[k] != v {
				t.Errorf("log resource %s = %q, want %q (%v)", k, res[k], v, res)
			}
		}
		if res["user.name"] == "" || res["service.version"] == "" {
			t.Errorf("log resource without user.name or service.version: %v", res)
		}
		for _, sl := range rl.ScopeLogs {
			for _, lr := range sl.LogRecords {
				at := otlpAttrs(lr.Attributes)
				if at["moat.agent"] != res["moat.agent"] {
					t.Errorf("a record of %q under the resource of %q", at["moat.agent"], res["moat.agent"])
				}
				if at["moat.seq"] == "" || lr.SeverityText == "" || lr.GetBody().GetStringValue() == "" {
					t.Errorf("record without seq, severity or body: %v", lr)
				}
				logs[res["moat.agent"]+"/"+at["moat.decision"]]++
			}
		}
	}
	for _, rm := range s.metrics { // cumulative: the newest export of each series wins
		res := otlpAttrs(rm.GetResource().GetAttributes())
		agent := res["moat.agent"]
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				switch m.Name {
				case "moat.decisions":
					for _, p := range m.GetSum().DataPoints {
						counters[agent+"/"+otlpAttrs(p.Attributes)["moat.decision"]+"/"+otlpAttrs(p.Attributes)["moat.class"]] = int(p.GetAsInt())
					}
				case "moat.decision.duration":
					var n uint64
					for _, p := range m.GetHistogram().DataPoints {
						n += p.Count
					}
					latency[agent] = n
				}
			}
		}
	}
	byDecision := map[string]int{}
	for k, n := range counters {
		parts := strings.Split(k, "/")
		byDecision[parts[0]+"/"+parts[1]] += n
	}
	return logs, byDecision, latency
}

// The daemon exports its decisions to a real OpenTelemetry Collector (built by
// .ci/otelcol.sh): the collector receives them over OTLP/HTTP and forwards them to the
// test's server, which finds one log record per hook call, under a resource per agent
// that names the machine, and the decision counters and latency histogram.
func TestOTLPExportToCollector(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the daemon and an OpenTelemetry Collector")
	}
	otelcol := requireTool(t, "MOAT_TEST_OTELCOL", "otelcol-moat")
	sink := &otlpSink{}
	srv := httptest.NewServer(sink)
	defer srv.Close()

	receiver := fmt.Sprintf("127.0.0.1:%d", loopbackPort(t))
	dir := t.TempDir()
	config := filepath.Join(dir, "otelcol.yaml")
	if err := os.WriteFile(config, []byte(`receivers:
  otlp:
    protocols:
      http:
        endpoint: `+receiver+`
exporters:
  otlphttp:
    endpoint: `+srv.URL+`
    encoding: proto
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    logs:
      receivers: [otlp]
      exporters: [otlphttp]
    metrics:
      receivers: [otlp]
      exporters: [otlphttp]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	colLog := startServer(t, "the collector", receiver, exec.Command(otelcol, "--config", "file:"+config))

	e := newDaemonEnv(t)
	fleetDir := filepath.Join(e.home, ".config", "moat")
	if err := os.MkdirAll(fleetDir, 0o700); err != nil {
		t.Fatal(err)
	}
	fleetYAML := "machine: e2e-box\notlp:\n  endpoint: http://" + receiver + "\n  headers:\n    X-Moat-Canary: not-a-secret-canary\n  interval: 1s\n"
	if err := os.WriteFile(filepath.Join(fleetDir, "fleet.yaml"), []byte(fleetYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	daemon, log := e.startDaemonArgs(t)
	want := e.hookThroughDaemon(t)

	// host.id is the installation's fleet id (fleet.MachineID), kept in its state.
	id, err := os.ReadFile(filepath.Join(e.home, ".local", "state", "moat", "machine-id"))
	hostID := strings.TrimSpace(string(id))
	if err != nil || !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(hostID) {
		t.Fatalf("the machine id: %q, %v", id, err)
	}
	wantLogs := map[string]int{}
	for _, c := range fleetHookCalls {
		wantLogs[c.agent+"/"+c.decision]++
	}
	var logs, counters map[string]int
	var latency map[string]uint64
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		logs, counters, latency = sink.decisionsSeen(t, hostID)
		if fmt.Sprint(logs) == fmt.Sprint(wantLogs) && fmt.Sprint(counters) == fmt.Sprint(wantLogs) && latency["claude-code"] == 3 && latency["codex"] == 1 {
			break
		}
	}
	if fmt.Sprint(logs) != fmt.Sprint(wantLogs) {
		t.Errorf("log records through the collector %v, want %v", logs, wantLogs)
	}
	if fmt.Sprint(counters) != fmt.Sprint(wantLogs) {
		t.Errorf("decision counters through the collector %v, want %v", counters, wantLogs)
	}
	if latency["claude-code"] != 3 || latency["codex"] != 1 {
		t.Errorf("latency histogram counts %v, want claude-code 3, codex 1", latency)
	}
	if t.Failed() {
		t.Logf("decisions made: %v; the collector's log:\n%s\nthe daemon's log:\n%s", want, colLog.String(), log.String())
	}

	st := e.sinkStatus(t)
	if st.Sinks == nil || len(st.Sinks.Audit) != 1 || st.Sinks.Audit[0].OTLP == nil {
		t.Fatalf("status has no otlp export: %+v", st.Sinks)
	}
	ox := st.Sinks.Audit[0].OTLP
	if ox.Endpoint != "http://"+receiver || ox.Exported != uint64(len(fleetHookCalls)) || ox.Dropped != 0 || ox.Failing {
		t.Errorf("status: %+v", ox)
	}
	out, _ := e.moatCmd(t, "daemon", "status")
	raw, _ := e.moatCmd(t, "daemon", "status", "--json")
	if !strings.Contains(out, "otlp       http://"+receiver) {
		t.Errorf("status does not show the export:\n%s", out)
	}
	if strings.Contains(out+raw+log.String(), "not-a-secret-canary") {
		t.Errorf("a header's value is shown by status or the daemon's log")
	}
	stopDaemon(t, daemon, log)
}

// Prometheus itself (Debian's) scrapes the daemon's metrics and, queried through its
// API, counts by verdict the decisions the hook calls made.
func TestPrometheusScrapesDaemon(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the daemon and Prometheus")
	}
	prometheus := requireTool(t, "", "prometheus")
	e := newDaemonEnv(t)
	daemon, log := e.startDaemonArgs(t, "--metrics", "127.0.0.1:0")
	defer stopDaemon(t, daemon, log)
	want := e.hookThroughDaemon(t)
	target := e.sinkStatus(t).Sinks.Metrics

	dir := t.TempDir()
	config := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(config, []byte(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: moat
    static_configs:
      - targets: ["`+target+`"]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	web := fmt.Sprintf("127.0.0.1:%d", loopbackPort(t))
	promLog := startServer(t, "prometheus", web, exec.Command(prometheus, "--config.file="+config,
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+web))

	query := "http://" + web + "/api/v1/query?query=" + url.QueryEscape(`sum by (verdict) (moat_decisions_total{job="moat"})`)
	var got map[string]int
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		got = promQuery(t, query)
		if fmt.Sprint(got) == fmt.Sprint(want) {
			return
		}
	}
	t.Errorf("Prometheus counts %v by verdict, want %v; its log:\n%s", got, want, promLog.String())
}

// promQuery runs an instant query whose series are labelled by verdict.
func promQuery(t *testing.T, query string) map[string]int {
	t.Helper()
	resp, err := http.Get(query)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
		Data   struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
				Value  [2]any            `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || body.Status != "success" {
		return nil
	}
	out := map[string]int{}
	for _, r := range body.Data.Result {
		s, _ := r.Value[1].(string)
		n, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("query value %v", r.Value)
		}
		out[r.Metric["verdict"]] = int(n)
	}
	return out
}
