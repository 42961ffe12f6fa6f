package metrics

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

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

// Metrics is a Prometheus registry of moat's metrics, and the events.Sink that feeds it.
// It is safe for concurrent use.
type Metrics struct {
	reg        *prometheus.Registry
	auditSinks map[string]bool
	rules      *boundedSet
	sinks      *boundedSet
	methods    *boundedSet

	decisions    *prometheus.CounterVec
	latency      *prometheus.HistogramVec
	roundTrip    *prometheus.HistogramVec
	reloads      prometheus.Counter
	reloadErrors prometheus.Counter
	auditErrors  prometheus.Counter
	sinkErrors   *prometheus.CounterVec
	dropped      *prometheus.CounterVec
	requests     *prometheus.HistogramVec
}

var _ events.Sink = (*Metrics)(nil)

// New returns the metrics, registered on a registry of their own (never Prometheus's
// global one, which any imported package may write to).
func New(opts Options) *Metrics {
	maxRules := opts.MaxRules
	if maxRules <= 0 {
		maxRules = DefaultMaxRules
	}
	m := &Metrics{
		reg:        prometheus.NewRegistry(),
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
	m.decisions = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "moat_decisions_total",
		Help: "Decisions made, by verdict, rule, agent and class; a rule, agent or class outside the known set is counted as \"other\".",
	}, []string{"verdict", "rule", "agent", "class"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "moat_decision_latency_seconds",
		Help: "Time taken to evaluate a call, by class.",
		// From the engine's warm path (tens of microseconds) to a slow policy compile.
		Buckets: []float64{10e-6, 25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 50e-3, 100e-3, 250e-3, 1},
	}, []string{"class"})
	m.roundTrip = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "moat_hook_round_trip_seconds",
		Help: "Hook client round trips, from reading the agent's payload to answering, by agent and by path (daemon, or fallback to moat hook).",
		// A warm daemon answers in about a millisecond; a fallback starts moat.
		Buckets: []float64{250e-6, 500e-6, 1e-3, 2e-3, 5e-3, 10e-3, 20e-3, 50e-3, 100e-3, 250e-3, 500e-3, 1, 2.5},
	}, []string{"agent", "path"})
	m.reloads = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "moat_policy_reloads_total",
		Help: "Policy files recompiled after a change, whether or not the new content was valid.",
	})
	m.reloadErrors = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "moat_policy_reload_errors_total",
		Help: "Policy changes refused as invalid: the last good policy stayed in force.",
	})
	m.auditErrors = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "moat_audit_write_errors_total",
		Help: "Decisions whose audit record could not be written (spooled records included).",
	})
	m.sinkErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "moat_event_sink_errors_total",
		Help: "Events a sink failed on or panicked on, and slow deliveries to a lossless sink, by sink and reason.",
	}, []string{"sink", "reason"})
	m.dropped = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "moat_events_dropped_total",
		Help: "Events a lossy sink (metrics, notifications) never received because its buffer was full, by sink.",
	}, []string{"sink"})
	m.requests = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "moat_daemon_request_seconds",
		Help: "Daemon requests, from reading the request to writing its answer as the daemon sees it, by method and outcome (ok or error).",
		// A decision over the socket takes tens of microseconds; a first policy compile more.
		Buckets: []float64{25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 100e-3, 250e-3, 1},
	}, []string{"method", "outcome"})
	m.reg.MustRegister(m.decisions, m.latency, m.roundTrip, m.reloads, m.reloadErrors, m.auditErrors, m.sinkErrors, m.dropped, m.requests)
	return m
}

// Handle counts one event: the events.Sink the bus hands events to.
func (m *Metrics) Handle(_ context.Context, ev events.Event) error {
	switch ev := ev.(type) {
	case events.Decision:
		r := ev.Record
		class := classLabel(r.Class)
		m.decisions.WithLabelValues(verdictLabel(r.Decision), m.rules.label(r.Rule), agentLabel(r.Agent), class).Inc()
		if r.LatencyMS >= 0 {
			m.latency.WithLabelValues(class).Observe(r.LatencyMS / 1e3)
		}
	case events.PolicyReload:
		m.reloads.Inc()
		if ev.Err != nil {
			m.reloadErrors.Inc()
		}
	case events.AuditWriteError:
		m.auditErrors.Inc()
	case events.RoundTrip:
		path := "daemon"
		if ev.Fallback {
			path = "fallback"
		}
		m.roundTrip.WithLabelValues(agentLabel(ev.Agent), path).Observe(ev.Duration.Seconds())
	case events.SinkError:
		reason := "error"
		switch {
		case errors.Is(ev.Err, events.ErrSlow):
			reason = "slow"
		case errors.Is(ev.Err, events.ErrPanicked):
			reason = "panic"
		}
		m.sinkErrors.WithLabelValues(m.sinks.label(ev.Sink), reason).Inc()
		if m.auditSinks[ev.Sink] && reason != "slow" {
			m.auditErrors.Inc()
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
	m.requests.WithLabelValues(m.methods.label(cmp.Or(method, "seed")), outcome).Observe(took.Seconds())
}

// Dropped counts an event a lossy sink's full buffer dropped: events.Options.OnDrop.
func (m *Metrics) Dropped(sink string, _ events.Event) {
	m.dropped.WithLabelValues(m.sinks.label(sink)).Inc()
}

// Gatherer is the registry, for tests and for serving it some other way.
func (m *Metrics) Gatherer() prometheus.Gatherer { return m.reg }

// Handler serves the metrics in Prometheus's exposition formats. Serve it on a loopback
// listener only (see ListenLoopback): decisions name rules and agents.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		// An error in one metric answers the rest rather than nothing.
		ErrorHandling: promhttp.ContinueOnError,
		// The daemon serves one scraper; a stuck one must not pile up goroutines.
		MaxRequestsInFlight: 4,
		Timeout:             10 * time.Second,
	})
}
