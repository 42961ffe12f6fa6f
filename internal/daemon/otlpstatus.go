package daemon

import "time"

// OTLPStatus is one environment's export of decisions to an OpenTelemetry collector
// (fleet.yaml's otlp section). It never holds a header's value.
type OTLPStatus struct {
	// Endpoint is the collector's base URL.
	Endpoint string `json:"endpoint,omitempty"`
	// Exported counts the log records the collector accepted; Dropped those never
	// exported (a full queue, a refusal, retries run out); MetricExports the metric
	// requests accepted.
	Exported      uint64 `json:"exported"`
	Dropped       uint64 `json:"dropped"`
	MetricExports uint64 `json:"metric_exports"`
	// Rejected counts the log records the collector rejected in exports it accepted (an
	// OTLP partial success; they count as dropped too), and LastRejection is what it
	// said last of an export it did not take whole.
	Rejected      uint64 `json:"rejected,omitempty"`
	LastRejection string `json:"last_rejection,omitempty"`
	// LastError is the last failure (LastErrorAt when), and Failing says no export has
	// worked since. A fleet.yaml the daemon could not use is an error without endpoint.
	LastError   string    `json:"last_error,omitempty"`
	LastErrorAt time.Time `json:"last_error_at,omitzero"`
	Failing     bool      `json:"failing,omitempty"`
}
