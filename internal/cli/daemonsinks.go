package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/audit/auditdb"
	"github.com/moatdev/moat/internal/daemon"
	"github.com/moatdev/moat/internal/dirs"
	"github.com/moatdev/moat/internal/events"
	"github.com/moatdev/moat/internal/metrics"
	"github.com/moatdev/moat/internal/notify"
	"github.com/moatdev/moat/internal/scan"
)

// Names of the sinks on each environment's bus.
const (
	sinkAuditLog = "audit"    // the JSONL log: lossless, the complete log
	sinkAuditDB  = "audit-db" // the database mirroring it: lossless
	sinkMetrics  = "metrics"  // lossy
	sinkNotify   = "notify"   // lossy
)

// Tuning of the daemon's sinks.
const (
	// mirrorPoll is how often the database imports what other processes appended to the
	// JSONL log (fallback hooks, MCP proxies, moat run without the daemon).
	mirrorPoll = time.Second
	// mirrorGather is how long a woken import waits for the decisions that follow the
	// one that woke it, so that a run of calls is imported in one transaction rather than
	// one each: an import costs the daemon more CPU than the decision itself, and a hook
	// that follows at once would wait on it. The JSONL log holds each record meanwhile.
	mirrorGather = 100 * time.Millisecond
	// importBatch bounds the lines one transaction imports.
	importBatch = 5000
	// maxPendingLines bounds the lines held for a database that fails: past it they are
	// dropped and the log is read again from its start once the database works (the
	// import skips what it holds).
	maxPendingLines = 100_000
	// pruneEvery is how often a retention setting is applied.
	pruneEvery = time.Hour
	// Buffers of the lossy sinks: a burst of decisions beyond them drops metrics and
	// notifications, never a decision or its record.
	metricsBuffer = 4096
	notifyBuffer  = 64
)

// daemonSinkOptions are the flags of the daemon's sinks.
type daemonSinkOptions struct {
	metrics   string
	notify    bool
	retention string
}

func (o *daemonSinkOptions) flags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.metrics, "metrics", "", "serve Prometheus metrics at http://ADDR/metrics, on a loopback address only (127.0.0.1:9464)")
	f.BoolVar(&o.notify, "notify", false, "show a desktop notification for each ask and deny (rate-limited; notify-send or osascript)")
	f.StringVar(&o.retention, "audit-retention", "", "remove records older than this (90d, 12h) from the audit database; the JSONL log is never pruned")
}

// args are the flags again, for `daemon start` to pass to the daemon it starts.
func (o daemonSinkOptions) args() []string {
	var out []string
	if o.metrics != "" {
		out = append(out, "--metrics", o.metrics)
	}
	if o.notify {
		out = append(out, "--notify")
	}
	if o.retention != "" {
		out = append(out, "--audit-retention", o.retention)
	}
	return out
}

// check refuses what the daemon would refuse at its start, so that `daemon install`
// never installs a service that fails at every login.
func (o daemonSinkOptions) check() error {
	if o.metrics != "" {
		if err := metrics.CheckAddr(o.metrics); err != nil {
			return err
		}
	}
	_, err := parseRetention(o.retention)
	return err
}

// parseRetention reads a span: a Go duration (36h) or a number of days (90d).
func parseRetention(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if days, ok := strings.CutSuffix(s, "d"); ok {
		var n int
		n, err = strconv.Atoi(days)
		if err == nil && (n <= 0 || n > 100*365) {
			err = errors.New("out of range")
		}
		d = time.Duration(n) * 24 * time.Hour
	}
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("--audit-retention %q: want a positive span such as 90d or 36h", s)
	}
	return d, nil
}

// daemonSinks are what the daemon's environments share: one metrics registry, served on
// loopback, and the notifier (one rate limit for the user's desktop).
type daemonSinks struct {
	log       func(string)
	now       func() time.Time
	retention time.Duration
	metrics   *metrics.Metrics // nil when not served
	metricsAt string
	notifier  *notify.Notifier // nil when off

	stopServe context.CancelFunc
	served    chan error
}

