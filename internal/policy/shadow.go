package policy

import "slices"

// Shadow is a rule of a policy that can never decide a call: an earlier rule matches
// every call it matches, and rules are tried in order.
type Shadow struct {
	Rule *Rule
	By   *Rule
}

// Shadowed lists the policy's own rules (those from its file, not its packs') that an
// earlier rule shadows. The check is sound, not complete: it reports a rule only when
// each condition of the earlier rule is one the later rule has as well, or a wider one
// (more agents, more tools, more command patterns), so a report is never wrong, but a
// rule shadowed in a subtler way (an earlier glob that covers a later one) is not found.
func (p *Policy) Shadowed() []Shadow {
	var out []Shadow
	for j, b := range p.Rules {
		if b.Origin != p.Source {
			continue
		}
		for _, a := range p.Rules[:j] {
			if covers(a, b) {
				out = append(out, Shadow{Rule: b, By: a})
				break
			}
		}
	}
	return out
}

// covers reports whether every call b matches is matched by a, which comes first.
func covers(a, b *Rule) bool {
	// A rule with a limit lets the calls within it through to the rules below; one with
	// argument conditions is not compared (its text does not hold the values).
	if a.Limit != nil || len(a.args) > 0 {
		return false
	}
	// An allow-like rule reads paths and findings as "all of them within", the others
	// as "any": the same text means the same test only under the same reading.
	if a.Decision.Permissive() != b.Decision.Permissive() {
		return false
	}
	for _, c := range b.classes {
		if !slices.Contains(a.classes, c) {
			return false
		}
	}
	if len(a.agents) > 0 && (len(b.agents) == 0 || !subset(b.agents, a.agents)) {
		return false
	}
	if a.tool != nil && (b.tool == nil || !subset(b.tool.text, a.tool.text)) {
		return false
	}
	if a.command != nil && (b.command == nil || !subset(patternTexts(b.command), patternTexts(a.command))) {
		return false
	}
	if a.paths != nil && (b.paths == nil || !sameSet(a.paths.text, b.paths.text)) {
		return false
	}
	if a.findings != nil && (b.findings == nil || !sameSet(a.findings.text, b.findings.text)) {
		return false
	}
	return true
}

func patternTexts(c *commandCond) []string {
	out := make([]string, len(c.patterns))
	for i, p := range c.patterns {
		out[i] = p.text
	}
	return out
}

// subset reports whether every element of small is in big.
func subset[T comparable](small, big []T) bool {
	for _, s := range small {
		if !slices.Contains(big, s) {
			return false
		}
	}
	return true
}

func sameSet[T comparable](x, y []T) bool { return subset(x, y) && subset(y, x) }
