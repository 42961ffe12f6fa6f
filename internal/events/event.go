package events

import (
	"errors"
	"time"

	"github.com/moatdev/moat/internal/audit"
)

// Event is something that happened in a long-lived moat process that its sinks may want
// to know. The set is closed: only this package adds kinds, so a sink's type switch can
// know every case.
type Event interface {
	// Kind names the event's type in reports and metrics ("decision", "policy-reload").
	Kind() string
	event()
}

// Decision is one decision, as the audit log records it (redaction is the log's job: a
// sink that shows the record to anyone redacts it itself).
type Decision struct {
	Record audit.Record
}

// PolicyReload is a policy file recompiled after it changed. Err is why the new content
// was refused (the last good policy then stays in force), or nil.
type PolicyReload struct {
	Policy string
	Err    error
}

// AuditWriteError is a record that did not reach the audit log when it was written
// outside the bus. Spooled says it was kept in a spool file, to be merged later.
type AuditWriteError struct {
	Err     error
	Spooled bool
}

// RoundTrip is one hook-client call as the client timed it: from reading the agent's
// payload to writing its answer. Fallback says the daemon did not answer and the client
// decided through `moat hook` instead.
type RoundTrip struct {
	Agent    string
	Duration time.Duration
	Fallback bool
}

// SinkError is published by the bus itself, to its lossy sinks, when a sink failed to
// take an event, panicked, or took longer than Options.SlowAfter (Err then wraps ErrSlow
// and the event was delivered).
type SinkError struct {
	Sink string
	// Event is the Kind of the event the sink failed on.
	Event string
	Err   error
}

func (Decision) Kind() string        { return "decision" }
func (PolicyReload) Kind() string    { return "policy-reload" }
func (AuditWriteError) Kind() string { return "audit-write-error" }
func (RoundTrip) Kind() string       { return "round-trip" }
func (SinkError) Kind() string       { return "sink-error" }

func (Decision) event()        {}
func (PolicyReload) event()    {}
func (AuditWriteError) event() {}
func (RoundTrip) event()       {}
func (SinkError) event()       {}

// Errors a SinkError or Publish wraps.
var (
	// ErrClosed is returned by Publish after Close.
	ErrClosed = errors.New("events: bus closed")
	// ErrSlow marks a lossless delivery that took longer than Options.SlowAfter.
	ErrSlow = errors.New("slow sink")
	// ErrPanicked marks a sink that panicked on an event.
	ErrPanicked = errors.New("sink panicked")
)