// startDaemonSinks builds the sinks o asks for and starts serving the metrics.
func (a *app) startDaemonSinks(o daemonSinkOptions) (*daemonSinks, error) {
	ret, err := parseRetention(o.retention)
	if err != nil {
		return nil, err
	}
	s := &daemonSinks{log: a.daemonLog, now: a.env.Now, retention: ret}
	if o.notify {
		n, err := notify.New(notify.Options{})
		if err != nil {
			// The daemon decides the same without it; the user hears why.
			a.daemonLog(fmt.Sprintf("warning: --notify: %v; notifications are off", err))
		}
		s.notifier = n
	}
	if o.metrics != "" {
		ln, err := metrics.ListenLoopback(o.metrics)
		if err != nil {
			return nil, fmt.Errorf("--metrics: %w", err)
		}
		s.metrics = metrics.New(metrics.Options{AuditSink: sinkAuditLog, AuditSinks: []string{sinkAuditDB}})
		s.metricsAt = ln.Addr().String()
		ctx, cancel := context.WithCancel(context.Background())
		s.stopServe, s.served = cancel, make(chan error, 1)
		go func() { s.served <- s.metrics.Serve(ctx, ln) }()
		a.daemonLog("metrics on http://" + s.metricsAt + "/metrics")
	}
	return s, nil
}

// close stops serving the metrics.
func (s *daemonSinks) close() {
	if s == nil || s.stopServe == nil {
		return
	}
	s.stopServe()
	if err := <-s.served; err != nil {
		s.log("metrics: " + err.Error())
	}
}

// observe is the server's observer: each request's time, in the metrics.
func (s *daemonSinks) observe(method string, took time.Duration, err error) {
	if s.metrics != nil {
		s.metrics.Request(method, took, err)
	}
}

// describe is the server's Sinks: the metrics address, and each environment's audit.
func (s *daemonSinks) describe(services *daemonServices) func() *daemon.SinkStatus {
	return func() *daemon.SinkStatus {
		st := &daemon.SinkStatus{Metrics: s.metricsAt, Notify: s.notifier != nil}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		for _, r := range services.recorders() {
			st.Audit = append(st.Audit, r.status(ctx))
		}
		return st
	}
}

// recorders are the environments' recorders, for the status.
func (s *daemonServices) recorders() []*envRecorder {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*envRecorder
	for _, ds := range s.byKey {
		if ds.rec != nil {
			out = append(out, ds.rec)
		}
	}
	return out
}

// envRecorder records one environment's decisions through its bus: to the JSONL log, to
// the database mirroring it, and to the shared metrics and notifier.
type envRecorder struct {
	log    func(string)
	bus    *events.Bus
	mirror *auditMirror
	otlp   *otlpExport   // nil: no OpenTelemetry export (fleetotel.go)
	stop   chan struct{} // closed to end mirrorLoop
	done   chan struct{} // closed when it has ended
	closed sync.Once

	ship *auditShipping // the audit's shipping to a fleet database; nil when off
}

// logWriteError marks the JSONL log's failure among the bus's sinks' errors: it is the
// record's failure, which the decision service reports as not recorded.
type logWriteError struct{ err error }

func (e *logWriteError) Error() string { return e.err.Error() }
func (e *logWriteError) Unwrap() error { return e.err }

