package daemon

import (
	"errors"
	"time"

	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/hook"
)

// SinkStatus is where a daemon's decisions go besides the answer: Status shows it.
type SinkStatus struct {
	// Metrics is the loopback address the metrics are served on; empty when they are not.
	Metrics string `json:"metrics,omitempty"`
	// Notify says desktop notifications of asks and denies are on.
	Notify bool `json:"notify"`
	// Audit is one entry per environment served.
	Audit []AuditStatus `json:"audit,omitempty"`
}

// AuditStatus is the audit of one environment: its JSONL log, its database, and the
// sinks its decisions are published to.
type AuditStatus struct {
	Log string `json:"log"`
	DB  string `json:"db"`
	// Rows is how many records the database holds; CaughtUp says it holds the log's
	// newest record too.
	Rows     int64  `json:"rows"`
	CaughtUp bool   `json:"caught_up"`
	Error    string `json:"error,omitempty"`
	Sinks    []Sink `json:"sinks,omitempty"`
	// Ship is the shipping of the audit to the fleet's database; nil when off.
	Ship *ShipStatus `json:"ship,omitempty"`
	// OTLP is the environment's OpenTelemetry export; nil when its fleet.yaml asks for none.
	OTLP *OTLPStatus `json:"otlp,omitempty"`
}

// Sink is one sink's figures.
type Sink struct {
	Name      string `json:"name"`
	Lossy     bool   `json:"lossy"`
	Delivered uint64 `json:"delivered"`
	Failed    uint64 `json:"failed"`
	Dropped   uint64 `json:"dropped"`
}

// observed is what Options.Observe is told of one answered request: its method (as
// respond found it), how long it took, and the error it was answered with.
func observed(method string, resp any, took time.Duration) (string, time.Duration, error) {
	var err error
	switch r := resp.(type) {
	case decide.WireResponse:
		if r.Error != "" {
			err = errors.New(r.Error)
		}
	case hook.MoatError:
		err = errors.New(r.Error)
	}
	return method, took, err
}
