package auditdb

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/scan"
	"github.com/moatdev/moat/internal/testbin"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC)

// password is a canary secret: the redactor masks the password of a connection URL.
const password = "hunter2canary"

// record returns a varied, well-formed record numbered n, by writer w.
func record(w, n int) audit.Record {
	agents := []string{"claude-code", "cursor", "gemini-cli", "codex"}
	verdicts := []call.Verdict{call.Allow, call.Audit, call.Ask, call.Deny}
	r := audit.Record{
		Time:      t0.Add(time.Duration(n) * time.Second),
		Agent:     agents[n%len(agents)],
		Session:   "s" + strconv.Itoa(n%7),
		Event:     "pre_tool_use",
		Class:     "shell",
		Tool:      "Bash",
		Args:      map[string]any{"command": "ls -la", "writer": json.Number(strconv.Itoa(w)), "n": json.Number(strconv.Itoa(n))},
		Cwd:       "/home/u/project",
		Decision:  verdicts[n%len(verdicts)],
		Rule:      "rule-" + strconv.Itoa(n%5),
		Reason:    "because",
		LatencyMS: 0.25,
		Policy:    "embedded:recommended",
	}
	switch n % 6 {
	case 1:
		r.Class, r.Tool, r.Args = "file.read", "Read", map[string]any{"path": "/etc/passwd", "writer": json.Number(strconv.Itoa(w)), "n": json.Number(strconv.Itoa(n))}
	case 2:
		r.Class, r.Tool, r.MCP = "mcp", "mcp__github__create_issue", "mcp:github/create_issue"
		r.Findings = []call.Finding{{ID: "secret.url-password", Category: "secret", Severity: call.High, Evidence: "a password in a URL"}}
		r.Args["command"] = "psql postgres://app:" + password + "@db/orders"
	case 3:
		r.Failure, r.Rule, r.Decision = true, "fail-closed", call.Deny
	case 4:
		r.Tool = "run_shell_command"
		r.Answer = "defer"
	}
	return r
}

// key identifies a record of record(w, n).
func key(t testing.TB, r audit.Record) string {
	t.Helper()
	return fmt.Sprint(r.Args["writer"], "/", r.Args["n"])
}

