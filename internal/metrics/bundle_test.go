package metrics

import "testing"

func TestBundleMetrics(t *testing.T) {
	m := New(Options{})
	if got := sample(t, gather(t, m), "moat_policy_bundle_serial", nil).GetGauge().GetValue(); got != 0 {
		t.Errorf("serial before any bundle = %v, want 0", got)
	}
	m.BundleInForce(3)
	m.BundleInForce(7)
	m.BundleRefused("rollback")
	m.BundleRefused("rollback")
	m.BundleRefused("signature")
	f := gather(t, m)
	if got := sample(t, f, "moat_policy_bundle_serial", nil).GetGauge().GetValue(); got != 7 {
		t.Errorf("serial = %v, want 7 (the last set)", got)
	}
	for reason, want := range map[string]float64{"rollback": 2, "signature": 1} {
		if got := sample(t, f, "moat_policy_bundles_refused_total", map[string]string{"reason": reason}).GetCounter().GetValue(); got != want {
			t.Errorf("refused{reason=%s} = %v, want %v", reason, got, want)
		}
	}
}
