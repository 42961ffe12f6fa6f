package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/scan"
)

// logRecords are decisions an hour apart, ending a minute ago, oldest first.
func logRecords(n int) []audit.Record {
	agents := []string{"claude-code", "codex", "cursor"}
	verdicts := []call.Verdict{call.Allow, call.Deny, call.Ask, call.Audit}
	end := time.Now().Add(-time.Minute).UTC()
	var out []audit.Record
	for i := range n {
		v := verdicts[i%len(verdicts)]
		out = append(out, audit.Record{
			Time:  end.Add(-time.Duration(n-1-i) * time.Hour),
			Agent: agents[i%len(agents)], Session: "s" + string(rune('a'+i%2)), Event: "pre_tool_use",
			Class: "shell", Tool: []string{"Bash", "shell", "Shell"}[i%3],
			Args: map[string]any{"command": "echo " + strings.Repeat("x", i), "n": json.Number("1")},
			Cwd:  "/home/u/p", Decision: v, Rule: v.String() + "-rule", Reason: "because " + v.String(),
			Policy: "embedded:recommended",
		})
	}
	return out
}

func openAuditLog(t *testing.T, path string, maxBytes int64) *audit.Log {
	t.Helper()
	l, err := audit.Open(audit.Options{Path: path, Redactor: scan.Redactor{}, MaxBytes: maxBytes, Keep: 50})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func appendRecords(t *testing.T, l *audit.Log, rs []audit.Record) {
	t.Helper()
	for _, r := range rs {
		if err := l.Append(r); err != nil {
			t.Fatal(err)
		}
	}
}

func decodeJSONRecords(t *testing.T, s string) []audit.Record {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var out []audit.Record
	for {
		var r audit.Record
		err := dec.Decode(&r)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("decoding moat logs --json: %v", err)
		}
		out = append(out, r)
	}
}

// TestLogsFiltersAndJSON runs moat logs --json with each filter over a generated log
// (rotated into several files) and checks that the records it prints decode into exactly
// the records of the log that pass the filter.
func TestLogsFiltersAndJSON(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".local/state/moat/audit.jsonl")
	recs := logRecords(48)
	appendRecords(t, openAuditLog(t, path, 4096), recs)
	var all []audit.Record
	if err := audit.Read(path, func(r audit.Record) error { all = append(all, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(all) != len(recs) {
		t.Fatalf("the log holds %d records, want %d", len(all), len(recs))
	}
	cutoff := time.Now().Add(-10*time.Hour - 30*time.Minute)
	tests := []struct {
		args []string
		keep func(audit.Record) bool
	}{
		{nil, func(audit.Record) bool { return true }},
		{[]string{"--since", "10h30m"}, func(r audit.Record) bool { return r.Time.After(cutoff) }},
		{[]string{"--since", "1d"}, func(r audit.Record) bool { return r.Time.After(time.Now().Add(-24 * time.Hour)) }},
		{[]string{"--decision", "deny,ask"}, func(r audit.Record) bool { return r.Decision == call.Deny || r.Decision == call.Ask }},
		{[]string{"--decision", "audit", "--decision", "allow"}, func(r audit.Record) bool { return r.Decision.Permissive() }},
		{[]string{"--agent", "codex"}, func(r audit.Record) bool { return r.Agent == "codex" }},
		{[]string{"--tool", "bash"}, func(r audit.Record) bool { return r.Tool == "Bash" }},
		{[]string{"--tool", "shell"}, func(r audit.Record) bool { return true }}, // the class
		{[]string{"--session", "sb"}, func(r audit.Record) bool { return r.Session == "sb" }},
		{[]string{"--agent", "cursor,claude-code", "--decision", "deny", "--session", "sb", "--since", "2d"}, func(r audit.Record) bool {
			return (r.Agent == "cursor" || r.Agent == "claude-code") && r.Decision == call.Deny && r.Session == "sb"
		}},
	}
	for _, tt := range tests {
		args := append([]string{"logs", "--json"}, tt.args...)
		out, stderr, code := inHome(t, home, "/usr/bin:/bin", home, args...)
		if code != 0 {
			t.Errorf("moat %v: exit %d: %s", args, code, stderr)
			continue
		}
		var want []audit.Record
		for _, r := range all {
			if tt.keep(r) {
				want = append(want, r)
			}
		}
		got := decodeJSONRecords(t, out)
		if len(want) == 0 || !reflect.DeepEqual(got, want) {
			t.Errorf("moat %v: %d records, want %d (of %d)", args, len(got), len(want), len(all))
		}
	}

	// The table: a header and a row per record; reasons under the denials.
	out, _, code := inHome(t, home, "/usr/bin:/bin", home, "logs", "--decision", "deny", "--last", "3")
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if code != 0 || len(lines) != 7 || !strings.HasPrefix(lines[0], "#      TIME ") || !strings.Contains(lines[1], " deny ") || !strings.Contains(lines[2], "deny-rule: because deny") {
		t.Errorf("moat logs --decision deny --last 3: exit %d\n%s", code, out)
	}
	if strings.Contains(out, "\x1b[") {
		t.Errorf("colours in output that is not a terminal:\n%q", out)
	}

	out, _, code = inHome(t, home, "/usr/bin:/bin", home, "logs", "--summary")
	if code != 0 || !strings.Contains(out, "48 records from") || !regexp.MustCompile(`(?m)^deny-rule +12$`).MatchString(out) {
		t.Errorf("moat logs --summary: exit %d\n%s", code, out)
	}

	_, stderr, code := inHome(t, home, "/usr/bin:/bin", home, "logs", "--since", "last week")
	if code != 64 || !strings.Contains(stderr, `--since "last week" is neither a span`) {
		t.Errorf("a bad --since: exit %d: %s", code, stderr)
	}
}

// TestLogsFollowBinary runs moat logs --follow as a process while this test appends to
// the log through the audit package, with a file size that makes it rotate every few
// records, and stops it with SIGINT.
func TestLogsFollowBinary(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".local/state/moat/audit.jsonl")
	recs := logRecords(40)
	l := openAuditLog(t, path, 1500)
	appendRecords(t, l, recs[:4])

	cmd := exec.Command(moatBinary(t), "logs", "--follow", "--json", "--decision", "deny")
	cmd.Dir = home
	cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var got []string
	next := func() {
		t.Helper()
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("moat logs --follow ended early: %s", stderr.String())
			}
			got = append(got, line)
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("no record from moat logs --follow after %d: %s", len(got), stderr.String())
		}
	}
	next() // the one deny already written (records 1)
	appendRecords(t, l, recs[4:])
	for len(got) < 10 { // one deny in four records
		next()
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	for range lines {
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("moat logs --follow after SIGINT: %v: %s", err, stderr.String())
	}
	var want []audit.Record
	for _, r := range recs {
		if r.Decision == call.Deny {
			want = append(want, r)
		}
	}
	printed := decodeJSONRecords(t, strings.Join(got, "\n"))
	if len(printed) != len(want) {
		t.Fatalf("followed %d records, want %d", len(printed), len(want))
	}
	for i := range want {
		if !printed[i].Time.Equal(want[i].Time) || printed[i].Args["command"] != want[i].Args["command"] {
			t.Errorf("record %d: %+v, want %+v", i, printed[i], want[i])
		}
	}
	if rotated, _ := filepath.Glob(path + ".[0-9]*"); len(rotated) < 3 {
		t.Errorf("the log rotated into %d files; the test wants several rotations", len(rotated))
	}
}

