package metrics

import "testing"

func TestAuditShipping(t *testing.T) {
	steps := []struct {
		name                           string
		do                             func(m *Metrics)
		shipped, failures, refused, gb float64
	}{
		{"at zero", func(*Metrics) {}, 0, 0, 0, 0},
		{"shipped", func(m *Metrics) { m.AuditShipped(500); m.AuditShipped(20); m.AuditShipped(0) }, 520, 0, 0, 0},
		{"a failure", func(m *Metrics) { m.AuditShipFailed() }, 520, 1, 0, 0},
		{"a record refused", func(m *Metrics) { m.AuditShipRefused() }, 520, 1, 1, 0},
		{"two environments' backlogs add up", func(m *Metrics) { m.AuditShipBacklog("/a", 30); m.AuditShipBacklog("/b", 12) }, 520, 1, 1, 42},
		{"one set again", func(m *Metrics) { m.AuditShipBacklog("/a", 5) }, 520, 1, 1, 17},
		{"one caught up", func(m *Metrics) { m.AuditShipBacklog("/b", 0) }, 520, 1, 1, 5},
	}
	m := New(Options{})
	for _, s := range steps {
		s.do(m)
		fams := gather(t, m)
		if got := counter(t, fams, "moat_audit_shipped_total", nil); got != s.shipped {
			t.Errorf("%s: shipped %v, want %v", s.name, got, s.shipped)
		}
		if got := counter(t, fams, "moat_audit_ship_failures_total", nil); got != s.failures {
			t.Errorf("%s: failures %v, want %v", s.name, got, s.failures)
		}
		if got := counter(t, fams, "moat_audit_ship_refused_total", nil); got != s.refused {
			t.Errorf("%s: refused %v, want %v", s.name, got, s.refused)
		}
		if got := sample(t, fams, "moat_audit_ship_backlog", nil).GetGauge().GetValue(); got != s.gb {
			t.Errorf("%s: backlog %v, want %v", s.name, got, s.gb)
		}
	}
}