// recorder builds the recorder of the environment with directories d, writing its JSONL
// log through w, and starts mirroring the log into the environment's database.
func (s *daemonSinks) recorder(a *app, d dirs.Dirs, w *auditWriter, imported func()) (*envRecorder, error) {
	ship := s.startAuditShipping(d) // nil when the environment ships nothing (fleetship.go)
	m := &auditMirror{logPath: d.AuditLog(), dbPath: auditdb.Path(d.State), retention: s.retention, now: a.env.Now, log: s.log,
		imported: ship.afterImport(imported), keepUnshipped: ship != nil}
	regs := []events.Registration{
		events.Lossless(sinkAuditLog, events.Records(func(ctx context.Context, r audit.Record) error {
			seq, err := w.writeSeq(r)
			if err != nil {
				return &logWriteError{err}
			}
			tellSeq(ctx, seq)
			return nil
		})),
		// The database imports the record from the log, where the sink before put it:
		// the decision only wakes the import, which batches what a burst wrote.
		events.Lossless(sinkAuditDB, events.SinkFunc(func(_ context.Context, ev events.Event) error {
			if _, ok := ev.(events.Decision); ok {
				m.wake()
			}
			return nil
		})),
	}
	ox := s.startOTLP(a, d) // after the log's sink, whose number it reads
	regs = append(regs, ox.registrations()...)
	opts := events.Options{OnError: func(e events.SinkError) {
		// The database's failures are logged by the mirror, once per change; the JSONL
		// log's reach the caller as not recorded.
		if e.Sink != sinkAuditDB && e.Sink != sinkAuditLog {
			s.log("warning: " + e.Err.Error())
		}
	}}
	if s.metrics != nil {
		regs = append(regs, events.Lossy(sinkMetrics, s.metrics, metricsBuffer))
		opts.OnDrop = s.metrics.Dropped
	}
	if s.notifier != nil {
		regs = append(regs, events.Lossy(sinkNotify, s.notifier, notifyBuffer))
	}
	bus, err := events.New(opts, regs...)
	if err != nil {
		ship.stop()
		ox.close(context.Background(), s.log)
		return nil, err
	}
	m.woken = make(chan struct{}, 1)
	r := &envRecorder{log: s.log, bus: bus, mirror: m, ship: ship, otlp: ox, stop: make(chan struct{}), done: make(chan struct{})}
	m.report = func(err error) {
		if s.metrics != nil && err != nil {
			s.metrics.Handle(context.Background(), events.SinkError{Sink: sinkAuditDB, Event: "import", Err: err})
		}
	}
	go r.mirrorLoop()
	return r, nil
}

// write is the environment's decide.Options.Write: the record is published to every
// sink, and its error is the JSONL log's alone. The database mirrors that log, so a
// record the log did not take reached no store; one the database did not take is in
// the complete log, imported once the database works again, and reported by the mirror.
func (r *envRecorder) write(rec audit.Record) error {
	_, err := r.writeSeq(rec)
	return err
}

// writeSeq is write, returning the number the JSONL log gave the record
// (decide.Options.WriteSeq): the log's sink runs in this goroutine and says it.
func (r *envRecorder) writeSeq(rec audit.Record) (uint64, error) {
	var seq uint64
	err := r.bus.Publish(askSeq(context.Background(), &seq), events.Decision{Record: rec})
	return seq, r.recordError(err)
}

// recordError is the record's error among the sinks' errors of its publication.
func (r *envRecorder) recordError(err error) error {
	if err == nil {
		return nil
	}
	var le *logWriteError
	if errors.As(err, &le) {
		return le.err
	}
	if errors.Is(err, events.ErrClosed) {
		return err
	}
	return nil
}

// reloaded is the environment's decide.Options.Reloaded: a PolicyReload event, and a
// line in the daemon's log for a refused edit.
func (r *envRecorder) reloaded(policy string, err error) {
	if err != nil {
		r.log(fmt.Sprintf("policy %s: the edit was refused, the last good policy stays in force: %v", policy, err))
	}
	r.bus.Publish(context.Background(), events.PolicyReload{Policy: policy, Err: err})
}

