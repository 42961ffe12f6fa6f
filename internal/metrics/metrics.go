package metrics

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/events"
)

// Options shape a Metrics. Every field may be left zero.
type Options struct {
	// Rules are rule ids known in advance (the rules of the policies in force), given
	// their own label value first.
	Rules []string
	// MaxRules bounds how many rule ids besides the reserved ones ("default",
	// "fail-closed", …) get their own label value; later ones are counted as "other".
	// Zero means DefaultMaxRules.
	MaxRules int
	// AuditSink is the name the audit sink has on the bus: its failures count as audit
	// write errors. Empty means "audit".
	AuditSink string
	// AuditSinks name more audit sinks whose failures count as audit write errors (the
	// daemon's database beside its JSONL log).
	AuditSinks []string
}

// DefaultMaxRules is Options.MaxRules when left zero.
const DefaultMaxRules = 256

// maxSinks bounds the sink names given their own label value.
const maxSinks = 16

// reservedRules are the rule ids moat itself gives decisions, always their own label.
var reservedRules = []string{call.RuleDefault, call.RuleFailClosed, call.RuleFailOpen, "output-scan", "prompt-scan", "mcp-records-dropped"}

// Metrics are moat's metric families, and the events.Sink that feeds them. They are
// written in Prometheus's text exposition format by this package itself: Prometheus's
// client library registers collectors and protobuf descriptors when a process starts,
// which every moat process (each hook call among them) would pay for a daemon-only
// feature. It is safe for concurrent use.
type Metrics struct {
	auditSinks map[string]bool
	rules      *boundedSet
	sinks      *boundedSet
	methods    *boundedSet

	decisions    *family
	latency      *family
	roundTrip    *family
	reloads      *family
	reloadErrors *family
	auditErrors  *family
	sinkErrors   *family
	dropped      *family
	requests     *family
	ship         *shipFamilies
	bundle       *bundleFamilies

	// families are the above, sorted by name: the order of the exposition.
	families []*family
}

var _ events.Sink = (*Metrics)(nil)

// New returns the metrics, all at zero. Each Metrics is independent of every other:
// nothing is registered anywhere.
func New(opts Options) *Metrics {
	maxRules := opts.MaxRules
	if maxRules <= 0 {
		maxRules = DefaultMaxRules
	}
	m := &Metrics{
		auditSinks: map[string]bool{cmp.Or(opts.AuditSink, "audit"): true},
		rules:      newBoundedSet(maxRules, reservedRules...),
		sinks:      newBoundedSet(maxSinks),
		methods:    newBoundedSet(maxMethods),
	}
	for _, name := range opts.AuditSinks {
		m.auditSinks[name] = true
	}
	for _, r := range opts.Rules {
		m.rules.label(r)
	}
	m.decisions = newCounter("moat_decisions_total",
		"Decisions made, by verdict, rule, agent and class; a rule, agent or class outside the known set is counted as \"other\".",
		"verdict", "rule", "agent", "class")
	m.latency = newHistogram("moat_decision_latency_seconds",
		"Time taken to evaluate a call, by class.",
		// From the engine's warm path (tens of microseconds) to a slow policy compile.
		[]float64{10e-6, 25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 50e-3, 100e-3, 250e-3, 1},
		"class")
	m.roundTrip = newHistogram("moat_hook_round_trip_seconds",
		"Hook client round trips, from reading the agent's payload to answering, by agent and by path (daemon, or fallback to moat hook).",
		// A warm daemon answers in about a millisecond; a fallback starts moat.
		[]float64{250e-6, 500e-6, 1e-3, 2e-3, 5e-3, 10e-3, 20e-3, 50e-3, 100e-3, 250e-3, 500e-3, 1, 2.5},
		"agent", "path")
	m.reloads = newCounter("moat_policy_reloads_total",
		"Policy files recompiled after a change, whether or not the new content was valid.")
	m.reloadErrors = newCounter("moat_policy_reload_errors_total",
		"Policy changes refused as invalid: the last good policy stayed in force.")
	m.auditErrors = newCounter("moat_audit_write_errors_total",
		"Decisions whose audit record could not be written (spooled records included).")
	m.sinkErrors = newCounter("moat_event_sink_errors_total",
		"Events a sink failed on or panicked on, and slow deliveries to a lossless sink, by sink and reason.",
		"sink", "reason")
	m.dropped = newCounter("moat_events_dropped_total",
		"Events a lossy sink (metrics, notifications) never received because its buffer was full, by sink.",
		"sink")
	m.requests = newHistogram("moat_daemon_request_seconds",
		"Daemon requests, from reading the request to writing its answer as the daemon sees it, by method and outcome (ok or error).",
		// A decision over the socket takes tens of microseconds; a first policy compile more.
		[]float64{25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 100e-3, 250e-3, 1},
		"method", "outcome")
	m.ship = newShipFamilies()
	m.bundle = newBundleFamilies()
	m.families = []*family{m.decisions, m.latency, m.roundTrip, m.reloads, m.reloadErrors, m.auditErrors, m.sinkErrors, m.dropped, m.requests}
	m.families = append(m.families, m.ship.families()...)
	m.families = append(m.families, m.bundle.families()...)
	slices.SortFunc(m.families, func(a, b *family) int { return cmp.Compare(a.name, b.name) })
	return m
}

