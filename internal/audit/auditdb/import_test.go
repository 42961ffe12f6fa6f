package auditdb

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/scan"
)

// logLines writes records 0 to n-1 to a fresh JSONL log and returns its lines.
func logLines(t *testing.T, n int) [][]byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := audit.Open(audit.Options{Path: path, Redactor: scan.Redactor{}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := range n {
		if err := l.Append(record(0, i)); err != nil {
			t.Fatal(err)
		}
	}
	tail := audit.NewTail(path)
	defer tail.Close()
	var lines [][]byte
	if err := tail.Next(func(line []byte, _ audit.Record) error {
		lines = append(lines, bytes.Clone(line))
		return nil
	}, nil); err != nil {
		t.Fatal(err)
	}
	return lines
}

// Imported lines are stored as the log holds them, once each however often they are
// imported, and the database's chain verifies.
func TestImport(t *testing.T) {
	ctx := context.Background()
	lines := logLines(t, 12)
	d := open(t, filepath.Join(t.TempDir(), FileName), Options{})
	for _, step := range []struct {
		from, to, want int
	}{
		{0, 5, 5},
		{0, 5, 0},   // again
		{3, 9, 4},   // overlapping
		{0, 12, 3},  // from the start
		{11, 12, 0}, // the last one again
	} {
		n, err := d.Import(ctx, lines[step.from:step.to])
		if err != nil || n != step.want {
			t.Fatalf("Import(lines[%d:%d]) = %d, %v; want %d", step.from, step.to, n, err, step.want)
		}
	}
	if problems, n, err := d.Verify(ctx); err != nil || len(problems) > 0 || n != len(lines) {
		t.Fatalf("Verify: %d records, %v, %v", n, problems, err)
	}
	var stored [][]byte
	if err := d.scanAll(ctx, func(_ uint64, line []byte) error {
		stored = append(stored, bytes.Clone(line))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for i := range lines {
		if !bytes.Equal(stored[i], lines[i]) {
			t.Fatalf("record %d is stored as\n%s\nthe log holds\n%s", i+1, stored[i], lines[i])
		}
	}
	for _, tc := range []struct {
		seq  uint64
		line []byte
		want bool
	}{
		{12, lines[11], true},
		{12, lines[10], false},
		{13, lines[11], false},
	} {
		if got, err := d.Holds(ctx, tc.seq, audit.ChainOf(tc.line)); err != nil || got != tc.want {
			t.Errorf("Holds(%d) = %v, %v; want %v", tc.seq, got, err, tc.want)
		}
	}
}

// Pruned records are not imported again, and the newest of them is still held.
func TestImportAfterPrune(t *testing.T) {
	ctx := context.Background()
	lines := logLines(t, 6)
	now := t0.Add(time.Hour)
	d := open(t, filepath.Join(t.TempDir(), FileName), Options{Now: func() time.Time { return now }, Retention: Retention{MaxAge: time.Minute}})
	if _, err := d.Import(ctx, lines); err != nil {
		t.Fatal(err)
	}
	if n, err := d.Prune(ctx); err != nil || n != 6 {
		t.Fatalf("Prune = %d, %v; want 6", n, err)
	}
	if n, err := d.Import(ctx, lines); err != nil || n != 0 {
		t.Fatalf("Import after Prune = %d, %v; want 0", n, err)
	}
	if ok, err := d.Holds(ctx, 6, audit.ChainOf(lines[5])); err != nil || !ok {
		t.Fatalf("Holds(the newest pruned record) = %v, %v", ok, err)
	}
	if n, err := d.Count(ctx); err != nil || n != 0 {
		t.Fatalf("Count = %d, %v", n, err)
	}
}
