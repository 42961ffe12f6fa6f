package httpproxy

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
)

// gatedLog is a Write function that blocks while its gate is closed, as an audit log
// whose lock another process holds.
type gatedLog struct {
	gate    chan struct{}
	mu      sync.Mutex
	records []audit.Record
	fail    bool
}

func (g *gatedLog) write(r audit.Record) error {
	<-g.gate
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.fail {
		return errors.New("disk full")
	}
	g.records = append(g.records, r)
	return nil
}

func (g *gatedLog) written() []audit.Record {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]audit.Record(nil), g.records...)
}

func rec(tool string, v call.Verdict) audit.Record {
	return audit.Record{Event: "mcp mcp:peer/" + tool, Class: "mcp", Tool: tool, Decision: v}
}

// TestRecorderNeverBlocks: the case found was every request blocked in the audit log's
// lock, each holding an OS thread. With the log stuck, Add returns at once; the queue
// keeps its last quarter for denials; what does not fit is dropped and counted, and
// the count is recorded once the log can be written again.
func TestRecorderNeverBlocks(t *testing.T) {
	g := &gatedLog{gate: make(chan struct{})}
	var warnings []string
	var wmu sync.Mutex
	r, err := NewRecorder(RecorderOptions{Write: g.write, Queue: 8, Warn: func(m string) { wmu.Lock(); warnings = append(warnings, m); wmu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	// The writer takes the first record and blocks in Write; then 6 allows fit (3/4 of
	// 8), the 7th allow does not; 2 denials use the reserve; the 3rd does not fit.
	if !r.Add(rec("first", call.Allow)) {
		t.Fatal("the first record was dropped")
	}
	waitUntil(t, func() bool { return len(r.queue) == 0 }, "the writer to take the first record")
	var got []bool
	for i := range 7 {
		got = append(got, r.Add(rec("allow"+string(rune('a'+i)), call.Allow)))
	}
	for i := range 3 {
		got = append(got, r.Add(rec("deny"+string(rune('a'+i)), call.Deny)))
	}
	want := []bool{true, true, true, true, true, true, false, true, true, false}
	if !slicesEqual(got, want) {
		t.Errorf("queued: %v, want %v", got, want)
	}
	if time.Since(start) > time.Second {
		t.Errorf("Add waited for a stuck log: %v", time.Since(start))
	}
	if s := r.Stats(); s.Dropped != 2 || s.Written != 0 {
		t.Errorf("stats while stuck: %+v", s)
	}
	close(g.gate)
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	recs := g.written()
	if len(recs) != 10 {
		t.Fatalf("%d records written, want 9 and the record of the dropped ones", len(recs))
	}
	// The record of the drops follows the record that was being written when the log
	// came back.
	d := recs[1]
	if d.Rule != RuleRecordsDropped || !d.Failure || d.Decision != call.Deny || !strings.Contains(d.Reason, "2 decisions") || !strings.Contains(d.Reason, "(not allowed: 1)") {
		t.Errorf("the record of the dropped records: %+v", d)
	}
	for _, r := range recs {
		if r.Time.IsZero() || r.Time.After(time.Now()) {
			t.Errorf("record without its time: %+v", r)
		}
	}
	if s := r.Stats(); s.Dropped != 2 || s.Written != 10 || s.Failed != 0 {
		t.Errorf("stats: %+v", s)
	}
	if len(warnings) != 2 || !strings.Contains(warnings[0], "not keeping up") || !strings.Contains(warnings[1], "2 decisions") {
		t.Errorf("warnings: %q", warnings)
	}
}

func slicesEqual(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestRecorderBytes: records are bounded by their size as well, so a burst of huge
// arguments is not kept in memory while the log is stuck.
func TestRecorderBytes(t *testing.T) {
	g := &gatedLog{gate: make(chan struct{})}
	r, err := NewRecorder(RecorderOptions{Write: g.write, Queue: 100, QueueBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	r.Add(rec("first", call.Allow))
	waitUntil(t, func() bool { return len(r.queue) == 0 }, "the writer to take the first record")
	big := rec("big", call.Allow)
	big.Args = map[string]any{"content": strings.Repeat("x", 300<<10), "nested": []any{map[string]any{"k": strings.Repeat("y", 10)}}}
	n := 0
	for range 10 {
		if r.Add(big) {
			n++
		}
	}
	if n != 2 { // 3/4 of 1 MiB holds two records of 300 KiB
		t.Errorf("%d huge records queued", n)
	}
	close(g.gate)
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r.bytes.Load() != 0 {
		t.Errorf("%d bytes still counted in an empty queue", r.bytes.Load())
	}
}

// TestRecorderClose: Close waits for the queue, but not for ever when the log is stuck;
// records added after Close are counted as dropped.
func TestRecorderClose(t *testing.T) {
	g := &gatedLog{gate: make(chan struct{})}
	r, err := NewRecorder(RecorderOptions{Write: g.write})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		r.Add(rec("echo", call.Allow))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := r.Close(ctx); err == nil || !strings.Contains(err.Error(), "were not recorded") {
		t.Errorf("Close of a stuck log: %v", err)
	}
	if r.Add(rec("late", call.Deny)) {
		t.Error("a record was queued after Close")
	}
	close(g.gate)
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	recs := g.written()
	if len(recs) != 4 || recs[1].Rule != RuleRecordsDropped || recs[1].Decision != call.Deny || !strings.Contains(recs[1].Reason, "1 decision made") {
		t.Errorf("records: %+v", recs)
	}
}

// TestRecorderFailures: a Write that fails is counted; the record of dropped records is
// tried again with the next record rather than lost; the user is told once when the
// trouble starts and once when it ends.
func TestRecorderFailures(t *testing.T) {
	g := &gatedLog{gate: make(chan struct{}), fail: true}
	var warnings []string
	var wmu sync.Mutex
	r, err := NewRecorder(RecorderOptions{Write: g.write, Queue: 4, Warn: func(m string) { wmu.Lock(); warnings = append(warnings, m); wmu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	for range 6 {
		r.Add(rec("deny", call.Deny))
	}
	close(g.gate)
	waitUntil(t, func() bool { return r.Stats().Failed >= 4 }, "the failures")
	g.mu.Lock()
	g.fail = false
	g.mu.Unlock()
	r.Add(rec("echo", call.Allow))
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	recs := g.written()
	if len(recs) != 2 || recs[1].Rule != RuleRecordsDropped {
		t.Fatalf("records: %+v", recs)
	}
	s := r.Stats()
	if s.Dropped == 0 || s.Failed == 0 {
		t.Errorf("stats: %+v", s)
	}
	var trouble []string
	for _, w := range warnings {
		if strings.Contains(w, "disk full") || strings.Contains(w, "takes records again") {
			trouble = append(trouble, w)
		}
	}
	if len(trouble) != 2 || !strings.Contains(trouble[1], "lost") {
		t.Errorf("warnings: %q", warnings)
	}
}

// TestRecorderSpooled: a record the log kept in its spool (the lock was busy) is
// counted as spooled, not lost, and the record of dropped ones counts as said.
func TestRecorderSpooled(t *testing.T) {
	var mu sync.Mutex
	busy := true
	var got []audit.Record
	write := func(rec audit.Record) error {
		mu.Lock()
		defer mu.Unlock()
		if busy {
			return fmt.Errorf("append: lock: %w; the record %w", audit.ErrLockBusy, audit.ErrSpooled)
		}
		got = append(got, rec)
		return nil
	}
	r, err := NewRecorder(RecorderOptions{Write: write})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		r.Add(rec("echo", call.Allow))
	}
	waitUntil(t, func() bool { return r.Stats().Spooled == 3 }, "three spooled records")
	mu.Lock()
	busy = false
	mu.Unlock()
	r.Add(rec("echo", call.Allow))
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := r.Stats(); s.Spooled != 3 || s.Written != 1 || s.Failed != 0 || len(got) != 1 {
		t.Errorf("stats %+v, written %d", s, len(got))
	}
}

func TestNewRecorderNeedsWrite(t *testing.T) {
	if _, err := NewRecorder(RecorderOptions{}); err == nil {
		t.Error("no error")
	}
}