func open(t testing.TB, path string, opts Options) *DB {
	t.Helper()
	opts.Path = path
	if opts.Redactor == nil {
		opts.Redactor = scan.Redactor{}
	}
	d, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func readAll(t testing.TB, d *DB) []audit.Record {
	t.Helper()
	var out []audit.Record
	if _, err := d.Read(context.Background(), Filter{}, 0, func(r audit.Record) error {
		out = append(out, r)
		return nil
	}); err != nil {
		t.Fatalf("Read: %v", err)
	}
	return out
}

// The database holds each record exactly as the JSONL log does: the same redaction, the
// same numbering and chain, the same record read back.
func TestSameRecordsAsJSONL(t *testing.T) {
	dir := t.TempDir()
	now := func() time.Time { return t0 }
	d := open(t, filepath.Join(dir, "state", FileName), Options{Now: now})
	l, err := audit.Open(audit.Options{Path: filepath.Join(dir, "audit.jsonl"), Redactor: scan.Redactor{}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var in []audit.Record
	for n := range 30 {
		r := record(0, n)
		if n == 5 {
			r.Time = time.Time{} // stamped by the clock
		}
		if n == 7 {
			for i := range 5 {
				r.Args["big"+strconv.Itoa(i)] = strings.Repeat("x", 7<<10) // summarised by the record cap
			}
		}
		in = append(in, r)
	}
	for _, r := range in {
		if err := d.Append(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		if err := l.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	var want []audit.Record
	if err := audit.Read(filepath.Join(dir, "audit.jsonl"), func(r audit.Record) error { want = append(want, r); return nil }); err != nil {
		t.Fatal(err)
	}
	got := readAll(t, d)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("records read back differ from the JSONL log's:\n got %+v\nwant %+v", got, want)
	}
	if got[7].Clipped == "" || got[5].Time != t0 || got[29].Seq != 30 {
		t.Errorf("cap, clock or numbering not applied: %+v / %+v / %d", got[7].Clipped, got[5].Time, got[29].Seq)
	}
	raw, err := os.ReadFile(d.path)
	if err != nil {
		t.Fatal(err)
	}
	wal, _ := os.ReadFile(d.path + "-wal")
	if strings.Contains(string(raw)+string(wal), password) {
		t.Errorf("the database holds the secret %q unredacted", password)
	}
	if !strings.Contains(fmt.Sprint(got[2].Args), "REDACTED") {
		t.Errorf("record 3's args were not redacted: %v", got[2].Args)
	}
	problems, n, err := d.Verify(context.Background())
	if err != nil || len(problems) > 0 || n != len(in) {
		t.Errorf("Verify = %v, %d, %v; want no problem in %d records", problems, n, err, len(in))
	}
}

// writeRecords appends count records of writer w from goroutines.
func writeRecords(t testing.TB, d *DB, w, count, goroutines int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, count)
	for g := range goroutines {
		wg.Go(func() {
			for n := g; n < count; n += goroutines {
				if err := d.Append(context.Background(), record(w, n)); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// checkAll fails unless d holds every record of writers 0…writers-1, count each, once,
// numbered 1… without a gap and chained.
func checkAll(t *testing.T, d *DB, writers, count int) {
	t.Helper()
	seen := map[string]int{}
	got := readAll(t, d)
	for i, r := range got {
		seen[key(t, r)]++
		if r.Seq != uint64(i+1) {
			t.Fatalf("record %d has seq %d", i+1, r.Seq)
		}
	}
	for w := range writers {
		for n := range count {
			if k := fmt.Sprint(w, "/", n); seen[k] != 1 {
				t.Errorf("record %s stored %d times", k, seen[k])
			}
		}
	}
	if len(got) != writers*count {
		t.Errorf("%d records stored, want %d", len(got), writers*count)
	}
	if problems, _, err := d.Verify(context.Background()); err != nil || len(problems) > 0 {
		t.Errorf("Verify: %v %v", problems, err)
	}
}

func TestConcurrentAppend(t *testing.T) {
	d := open(t, filepath.Join(t.TempDir(), FileName), Options{})
	writeRecords(t, d, 0, 1000, 8)
	checkAll(t, d, 1, 1000)
}

// Two processes, each with several goroutines and its own connection pool, write 2,000
// records in all to one database: every one is stored once, in one chain.
func TestTwoProcesses(t *testing.T) {
	if path := os.Getenv("MOAT_AUDITDB_CHILD"); path != "" {
		w, _ := strconv.Atoi(os.Getenv("MOAT_AUDITDB_WRITER"))
		d := open(t, path, Options{})
		writeRecords(t, d, w, 1000, 4)
		return
	}
	path := filepath.Join(t.TempDir(), FileName)
	var cmds []*procResult
	for w := range 2 {
		cmd := testbin.Rerun("TestTwoProcesses", "MOAT_AUDITDB_CHILD="+path, "MOAT_AUDITDB_WRITER="+strconv.Itoa(w))
		p := &procResult{}
		cmd.Stdout, cmd.Stderr = &p.out, &p.out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		p.wait = cmd.Wait
		cmds = append(cmds, p)
	}
	for _, p := range cmds {
		if err := p.wait(); err != nil {
			t.Fatalf("writer: %v\n%s", err, p.out.String())
		}
	}
	checkAll(t, open(t, path, Options{}), 2, 1000)
}

type procResult struct {
	out  strings.Builder
	wait func() error
}

func TestPrune(t *testing.T) {
	now := t0.Add(100 * time.Second) // record(0, n) is 100-n seconds old
	tests := []struct {
		name      string
		ret       Retention
		wantFirst int // the n of the oldest record left; -1: none left
	}{
		{"nothing set", Retention{}, 0},
		{"count", Retention{MaxRecords: 30}, 70},
		{"count above", Retention{MaxRecords: 500}, 0},
		{"age", Retention{MaxAge: 50 * time.Second}, 50},
		{"age and count: the stricter", Retention{MaxAge: 50 * time.Second, MaxRecords: 10}, 90},
		{"all too old", Retention{MaxAge: 500 * time.Millisecond}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := open(t, filepath.Join(t.TempDir(), FileName), Options{Retention: tt.ret, Now: func() time.Time { return now }})
			for n := range 100 {
				if err := d.Append(context.Background(), record(0, n)); err != nil {
					t.Fatal(err)
				}
			}
			removed, err := d.Prune(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			got := readAll(t, d)
			wantLeft := 0
			if tt.wantFirst >= 0 {
				wantLeft = 100 - tt.wantFirst
			}
			if len(got) != wantLeft || removed != int64(100-wantLeft) {
				t.Fatalf("%d records left, %d removed; want %d left", len(got), removed, wantLeft)
			}
			if wantLeft > 0 && key(t, got[0]) != fmt.Sprint("0/", tt.wantFirst) {
				t.Errorf("oldest left is %s, want 0/%d", key(t, got[0]), tt.wantFirst)
			}
			// The chain goes on through the pruned records, also when none is left.
			if err := d.Append(context.Background(), record(0, 100)); err != nil {
				t.Fatal(err)
			}
			problems, _, err := d.Verify(context.Background())
			if err != nil || len(problems) > 0 {
				t.Errorf("Verify after prune: %v %v", problems, err)
			}
			if last := readAll(t, d); last[len(last)-1].Seq != 101 {
				t.Errorf("the record after the prune is numbered %d, want 101", last[len(last)-1].Seq)
			}
		})
	}
}

// An edited row breaks the chain at the record after it, and Verify says so.
func TestVerifyFindsAnEdit(t *testing.T) {
	d := open(t, filepath.Join(t.TempDir(), FileName), Options{})
	for n := range 5 {
		if err := d.Append(context.Background(), record(0, n)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.db.Exec(`UPDATE records SET line = replace(line, '"rule-2"', '"rule-x"') WHERE seq = 3`); err != nil {
		t.Fatal(err)
	}
	problems, _, err := d.Verify(context.Background())
	if err != nil || len(problems) != 1 || problems[0].Seq != 4 {
		t.Fatalf("Verify = %v, %v; want a problem at record 4", problems, err)
	}
}

func TestSchemaVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	d := open(t, path, Options{})
	v, err := version(context.Background(), d.db)
	if err != nil || v != SchemaVersion {
		t.Fatalf("schema version %d, %v; want %d", v, err, SchemaVersion)
	}
	open(t, path, Options{}) // opening again migrates nothing
	if _, err := d.db.Exec(`UPDATE schema_version SET version = ?`, SchemaVersion+1); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), Options{Path: path, Redactor: scan.Redactor{}}); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Errorf("a database of a newer schema opened: %v", err)
	}
}

func TestReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	if _, err := Open(context.Background(), Options{Path: path, ReadOnly: true}); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("read-only Open of a missing database: %v", err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("read-only Open created the database")
	}
	w := open(t, path, Options{})
	if err := w.Append(context.Background(), record(0, 1)); err != nil {
		t.Fatal(err)
	}
	w.Close() // the WAL is checkpointed and removed: a reader opens the database alone
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Fatal("the WAL is still there")
	}
	r := open(t, path, Options{ReadOnly: true})
	if got := readAll(t, r); len(got) != 1 {
		t.Errorf("read %d records, want 1", len(got))
	}
	if err := r.Append(context.Background(), record(0, 2)); err == nil {
		t.Error("Append on a read-only database succeeded")
	}
}

// A writer killed (SIGKILL) in the middle of its appends loses none of the records it
// was told were committed, leaves a database that opens and verifies, and the next writer
// chains on.
func TestKilledWriterLosesNothingCommitted(t *testing.T) {
	if path := os.Getenv("MOAT_AUDITDB_KILLED"); path != "" {
		d := open(t, path, Options{})
		for n := 0; ; n++ {
			if err := d.Append(context.Background(), record(0, n)); err != nil {
				t.Fatal(err)
			}
			fmt.Println("committed", n) // stdout is unbuffered: the parent sees it at once
		}
	}
	path := filepath.Join(t.TempDir(), FileName)
	cmd := testbin.Rerun("TestKilledWriterLosesNothingCommitted", "MOAT_AUDITDB_KILLED="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	committed := -1
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if n, ok := strings.CutPrefix(sc.Text(), "committed "); ok {
			committed, _ = strconv.Atoi(n)
		}
		if committed >= 300 {
			break
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait() //nolint:errcheck // killed
	if committed < 300 {
		t.Fatalf("the writer stopped after %d records", committed)
	}
	d := open(t, path, Options{})
	got := readAll(t, d)
	if len(got) < committed+1 {
		t.Fatalf("%d records stored, but %d were committed", len(got), committed+1)
	}
	for i, r := range got {
		if key(t, r) != fmt.Sprint("0/", i) {
			t.Fatalf("record %d is %s", i, key(t, r))
		}
	}
	if err := d.Append(context.Background(), record(1, 0)); err != nil {
		t.Fatal(err)
	}
	if problems, _, err := d.Verify(context.Background()); err != nil || len(problems) > 0 {
		t.Errorf("Verify after the kill: %v %v", problems, err)
	}
}
