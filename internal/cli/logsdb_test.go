package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/audit/auditdb"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/scan"
)

// writeDB stores rs in the audit database of the user whose home is home.
func writeDB(t *testing.T, home string, rs []audit.Record) *auditdb.DB {
	t.Helper()
	db, err := auditdb.Open(context.Background(), auditdb.Options{
		Path: auditdb.Path(filepath.Join(home, ".local/state/moat")), Redactor: scan.Redactor{},
		Now: func() time.Time { return logsNow },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, r := range rs {
		if err := db.Append(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// dbSampleRecords are sampleRecords and a few that exercise the rest of the record: a
// failure, an MCP name, findings, a secret to redact, a deferred answer.
func dbSampleRecords() []audit.Record {
	rs := sampleRecords()
	rs = append(rs,
		audit.Record{Time: logsNow.Add(-90 * time.Minute), Agent: "windsurf", Session: "s5", Event: "pre_mcp_tool_use",
			Class: "mcp", Tool: "pre_mcp_tool_use", MCP: "mcp:github/create_issue", Args: map[string]any{"title": "x"},
			Decision: call.Ask, Rule: "ask-mcp-write", Reason: "writes", Answer: "deny", LatencyMS: 1.25, Policy: "/home/u/p/moat.yaml",
			Findings: []call.Finding{{ID: "injection.ignore-previous", Category: "prompt-injection", Severity: call.High, Evidence: "in title"}}},
		audit.Record{Time: logsNow.Add(-80 * time.Minute), Agent: "claude-code", Session: "s1", Event: "pre_tool_use",
			Class: "shell", Tool: "Bash", Args: map[string]any{"command": `psql "postgres://app:hunter2canary@db/orders"`},
			Decision: call.Deny, Failure: true, Rule: "fail-closed", Reason: "policy did not load", Policy: "/home/u/p/moat.yaml"},
		audit.Record{Time: logsNow.Add(-70 * time.Minute), Agent: "gemini-cli", Session: "s3", Event: "BeforeTool",
			Class: "file.write", Tool: "write_file", Args: map[string]any{"path": "/home/u/p/a.go", "content": "package a"},
			Decision: call.Allow, Answer: "defer", LatencyMS: 0.1, Policy: "embedded:recommended"},
	)
	return rs
}

// moat logs shows the same output, with every filter, whether it reads the JSONL log or
// the daemon's database holding the same records.
func TestLogsDatabaseSameOutput(t *testing.T) {
	jsonlHome, dbHome := t.TempDir(), t.TempDir()
	rs := dbSampleRecords()
	writeLog(t, filepath.Join(jsonlHome, ".local/state/moat/audit.jsonl"), rs, 0)
	writeDB(t, dbHome, rs)
	for _, args := range [][]string{
		nil,
		{"--json"},
		{"--since", "6h"},
		{"--since", "2d", "--json"},
		{"--decision", "deny,ask"},
		{"--decision", "deny", "--json"},
		{"--agent", "codex"},
		{"--tool", "shell"},
		{"--tool", "BASH,read_file", "--json"},
		{"--tool", "mcp:GitHub/create_issue"},
		{"--session", "s2"},
		{"--failures"},
		{"--failures", "--json"},
		{"--agent", "codex", "--decision", "deny", "--since", "2h"},
		{"--agent", "codex", "--decision", "allow"},
		{"--last", "2"},
		{"--last", "3", "--json", "--decision", "deny"},
		{"--summary"},
		{"--summary", "--json", "--agent", "claude-code"},
	} {
		var outs, errs [2]string
		for i, home := range []string{jsonlHome, dbHome} {
			a, stdout, stderr := testApp(home)
			if code := Main(append([]string{"logs"}, args...), a.env); code != 0 {
				t.Fatalf("logs %v (home %d): exit %d: %s", args, i, code, stderr)
			}
			outs[i], errs[i] = stdout.String(), stderr.String()
		}
		if outs[0] != outs[1] || errs[0] != errs[1] {
			t.Errorf("logs %v differs between the JSONL log and the database:\n--- JSONL\n%s%s--- database\n%s%s", args, outs[0], errs[0], outs[1], errs[1])
		}
		if strings.Contains(outs[1], "hunter2canary") {
			t.Errorf("logs %v shows an unredacted secret", args)
		}
	}
}

// With a database, --verify checks its chain, and says when it is broken.
func TestLogsVerifyDatabase(t *testing.T) {
	home := t.TempDir()
	writeDB(t, home, dbSampleRecords())
	a, stdout, stderr := testApp(home)
	if code := Main([]string{"logs", "--verify", "--json"}, a.env); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep dbVerifyReport
	if err := json.Unmarshal([]byte(stdout.String()), &rep); err != nil || !rep.OK || rep.Records != len(dbSampleRecords()) {
		t.Errorf("report %+v, %v; want ok over %d records", rep, err, len(dbSampleRecords()))
	}
}

// --follow on the database prints the history, then records as they are stored.
func TestLogsFollowDatabase(t *testing.T) {
	home := t.TempDir()
	rs := dbSampleRecords()
	db := writeDB(t, home, rs[:2])
	a, stdout, stderr := testApp(home)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- a.logs(ctx, logsOptions{follow: true, json: true, poll: 5 * time.Millisecond})
	}()
	waitFor := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if strings.Count(stdout.String(), "\n") >= n {
				return
			}
		}
		t.Fatalf("%d records printed, want %d; stderr: %s", strings.Count(stdout.String(), "\n"), n, stderr)
	}
	waitFor(2)
	for _, r := range rs[2:5] {
		if err := db.Append(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(5)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := decodeRecords(t, stdout.String())
	for i, r := range got {
		if r.Rule != rs[i].Rule || r.Seq != uint64(i+1) {
			t.Errorf("record %d: rule %q seq %d, want %q %d", i, r.Rule, r.Seq, rs[i].Rule, i+1)
		}
	}
}
