// Package otlp exports moat's decisions to an OpenTelemetry collector over OTLP/HTTP:
// each decision as a log record, decision counts and latency as metrics, batched, from a
// bounded queue that drops rather than waits.
package otlp

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moatdev/moat/internal/audit"
)

// Defaults of the Options left zero.
const (
	DefaultInterval  = 10 * time.Second
	DefaultBatchWait = time.Second
	DefaultBatchSize = 512
	DefaultQueueSize = 4096
	// DefaultRetryFor bounds the retries of one export: past it the batch is dropped
	// and counted, so that a collector that is down costs a bounded backlog.
	DefaultRetryFor = time.Minute
	// DefaultTimeout bounds one HTTP request.
	DefaultTimeout = 10 * time.Second
)

const (
	// scopeNameMoat is the instrumentation scope of everything exported.
	scopeNameMoat = "github.com/moatdev/moat"
	// eventDecision is the event name of a decision's log record.
	eventDecision = "moat.decision"
)

// Identity is what the resource attributes say of this installation.
type Identity struct {
	// ServiceVersion is moat's version (service.version).
	ServiceVersion string
	// HostName is the fleet's name of the machine (host.name).
	HostName string
	// HostID is the installation's fleet id (host.id).
	HostID string
	// UserName is the user the daemon decides for (user.name).
	UserName string
}

