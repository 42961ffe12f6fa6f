package metrics

import "sync"

// shipFamilies are the metrics of audit shipping to a fleet's database, summed over the
// daemon's environments.
type shipFamilies struct {
	shipped  *family
	failures *family
	refused  *family
	backlog  *family

	mu       sync.Mutex
	backlogs map[string]int64 // by environment
}

func newShipFamilies() *shipFamilies {
	return &shipFamilies{
		shipped: newCounter("moat_audit_shipped_total",
			"Audit records stored in the fleet's PostgreSQL database (records sent again after a lost answer are not counted twice)."),
		failures: newCounter("moat_audit_ship_failures_total",
			"Failed attempts to ship audit records to the fleet's database (it was down, refused the connection, or lacks the schema)."),
		refused: newCounter("moat_audit_ship_refused_total",
			"Audit records the fleet's database refused for their values and that were set aside (they stay in the machine's own audit)."),
		backlog: newFamily(gaugeKind, "moat_audit_ship_backlog",
			"Audit records kept in the audit database that the fleet's database has not acknowledged yet.", nil, nil),
		backlogs: map[string]int64{},
	}
}

func (f *shipFamilies) families() []*family {
	return []*family{f.shipped, f.failures, f.refused, f.backlog}
}

// set makes the gauge's value v. f.kind must be gaugeKind.
func (f *family) set(v uint64, values ...string) {
	if f.kind != gaugeKind || len(values) != len(f.labels) {
		return
	}
	f.mu.Lock()
	f.get(values).count = v
	f.mu.Unlock()
}

// AuditShipped counts n records stored in the fleet's database.
func (m *Metrics) AuditShipped(n int) {
	if n <= 0 {
		return
	}
	m.ship.shipped.mu.Lock()
	m.ship.shipped.get(nil).count += uint64(n)
	m.ship.shipped.mu.Unlock()
}

// AuditShipFailed counts one failed attempt to ship.
func (m *Metrics) AuditShipFailed() { m.ship.failures.inc() }

// AuditShipRefused counts one record the fleet's database refused, set aside.
func (m *Metrics) AuditShipRefused() { m.ship.refused.inc() }

// AuditShipBacklog sets the backlog of the environment env (any name that tells the
// environments apart, such as its state directory): the gauge is the sum over them. A
// stopped environment sets 0.
func (m *Metrics) AuditShipBacklog(env string, n int64) {
	f := m.ship
	f.mu.Lock()
	defer f.mu.Unlock()
	if n <= 0 {
		delete(f.backlogs, env)
	} else {
		f.backlogs[env] = n
	}
	var sum int64
	for _, v := range f.backlogs {
		sum += v
	}
	f.backlog.set(uint64(sum))
}