// Handle counts one event: the events.Sink the bus hands events to.
func (m *Metrics) Handle(_ context.Context, ev events.Event) error {
	switch ev := ev.(type) {
	case events.Decision:
		r := ev.Record
		class := classLabel(r.Class)
		m.decisions.inc(verdictLabel(r.Decision), m.rules.label(r.Rule), agentLabel(r.Agent), class)
		if r.LatencyMS >= 0 {
			m.latency.observe(r.LatencyMS/1e3, class)
		}
	case events.PolicyReload:
		m.reloads.inc()
		if ev.Err != nil {
			m.reloadErrors.inc()
		}
	case events.AuditWriteError:
		m.auditErrors.inc()
	case events.RoundTrip:
		path := "daemon"
		if ev.Fallback {
			path = "fallback"
		}
		m.roundTrip.observe(ev.Duration.Seconds(), agentLabel(ev.Agent), path)
	case events.SinkError:
		reason := "error"
		switch {
		case errors.Is(ev.Err, events.ErrSlow):
			reason = "slow"
		case errors.Is(ev.Err, events.ErrPanicked):
			reason = "panic"
		}
		m.sinkErrors.inc(m.sinks.label(ev.Sink), reason)
		if m.auditSinks[ev.Sink] && reason != "slow" {
			m.auditErrors.inc()
		}
	}
	return nil
}

// maxMethods bounds the daemon method names given their own label value.
const maxMethods = 32

// Request observes one daemon request as the server answered it: its method (empty for
// a request in the seeds' format, counted as "seed"), how long it took, and whether it
// was answered with an error. It is the daemon server's observer.
func (m *Metrics) Request(method string, took time.Duration, err error) {
	outcome := "ok"
	if err != nil {
		outcome = "error"
	}
	m.requests.observe(took.Seconds(), m.methods.label(cmp.Or(method, "seed")), outcome)
}

// Dropped counts an event a lossy sink's full buffer dropped: events.Options.OnDrop.
func (m *Metrics) Dropped(sink string, _ events.Event) {
	m.dropped.inc(m.sinks.label(sink))
}

// WriteText writes the metrics in Prometheus's text exposition format, version 0.0.4
// (ContentType): the families sorted by name, each family's series by their label values.
func (m *Metrics) WriteText(w io.Writer) error {
	if _, err := w.Write(m.appendText(nil)); err != nil {
		return fmt.Errorf("metrics: writing the exposition: %w", err)
	}
	return nil
}

func (m *Metrics) appendText(b []byte) []byte {
	for _, f := range m.families {
		b = f.appendText(b)
	}
	return b
}
