//go:build linux || darwin

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/daemon"
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/testbin"
)

// startDaemonArgs runs `moat daemon run ARGS…` and waits until its socket answers.
func (e daemonEnv) startDaemonArgs(t *testing.T, args ...string) (*exec.Cmd, *syncWriter) {
	t.Helper()
	return e.runDaemon(t, moatBinary(t), args...)
}

// stopDaemon ends the daemon as systemd would, and waits for it.
func stopDaemon(t *testing.T, cmd *exec.Cmd, log *syncWriter) {
	t.Helper()
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("daemon: %v; its log:\n%s", err, log.String())
	}
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.String()
}

// sinkStatus is the daemon's status, sinks included.
func (e daemonEnv) sinkStatus(t *testing.T) daemon.Status {
	t.Helper()
	out, code := e.moatCmd(t, "daemon", "status", "--json")
	if code != 0 {
		t.Fatalf("status: exit %d: %s", code, out)
	}
	var st daemon.Status
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("status %s: %v", out, err)
	}
	return st
}

// waitCaughtUp waits until the daemon's database holds rows records and the log's newest.
func (e daemonEnv) waitCaughtUp(t *testing.T, rows int) daemon.AuditStatus {
	t.Helper()
	var au daemon.AuditStatus
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		st := e.sinkStatus(t)
		if st.Sinks != nil && len(st.Sinks.Audit) == 1 {
			au = st.Sinks.Audit[0]
			if au.CaughtUp && au.Rows == int64(rows) {
				return au
			}
		}
	}
	t.Fatalf("the database did not catch up with %d records: %+v", rows, au)
	return au
}

// logLines are the lines of the JSONL audit log, oldest first.
func logLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// sameLogs checks that moat logs shows the same from the database and from the log
// (--file reads the log alone), and returns what it showed.
func (e daemonEnv) sameLogs(t *testing.T, logPath string) string {
	t.Helper()
	var last string
	for _, args := range [][]string{{"--json"}, {"--summary"}, {"--decision", "deny", "--last", "3"}} {
		got, code := e.moatCmd(t, append([]string{"logs"}, args...)...)
		want, wcode := e.moatCmd(t, append([]string{"logs", "--file", logPath}, args...)...)
		if code != 0 || code != wcode || got != want {
			t.Errorf("logs %v (exit %d):\n%s\nfrom the log alone (exit %d):\n%s", args, code, got, wcode, want)
		}
		if args[0] == "--json" {
			last = got
		}
	}
	return last
}