// mirrorLoop imports the log into the database at once, then mirrorGather after a
// decision wakes it and every mirrorPoll (for the records of other processes), and
// applies the retention setting at once and every pruneEvery, until stop is closed. An
// import under way is finished, not cut off.
func (r *envRecorder) mirrorLoop() {
	defer close(r.done)
	ctx := context.Background()
	tick := time.NewTicker(mirrorPoll)
	defer tick.Stop()
	var pruned time.Time
	for {
		r.mirror.sync(ctx)
		if r.mirror.retention > 0 && time.Since(pruned) >= pruneEvery {
			pruned = time.Now()
			r.mirror.prune(ctx)
		}
		select {
		case <-r.stop:
			return
		case <-tick.C:
		case <-r.mirror.woken:
			gather := time.NewTimer(mirrorGather)
			select {
			case <-r.stop:
				gather.Stop()
				return
			case <-gather.C:
			}
		}
	}
}

// close drains the bus, imports what is left and closes the database. Calls after the
// first do nothing.
func (r *envRecorder) close() { r.closed.Do(r.closeOnce) }

func (r *envRecorder) closeOnce() {
	ctx, cancel := context.WithTimeout(context.Background(), daemonDrainWait)
	defer cancel()
	if err := r.bus.Close(ctx); err != nil {
		r.log("warning: " + err.Error())
	}
	r.otlp.close(ctx, r.log)
	close(r.stop)
	<-r.done
	r.mirror.sync(ctx)
	r.ship.stop()
	r.mirror.close()
}

// status is the environment's audit for `moat daemon status`.
func (r *envRecorder) status(ctx context.Context) daemon.AuditStatus {
	st := r.mirror.status(ctx)
	st.Ship = r.ship.status(ctx)
	for _, s := range r.bus.Stats() {
		st.Sinks = append(st.Sinks, daemon.Sink{Name: s.Name, Lossy: s.Lossy, Delivered: s.Delivered, Failed: s.Failed, Dropped: s.Dropped})
	}
	st.OTLP = r.otlp.status()
	return st
}

// auditMirror keeps an environment's audit database a copy of its JSONL log: the same
// lines under the same numbers, imported in the log's order from wherever they came
// (the daemon, or a process that wrote the log without it).
type auditMirror struct {
	logPath, dbPath string
	retention       time.Duration
	keepUnshipped   bool // prune keeps what the fleet's database has not acknowledged
	now             func() time.Time
	log             func(string)
	report          func(error) // counts a failure in the metrics
	// imported, when set, is told after records were imported (the dashboard's live
	// pages).
	imported func()

	woken chan struct{} // a decision was appended to the log: import it

	mu       sync.Mutex
	db       *auditdb.DB // nil until opened
	tail     *audit.Tail // nil: read the log from its start
	pending  [][]byte    // lines read, not yet stored
	failing  string      // the failure last logged; empty while the mirror works
	failures atomic.Uint64
	imports  atomic.Uint64 // transactions that imported lines (for tests of batching)
}

// wake asks the mirror loop to import what the log has gained, without waiting.
func (m *auditMirror) wake() {
	select {
	case m.woken <- struct{}{}:
	default: // woken already: that import reads this record too
	}
}

func (m *auditMirror) sync(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.syncLocked(ctx)
}

func (m *auditMirror) syncLocked(ctx context.Context) error {
	err := m.importLocked(ctx)
	switch {
	case err != nil:
		m.failures.Add(1)
		if m.report != nil {
			m.report(err)
		}
		if msg := err.Error(); msg != m.failing {
			m.failing = msg
			m.log("warning: audit database: " + msg + "; the JSONL log keeps every record, and the database imports them once it works")
		}
	case m.failing != "":
		m.failing = ""
		m.log("audit database: importing again")
	}
	return err
}