// TestLogsSkipsMalformedLines: a line that holds no record (garbage, a finding without a
// severity, which once made --json exit 1 having printed nothing) is skipped and named on
// stderr with its file and line; every other record is printed, and logs exits 0.
func TestLogsSkipsMalformedLines(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".local/state/moat/audit.jsonl")
	recs := logRecords(3)
	appendRecords(t, openAuditLog(t, path, 0), recs[:2])
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("not a record\n")
	f.WriteString(`{"time":"2026-01-02T03:04:05Z","decision":"ask","class":"shell","tool":"Bash","latency_ms":0,"findings":[{}]}` + "\n")
	f.Close()
	appendRecords(t, openAuditLog(t, path, 0), recs[2:])
	for _, args := range [][]string{{"logs", "--json"}, {"logs"}} {
		out, stderr, code := inHome(t, home, "/usr/bin:/bin", home, args...)
		if code != 0 {
			t.Errorf("moat %v: exit %d: %s", args, code, stderr)
		}
		for _, want := range []string{path + ":3: invalid character", path + ":4: finding 1"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("moat %v: stderr lacks %q:\n%s", args, want, stderr)
			}
		}
		if len(args) > 1 {
			if got := decodeJSONRecords(t, out); len(got) != 3 {
				t.Errorf("moat logs --json printed %d records, want 3:\n%s", len(got), out)
			}
		} else if n := strings.Count(out, "echo "); n != 3 {
			t.Errorf("moat logs printed %d rows, want 3:\n%s", n, out)
		}
	}
}

// TestLogsVerify: --verify passes a log as moat wrote it, across rotations, and names,
// with exit 1, a record removed from it; --json gives the same report as an object.
func TestLogsVerify(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".local/state/moat/audit.jsonl")
	appendRecords(t, openAuditLog(t, path, 2048), logRecords(12))
	out, stderr, code := inHome(t, home, "/usr/bin:/bin", home, "logs", "--verify")
	if code != 0 || !strings.Contains(out, "the audit trail verifies: 12 records") || !strings.Contains(out, "chained from record 1 to 12 (the first record of the log)") {
		t.Fatalf("--verify on a log as written: exit %d\n%s%s", code, out, stderr)
	}

	data, err := os.ReadFile(path + ".1")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if err := os.WriteFile(path+".1", []byte(lines[0]+strings.Join(lines[2:], "")), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, code = inHome(t, home, "/usr/bin:/bin", home, "logs", "--verify")
	if code != 1 || !strings.Contains(out, path+".1:2: deleted: records") || !strings.Contains(out, "the audit trail is broken: 1 problem in") {
		t.Errorf("--verify with a record removed: exit %d\n%s", code, out)
	}
	out, _, code = inHome(t, home, "/usr/bin:/bin", home, "logs", "--verify", "--json")
	var rep struct {
		OK     bool `json:"ok"`
		Issues []struct {
			File, Kind string
			Line       int
		} `json:"issues"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 || rep.OK || len(rep.Issues) != 1 || rep.Issues[0].Kind != "deleted" || rep.Issues[0].File != path+".1" {
		t.Errorf("--verify --json: exit %d, %v: %+v\n%s", code, err, rep, out)
	}
	if _, stderr, code := inHome(t, home, "/usr/bin:/bin", home, "logs", "--verify", "--decision", "deny"); code != 64 || !strings.Contains(stderr, "no filter") {
		t.Errorf("--verify with a filter: exit %d, %s", code, stderr)
	}
}