// Options configure an Exporter.
type Options struct {
	// Endpoint is the collector's base URL; /v1/logs and /v1/metrics are appended.
	Endpoint string
	// Headers are sent with every request (an API key): never logged nor reported.
	Headers map[string]string
	// Client sends the requests; nil is a client with DefaultTimeout (see NewClient for
	// a collector whose certificate a private CA signed).
	Client Doer
	// Identity fills the resource attributes.
	Identity Identity
	// Interval is how often metrics are exported; zero is DefaultInterval.
	Interval time.Duration
	// BatchWait is how long a log record may wait for others to share its request;
	// zero is DefaultBatchWait.
	BatchWait time.Duration
	// BatchSize bounds the log records of one request; zero is DefaultBatchSize.
	BatchSize int
	// QueueSize bounds the records waiting to be exported; past it Offer drops them.
	// Zero is DefaultQueueSize.
	QueueSize int
	// RetryFor bounds the retries of one request; zero is DefaultRetryFor.
	RetryFor time.Duration
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Log, when set, is told when exports start failing and when they work again (once
	// per change, without header values).
	Log func(string)
}

// Status is what an Exporter has done, for `moat daemon status`.
type Status struct {
	Endpoint string
	// Exported counts the log records the collector accepted.
	Exported uint64
	// Dropped counts the log records never exported: the queue was full, the collector
	// refused or rejected them, or the retries ran out. Rejected counts those the
	// collector rejected in an export it accepted (an OTLP partial success), and
	// LastRejection says what it said last of an export's rejected or doubtful part.
	Dropped       uint64
	Rejected      uint64
	LastRejection string
	// MetricExports counts the metric requests the collector accepted.
	MetricExports uint64
	// LastError is the last failure, and LastErrorAt when it happened; Failing says
	// the exports fail still (no export has worked since).
	LastError   string
	LastErrorAt time.Time
	Failing     bool
}

// Exporter exports decisions from its own goroutine. Offer never blocks, so a decision
// is never slowed by a collector that is slow or away. It is safe for concurrent use.
type Exporter struct {
	opts     Options
	logsURL  string
	metsURL  string
	queue    chan audit.Record
	stop     chan struct{} // closed by Close: flush and end
	done     chan struct{} // closed when run has ended
	ctx      context.Context
	cancel   context.CancelFunc
	closing  sync.Once
	started  time.Time
	exported atomic.Uint64
	dropped  atomic.Uint64
	rejected atomic.Uint64
	metrics  atomic.Uint64

	mu            sync.Mutex
	lastErr       string
	lastErrAt     time.Time
	failing       bool
	lastRejection string

	// Owned by run.
	agg aggregate
}

// New starts an exporter; Close ends it.
func New(opts Options) (*Exporter, error) {
	u, err := url.Parse(opts.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("otlp: endpoint %q: want an http(s):// base URL", opts.Endpoint)
	}
	if opts.Client == nil {
		opts.Client = defaultClient()
	}
	opts.Interval = cmp.Or(opts.Interval, DefaultInterval)
	opts.BatchWait = cmp.Or(opts.BatchWait, DefaultBatchWait)
	opts.BatchSize = cmp.Or(opts.BatchSize, DefaultBatchSize)
	opts.QueueSize = cmp.Or(opts.QueueSize, DefaultQueueSize)
	opts.RetryFor = cmp.Or(opts.RetryFor, DefaultRetryFor)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	base := strings.TrimRight(opts.Endpoint, "/")
	ctx, cancel := context.WithCancel(context.Background())
	e := &Exporter{
		opts: opts, logsURL: base + "/v1/logs", metsURL: base + "/v1/metrics",
		queue: make(chan audit.Record, opts.QueueSize), stop: make(chan struct{}), done: make(chan struct{}),
		ctx: ctx, cancel: cancel, started: opts.Now(), agg: newAggregate(),
	}
	go e.run()
	return e, nil
}

// Offer queues r for export, or drops it (counted) when the queue is full or the
// exporter is closed. It never blocks.
func (e *Exporter) Offer(r audit.Record) bool {
	select {
	case <-e.stop:
		e.dropped.Add(1)
		return false
	default:
	}
	select {
	case e.queue <- r:
		return true
	default:
		e.dropped.Add(1)
		return false
	}
}

// Close exports what is queued and the metrics a last time, waiting until ctx ends at
// most; what is left then is dropped. Calls after the first only wait.
func (e *Exporter) Close(ctx context.Context) error {
	e.closing.Do(func() { close(e.stop) })
	select {
	case <-e.done:
		return nil
	case <-ctx.Done():
		e.cancel()
		<-e.done
		return fmt.Errorf("otlp: closing: %w", ctx.Err())
	}
}

// Status reports the exporter's figures.
func (e *Exporter) Status() Status {
	e.mu.Lock()
	defer e.mu.Unlock()
	return Status{Endpoint: e.opts.Endpoint, Exported: e.exported.Load(), Dropped: e.dropped.Load(), MetricExports: e.metrics.Load(),
		Rejected: e.rejected.Load(), LastRejection: e.lastRejection,
		LastError: e.lastErr, LastErrorAt: e.lastErrAt, Failing: e.failing}
}

// run batches the queue into log requests and exports the metrics every Interval,
// until Close.
func (e *Exporter) run() {
	defer close(e.done)
	defer e.cancel()
	tick := time.NewTicker(e.opts.Interval)
	defer tick.Stop()
	wait := time.NewTimer(e.opts.BatchWait)
	wait.Stop()
	var batch []audit.Record
	flush := func() {
		wait.Stop()
		if len(batch) > 0 {
			e.exportLogs(batch)
			batch = batch[:0]
		}
	}
	// take counts r and batches it, exporting a full batch.
	take := func(r audit.Record) {
		e.agg.add(r)
		batch = append(batch, r)
		if len(batch) >= e.opts.BatchSize {
			flush()
		}
	}
	for {
		select {
		case r := <-e.queue:
			take(r)
			if len(batch) == 1 {
				wait.Reset(e.opts.BatchWait)
			}
		case <-wait.C:
			flush()
		case <-tick.C:
			e.exportMetrics()
		case <-e.stop:
			for {
				select {
				case r := <-e.queue:
					take(r)
					continue
				default:
				}
				break
			}
			flush()
			e.exportMetrics()
			return
		}
	}
}

func (e *Exporter) exportLogs(batch []audit.Record) {
	body := encodeLogs(logGroups(batch, e.opts.Identity, e.opts.Now()), e.opts.Identity.ServiceVersion)
	ans, err := e.send(e.logsURL, body)
	if err != nil {
		e.dropped.Add(uint64(len(batch)))
		e.failed(err)
		return
	}
	// Log records the collector rejected in an accepted export are dropped: sending
	// them again would be rejected again.
	rejected := uint64(min(max(ans.rejected, 0), int64(len(batch))))
	e.exported.Add(uint64(len(batch)) - rejected)
	e.dropped.Add(rejected)
	e.rejected.Add(rejected)
	e.partial("log records", ans)
	e.worked()
}

func (e *Exporter) exportMetrics() {
	groups := e.agg.groups(e.opts.Identity, e.dropped.Load())
	body := encodeMetrics(groups, e.opts.Identity.ServiceVersion, e.started, e.opts.Now())
	ans, err := e.send(e.metsURL, body)
	if err != nil {
		// Cumulative figures: the next export carries what this one would have.
		e.failed(err)
		return
	}
	e.metrics.Add(1)
	e.partial("metric data points", ans)
	e.worked()
}

// partial notes what the collector said of an accepted export of what when it was not a
// plain success (it rejected part of it, warned, or its answer could not be read): in
// the status, and in the log when it differs from the last one logged.
func (e *Exporter) partial(what string, ans answer) {
	var msg string
	switch {
	case ans.unreadable != nil:
		msg = fmt.Sprintf("the collector accepted the %s, but its answer could not be read: %v", what, ans.unreadable)
	case ans.rejected > 0:
		msg = fmt.Sprintf("the collector rejected %d %s", ans.rejected, what)
		if ans.message != "" {
			msg += ": " + ans.message
		}
	case ans.message != "":
		msg = fmt.Sprintf("the collector accepted the %s with a warning: %s", what, ans.message)
	default:
		return
	}
	e.mu.Lock()
	changed := msg != e.lastRejection
	e.lastRejection = msg
	e.mu.Unlock()
	if changed && e.opts.Log != nil {
		e.opts.Log("warning: otlp export to " + e.opts.Endpoint + ": " + msg)
	}
}

func (e *Exporter) failed(err error) {
	msg := err.Error()
	e.mu.Lock()
	changed := !e.failing || msg != e.lastErr
	e.lastErr, e.lastErrAt, e.failing = msg, e.opts.Now(), true
	e.mu.Unlock()
	if changed && e.opts.Log != nil {
		e.opts.Log("warning: otlp export to " + e.opts.Endpoint + ": " + msg)
	}
}

func (e *Exporter) worked() {
	e.mu.Lock()
	was := e.failing
	e.failing = false
	e.mu.Unlock()
	if was && e.opts.Log != nil {
		e.opts.Log("otlp export to " + e.opts.Endpoint + ": working again")
	}
}

// logGroups turns records into log records, one resource per agent, agents in order of
// name.
func logGroups(batch []audit.Record, id Identity, now time.Time) []resourceLogs {
	byAgent := map[string]*resourceLogs{}
	for _, r := range batch {
		g := byAgent[r.Agent]
		if g == nil {
			g = &resourceLogs{resource: resourceAttrs(id, r.Agent, true)}
			byAgent[r.Agent] = g
		}
		g.records = append(g.records, toLogRecord(r, now))
	}
	agents := make([]string, 0, len(byAgent))
	for a := range byAgent {
		agents = append(agents, a)
	}
	slices.Sort(agents)
	out := make([]resourceLogs, 0, len(agents))
	for _, a := range agents {
		out = append(out, *byAgent[a])
	}
	return out
}

// agentKey is the resource attribute (and log attribute) naming the agent.
const agentKey = "moat.agent"

// resourceAttrs are the attributes of the resource of agent's telemetry; withAgent is
// false for the exporter's own figures.
func resourceAttrs(id Identity, agent string, withAgent bool) []attr {
	out := []attr{strAttr("service.name", "moat")}
	for _, kv := range [][2]string{{"service.version", id.ServiceVersion}, {"host.name", id.HostName}, {"host.id", id.HostID}, {"user.name", id.UserName}} {
		if kv[1] != "" {
			out = append(out, strAttr(kv[0], kv[1]))
		}
	}
	if withAgent {
		out = append(out, strAttr(agentKey, cmp.Or(agent, "unknown")))
	}
	return out
}

// toLogRecord is the log record of one decision. It carries what a fleet needs to see
// which rule decided what, and nothing of the call's arguments or findings' matched
// text: those may hold secrets, and the audit log (redacted) keeps them.
func toLogRecord(r audit.Record, now time.Time) logRecord {
	decision := "invalid"
	if r.Decision.Valid() {
		decision = r.Decision.String()
	}
	sev, text := severity(decision, r.Failure)
	attrs := []attr{
		strAttr(agentKey, cmp.Or(r.Agent, "unknown")),
		strAttr("moat.decision", decision),
		strAttr("moat.rule", r.Rule),
		strAttr("moat.tool", r.Tool),
		strAttr("moat.class", r.Class),
		strAttr("moat.session", r.Session),
		strAttr("moat.policy", r.Policy),
		intAttr("moat.managed_serial", r.ManagedSerial),
		boolAttr("moat.failure", r.Failure),
	}
	if r.Answer != "" {
		attrs = append(attrs, strAttr("moat.answer", r.Answer))
	}
	if r.Seq != 0 {
		attrs = append(attrs, intAttr("moat.seq", int64(r.Seq)))
	}
	return logRecord{time: r.Time, observed: now, severity: sev, severityText: text, body: cmp.Or(r.Reason, decision), attrs: attrs}
}

// severity maps a decision to a log severity: a failure is an error, a deny a warning,
// an ask or audit information, an allow a debug line (the bulk of a fleet's records,
// which a collector may filter out by severity).
func severity(decision string, failure bool) (uint64, string) {
	switch {
	case failure:
		return severityError, "ERROR"
	case decision == "deny":
		return severityWarn, "WARN"
	case decision == "allow":
		return severityDebug, "DEBUG"
	case decision == "ask" || decision == "audit":
		return severityInfo, "INFO"
	default:
		return severityError, "ERROR"
	}
}

// errorLine is a response body made safe for a one-line error message.
func errorLine(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 200 {
		b = b[:200]
	}
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, string(b))
}

var errClosed = errors.New("otlp: the exporter is closing")
