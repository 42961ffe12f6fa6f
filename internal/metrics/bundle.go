package metrics

// bundleFamilies are the metrics of the fleet's signed policy bundle.
type bundleFamilies struct {
	serial  *family
	refused *family
}

func newBundleFamilies() *bundleFamilies {
	return &bundleFamilies{
		serial: newFamily(gaugeKind, "moat_policy_bundle_serial",
			"Serial of the fleet's signed policy bundle in force (0: none yet).", nil, nil),
		refused: newCounter("moat_policy_bundles_refused_total",
			"Policy bundles fetched and refused (the last good one stayed in force), by reason: fetch, unsigned, malformed, wrong_key, signature, no_serial, rollback, compile, keep.",
			"reason"),
	}
}

func (b *bundleFamilies) families() []*family { return []*family{b.serial, b.refused} }

// BundleInForce sets the serial of the policy bundle in force.
func (m *Metrics) BundleInForce(serial int64) {
	if serial < 0 {
		serial = 0
	}
	m.bundle.serial.set(uint64(serial))
}

// BundleRefused counts a bundle refused for reason, one of the bundle package's nine
// (a closed set, so the label's values stay bounded).
func (m *Metrics) BundleRefused(reason string) {
	m.bundle.refused.inc(reason)
}
