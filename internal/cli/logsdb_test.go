package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/audit/auditdb"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/logview"
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

// mirrorDB imports the JSONL log at logPath into the audit database of the user whose
// home is home, as the daemon does.
func mirrorDB(t *testing.T, home, logPath string) {
	t.Helper()
	db, err := auditdb.Open(context.Background(), auditdb.Options{
		Path: auditdb.Path(filepath.Join(home, ".local/state/moat")), Redactor: scan.Redactor{},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tail := audit.NewTail(logPath)
	defer tail.Close()
	var lines [][]byte
	if err := tail.Next(func(line []byte, _ audit.Record) error {
		lines = append(lines, bytes.Clone(line))
		return nil
	}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Import(context.Background(), lines); err != nil {
		t.Fatal(err)
	}
}

// logs reads the database only once it has caught up with the JSONL log: records that a
// process wrote to the log while no daemon ran (a fallback hook) are shown either way,
// from the log until the daemon has imported them, then from the database.
func TestLogsDatabaseCaughtUp(t *testing.T) {
	home := t.TempDir()
	logPath := filepath.Join(home, ".local/state/moat/audit.jsonl")
	rs := dbSampleRecords()
	l := writeLog(t, logPath, rs[:4], 0)
	mirrorDB(t, home, logPath)
	ctx := context.Background()
	state := filepath.Join(home, ".local/state/moat")
	reads := func() string {
		t.Helper()
		a, _, _ := testApp(home)
		db, err := a.dbStoreFor(ctx, state, logPath, logview.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		if db == nil {
			return "log"
		}
		db.close()
		return "database"
	}
	logs := func(args ...string) string {
		t.Helper()
		a, stdout, stderr := testApp(home)
		if code := Main(append([]string{"logs"}, args...), a.env); code != 0 {
			t.Fatalf("logs %v: exit %d: %s", args, code, stderr)
		}
		return stdout.String() + stderr.String()
	}
	if got := reads(); got != "database" {
		t.Fatalf("a database that imported the whole log: logs reads the %s", got)
	}
	before := logs("--json")

	// A hook without the daemon appends to the log alone.
	for _, r := range rs[4:] {
		if err := l.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if got := reads(); got != "log" {
		t.Fatalf("a database behind the log: logs reads the %s", got)
	}
	behind := logs("--json")
	if n := strings.Count(behind, "\n") - strings.Count(before, "\n"); n != len(rs)-4 {
		t.Fatalf("logs shows %d more records after the fallback writes, want %d", n, len(rs)-4)
	}

	mirrorDB(t, home, logPath) // the daemon, started again, imports them
	if got := reads(); got != "database" {
		t.Fatalf("a database that caught up again: logs reads the %s", got)
	}
	if got := logs("--json"); got != behind {
		t.Errorf("logs --json from the database that caught up:\n%s\nfrom the log:\n%s", got, behind)
	}
	for _, args := range [][]string{nil, {"--summary"}, {"--last", "2", "--decision", "deny"}, {"--tool", "shell", "--json"}} {
		// --file reads that log alone, never the database.
		if got, want := logs(args...), logs(append([]string{"--file", logPath}, args...)...); got != want {
			t.Errorf("logs %v from the database:\n%s\nfrom the log:\n%s", args, got, want)
		}
	}
}
