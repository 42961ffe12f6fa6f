package daemon

import "time"

// PolicyBundleStatus is the fleet's signed policy bundle of each environment the daemon
// serves whose fleet.yaml configures `policy:`.
type PolicyBundleStatus struct {
	Environments []BundleStatus `json:"environments"`
}

// BundleStatus is one environment's policy bundle: the one in force and the last check.
type BundleStatus struct {
	// State is the environment's state directory, which keeps the bundle.
	State string `json:"state"`
	// Source is where the bundle is fetched from (a URL, or a database's host and name).
	Source string `json:"source"`
	// InForce says a bundle decides as the managed layer; Serial and KeyID are its.
	InForce bool   `json:"in_force"`
	Serial  int64  `json:"serial,omitempty"`
	KeyID   string `json:"key_id,omitempty"`
	// FetchedAt is when the bundle in force was fetched; LastCheck when the source was
	// last asked.
	FetchedAt time.Time `json:"fetched_at,omitzero"`
	LastCheck time.Time `json:"last_check,omitzero"`
	// LastError is why the last check put nothing new in force, and LastReason the
	// refusal's reason (see package bundle); Problem is what is wrong with the kept
	// bundle itself, or that none was fetched yet.
	LastError  string `json:"last_error,omitempty"`
	LastReason string `json:"last_reason,omitempty"`
	Problem    string `json:"problem,omitempty"`
	// Refused counts the bundles refused since the daemon started, by reason.
	Refused map[string]uint64 `json:"refused,omitempty"`
}