// The daemon's sinks end to end: decisions land in the JSONL log and in the database
// with the same lines; metrics over real loopback HTTP count them; a deny is notified;
// records a process wrote to the log while the daemon was stopped are in the database
// once it runs again, and moat logs shows the same from either store all along.
func TestDaemonSinks(t *testing.T) {
	e := newDaemonEnv(t)
	// A fake notify-send that keeps its arguments: the notifier's canary.
	bin := t.TempDir()
	notified := filepath.Join(t.TempDir(), "notified")
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" >> " + notified + "\n"
	if err := os.WriteFile(filepath.Join(bin, "notify-send"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, kv := range e.env {
		if strings.HasPrefix(kv, "PATH=") {
			e.env[i] = "PATH=" + bin + ":" + strings.TrimPrefix(kv, "PATH=")
		}
	}
	logPath := filepath.Join(e.home, ".local", "state", "moat", "audit.jsonl")
	dbPath := filepath.Join(e.home, ".local", "state", "moat", "audit.db")

	cmd, log := e.startDaemonArgs(t, "--metrics", "127.0.0.1:0", "--notify")
	exe := moatBinary(t)
	ctx := context.Background()
	calls := benchCalls(t)[45:85] // with denies (rm -rf ~)
	decideAll := func(svc decide.Service) map[call.Verdict]int {
		t.Helper()
		pol, err := svc.Lookup(ctx, decide.Scope{Cwd: calls[0].Cwd})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[call.Verdict]int{}
		for _, c := range calls {
			res, err := svc.Decide(ctx, decide.CallRequest{Policy: pol.Key, Event: "PreToolUse", Calls: []call.Call{c}, Record: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.NotRecorded) > 0 {
				t.Fatalf("not recorded: %v", res.NotRecorded[0])
			}
			seen[res.Decision.Verdict]++
		}
		return seen
	}
	remote := decide.NewRemote(decide.DialUnix(e.socket()))
	seen := decideAll(remote)
	remote.Close()
	if seen[call.Deny]+seen[call.Ask] == 0 {
		t.Fatalf("the corpus gave no ask or deny to notify: %v", seen)
	}

	au := e.waitCaughtUp(t, len(calls))
	if au.Log != logPath || au.DB != dbPath {
		t.Errorf("status names the log %s and the database %s; want %s, %s", au.Log, au.DB, logPath, dbPath)
	}
	if got := logLines(t, logPath); len(got) != len(calls) {
		t.Fatalf("the log holds %d records, want %d", len(got), len(calls))
	}
	shown := e.sameLogs(t, logPath)
	if n := strings.Count(shown, "\n"); n != len(calls) {
		t.Errorf("logs shows %d records, want %d", n, len(calls))
	}
	if out, _ := e.moatCmd(t, "daemon", "status"); !strings.Contains(out, "audit db") || !strings.Contains(out, "metrics    http://127.0.0.1:") {
		t.Errorf("status does not show the sinks:\n%s", out)
	}

	// Metrics, scraped over loopback as Prometheus would.
	st := e.sinkStatus(t)
	resp, err := http.Get("http://" + st.Sinks.Metrics + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body := new(bytes.Buffer)
	body.ReadFrom(resp.Body)
	resp.Body.Close()
	metrics := body.String()
	for _, want := range []string{
		`moat_decisions_total{agent="claude-code",class="shell",rule=`,
		`verdict="deny"}`,
		`moat_daemon_request_seconds_count{method="decide",outcome="ok"} 40`,
		`moat_decision_latency_seconds_bucket{class="shell"`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("the metrics lack %s", want)
		}
	}
	if !strings.Contains(metrics, "moat_decisions_total") || sumSeries(metrics, "moat_decisions_total") != float64(len(calls)) {
		t.Errorf("moat_decisions_total sums to %v, want %d", sumSeries(metrics, "moat_decisions_total"), len(calls))
	}

	// The notification, from the fake notify-send on the daemon's PATH.
	var note []byte
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && len(note) == 0; time.Sleep(20 * time.Millisecond) {
		note, _ = os.ReadFile(notified)
	}
	// The first ask or deny is shown; those within the rate limit after it are counted.
	if !bytes.Contains(note, []byte("moat denied a call")) && !bytes.Contains(note, []byte("moat asks about a call")) {
		t.Errorf("notify-send was run with %q; want an ask's or a deny's notification", note)
	}

	// The daemon stops; a process without it (a fallback hook) records to the log.
	stopDaemon(t, cmd, log)
	local := decide.NewLocal(decide.Options{Getenv: e.getenv, Now: time.Now, Executable: func() (string, error) { return exe, nil }})
	decideAll(local)
	all := e.sameLogs(t, logPath)
	if n := strings.Count(all, "\n"); n != 2*len(calls) {
		t.Errorf("logs shows %d records with the fallback's, want %d", n, 2*len(calls))
	}

	// Started again, the daemon imports them.
	cmd, log = e.startDaemonArgs(t)
	e.waitCaughtUp(t, 2*len(calls))
	if got := e.sameLogs(t, logPath); got != all {
		t.Errorf("logs from the database after the import differs from before:\n%s\nbefore:\n%s", got, all)
	}
	stopDaemon(t, cmd, log)
	if out, code := e.moatCmd(t, "logs", "--verify"); code != 0 {
		t.Errorf("logs --verify: exit %d: %s", code, out)
	}
}

// sumSeries sums the samples of the metric name in a text exposition.
func sumSeries(exposition, name string) float64 {
	var sum float64
	sc := bufio.NewScanner(strings.NewReader(exposition))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		var v float64
		if i := strings.LastIndexByte(line, ' '); i > 0 {
			if err := json.Unmarshal([]byte(line[i+1:]), &v); err == nil {
				sum += v
			}
		}
	}
	return sum
}

// A database the daemon cannot open is reported, and decisions are recorded in the JSONL
// log all the same, never reported as not recorded.
func TestDaemonFailingDatabase(t *testing.T) {
	e := newDaemonEnv(t)
	state := filepath.Join(e.home, ".local", "state", "moat")
	// A directory where the database should be: Open refuses it.
	if err := os.MkdirAll(filepath.Join(state, "audit.db"), 0o700); err != nil {
		t.Fatal(err)
	}
	cmd, log := e.startDaemonArgs(t)
	remote := decide.NewRemote(decide.DialUnix(e.socket()))
	defer remote.Close()
	ctx := context.Background()
	calls := benchCalls(t)[:5]
	pol, err := remote.Lookup(ctx, decide.Scope{Cwd: calls[0].Cwd})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		res, err := remote.Decide(ctx, decide.CallRequest{Policy: pol.Key, Event: "PreToolUse", Calls: []call.Call{c}, Record: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.NotRecorded) > 0 {
			t.Errorf("a record the JSONL log took is reported as not recorded: %v", res.NotRecorded[0])
		}
	}
	var au daemon.AuditStatus
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && au.Error == ""; time.Sleep(20 * time.Millisecond) {
		if st := e.sinkStatus(t); st.Sinks != nil && len(st.Sinks.Audit) == 1 {
			au = st.Sinks.Audit[0]
		}
	}
	if !strings.Contains(au.Error, "audit.db") {
		t.Errorf("status reports the database's failure as %q", au.Error)
	}
	stopDaemon(t, cmd, log)
	if !strings.Contains(log.String(), "warning: audit database:") {
		t.Errorf("the daemon's log does not report the database:\n%s", log.String())
	}
	var n int
	if err := audit.Read(filepath.Join(state, "audit.jsonl"), func(audit.Record) error { n++; return nil }); err != nil || n != len(calls) {
		t.Errorf("the JSONL log holds %d records (%v), want %d", n, err, len(calls))
	}
	// logs reads the log, the only store.
	if out, code := e.moatCmd(t, "logs", "--json"); code != 0 || strings.Count(out, "\n") < len(calls) {
		t.Errorf("logs: exit %d:\n%s", code, out)
	}
}

// TestDaemonHookRoundTrip: a hook answered through the real moat-hook and daemon is
// counted in the round-trip histogram, as the daemon's metrics serve it.
func TestDaemonHookRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("builds moat and moat-hook and runs the daemon")
	}
	client := moatHook.Path(t)
	e := newDaemonEnv(t)
	cmd, log := e.startDaemonArgs(t, "--metrics", "127.0.0.1:0")
	defer stopDaemon(t, cmd, log)
	project := t.TempDir()
	event := `{"session_id":"s1","transcript_path":"/dev/null","cwd":"` + project + `","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`
	hook := exec.Command(client, "claude-code")
	hook.Dir, hook.Env = project, e.env
	if r := testbin.Run(t, hook, strings.NewReader(event)); r.Code != 0 {
		t.Fatalf("moat-hook: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	want := `moat_hook_round_trip_seconds_count{agent="claude-code",path="daemon"} 1`
	var metrics string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && !strings.Contains(metrics, want); time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get("http://" + e.sinkStatus(t).Sinks.Metrics + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body := new(bytes.Buffer)
		body.ReadFrom(resp.Body)
		resp.Body.Close()
		metrics = body.String()
	}
	if !strings.Contains(metrics, want) {
		t.Errorf("the metrics lack %s:\n%s\ndaemon log:\n%s", want, grepLines(metrics, "moat_hook_round_trip"), log)
	}
}

// grepLines is the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for line := range strings.SplitSeq(s, "\n") {
		if strings.Contains(line, sub) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
