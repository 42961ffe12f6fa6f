package httpproxy

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
)

// Defaults of RecorderOptions fields left zero.
const (
	DefaultRecordQueue      = 1024
	DefaultRecordQueueBytes = 32 << 20
)

// RuleRecordsDropped is the rule of the record that stands for the records a Recorder
// had to drop.
const RuleRecordsDropped = "mcp-records-dropped"

// RecorderOptions configure a Recorder.
type RecorderOptions struct {
	// Write appends one record to the audit log. It is called from one goroutine only,
	// and may take as long as the log makes it: no request waits for it. An error that
	// wraps audit.ErrSpooled means the record was kept for a later writer to merge;
	// any other, that it was lost. The Recorder counts both, and warns once per episode.
	Write func(audit.Record) error
	// Queue bounds the records waiting for Write; 0 means DefaultRecordQueue.
	Queue int
	// QueueBytes bounds the approximate size of the records waiting; 0 means
	// DefaultRecordQueueBytes. A request may carry megabytes of arguments, and the
	// queue must not keep a burst of them in memory while the log is stuck.
	QueueBytes int64
	// Warn is told, once per episode, that records are being dropped or cannot be
	// written to the log, and then how many were. nil discards.
	Warn func(msg string)
	// Now stamps the record of dropped records; nil means time.Now.
	Now func() time.Time
}

// Recorder appends decision records to the audit log from a single goroutine, so that a
// slow or locked log never holds a request, its goroutine or an OS thread (a goroutine
// blocked in a file lock holds a thread: a thousand requests waiting for the log's lock
// were a thousand threads). A request queues its record and answers at once; the
// decision stands whether or not its record is written.
//
// The queue is bounded in records and in bytes. A record that does not fit is dropped
// and counted, and as soon as the writer can write again it writes one failure record
// (rule RuleRecordsDropped) saying how many decisions were not recorded, between which
// times, and the most restrictive of them, so the gap shows in the trail and in
// `moat logs --failures`. Allowed calls may fill only three quarters of the queue: the
// rest is kept for denials, asks and failures, which matter most in the trail.
type Recorder struct {
	o     RecorderOptions
	queue chan queuedRecord
	bytes atomic.Int64
	done  chan struct{}

	mu     sync.RWMutex // Add holds it shared; Close holds it to close queue
	closed bool

	written, spooled, failed atomic.Uint64
	trouble                  writeTrouble // touched by the writer only

	dropMu     sync.Mutex
	drops      droppedRecords // not yet said in the log
	dropped    uint64         // every record dropped since the start
	warnedDrop bool           // the current episode was warned about
}

type queuedRecord struct {
	rec  audit.Record
	size int64
}

// droppedRecords sums up records that were not written.
type droppedRecords struct {
	n, notAllowed int
	strictest     call.Verdict
	first, last   time.Time
}

// writeTrouble is an episode of Writes that did not reach the log.
type writeTrouble struct {
	spooled, failed int
}

// RecorderStats count a Recorder's records since it started.
type RecorderStats struct {
	Written uint64 // appended to the log by Write
	Spooled uint64 // kept by Write for a later writer to merge (audit.ErrSpooled)
	Failed  uint64 // lost: Write returned another error
	Dropped uint64 // never given to Write: the queue was full, or the Recorder closed
}

// NewRecorder starts a Recorder's writer. Close stops it.
func NewRecorder(o RecorderOptions) (*Recorder, error) {
	if o.Write == nil {
		return nil, fmt.Errorf("httpproxy: a Recorder needs a Write function")
	}
	if o.Queue <= 0 {
		o.Queue = DefaultRecordQueue
	}
	if o.QueueBytes <= 0 {
		o.QueueBytes = DefaultRecordQueueBytes
	}
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	r := &Recorder{o: o, queue: make(chan queuedRecord, o.Queue), done: make(chan struct{})}
	go r.run()
	return r, nil
}

