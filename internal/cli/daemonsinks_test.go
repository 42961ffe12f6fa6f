package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/audit/auditdb"
	"github.com/moatdev/moat/internal/metrics"
)

func TestParseRetention(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		err  bool
	}{
		{"", 0, false},
		{"90d", 90 * 24 * time.Hour, false},
		{"36h", 36 * time.Hour, false},
		{"1h30m", 90 * time.Minute, false},
		{"0d", 0, true},
		{"-1h", 0, true},
		{"0", 0, true},
		{"d", 0, true},
		{"1.5d", 0, true},
		{"99999999999d", 0, true},
		{"ninety days", 0, true},
	} {
		got, err := parseRetention(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("parseRetention(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

// lines collects the daemon's log lines.
type lines struct {
	mu  sync.Mutex
	got []string
}

func (l *lines) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, s)
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.got, "\n")
}

// newRecorder is an environment's recorder for the user whose home is home, with the
// metrics, and the retention given.
func newRecorder(t *testing.T, home string, retention time.Duration) (*envRecorder, *metrics.Metrics, *lines) {
	t.Helper()
	a, _, _ := testApp(home)
	d, err := a.dirs()
	if err != nil {
		t.Fatal(err)
	}
	log := &lines{}
	m := metrics.New(metrics.Options{AuditSink: sinkAuditLog, AuditSinks: []string{sinkAuditDB}})
	s := &daemonSinks{log: log.add, now: a.env.Now, retention: retention, metrics: m}
	w := &auditWriter{a: a, path: d.AuditLog(), lockWait: audit.DefaultLockWait}
	rec, err := s.recorder(a, d, w, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rec.close(); w.close() })
	return rec, m, log
}

// stateOf is the state directory of the test user whose home is home.
func stateOf(home string) string { return filepath.Join(home, ".local/state/moat") }

// dbRecords reads the records of the database of the user whose home is home.
func dbRecords(t *testing.T, home string) []audit.Record {
	t.Helper()
	db, err := auditdb.Open(context.Background(), auditdb.Options{Path: auditdb.Path(stateOf(home)), ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out []audit.Record
	if _, err := db.Read(context.Background(), auditdb.Filter{}, 0, func(r audit.Record) error {
		out = append(out, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func logRecords(t *testing.T, home string) []audit.Record {
	t.Helper()
	var out []audit.Record
	if err := audit.Read(filepath.Join(stateOf(home), "audit.jsonl"), func(r audit.Record) error {
		out = append(out, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// A record's error is the JSONL log's: a database that fails is reported and counted,
// the record still recorded; a log that fails makes the record not recorded whatever
// the database does.
func TestRecorderWrite(t *testing.T) {
	rs := sampleRecords()
	t.Run("both stores", func(t *testing.T) {
		home := t.TempDir()
		rec, m, _ := newRecorder(t, home, 0)
		for _, r := range rs {
			if err := rec.write(r); err != nil {
				t.Fatal(err)
			}
		}
		rec.reloaded("/p/moat.yaml", nil)
		rec.reloaded("/p/moat.yaml", os.ErrInvalid)
		rec.close()
		log, db := logRecords(t, home), dbRecords(t, home)
		if len(log) != len(rs) || len(db) != len(rs) {
			t.Fatalf("the log holds %d records and the database %d; want %d each", len(log), len(db), len(rs))
		}
		for i := range log {
			if log[i].Seq != db[i].Seq || log[i].Chain != db[i].Chain || log[i].Rule != db[i].Rule {
				t.Errorf("record %d: log %+v\ndatabase %+v", i, log[i], db[i])
			}
		}
		if got := counterOf(t, m, "moat_policy_reload_errors_total"); got != 1 {
			t.Errorf("reload errors counted %v, want 1", got)
		}
	})
	t.Run("the database fails", func(t *testing.T) {
		home := t.TempDir()
		if err := os.MkdirAll(auditdb.Path(stateOf(home)), 0o700); err != nil {
			t.Fatal(err)
		}
		rec, m, log := newRecorder(t, home, 0)
		for _, r := range rs[:3] {
			if err := rec.write(r); err != nil {
				t.Fatalf("a record the log took: %v", err)
			}
		}
		rec.close()
		if n := len(logRecords(t, home)); n != 3 {
			t.Errorf("the log holds %d records, want 3", n)
		}
		if n := strings.Count(log.String(), "warning: audit database:"); n != 1 {
			t.Errorf("the failure is logged %d times, want once:\n%s", n, log)
		}
		if got := counterOf(t, m, "moat_audit_write_errors_total"); got < 1 {
			t.Errorf("audit write errors counted %v, want the failed imports", got)
		}
	})
	t.Run("the log fails", func(t *testing.T) {
		home := t.TempDir()
		// A directory where the log should be: neither it nor a spool can be written.
		if err := os.MkdirAll(filepath.Join(stateOf(home), "audit.jsonl"), 0o700); err != nil {
			t.Fatal(err)
		}
		rec, _, _ := newRecorder(t, home, 0)
		if err := rec.write(rs[0]); err == nil {
			t.Fatal("a record no store took is reported as recorded")
		}
	})
}

// Decisions that follow one another closely are imported together: each wakes the
// mirror, which gathers the ones that follow before it imports, so that a run of hook
// calls does not pay a database transaction each.
func TestRecorderBatchesImports(t *testing.T) {
	home := t.TempDir()
	rec, _, _ := newRecorder(t, home, 0)
	const n = 10
	for i := range n {
		r := sampleRecords()[0]
		r.Rule = fmt.Sprintf("rule-%d", i)
		if err := rec.write(r); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
	}
	// The database exists once the mirror imported lines.
	imported := func() int {
		if rec.mirror.imports.Load() == 0 {
			return 0
		}
		return len(dbRecords(t, home))
	}
	for deadline := time.Now().Add(5 * time.Second); imported() < n; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the database holds %d records after 5s, want %d", imported(), n)
		}
	}
	if got := rec.mirror.imports.Load(); got > 3 {
		t.Errorf("%d records written 1ms apart took %d imports, want them gathered into few", n, got)
	}
}

// The retention setting prunes the database, never the log.
func TestRecorderRetention(t *testing.T) {
	home := t.TempDir()
	rs := sampleRecords() // from three days ago to now (logsNow)
	writeLog(t, filepath.Join(stateOf(home), "audit.jsonl"), rs, 0).Close()
	rec, _, log := newRecorder(t, home, 24*time.Hour)
	rec.close()
	kept := 0
	for _, r := range rs {
		if !r.Time.Before(logsNow.Add(-24 * time.Hour)) {
			kept++
		}
	}
	if n := len(dbRecords(t, home)); n != kept {
		t.Errorf("the database holds %d records, want the %d of the last day; log:\n%s", n, kept, log)
	}
	if n := len(logRecords(t, home)); n != len(rs) {
		t.Errorf("the log holds %d records, want all %d", n, len(rs))
	}
}

// counterOf finds the unlabelled counter name in m's exposition, read with Prometheus's
// own parser.
func counterOf(t *testing.T, m *metrics.Metrics, name string) float64 {
	t.Helper()
	var b bytes.Buffer
	if err := m.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(&b)
	if err != nil {
		t.Fatalf("parsing the exposition: %v", err)
	}
	if f := families[name]; f != nil && len(f.GetMetric()) == 1 {
		return f.GetMetric()[0].GetCounter().GetValue()
	}
	t.Fatalf("no counter %s", name)
	return 0
}
