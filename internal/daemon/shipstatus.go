package daemon

import "time"

// ShipStatus is an environment's audit shipping to the fleet's PostgreSQL database
// (fleet.yaml's audit section): AuditStatus.Ship, nil when the environment ships nothing.
type ShipStatus struct {
	// Config is the fleet configuration that asks for it.
	Config string `json:"config"`
	// Target is the database as host:port/name; it never holds a password.
	Target string `json:"target,omitempty"`
	// MachineID is the installation's id, which keys its records.
	MachineID string `json:"machine_id,omitempty"`
	// Shipped counts the records stored since the daemon started.
	Shipped uint64 `json:"shipped"`
	// Backlog counts the records of the audit database not yet acknowledged.
	Backlog int64 `json:"backlog"`
	// LastSuccess is when a batch was last stored or the backlog found empty.
	LastSuccess *time.Time `json:"last_success,omitempty"`
	// LastError is the current failure (the database is down, not migrated, or the
	// configuration is wrong); empty while shipping works.
	LastError string `json:"last_error,omitempty"`
	// Refused counts the records the database refused for their values (a value too
	// large for an index, text its encoding cannot hold), set aside since the daemon
	// started: they stay in this machine's audit only. LastRefused names the last and why.
	Refused     uint64 `json:"refused,omitempty"`
	LastRefused string `json:"last_refused,omitempty"`
}