// Add queues rec for the log without waiting, and reports whether it was queued. A zero
// rec.Time is stamped now, when the decision was made, not when the record is written.
func (r *Recorder) Add(rec audit.Record) bool {
	if rec.Time.IsZero() {
		rec.Time = r.o.Now()
	}
	size := recordSize(rec)
	important := !rec.Decision.Permissive() || rec.Failure
	// An allowed call may use three quarters of the queue.
	maxLen, maxBytes := cap(r.queue), r.o.QueueBytes
	if !important {
		maxLen, maxBytes = maxLen*3/4, maxBytes*3/4
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	if !r.closed && len(r.queue) < maxLen {
		if r.bytes.Add(size) <= maxBytes {
			select {
			case r.queue <- queuedRecord{rec, size}:
				return true
			default:
			}
		}
		r.bytes.Add(-size)
	}
	r.drop(rec)
	return false
}

func (r *Recorder) drop(rec audit.Record) {
	r.dropMu.Lock()
	d := &r.drops
	if d.n == 0 || rec.Time.Before(d.first) {
		d.first = rec.Time
	}
	if rec.Time.After(d.last) {
		d.last = rec.Time
	}
	d.n++
	if important := !rec.Decision.Permissive() || rec.Failure; important {
		d.notAllowed++
	}
	if d.strictest == 0 || (rec.Decision.Valid() && rec.Decision > d.strictest) {
		d.strictest = rec.Decision
	}
	r.dropped++
	warn := !r.warnedDrop
	r.warnedDrop = true
	r.dropMu.Unlock()
	if warn {
		r.o.Warn("moat: the audit log is not keeping up: decisions are dropped from the queue of records (they still apply; their number will be recorded)")
	}
}

// Stats returns the counts so far.
func (r *Recorder) Stats() RecorderStats {
	r.dropMu.Lock()
	dropped := r.dropped
	r.dropMu.Unlock()
	return RecorderStats{Written: r.written.Load(), Spooled: r.spooled.Load(), Failed: r.failed.Load(), Dropped: dropped}
}

// run is the single writer.
func (r *Recorder) run() {
	defer close(r.done)
	for q := range r.queue {
		r.bytes.Add(-q.size)
		r.write(q.rec)
		r.sayDropped()
	}
	r.sayDropped()
}

// write hands rec to Write and reports whether it is in the log or kept for it.
func (r *Recorder) write(rec audit.Record) bool {
	err := r.o.Write(rec)
	t := &r.trouble
	switch {
	case err == nil:
		r.written.Add(1)
		if t.spooled+t.failed > 0 {
			r.o.Warn(fmt.Sprintf("moat: the audit log takes records again (meanwhile %d were spooled for a later writer to merge, %d lost)", t.spooled, t.failed))
			*t = writeTrouble{}
		}
		return true
	case errors.Is(err, audit.ErrSpooled):
		r.spooled.Add(1)
		t.spooled++
	default:
		r.failed.Add(1)
		t.failed++
	}
	if t.spooled+t.failed == 1 {
		r.o.Warn(fmt.Sprintf("moat: recording decisions: %v (said once until the log takes records again)", err))
	}
	return errors.Is(err, audit.ErrSpooled)
}

// sayDropped writes the record of the records dropped since it last did, if any.
func (r *Recorder) sayDropped() {
	r.dropMu.Lock()
	d := r.drops
	r.drops = droppedRecords{}
	r.dropMu.Unlock()
	if d.n == 0 {
		return
	}
	what := fmt.Sprintf("%d decisions made between %s and %s were", d.n, d.first.UTC().Format(time.RFC3339Nano), d.last.UTC().Format(time.RFC3339Nano))
	if d.n == 1 {
		what = fmt.Sprintf("1 decision made at %s was", d.first.UTC().Format(time.RFC3339Nano))
	}
	msg := fmt.Sprintf("moat: %s not recorded (not allowed: %d): the audit log did not keep up and the proxy's queue of records was full", what, d.notAllowed)
	strictest := d.strictest
	if !strictest.Valid() {
		strictest = call.Deny
	}
	rec := audit.Record{
		Time: r.o.Now(), Event: "mcp records-dropped", Class: string(call.MCP),
		Decision: strictest, Failure: true, Rule: RuleRecordsDropped, Reason: msg,
	}
	if !r.write(rec) {
		// Said later, with the next ones.
		r.dropMu.Lock()
		r.drops = mergeDrops(r.drops, d)
		r.dropMu.Unlock()
		return
	}
	r.dropMu.Lock()
	r.warnedDrop = r.drops.n > 0
	r.dropMu.Unlock()
	r.o.Warn(msg)
}

func mergeDrops(a, b droppedRecords) droppedRecords {
	if a.n == 0 {
		return b
	}
	if b.n == 0 {
		return a
	}
	out := droppedRecords{n: a.n + b.n, notAllowed: a.notAllowed + b.notAllowed, strictest: max(a.strictest, b.strictest), first: a.first, last: a.last}
	if b.first.Before(out.first) {
		out.first = b.first
	}
	if b.last.After(out.last) {
		out.last = b.last
	}
	return out
}

// Close stops taking records and waits until the queued ones are written or ctx is done.
// It returns an error, saying how many records were left unwritten, when ctx ends
// first: a Write stuck in a lock cannot be interrupted, and the process is about to end.
func (r *Recorder) Close(ctx context.Context) error {
	r.mu.Lock()
	if !r.closed {
		r.closed = true
		close(r.queue)
	}
	r.mu.Unlock()
	select {
	case <-r.done:
		return nil
	case <-ctx.Done():
		left := len(r.queue)
		r.dropMu.Lock()
		left += r.drops.n
		r.dropMu.Unlock()
		return fmt.Errorf("httpproxy: %d decision records (and one being written) were not recorded: the audit log did not take them in time: %w", left, ctx.Err())
	}
}

// recordSize estimates the memory a queued record holds, for the queue's byte bound.
func recordSize(r audit.Record) int64 {
	n := int64(256 + len(r.Agent) + len(r.Session) + len(r.Event) + len(r.Class) + len(r.Tool) + len(r.MCP) + len(r.Cwd) + len(r.Rule) + len(r.Reason) + len(r.Policy))
	for _, f := range r.Findings {
		n += 128 + int64(len(f.ID)+len(f.Category)+len(f.Evidence))
	}
	for k, v := range r.Args {
		n += 16 + int64(len(k)) + valueSize(v)
	}
	return n
}

// valueSize estimates the memory of a decoded JSON value.
func valueSize(v any) int64 {
	switch v := v.(type) {
	case string:
		return 16 + int64(len(v))
	case map[string]any:
		n := int64(48)
		for k, e := range v {
			n += 16 + int64(len(k)) + valueSize(e)
		}
		return n
	case []any:
		n := int64(24)
		for _, e := range v {
			n += valueSize(e)
		}
		return n
	default:
		return 16
	}
}