func (m *auditMirror) importLocked(ctx context.Context) error {
	if m.db == nil {
		db, err := auditdb.Open(ctx, auditdb.Options{Path: m.dbPath, Redactor: scan.Redactor{}, Now: m.now, Retention: auditdb.Retention{MaxAge: m.retention, KeepUnshipped: m.keepUnshipped}})
		if err != nil {
			return err
		}
		m.db = db
	}
	if m.tail == nil {
		m.tail = audit.NewTail(m.logPath)
	}
	err := m.tail.Next(func(line []byte, _ audit.Record) error {
		m.pending = append(m.pending, bytes.Clone(line))
		return nil
	}, nil)
	if err != nil {
		// Read again from the start next time: the import skips what it holds.
		m.tail.Close()
		m.tail = nil
	}
	for len(m.pending) > 0 {
		n := min(len(m.pending), importBatch)
		if _, ierr := m.db.Import(ctx, m.pending[:n]); ierr != nil {
			if len(m.pending) > maxPendingLines {
				m.pending = nil
				if m.tail != nil {
					m.tail.Close()
					m.tail = nil
				}
			}
			return errors.Join(err, ierr)
		}
		m.imports.Add(1)
		m.pending = m.pending[n:]
		if m.imported != nil {
			m.imported()
		}
	}
	m.pending = nil
	return err
}

func (m *auditMirror) prune(ctx context.Context) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.db == nil {
		return
	}
	n, err := m.db.Prune(ctx)
	switch {
	case err != nil:
		m.log("warning: " + err.Error())
	case n > 0:
		m.log(fmt.Sprintf("audit database: removed %d records older than %s (the JSONL log keeps its own)", n, m.retention))
	}
}

func (m *auditMirror) close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tail != nil {
		m.tail.Close()
	}
	if m.db != nil {
		if err := m.db.Close(); err != nil {
			m.log("warning: " + err.Error())
		}
		m.db = nil
	}
}

func (m *auditMirror) status(ctx context.Context) daemon.AuditStatus {
	st := daemon.AuditStatus{Log: m.logPath, DB: m.dbPath}
	m.mu.Lock()
	db, failing := m.db, m.failing
	defer m.mu.Unlock()
	st.Error = failing
	if db == nil {
		return st
	}
	var err error
	if st.Rows, err = db.Count(ctx); err == nil {
		st.CaughtUp, err = dbCaughtUp(ctx, db, m.logPath)
	}
	if err != nil && st.Error == "" {
		st.Error = err.Error()
	}
	return st
}

// dbCaughtUp reports whether db holds (or has pruned) the newest record of the JSONL log
// at logPath: then it holds every record of the log that the log still holds, since it
// imports them in order. A log without records is caught up with by any database.
func dbCaughtUp(ctx context.Context, db *auditdb.DB, logPath string) (bool, error) {
	line, r, err := audit.LastLine(logPath)
	if err != nil || line == nil {
		return err == nil, err
	}
	return db.Holds(ctx, r.Seq, audit.ChainOf(line))
}

// writeSinkStatus adds the daemon's sinks to `moat daemon status`.
func writeSinkStatus(w io.Writer, st *daemon.SinkStatus) {
	if st == nil {
		return
	}
	if st.Metrics != "" {
		fmt.Fprintf(w, "  metrics    http://%s/metrics\n", st.Metrics)
	}
	if st.Notify {
		fmt.Fprintf(w, "  notify     on\n")
	}
	for _, au := range st.Audit {
		state := "caught up with the log"
		if !au.CaughtUp {
			state = "behind the log"
		}
		fmt.Fprintf(w, "  audit      %s\n  audit db   %s (%d rows, %s)\n", au.Log, au.DB, au.Rows, state)
		if au.Error != "" {
			fmt.Fprintf(w, "  audit db   error: %s\n", au.Error)
		}
		writeShipStatus(w, au.Ship)
		writeOTLPStatus(w, au.OTLP)
		var parts []string
		for _, s := range au.Sinks {
			part := fmt.Sprintf("%s %d", s.Name, s.Delivered)
			if s.Failed > 0 {
				part += fmt.Sprintf(" (%d failed)", s.Failed)
			}
			if s.Dropped > 0 {
				part += fmt.Sprintf(" (%d dropped)", s.Dropped)
			}
			parts = append(parts, part)
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "  events     %s\n", strings.Join(parts, ", "))
		}
	}
}
